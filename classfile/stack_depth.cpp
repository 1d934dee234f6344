// compute_max_stack: operand-stack depths by dataflow over the IR's control-flow graph.
//
// Only depths are tracked (not types), so one linear walk per basic block suffices: a block
// is walked until it meets a label whose depth is already known (which must agree) or until
// control leaves it. Depths are kept per label only: control enters code only at the start
// or at a label (a branch target or handler), so a walk can only run into code already
// walked at a label. Exception handlers start at depth 1 (the thrown object); a jsr
// target starts one deeper than the jsr (the return address) and the jsr's successor at the
// jsr's own depth, which is how every compiler that emitted jsr used it.
#include <algorithm>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "classfile/stack_depth.h"

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

// The walk's hot path in one look-up, indexed by the IR's opcode (0..0x100, the label
// marker last): how the instruction moves the walk, and its effect when fixed.
enum FastKind : uint8_t {
  kFastSlow,   // jsr, switches, invalid opcodes: DepthWalker::step
  kFastPlain,  // a fixed effect, falls through
  kFastPool,   // a field access or invocation: the effect from the descriptor
  kFastCond,   // a conditional branch: the target and the fall-through
  kFastGoto,   // goto, goto_w: the target only
  kFastEnds,   // returns, athrow, ret: no successor
  kFastLabel,
};
// Four bytes, aligned: the walk reads an entry with one load and an index shift (three
// bytes took two address computations and three byte loads per instruction).
struct alignas(4) FastStep {
  uint8_t pop = 0;
  int8_t delta = 0;
  FastKind kind = kFastSlow;
  uint8_t unused = 0;
};
static_assert(sizeof(FastStep) == 4);
struct FastSteps {
  FastStep step[Insn::kLabel + 1];
  constexpr FastSteps() : step{} {
    for (int o = 0; o < 256; ++o) {
      Effect e = kEffects.e[o];
      auto pop = static_cast<uint8_t>(e.pop == kVar ? 0 : e.pop);
      auto delta = static_cast<int8_t>(e.pop == kVar ? 0 : e.push - e.pop);
      FastKind kind = kFastSlow;
      switch (kEffects.kind[o]) {
        case kPlain:
          kind = e.pop == kVar ? (o == op::kMultianewarray ? kFastSlow : kFastPool) : kFastPlain;
          break;
        case kBranch:
          kind = (o == op::kGoto || o == op::kGotoW) ? kFastGoto : kFastCond;
          break;
        case kEnds:
          kind = kFastEnds;
          break;
        default:
          break;
      }
      step[o] = FastStep{pop, delta, kind, 0};
    }
    step[Insn::kLabel] = FastStep{0, 0, kFastLabel, 0};
  }
};
constexpr FastSteps kFastSteps;

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
  size_t close = 0;
  int params = parameter_slots(desc, close);
  if (params < 0) return at_insn(insn, index, "bad method descriptor");
  int receiver = (o == op::kInvokestatic || o == op::kInvokedynamic) ? 0 : 1;
  int ret = descriptor_slots(desc.substr(close + 1));
  return Effect{static_cast<int16_t>(params + receiver), static_cast<int16_t>(ret)};
}

// What the stack effects of the instructions naming one pool entry depend on: the slots
// of its descriptor read as a field type, and as a method's parameters and return type.
// All zero when empty, so that clearing the cache is a memset.
struct DescriptorSlots {
  uint8_t resolver = 0;    // 0: empty; kMember or kDynamic: how the entry was resolved
  uint8_t field = 0;       // descriptor_slots of the descriptor
  uint8_t ret = 0;         // the return type's slots (when is_method)
  bool is_method = false;  // a well-formed method descriptor
  uint16_t params = 0;     // parameter_slots
};
constexpr uint8_t kMember = 1;   // Field/Method/InterfaceMethodref
constexpr uint8_t kDynamic = 2;  // InvokeDynamic

constexpr uint8_t kDescriptor = 3;  // a Utf8 entry read as a descriptor

// The index of the descriptor of a member reference (or, for kDynamic, of an InvokeDynamic
// or Dynamic entry), with the checks member_ref() or dynamic_ref() make; 0 if they fail.
uint32_t descriptor_index(const ConstantPool& pool, uint32_t index, uint8_t resolver) {
  const CpEntry* e = pool.entry(index);
  if (e == nullptr) return 0;
  if (resolver == kDynamic) {
    if (e->tag != CpTag::kDynamic && e->tag != CpTag::kInvokeDynamic) return 0;
  } else {
    if (e->tag != CpTag::kFieldref && e->tag != CpTag::kMethodref &&
        e->tag != CpTag::kInterfaceMethodref) {
      return 0;
    }
    const CpEntry* c = pool.entry(e->a);
    if (!c || c->tag != CpTag::kClass || pool.tag(c->a) != CpTag::kUtf8) return 0;
  }
  const CpEntry* nt = pool.entry(e->b);
  if (!nt || nt->tag != CpTag::kNameAndType || pool.tag(nt->a) != CpTag::kUtf8 ||
      pool.tag(nt->b) != CpTag::kUtf8) {
    return 0;
  }
  return nt->b;
}

DescriptorSlots slots_of(std::string_view desc, uint8_t resolver) {
  DescriptorSlots d;
  d.resolver = resolver;
  size_t close = 0;
  int params = parameter_slots(desc, close);
  if (params >= 0) {
    d.is_method = true;
    d.params = static_cast<uint16_t>(params);
    d.ret = static_cast<uint8_t>(descriptor_slots(desc.substr(close + 1)));
  }
  // What descriptor_slots reads: for a method descriptor, its return type (found above).
  d.field = d.is_method ? d.ret : static_cast<uint8_t>(descriptor_slots(desc));
  return d;
}

// Descriptor slots by pool index, per thread. A pool's entries never change once added and a
// pool id is never reused, so an entry stays valid for as long as the pool id matches; each
// slot records the pool it was filled for, so a new class needs no clearing. Every
// instruction naming the entry shares it (a field's gets and puts, a method's invocations).
class EffectCache {
 public:
  // Answers from here on are for `pool` (one walk reads one pool).
  void use(const ConstantPool& pool) {
    if (pool.id() != pool_id_) switch_to(pool);
  }
  // The slots of the pool entry `index` as `resolver` reads it, or nullptr if not cached.
  const DescriptorSlots* find(uint32_t index, uint8_t resolver) const {
    if (index >= slots_.size()) return nullptr;
    const Slot& s = slots_[index];
    return s.generation == generation_ && s.d.resolver == resolver ? &s.d : nullptr;
  }
  void store(const ConstantPool& pool, uint32_t index, const DescriptorSlots& d) {
    if (index >= 65536) return;
    if (index >= slots_.size()) slots_.resize(std::max<size_t>(index + 1, pool.count()));
    slots_[index] = Slot{generation_, d};
  }

 private:
  // A new pool: the slots filled for earlier ones stop counting (their generation is older),
  // so nothing needs clearing, and a slot takes 12 bytes where a 64-bit pool id would make
  // it 16.
  void switch_to(const ConstantPool& pool) {
    pool_id_ = pool.id();
    if (++generation_ == 0) {  // wrapped: forget every slot for real
      slots_.assign(slots_.size(), Slot{});
      generation_ = 1;
    }
  }

  struct Slot {
    uint32_t generation = 0;
    DescriptorSlots d;
  };
  uint64_t pool_id_ = 0;
  uint32_t generation_ = 0;
  std::vector<Slot> slots_;
};

EffectCache& effect_cache() {
  thread_local EffectCache cache;
  return cache;
}

class DepthWalker {
 public:
  DepthWalker(const CodeIR& ir, const ConstantPool& pool, const std::vector<uint32_t>& label_pos)
      : ir_(ir), pool_(pool), label_pos_(label_pos) {}
  Result<uint16_t> run();

 private:
  Status check_shape(const Insn& insn, size_t index) const;
  Status push(LabelId label, int32_t depth);
  Status walk(size_t start, int32_t depth);
  Status step(const Insn& insn, size_t i, Kind kind, int32_t& depth);
  [[gnu::noinline]] bool slow_step(const Insn& insn, size_t i, int32_t& depth);
  Error error_;  // what slow_step failed with
  bool variable(const Insn& insn, Effect& e);
  [[gnu::noinline]] bool variable_miss(const Insn& insn, Effect& e);
  Status drain();  // walks until the work list is empty
  Status walk_unreached_frames();

  const CodeIR& ir_;
  const ConstantPool& pool_;
  const std::vector<uint32_t>& label_pos_;  // by LabelId: index in insns, UINT32_MAX if unplaced
  // Reused per thread: this runs for every assembled method.
  struct Scratch {
    std::vector<int32_t> depth;
    std::vector<std::pair<uint32_t, int32_t>> work;
    std::vector<uint32_t> starts;  // walk_unreached_frames: unreached framed labels' places
  };
  static Scratch& scratch() {
    thread_local Scratch s;
    return s;
  }
  Scratch& scratch_ = scratch();
  std::vector<int32_t>& depth_ = scratch_.depth;  // by LabelId: -1 until reached
  std::vector<std::pair<uint32_t, int32_t>>& work_ = scratch_.work;
  EffectCache& cache_ = effect_cache();
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

Status DepthWalker::push(LabelId label, int32_t depth) {
  if (label >= label_pos_.size() || label_pos_[label] == UINT32_MAX) {
    return Error::plain("label L" + std::to_string(label) + " is used but never placed");
  }
  work_.emplace_back(label_pos_[label], depth);
  return Ok{};
}

// The effect of a field access or invocation from its descriptor's slots; false when the
// descriptor cannot describe it (variable_effect then reports why).
bool effect_from(uint8_t o, const DescriptorSlots& d, Effect& e) {
  if (o >= op::kGetstatic && o <= op::kPutfield) {
    int16_t receiver = (o == op::kGetfield || o == op::kPutfield) ? 1 : 0;
    bool get = (o == op::kGetstatic || o == op::kGetfield);
    e = get ? Effect{receiver, d.field} : Effect{static_cast<int16_t>(receiver + d.field), 0};
    return true;
  }
  if (!d.is_method) return false;
  int receiver = (o == op::kInvokestatic || o == op::kInvokedynamic) ? 0 : 1;
  e = Effect{static_cast<int16_t>(d.params + receiver), d.ret};
  return true;
}

// The effect of a field access, invocation or multianewarray: the descriptor's slots are
// cached per pool index, since a class names the same members again and again. False when
// the instruction is bad (variable_effect then says why).
bool DepthWalker::variable(const Insn& insn, Effect& e) {
  auto o = static_cast<uint8_t>(insn.opcode);
  if (o == op::kMultianewarray) {
    e = Effect{static_cast<int16_t>(insn.b), 1};
    return true;
  }
  auto pool_index = static_cast<uint32_t>(insn.a);
  uint8_t resolver = o == op::kInvokedynamic ? kDynamic : kMember;
  if (const DescriptorSlots* d = cache_.find(pool_index, resolver)) {
    return effect_from(o, *d, e);
  }
  return variable_miss(insn, e);
}

// variable() for an entry not yet cached. Its descriptor's slots are cached too (by the
// descriptor's own index), since many members share a descriptor.
bool DepthWalker::variable_miss(const Insn& insn, Effect& e) {
  auto o = static_cast<uint8_t>(insn.opcode);
  auto pool_index = static_cast<uint32_t>(insn.a);
  uint8_t resolver = o == op::kInvokedynamic ? kDynamic : kMember;
  uint32_t desc_index = descriptor_index(pool_, pool_index, resolver);
  if (desc_index == 0) return false;
  DescriptorSlots d;
  if (const DescriptorSlots* known = cache_.find(desc_index, kDescriptor)) {
    d = *known;
  } else {
    d = slots_of(pool_.entry(desc_index)->utf8, kDescriptor);
    cache_.store(pool_, desc_index, d);
  }
  d.resolver = resolver;
  cache_.store(pool_, pool_index, d);
  return effect_from(o, d, e);
}

// Follows straight-line code from `start`, queueing branch targets.
Status DepthWalker::walk(size_t start, int32_t depth) {
  const Insn* insns = ir_.insns.data();
  const size_t n = ir_.insns.size();
  int32_t* label_depth = depth_.data();
  const uint32_t* label_pos = label_pos_.data();
  const size_t labels = label_pos_.size();
  int32_t max = max_;
  // The common cases inline; anything unusual (and every error) through slow_step.
  for (size_t i = start; i < n; ++i) {
    const Insn& insn = insns[i];
    uint32_t op = insn.opcode;
    FastStep fast = op <= Insn::kLabel ? kFastSteps.step[op] : FastStep{};
    if (fast.kind == kFastPlain && depth >= fast.pop) {
      depth += fast.delta;
      max = depth > max ? depth : max;
      continue;
    }
    if (fast.kind == kFastLabel) {
      if (label_depth[insn.label()] < 0) {
        label_depth[insn.label()] = depth;
        continue;
      }
    } else if (fast.kind == kFastPool) {
      Effect e;
      if (variable(insn, e) && depth >= e.pop) {
        depth += e.push - e.pop;
        max = depth > max ? depth : max;
        continue;
      }
    } else if (fast.kind == kFastCond || fast.kind == kFastGoto) {
      if (depth >= fast.pop && insn.target < labels && label_pos[insn.target] != UINT32_MAX) {
        depth -= fast.pop;
        work_.emplace_back(label_pos[insn.target], depth);
        if (fast.kind == kFastCond) continue;
        max_ = max;
        return Ok{};
      }
    } else if (fast.kind == kFastEnds && depth >= fast.pop) {
      max_ = max;
      return Ok{};
    }
    max_ = max;
    int32_t d = depth;  // passed by address: a copy, so `depth` can stay in a register
    if (!slow_step(insn, i, d)) return std::move(error_);
    depth = d;
    max = max_;
    if (depth < 0) return Ok{};  // control does not fall through, or reached walked code
  }
  return Error::plain("code falls off the end");
}

// Everything walk's fast paths do not take; false (with error_ set) on an error.
bool DepthWalker::slow_step(const Insn& insn, size_t i, int32_t& depth) {
  Status s = Ok{};
  if (insn.opcode == Insn::kLabel) {
    int32_t known = depth_[insn.label()];
    if (known == depth) {
      depth = -1;  // reached code already walked
      return true;
    }
    s = at_insn(
        insn, i,
        "inconsistent stack depth " + std::to_string(known) + " vs " + std::to_string(depth));
  } else {
    s = step(insn, i, insn.opcode > 0xFF ? kInvalid : kEffects.kind[insn.opcode], depth);
  }
  if (s) return true;
  error_ = std::move(s.error());
  return false;
}

// Everything but a plain instruction with a fixed effect: applies it to `depth` (set to -1
// when control cannot fall through) and queues its targets.
Status DepthWalker::step(const Insn& insn, size_t i, Kind kind, int32_t& depth) {
  if (kind == kInvalid || (kind == kSwitch && insn.switch_index >= ir_.switches.size())) {
    return check_shape(insn, i);  // the error
  }
  Effect e = kEffects.e[insn.opcode];
  if (e.pop == kVar && !variable(insn, e)) {
    auto v = variable_effect(insn, i, pool_);  // the error
    if (!v) return v.error();
    e = v.value();
  }
  if (depth < e.pop) return at_insn(insn, i, "operand stack underflow");
  depth += e.push - e.pop;
  if (depth > max_) max_ = depth;
  if (kind == kPlain) return Ok{};
  if (kind == kEnds) {
    depth = -1;
    return Ok{};
  }
  if (kind == kJsr) {
    if (depth + 1 > max_) max_ = depth + 1;
    return push(insn.target, depth + 1);
  }
  if (auto s = push(insn.target, depth); !s) return s;
  if (kind == kBranch) {
    if (ends_block(static_cast<uint8_t>(insn.opcode))) depth = -1;  // goto(_w)
    return Ok{};
  }
  for (LabelId t : ir_.switches[insn.switch_index].targets) {
    if (auto s = push(t, depth); !s) return s;
  }
  depth = -1;
  return Ok{};
}

Status DepthWalker::drain() {
  while (!work_.empty()) {
    auto [index, depth] = work_.back();
    work_.pop_back();
    if (auto s = walk(index, depth); !s) return s;
  }
  return Ok{};
}

// Code no path reaches still gets verified where it carries a frame (HotSpot's type checker
// checks every frame's code): walk it from its frames too, or its stack need is missed. In
// code order, so a framed label that earlier dead code runs into is walked from there.
Status DepthWalker::walk_unreached_frames() {
  std::vector<uint32_t>& starts = scratch_.starts;
  starts.clear();
  const size_t labels = std::min(ir_.labels.size(), label_pos_.size());
  for (LabelId l = 0; l < labels; ++l) {
    if (depth_[l] < 0 && ir_.labels[l].frame && label_pos_[l] != UINT32_MAX) {
      starts.push_back(label_pos_[l]);
    }
  }
  if (starts.empty()) return Ok{};  // the usual case: every framed label was reached
  std::sort(starts.begin(), starts.end());
  for (uint32_t i : starts) {
    const LabelId l = ir_.insns[i].label();
    if (depth_[l] >= 0) continue;
    const auto depth = static_cast<int32_t>(slot_count(ir_.labels[l].frame->stack));
    max_ = std::max(max_, depth);
    work_.emplace_back(i, depth);
    if (auto s = drain(); !s) return s;
  }
  return Ok{};
}

Result<uint16_t> DepthWalker::run() {
  if (ir_.insns.empty()) return Error::plain("empty code");
  cache_.use(pool_);
  depth_.assign(ir_.labels.size(), -1);
  work_.clear();
  work_.emplace_back(0, 0);
  for (const TryCatch& tc : ir_.try_catches) {
    if (auto s = push(tc.handler, 1); !s) return s.error();
    if (max_ < 1) max_ = 1;
  }
  if (auto s = drain(); !s) return s.error();
  if (auto s = walk_unreached_frames(); !s) return s.error();
  if (max_ > 65535) return Error::plain("max_stack exceeds 65535");
  return static_cast<uint16_t>(max_);
}

// Where each label stands in the instruction list; a label placed twice or unknown is an error.
Status index_labels(const CodeIR& ir, std::vector<uint32_t>& pos) {
  pos.assign(ir.labels.size(), UINT32_MAX);
  for (size_t i = 0; i < ir.insns.size(); ++i) {
    const Insn& insn = ir.insns[i];
    if (!insn.is_label()) continue;
    if (insn.label() >= pos.size()) return at_insn(insn, i, "unknown label");
    if (pos[insn.label()] != UINT32_MAX) {
      return Error::plain("label L" + std::to_string(insn.label()) + " is placed twice");
    }
    pos[insn.label()] = static_cast<uint32_t>(i);
  }
  return Ok{};
}

}  // namespace

Result<uint16_t> max_stack_depth(const CodeIR& ir, const ConstantPool& pool,
                                 const std::vector<uint32_t>& label_pos) {
  DepthWalker walker(ir, pool, label_pos);
  return walker.run();
}

Result<uint16_t> compute_max_stack(const CodeIR& ir, const ConstantPool& pool,
                                   const MethodContext& ctx) {
  thread_local std::vector<uint32_t> label_pos;
  Result<uint16_t> r = Error::plain("");
  if (auto s = index_labels(ir, label_pos); !s) {
    r = std::move(s.error());
  } else {
    r = max_stack_depth(ir, pool, label_pos);
  }
  if (!r) return std::move(r.error().in(ctx.class_name, ctx.method_id()));
  return r;
}

}  // namespace duplex
