// Check sequences. The call form leaves the counter to Duplex.check(); the inline form does the
// decrement in place; the local form keeps the counter in a local so that a loop's checks
// carry no dependency through memory (a static field's load-decrement-store in every
// iteration serializes on store-to-load forwarding and keeps C2 from optimizing the loop).
#include "rewriter/check_emitter.h"

#include "classfile/opcodes.h"
#include "rewriter/runtime_api.h"
#include "rewriter/value_insns.h"

namespace duplex {

Result<CheckEmitter> CheckEmitter::make(ConstantPool& pool, std::string_view runtime_class,
                                        CheckForm form, int32_t counter_slot, bool flag_checks,
                                        bool exits) {
  CheckEmitter c;
  c.form_ = form;
  c.flag_ = flag_checks;
  c.exits_ = exits;
  if (exits) {
    auto tick = pool.add_methodref(runtime_class, runtime_api::kTick, runtime_api::kTickDesc);
    if (!tick) return tick.error();
    auto tick_entry =
        pool.add_methodref(runtime_class, runtime_api::kTickEntry, runtime_api::kTickDesc);
    if (!tick_entry) return tick_entry.error();
    c.tick_ = *tick;
    c.tick_entry_ = *tick_entry;
  }
  auto check = pool.add_methodref(runtime_class, runtime_api::kCheck, runtime_api::kCheckDesc);
  if (!check) return check.error();
  c.check_ = *check;
  auto entry = pool.add_methodref(runtime_class, runtime_api::kCheckEntry, runtime_api::kCheckDesc);
  if (!entry) return entry.error();
  c.check_entry_ = *entry;
  auto sampling =
      pool.add_fieldref(runtime_class, runtime_api::kSampling, runtime_api::kSamplingDesc);
  if (!sampling) return sampling.error();
  c.sampling_ = *sampling;
  if (form == CheckForm::kCall) return c;
  auto counter = pool.add_fieldref(runtime_class, runtime_api::kCounter, runtime_api::kCounterDesc);
  if (!counter) return counter.error();
  auto fire = pool.add_methodref(runtime_class, runtime_api::kFire, runtime_api::kCheckDesc);
  if (!fire) return fire.error();
  c.counter_ = *counter;
  c.fire_ = *fire;
  if (form == CheckForm::kLocal) c.local_slot_ = counter_slot;
  return c;
}

void CheckEmitter::emit(CodeIR& ir, LabelId sample) const {
  if (flag_) return emit_flag(ir, sample);
  if (exits_) return emit_tick(ir, tick_, sample);
  if (form_ == CheckForm::kInline) return emit_inline(ir, sample);
  if (has_local()) return emit_local(ir, sample);
  emit_call(ir, sample);
}

void CheckEmitter::emit_entry(CodeIR& ir, LabelId sample) const {
  if (flag_) return emit_flag(ir, sample);
  if (exits_) return emit_tick(ir, tick_entry_, sample);
  // checkEntry() (which also clears the sampling flag), then with a local counter the reload,
  // which sees the entry's own decrement.
  ir.insns.push_back(Insn::make(op::kInvokestatic, check_entry_));
  emit_reload(ir);
  ir.insns.push_back(Insn::make_branch(op::kIfne, sample));
}

void CheckEmitter::emit_flag(CodeIR& ir, LabelId sample) const {
  ir.insns.push_back(Insn::make(op::kGetstatic, sampling_));
  ir.insns.push_back(Insn::make_branch(op::kIfne, sample));
}

void CheckEmitter::emit_set_sampling(CodeIR& ir, bool on) const {
  ir.insns.push_back(Insn::make(on ? op::kIconst1 : op::kIconst0));
  ir.insns.push_back(Insn::make(op::kPutstatic, sampling_));
}

void CheckEmitter::emit_reload(CodeIR& ir) const {
  if (!has_local()) return;
  ir.insns.push_back(Insn::make(op::kGetstatic, counter_));
  ir.insns.push_back(Insn::make(op::kIstore, local_slot_));
}

void CheckEmitter::emit_tick(CodeIR& ir, uint16_t method, LabelId sample) const {
  ir.insns.push_back(Insn::make(op::kInvokestatic, method));
  ir.insns.push_back(Insn::make_branch(op::kIfle, sample));
}

void CheckEmitter::emit_call(CodeIR& ir, LabelId sample) const {
  ir.insns.push_back(Insn::make(op::kInvokestatic, check_));
  ir.insns.push_back(Insn::make_branch(op::kIfne, sample));
}

void CheckEmitter::emit_inline(CodeIR& ir, LabelId sample) const {
  LabelId skip = ir.new_label();
  for (Insn i : {Insn::make(op::kGetstatic, counter_), Insn::make(op::kIconst1),
                 Insn::make(op::kIsub), Insn::make(op::kDup), Insn::make(op::kPutstatic, counter_),
                 Insn::make_branch(op::kIfgt, skip), Insn::make(op::kInvokestatic, fire_),
                 Insn::make_branch(op::kIfne, sample), Insn::make_label(skip)}) {
    ir.insns.push_back(i);
  }
}

// `--local; counter = local; if (local <= 0) { sample = fire(); local = counter; ... }`. The
// store keeps the shared counter current for callees and other methods; it is never read
// back here except after calls, so C2 keeps the local in a register.
void CheckEmitter::emit_local(CodeIR& ir, LabelId sample) const {
  LabelId skip = ir.new_label();
  for (Insn i : {Insn::make(op::kIinc, local_slot_, -1), Insn::make(op::kIload, local_slot_),
                 Insn::make(op::kDup), Insn::make(op::kPutstatic, counter_),
                 Insn::make_branch(op::kIfgt, skip), Insn::make(op::kInvokestatic, fire_),
                 Insn::make(op::kGetstatic, counter_), Insn::make(op::kIstore, local_slot_),
                 Insn::make_branch(op::kIfne, sample), Insn::make_label(skip)}) {
    ir.insns.push_back(i);
  }
}

Status CheckEmitter::add_local_to_frames(CodeIR& ir) const {
  if (!has_local()) return Ok{};
  const auto slot = static_cast<uint32_t>(local_slot_);
  for (LabelInfo& info : ir.labels) {
    if (!info.frame) continue;
    std::vector<VType>& locals = info.frame->locals;
    uint32_t used = frame_slots(locals);
    if (used > slot) return Error::plain("a frame already uses the local counter's slot");
    locals.insert(locals.end(), slot - used, VType{VTag::kTop});
    locals.push_back(VType{VTag::kInteger});
  }
  return Ok{};
}

}  // namespace duplex
