#include "rewriter/hand_back.h"

#include "classfile/attributes.h"
#include "classfile/descriptors.h"
#include "classfile/opcodes.h"
#include "rewriter/runtime_api.h"
#include "rewriter/value_insns.h"

namespace duplex {
namespace {

bool is_primitive(VTag kind) {
  return kind != VTag::kObject;
}

// Primitive locals travel as longs: ints widened, floats and doubles by their raw bits.
void push_as_long(VTag kind, const HandBackCalls& calls, std::vector<Insn>& out) {
  switch (kind) {
    case VTag::kInteger:
      out.push_back(Insn::make(op::kI2l));
      break;
    case VTag::kFloat:
      out.push_back(Insn::make(op::kInvokestatic, calls.float_bits));
      out.push_back(Insn::make(op::kI2l));
      break;
    case VTag::kDouble:
      out.push_back(Insn::make(op::kInvokestatic, calls.double_bits));
      break;
    default:
      break;
  }
}

void long_to_kind(VTag kind, const HandBackCalls& calls, std::vector<Insn>& out) {
  switch (kind) {
    case VTag::kInteger:
      out.push_back(Insn::make(op::kL2i));
      break;
    case VTag::kFloat:
      out.push_back(Insn::make(op::kL2i));
      out.push_back(Insn::make(op::kInvokestatic, calls.bits_float));
      break;
    case VTag::kDouble:
      out.push_back(Insn::make(op::kInvokestatic, calls.bits_double));
      break;
    default:
      break;
  }
}

// The verification type of a method's return value, from its descriptor.
Result<VType> return_vtype(ConstantPool& pool, std::string_view method_descriptor) {
  std::string_view ret = return_type(method_descriptor);
  if (ret.empty()) return Error::plain("bad method descriptor");
  std::string as_parameter(1, '(');
  as_parameter.append(ret).append(")V");
  auto frame = initial_frame(pool, "", "", as_parameter, access::kStatic);
  if (!frame) return frame.error();
  if (frame->locals.size() != 1) return Error::plain("bad return type");
  return frame->locals[0];
}

// Restores entry e's locals from the buffer: primitives, then references (with the cast each
// slot's frame type needs), then nulls; the buffer's references are cleared after.
void emit_restore(const Frame& frame, const HandBackCalls& calls, std::vector<Insn>& out) {
  auto locals = locals_by_slot(frame);
  out.push_back(Insn::make(op::kInvokestatic, calls.resume_prims));
  for (const auto& [slot, t] : locals) {
    VTag kind = kind_of(t);
    if (!is_primitive(kind)) continue;
    out.push_back(Insn::make(op::kDup));
    out.push_back(push_int(slot));
    out.push_back(Insn::make(op::kLaload));
    long_to_kind(kind, calls, out);
    out.push_back(local_insn(true, kind, slot));
  }
  out.push_back(Insn::make(op::kPop));
  out.push_back(Insn::make(op::kInvokestatic, calls.resume_refs));
  for (const auto& [slot, t] : locals) {
    if (t.tag != VTag::kObject) continue;
    out.push_back(Insn::make(op::kDup));
    out.push_back(push_int(slot));
    out.push_back(Insn::make(op::kAaload));
    out.push_back(Insn::make(op::kCheckcast, static_cast<int32_t>(t.data)));
    out.push_back(local_insn(true, VTag::kObject, slot));
  }
  out.push_back(Insn::make(op::kPop));
  out.push_back(Insn::make(op::kInvokestatic, calls.resumed));
  for (const auto& [slot, t] : locals) {
    if (t.tag != VTag::kNull) continue;  // only null itself has the Null type
    out.push_back(Insn::make(op::kAconstNull));
    out.push_back(local_insn(true, VTag::kObject, slot));
  }
}

// [result, id] -> [id]
void drop_result_under_int(std::optional<VTag> result, std::vector<Insn>& out) {
  if (!result) return;
  if (slots_of(*result) == 1) {
    out.push_back(Insn::make(op::kSwap));
    out.push_back(Insn::make(op::kPop));
  } else {
    out.push_back(Insn::make(op::kDupX2));
    out.push_back(Insn::make(op::kPop));
    out.push_back(Insn::make(op::kPop2));
  }
}

}  // namespace

Result<HandBackCalls> HandBackCalls::make(ConstantPool& pool, std::string_view runtime_class) {
  HandBackCalls c;
  struct Wanted {
    uint16_t* slot;
    std::string_view owner, name, descriptor;
  };
  const Wanted wanted[] = {
      {&c.hand_back, runtime_class, runtime_api::kHandBack, runtime_api::kHandBackDesc},
      {&c.hand_back_refs, runtime_class, runtime_api::kHandBackRefs, runtime_api::kRefsDesc},
      {&c.resume_entry, runtime_class, runtime_api::kResumeEntry, runtime_api::kResumeEntryDesc},
      {&c.resume_prims, runtime_class, runtime_api::kResumePrims, runtime_api::kPrimsDesc},
      {&c.resume_refs, runtime_class, runtime_api::kResumeRefs, runtime_api::kRefsDesc},
      {&c.resumed, runtime_class, runtime_api::kResumed, runtime_api::kVoidDesc},
      {&c.float_bits, "java/lang/Float", "floatToRawIntBits", "(F)I"},
      {&c.bits_float, "java/lang/Float", "intBitsToFloat", "(I)F"},
      {&c.double_bits, "java/lang/Double", "doubleToRawLongBits", "(D)J"},
      {&c.bits_double, "java/lang/Double", "longBitsToDouble", "(J)D"},
  };
  for (const Wanted& w : wanted) {
    auto ref = pool.add_methodref(w.owner, w.name, w.descriptor);
    if (!ref) return ref.error();
    *w.slot = *ref;
  }
  return c;
}

void emit_hand_back(const OutlineLayout& layout, size_t e, const HandBackCalls& calls,
                    std::string_view method_descriptor, std::vector<Insn>& out) {
  const Frame& frame = layout.entries[e].frame;
  auto locals = locals_by_slot(frame);
  out.push_back(push_int(static_cast<int32_t>(e)));
  // The buffer is indexed by slot.
  out.push_back(push_int(static_cast<int32_t>(frame_slots(frame.locals))));
  out.push_back(Insn::make(op::kInvokestatic, calls.hand_back));
  for (const auto& [slot, t] : locals) {
    VTag kind = kind_of(t);
    if (!is_primitive(kind)) continue;
    out.push_back(Insn::make(op::kDup));
    out.push_back(push_int(slot));
    out.push_back(local_insn(false, kind, slot));
    push_as_long(kind, calls, out);
    out.push_back(Insn::make(op::kLastore));
  }
  out.push_back(Insn::make(op::kPop));
  bool any_refs = false;
  for (const auto& [slot, t] : locals) any_refs = any_refs || t.tag == VTag::kObject;
  if (any_refs) {
    out.push_back(Insn::make(op::kInvokestatic, calls.hand_back_refs));
    for (const auto& [slot, t] : locals) {
      if (t.tag != VTag::kObject) continue;
      out.push_back(Insn::make(op::kDup));
      out.push_back(push_int(slot));
      out.push_back(local_insn(false, VTag::kObject, slot));
      out.push_back(Insn::make(op::kAastore));
    }
    out.push_back(Insn::make(op::kPop));
  }
  auto result = return_kind(method_descriptor);
  if (result) out.push_back(zero_of(*result));
  out.push_back(return_for(method_descriptor));
}

Status emit_resume(const OutlineLayout& layout, const HandBackCalls& calls,
                   std::string_view method_descriptor, ConstantPool& pool, LabelId after,
                   const std::vector<LabelId>& resume_at, CodeIR& out) {
  if (resume_at.size() != layout.entries.size() || !hands_back(layout))
    return Error::plain("hand-back: one resume label per outline entry is needed");
  auto result = return_kind(method_descriptor);
  Frame at_after;
  if (result) {
    auto type = return_vtype(pool, method_descriptor);
    if (!type) return type.error();
    at_after.stack.push_back(*type);
  }
  out.labels[after].frame = at_after;
  // [result] -> [result, entry]; a negative entry: the twin returned.
  LabelId give_result = out.new_label();
  Frame at_return = at_after;
  at_return.stack.push_back(VType{VTag::kInteger});
  out.labels[give_result].frame = at_return;
  out.insns.push_back(Insn::make(op::kInvokestatic, calls.resume_entry));
  out.insns.push_back(Insn::make(op::kDup));
  out.insns.push_back(Insn::make_branch(op::kIflt, give_result));
  drop_result_under_int(result, out.insns);
  // Entry 0 (the method entry) is never handed back to: the switch covers 1..n-1, and its
  // default (never taken) is entry 1's restore.
  SwitchTable table;
  table.low = 1;
  std::vector<LabelId> restores;
  for (size_t e = 1; e < layout.entries.size(); ++e) {
    restores.push_back(out.new_label());
    out.labels[restores.back()].frame = Frame{};
  }
  table.targets = restores;
  Insn sw = Insn::make_branch(op::kTableswitch, restores.front());
  sw.switch_index = static_cast<uint32_t>(out.switches.size());
  out.switches.push_back(std::move(table));
  out.insns.push_back(sw);
  for (size_t e = 1; e < layout.entries.size(); ++e) {
    out.insns.push_back(Insn::make_label(restores[e - 1]));
    emit_restore(layout.entries[e].frame, calls, out.insns);
    out.insns.push_back(Insn::make_branch(op::kGoto, resume_at[e]));
  }
  out.insns.push_back(Insn::make_label(give_result));
  out.insns.push_back(Insn::make(op::kPop));
  out.insns.push_back(return_for(method_descriptor));
  return Ok{};
}

}  // namespace duplex
