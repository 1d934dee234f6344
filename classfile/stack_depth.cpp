// compute_max_stack: operand-stack depths by dataflow over the IR's control-flow graph.
//
// Only depths are tracked (not types), so one linear walk per basic block suffices: a block
// is walked until it meets an instruction whose depth is already known (which must agree) or
// until control leaves it. Exception handlers start at depth 1 (the thrown object); a jsr
// target starts one deeper than the jsr (the return address) and the jsr's successor at the
// jsr's own depth, which is how every compiler that emitted jsr used it.
#include <string>
#include <vector>

#include "classfile/frames.h"
#include "classfile/opcodes.h"

namespace duplex {
namespace {

// Fixed stack effects in slots; kVar marks opcodes whose effect depends on an operand.
constexpr int16_t kVar = -1;
struct Effect {
  int16_t pop;
  int16_t push;
};

constexpr Effect fixed_effect(uint8_t o) {
  // Loads and constants.
  if (o == 0x00) return {0, 0};
  if (o <= 0x08) return {0, 1};  // aconst_null, iconst_*
  if (o <= 0x0a) return {0, 2};  // lconst_*
  if (o <= 0x0d) return {0, 1};  // fconst_*
  if (o <= 0x0f) return {0, 2};  // dconst_*
  if (o <= 0x13) return {0, 1};  // bipush, sipush, ldc, ldc_w
  if (o == 0x14) return {0, 2};  // ldc2_w
  if (o <= 0x19) return {0, (o == 0x16 || o == 0x18) ? int16_t{2} : int16_t{1}};
  if (o <= 0x2d) {  // xload_n: i, l, f, d, a groups of four
    int group = (o - 0x1a) / 4;
    return {0, (group == 1 || group == 3) ? int16_t{2} : int16_t{1}};
  }
  if (o <= 0x35) return {2, (o == 0x2f || o == 0x31) ? int16_t{2} : int16_t{1}};  // xaload
  // Stores.
  if (o <= 0x3a) return {(o == 0x37 || o == 0x39) ? int16_t{2} : int16_t{1}, 0};
  if (o <= 0x4e) {
    int group = (o - 0x3b) / 4;
    return {(group == 1 || group == 3) ? int16_t{2} : int16_t{1}, 0};
  }
  if (o <= 0x56) return {(o == 0x50 || o == 0x52) ? int16_t{4} : int16_t{3}, 0};  // xastore
  return {kVar, kVar};
}

constexpr Effect stack_ops_effect(uint8_t o) {
  switch (o) {
    case 0x57:
      return {1, 0};  // pop
    case 0x58:
      return {2, 0};  // pop2
    case 0x59:
      return {1, 2};  // dup
    case 0x5a:
      return {2, 3};  // dup_x1
    case 0x5b:
      return {3, 4};  // dup_x2
    case 0x5c:
      return {2, 4};  // dup2
    case 0x5d:
      return {3, 5};  // dup2_x1
    case 0x5e:
      return {4, 6};  // dup2_x2
    case 0x5f:
      return {2, 2};  // swap
  }
  return {kVar, kVar};
}

constexpr Effect arithmetic_effect(uint8_t o) {
  if (o >= 0x60 && o <= 0x73) {  // add, sub, mul, div, rem in i, l, f, d order
    bool wide = (o - 0x60) % 2 == 1;
    return wide ? Effect{4, 2} : Effect{2, 1};
  }
  if (o >= 0x74 && o <= 0x77) return (o % 2 == 1) ? Effect{2, 2} : Effect{1, 1};  // neg
  if (o >= 0x78 && o <= 0x7d) return (o % 2 == 1) ? Effect{3, 2} : Effect{2, 1};  // shifts
  if (o >= 0x7e && o <= 0x83) return (o % 2 == 1) ? Effect{4, 2} : Effect{2, 1};  // and/or/xor
  if (o == 0x84) return {0, 0};                                                   // iinc
  constexpr Effect kConversions[] = {{1, 2}, {1, 1}, {1, 2}, {2, 1}, {2, 1}, {2, 2}, {1, 1}, {1, 2},
                                     {1, 2}, {2, 1}, {2, 2}, {2, 1}, {1, 1}, {1, 1}, {1, 1}};
  if (o >= 0x85 && o <= 0x93) return kConversions[o - 0x85];
  if (o == 0x94 || o == 0x97 || o == 0x98) return {4, 1};  // lcmp, dcmpl, dcmpg
  if (o == 0x95 || o == 0x96) return {2, 1};               // fcmpl, fcmpg
  return {kVar, kVar};
}

constexpr Effect control_effect(uint8_t o) {
  if (o >= 0x99 && o <= 0x9e) return {1, 0};               // if<cond>
  if (o >= 0x9f && o <= 0xa6) return {2, 0};               // if_icmp*, if_acmp*
  if (o == 0xa7 || o == 0xa9 || o == 0xc8) return {0, 0};  // goto, ret, goto_w
  if (o == 0xa8 || o == 0xc9) return {0, 0};  // jsr: the push happens on the target edge
  if (o == 0xaa || o == 0xab) return {1, 0};  // switches
  if (o == 0xac || o == 0xae || o == 0xb0) return {1, 0};  // ireturn, freturn, areturn
  if (o == 0xad || o == 0xaf) return {2, 0};               // lreturn, dreturn
  if (o == 0xb1) return {0, 0};                            // return
  if (o == 0xc6 || o == 0xc7) return {1, 0};               // ifnull, ifnonnull
  return {kVar, kVar};
}

constexpr Effect object_effect(uint8_t o) {
  switch (o) {
    case 0xbb:
      return {0, 1};  // new
    case 0xbc:        // newarray
    case 0xbd:        // anewarray
    case 0xbe:        // arraylength
    case 0xc0:        // checkcast
    case 0xc1:
      return {1, 1};  // instanceof
    case 0xbf:        // athrow
    case 0xc2:        // monitorenter
    case 0xc3:
      return {1, 0};  // monitorexit
  }
  return {kVar, kVar};
}

constexpr Effect effect_of(uint8_t o) {
  if (o <= 0x56) return fixed_effect(o);
  if (o <= 0x5f) return stack_ops_effect(o);
  if (o <= 0x98) return arithmetic_effect(o);
  Effect e = control_effect(o);
  return e.pop != kVar ? e : object_effect(o);
}

// What the walk needs to know of an opcode besides its effect, in one table look-up.
enum Kind : uint8_t {
  kPlain,    // falls through, no other successor
  kBranch,   // branch (short or wide): target and fall-through (goto: target only)
  kJsr,      // jsr, jsr_w
  kSwitch,   // tableswitch, lookupswitch
  kEnds,     // returns, athrow, ret: no successor
  kInvalid,  // not an opcode the IR may hold (undefined, or the wide prefix)
};

struct EffectTable {
  Effect e[256];
  Kind kind[256];
  constexpr EffectTable() : e{}, kind{} {
    for (int o = 0; o < 256; ++o) {
      e[o] = effect_of(static_cast<uint8_t>(o));
      kind[o] = kind_of(static_cast<uint8_t>(o));
    }
  }
  static constexpr Kind kind_of(uint8_t o) {
    if (o == op::kJsr || o == op::kJsrW) return kJsr;
    if (o == op::kTableswitch || o == op::kLookupswitch) return kSwitch;
    if ((o >= op::kIfeq && o <= op::kGoto) || o == op::kIfnull || o == op::kIfnonnull ||
        o == op::kGotoW)
      return kBranch;
    if ((o >= op::kIreturn && o <= op::kReturn) || o == op::kAthrow || o == op::kRet) return kEnds;
    if (o > op::kJsrW || o == op::kWide) return kInvalid;
    return kPlain;
  }
};
constexpr EffectTable kEffects;

Error at_insn(const Insn& insn, size_t index, std::string reason) {
  if (insn.original_offset < 0) reason += " (inserted instruction #" + std::to_string(index) + ")";
  return Error::at_code(insn.original_offset, std::move(reason));
}

// Effects that need the constant pool: fields, invocations and multianewarray.
Result<Effect> variable_effect(const Insn& insn, size_t index, const ConstantPool& pool) {
  uint8_t o = static_cast<uint8_t>(insn.opcode);
  if (o == op::kMultianewarray) return Effect{static_cast<int16_t>(insn.b), 1};
  std::string_view desc;
  if (o == op::kInvokedynamic) {
    auto d = pool.dynamic_ref(static_cast<uint32_t>(insn.a));
    if (!d) return at_insn(insn, index, "invokedynamic names a bad pool entry");
    desc = d->descriptor;
  } else {
    auto m = pool.member_ref(static_cast<uint32_t>(insn.a));
    if (!m) return at_insn(insn, index, "instruction names a bad member reference");
    desc = m->descriptor;
  }
  if (o >= op::kGetstatic && o <= op::kPutfield) {
    int slots = descriptor_slots(desc);
    int16_t receiver = (o == op::kGetfield || o == op::kPutfield) ? 1 : 0;
    bool get = (o == op::kGetstatic || o == op::kGetfield);
    return get ? Effect{receiver, static_cast<int16_t>(slots)}
               : Effect{static_cast<int16_t>(receiver + slots), 0};
  }
  int params = parameter_slots(desc);
  size_t close = desc.rfind(')');
  if (params < 0 || close == std::string_view::npos) {
    return at_insn(insn, index, "bad method descriptor");
  }
  int receiver = (o == op::kInvokestatic || o == op::kInvokedynamic) ? 0 : 1;
  int ret = descriptor_slots(desc.substr(close + 1));
  return Effect{static_cast<int16_t>(params + receiver), static_cast<int16_t>(ret)};
}

class DepthWalker {
 public:
  DepthWalker(const CodeIR& ir, const ConstantPool& pool) : ir_(ir), pool_(pool) {}
  Result<uint16_t> run();

 private:
  Status index_labels();
  Status check_shape(const Insn& insn, size_t index) const;
  Status push(LabelId label, int32_t depth);
  Status walk(size_t start, int32_t depth);
  Status drain();  // walks until the work list is empty
  Result<bool> successors(const Insn& insn, Kind kind, int32_t depth);
  Result<int32_t> apply(const Insn& insn, size_t index, int32_t depth);

  const CodeIR& ir_;
  const ConstantPool& pool_;
  // Reused per thread: this runs for every assembled method.
  struct Scratch {
    std::vector<uint32_t> label_pos;
    std::vector<int32_t> depth;
    std::vector<std::pair<uint32_t, int32_t>> work;
  };
  static Scratch& scratch() {
    thread_local Scratch s;
    return s;
  }
  Scratch& scratch_ = scratch();
  std::vector<uint32_t>& label_pos_ = scratch_.label_pos;  // by LabelId: index in insns
  std::vector<int32_t>& depth_ = scratch_.depth;           // by insn index: -1 until reached
  std::vector<std::pair<uint32_t, int32_t>>& work_ = scratch_.work;
  int32_t max_ = 0;
};

// Rejects what the IR may not hold, so the effect table is only consulted for real opcodes.
Status DepthWalker::check_shape(const Insn& insn, size_t index) const {
  OperandShape shape = opcode_info(static_cast<uint8_t>(insn.opcode)).shape;
  if (insn.opcode > 0xFF || shape == OperandShape::kInvalid || shape == OperandShape::kWide) {
    return at_insn(insn, index, "invalid opcode " + std::to_string(insn.opcode) + " in the IR");
  }
  if (is_switch(static_cast<uint8_t>(insn.opcode)) && insn.switch_index >= ir_.switches.size()) {
    return at_insn(insn, index, "switch names a missing table");
  }
  return Ok{};
}

Status DepthWalker::index_labels() {
  label_pos_.assign(ir_.labels.size(), UINT32_MAX);
  for (size_t i = 0; i < ir_.insns.size(); ++i) {
    const Insn& insn = ir_.insns[i];
    if (!insn.is_label()) continue;
    if (insn.label() >= label_pos_.size()) return at_insn(insn, i, "unknown label");
    label_pos_[insn.label()] = static_cast<uint32_t>(i);
  }
  return Ok{};
}

Status DepthWalker::push(LabelId label, int32_t depth) {
  if (label >= label_pos_.size() || label_pos_[label] == UINT32_MAX) {
    return Error::plain("label L" + std::to_string(label) + " is used but never placed");
  }
  work_.emplace_back(label_pos_[label], depth);
  return Ok{};
}

// Effects of pool-dependent instructions by (opcode kind, pool index), per thread. A pool's
// entries never change once added and a pool id is never reused, so an entry stays valid
// for as long as the pool id matches; only successful look-ups are stored.
class EffectCache {
 public:
  Effect* find(const ConstantPool& pool, const Insn& insn) {
    if (pool.id() != pool_id_) {
      pool_id_ = pool.id();
      slots_.assign(pool.count(), kEmpty);
    }
    auto index = static_cast<uint32_t>(insn.a);
    if (index >= 65536) return nullptr;
    if (index >= slots_.size()) slots_.resize(index + 1, kEmpty);
    Slot& s = slots_[index];
    // Field gets and puts share an index with different effects; invokes differ by receiver.
    auto o = static_cast<uint8_t>(insn.opcode);
    if (s.opcode != o) return nullptr;
    return &s.effect;
  }
  void store(const Insn& insn, Effect e) {
    auto index = static_cast<uint32_t>(insn.a);
    if (index < slots_.size()) slots_[index] = Slot{static_cast<uint8_t>(insn.opcode), e};
  }

 private:
  struct Slot {
    uint8_t opcode;  // the instruction the effect was computed for; 0 = none
    Effect effect;
  };
  static constexpr Slot kEmpty{0, {0, 0}};
  uint64_t pool_id_ = 0;
  std::vector<Slot> slots_;
};

EffectCache& effect_cache() {
  thread_local EffectCache cache;
  return cache;
}

Result<int32_t> DepthWalker::apply(const Insn& insn, size_t index, int32_t depth) {
  Effect e = kEffects.e[static_cast<uint8_t>(insn.opcode)];
  if (e.pop == kVar) {
    if (insn.opcode == op::kMultianewarray) {
      e = Effect{static_cast<int16_t>(insn.b), 1};
    } else if (Effect* cached = effect_cache().find(pool_, insn)) {
      e = *cached;
    } else {
      auto v = variable_effect(insn, index, pool_);
      if (!v) return v.error();
      e = v.value();
      effect_cache().store(insn, e);
    }
  }
  if (depth < e.pop) return at_insn(insn, index, "operand stack underflow");
  int32_t after = depth - e.pop + e.push;
  if (after > max_) max_ = after;
  return after;
}

// Queues the targets of a branch, jsr or switch at the depth after it. Returns whether
// control can fall through to the next instruction.
Result<bool> DepthWalker::successors(const Insn& insn, Kind kind, int32_t depth) {
  if (kind == kJsr) {
    if (depth + 1 > max_) max_ = depth + 1;
    if (auto s = push(insn.target, depth + 1); !s) return s.error();
    return true;
  }
  if (auto s = push(insn.target, depth); !s) return s.error();
  if (kind == kBranch) return !ends_block(static_cast<uint8_t>(insn.opcode));  // goto(_w)
  for (LabelId t : ir_.switches[insn.switch_index].targets) {
    if (auto s = push(t, depth); !s) return s.error();
  }
  return false;
}

// Follows straight-line code from `start`, queueing branch targets.
Status DepthWalker::walk(size_t start, int32_t depth) {
  const auto& insns = ir_.insns;
  for (size_t i = start; i < insns.size(); ++i) {
    const Insn& insn = insns[i];
    if (depth_[i] >= 0) {
      if (depth_[i] == depth) return Ok{};
      return at_insn(
          insn, i,
          "inconsistent stack depth " + std::to_string(depth_[i]) + " vs " + std::to_string(depth));
    }
    depth_[i] = depth;
    if (insn.is_label()) continue;
    Kind kind = insn.opcode > 0xFF ? kInvalid : kEffects.kind[insn.opcode];
    if (kind == kInvalid || (kind == kSwitch && insn.switch_index >= ir_.switches.size())) {
      return check_shape(insn, i);  // the error
    }
    Effect e = kEffects.e[insn.opcode];
    if (e.pop != kVar && depth >= e.pop) {  // the common case, without a Result
      depth += e.push - e.pop;
      if (depth > max_) max_ = depth;
    } else {
      auto after = apply(insn, i, depth);
      if (!after) return after.error();
      depth = after.value();
    }
    if (kind == kPlain) continue;
    if (kind == kEnds) return Ok{};
    auto falls = successors(insn, kind, depth);
    if (!falls) return falls.error();
    if (!falls.value()) return Ok{};
  }
  return Error::plain("code falls off the end");
}

Status DepthWalker::drain() {
  while (!work_.empty()) {
    auto [index, depth] = work_.back();
    work_.pop_back();
    if (auto s = walk(index, depth); !s) return s;
  }
  return Ok{};
}

Result<uint16_t> DepthWalker::run() {
  if (auto s = index_labels(); !s) return s.error();
  if (ir_.insns.empty()) return Error::plain("empty code");
  depth_.assign(ir_.insns.size(), -1);
  work_.clear();
  work_.emplace_back(0, 0);
  for (const TryCatch& tc : ir_.try_catches) {
    if (auto s = push(tc.handler, 1); !s) return s.error();
    if (max_ < 1) max_ = 1;
  }
  if (auto s = drain(); !s) return s.error();
  // Code no path reaches still gets verified where it carries a frame (HotSpot's type checker
  // checks every frame's code): walk it from its frames too, or its stack need is missed.
  for (size_t i = 0; i < ir_.insns.size(); ++i) {
    const Insn& insn = ir_.insns[i];
    if (depth_[i] >= 0 || !insn.is_label() || insn.label() >= ir_.labels.size()) continue;
    const std::optional<Frame>& frame = ir_.labels[insn.label()].frame;
    if (!frame) continue;
    int32_t depth = 0;
    for (const VType& v : frame->stack) depth += v.is_wide() ? 2 : 1;
    max_ = std::max(max_, depth);
    work_.emplace_back(i, depth);
    if (auto s = drain(); !s) return s.error();
  }
  if (max_ > 65535) return Error::plain("max_stack exceeds 65535");
  return static_cast<uint16_t>(max_);
}

}  // namespace

Result<uint16_t> compute_max_stack(const CodeIR& ir, const ConstantPool& pool,
                                   const MethodContext& ctx) {
  DepthWalker walker(ir, pool);
  auto r = walker.run();
  if (!r) return std::move(r.error().in(ctx.class_name, ctx.method_id()));
  return r;
}

}  // namespace duplex
