// Check sequences. The call form leaves the counter to Duplex.check(); the inline form does the
// decrement in place; the local form keeps the counter in a local so that a loop's checks
// carry no dependency through memory (a static field's load-decrement-store in every
// iteration serializes on store-to-load forwarding and keeps C2 from optimizing the loop).
#include "rewriter/check_emitter.h"

#include <algorithm>
#include <string>
#include <vector>

#include "classfile/opcodes.h"
#include "rewriter/runtime_api.h"
#include "rewriter/value_insns.h"

namespace duplex {

namespace {

// The emitters made for the class being rewritten, per thread. Every method of a class (and
// its twin) makes one, and each make looks up or adds a dozen runtime references: repeating
// those look-ups was 1.8% of a rewrite's instructions. A pool's entries are only ever appended
// and a pool id is never reused, so the indices found for one (pool id, runtime class, kind of
// emitter) stay right for as long as that pool lives, and a second make would add nothing.
struct MadeEmitter {
  std::string runtime_class;
  CheckForm form = CheckForm::kCall;
  bool exits = false;
  bool budget = false;
  CheckEmitter emitter;
};

struct MadeEmitters {
  uint64_t pool_id = 0;  // the pool they were made for
  std::vector<MadeEmitter> made;
};

// The emitters made for `pool` so far on this thread (forgotten when the pool changes).
std::vector<MadeEmitter>& made_emitters(const ConstantPool& pool) {
  thread_local MadeEmitters emitters;
  if (emitters.pool_id != pool.id()) {
    emitters.pool_id = pool.id();
    emitters.made.clear();
  }
  return emitters.made;
}

}  // namespace

Result<CheckEmitter> CheckEmitter::make(ConstantPool& pool, std::string_view runtime_class,
                                        CheckForm form, int32_t counter_slot, bool flag_checks,
                                        bool exits, bool twin) {
  const bool budget = exits && form == CheckForm::kLocal && counter_slot >= 0;
  std::vector<MadeEmitter>& made = made_emitters(pool);
  CheckEmitter c;
  auto found = std::find_if(made.begin(), made.end(), [&](const MadeEmitter& m) {
    return m.form == form && m.exits == exits && m.budget == budget &&
           m.runtime_class == runtime_class;
  });
  if (found != made.end()) {
    c = found->emitter;
  } else {
    auto fresh = make_refs(pool, runtime_class, form, exits, budget);
    if (!fresh) return fresh.error();
    c = *fresh;
    made.push_back({std::string(runtime_class), form, exits, budget, c});
  }
  c.twin_ = twin;
  c.flag_ = flag_checks;
  if (form == CheckForm::kLocal) c.local_slot_ = counter_slot;
  return c;
}

Result<CheckEmitter> CheckEmitter::make_refs(ConstantPool& pool, std::string_view runtime_class,
                                             CheckForm form, bool exits, bool budget) {
  CheckEmitter c;
  c.form_ = form;
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
  auto here =
      pool.add_methodref(runtime_class, runtime_api::kSamplingHere, runtime_api::kSamplingHereDesc);
  if (!here) return here.error();
  c.sampling_here_ = *here;
  auto current = pool.add_methodref(runtime_api::kThreadClass, runtime_api::kCurrentThread,
                                    runtime_api::kCurrentThreadDesc);
  if (!current) return current.error();
  c.current_thread_ = *current;
  if (form == CheckForm::kCall) return c;
  if (budget) return c.with_budget(pool, runtime_class);
  auto counter = pool.add_fieldref(runtime_class, runtime_api::kCounter, runtime_api::kCounterDesc);
  if (!counter) return counter.error();
  auto fire = pool.add_methodref(runtime_class, runtime_api::kFire, runtime_api::kCheckDesc);
  if (!fire) return fire.error();
  c.counter_ = *counter;
  c.fire_ = *fire;
  return c;
}

Status CheckEmitter::use_method_counter(ConstantPool& pool, std::string_view runtime_class,
                                        uint16_t field) {
  if (!exits_ || budget_ || flag_) {
    return Error::plain("method counters need exit checks without loop budgets or flags");
  }
  auto tick = pool.add_methodref(runtime_class, runtime_api::kTickOf, runtime_api::kTickOfDesc);
  if (!tick) return tick.error();
  auto entry =
      pool.add_methodref(runtime_class, runtime_api::kTickEntryOf, runtime_api::kTickOfDesc);
  if (!entry) return entry.error();
  method_counter_ = field;
  tick_of_ = *tick;
  tick_entry_of_ = *entry;
  return Ok{};
}

Status CheckEmitter::use_stripe_local(ConstantPool& pool, std::string_view runtime_class,
                                      int32_t slot) {
  if (!exits_ || budget_ || flag_ || has_local() || method_counter_ != 0 || slot < 0) {
    return Error::plain("a stripe local needs counting exit checks on the shared counter");
  }
  auto here = pool.add_methodref(runtime_class, runtime_api::kHere, runtime_api::kHereDesc);
  if (!here) return here.error();
  auto tick_at = pool.add_methodref(runtime_class, runtime_api::kTickAt, runtime_api::kTickAtDesc);
  if (!tick_at) return tick_at.error();
  auto object = pool.add_class(runtime_api::kObjectClass);
  if (!object) return object.error();
  here_ = *here;
  tick_at_ = *tick_at;
  object_class_ = *object;
  stripe_slot_ = slot;
  return Ok{};
}

uint16_t CheckEmitter::locals_end(uint16_t fallback) const {
  if (has_local()) return static_cast<uint16_t>(local_slot_ + local_slots());
  if (has_stripe_local()) return static_cast<uint16_t>(stripe_slot_ + 1);
  return fallback;
}

Result<CheckEmitter> CheckEmitter::with_budget(ConstantPool& pool, std::string_view runtime_class) {
  struct Ref {
    const char* name;
    const char* desc;
    uint16_t* index;
  };
  for (Ref r : {Ref{runtime_api::kLoopEntry, runtime_api::kTickDesc, &loop_entry_},
                Ref{runtime_api::kBudget, runtime_api::kTickDesc, &budget_ref_},
                Ref{runtime_api::kSpend, runtime_api::kSpendDesc, &spend_},
                Ref{runtime_api::kSpent, runtime_api::kSpentDesc, &spent_}}) {
    auto ref = pool.add_methodref(runtime_class, r.name, r.desc);
    if (!ref) return ref.error();
    *r.index = *ref;
  }
  budget_ = true;
  return *this;
}

void CheckEmitter::emit(CodeIR& ir, LabelId sample) const {
  if (flag_) return emit_flag(ir, sample);
  if (budget_) return emit_budget_check(ir, sample);
  if (exits_ && has_stripe_local()) {  // `aload slot`, then tickAt as emit_tick places tick
    ir.insns.push_back(local_insn(false, VTag::kObject, static_cast<uint16_t>(stripe_slot_)));
    return emit_tick(ir, tick_at_, sample);
  }
  if (exits_) return emit_tick(ir, tick_, sample);
  if (form_ == CheckForm::kInline) return emit_inline(ir, sample);
  if (has_local()) return emit_local(ir, sample);
  emit_call(ir, sample);
}

void CheckEmitter::emit_entry(CodeIR& ir, LabelId sample) const {
  if (flag_) return emit_flag(ir, sample);
  if (budget_) {  // loopEntry() was called by emit_local_init
    ir.insns.push_back(Insn::make(op::kIload, local_slot_));
    ir.insns.push_back(Insn::make_branch(op::kIfle, sample));
    return;
  }
  if (exits_) return emit_tick(ir, tick_entry_, sample);
  // checkEntry() (which also clears the sampling flag), then with a local counter the reload,
  // which sees the entry's own decrement.
  ir.insns.push_back(Insn::make(op::kInvokestatic, check_entry_));
  emit_reload(ir);
  ir.insns.push_back(Insn::make_branch(op::kIfne, sample));
}

// `getstatic sampling; ifnull go_on; invokestatic samplingHere; ifne sample; go_on:`. The
// flag is unset almost always, so compiled code keeps a load and a null test; the call runs
// only while some thread samples, and returns false only when it is another thread.
void CheckEmitter::emit_flag(CodeIR& ir, LabelId sample) const {
  LabelId go_on = ir.new_label();
  ir.insns.push_back(Insn::make(op::kGetstatic, sampling_));
  ir.insns.push_back(Insn::make_branch(op::kIfnull, go_on));
  ir.insns.push_back(Insn::make(op::kInvokestatic, sampling_here_));
  ir.insns.push_back(Insn::make_branch(op::kIfne, sample));
  ir.insns.push_back(Insn::make_label(go_on));
}

void CheckEmitter::emit_set_sampling(CodeIR& ir, bool on) const {
  if (on)
    ir.insns.push_back(Insn::make(op::kInvokestatic, current_thread_));
  else
    ir.insns.push_back(Insn::make(op::kAconstNull));
  ir.insns.push_back(Insn::make(op::kPutstatic, sampling_));
}

void CheckEmitter::emit_reload(CodeIR& ir) const {
  if (budget_) return emit_budget_reset(ir);
  if (!has_local()) return;
  ir.insns.push_back(Insn::make(op::kGetstatic, counter_));
  ir.insns.push_back(Insn::make(op::kIstore, local_slot_));
}

void CheckEmitter::emit_local_init(CodeIR& ir, bool twin) const {
  if (!budget_) return emit_reload(ir);
  ir.insns.push_back(twin ? Insn::make(op::kIconst0) : Insn::make(op::kInvokestatic, loop_entry_));
  store_budget(ir);
}

void CheckEmitter::emit_stripe_init(CodeIR& ir) const {
  if (!has_stripe_local()) return;
  ir.insns.push_back(Insn::make(op::kInvokestatic, here_));
  ir.insns.push_back(local_insn(true, VTag::kObject, static_cast<uint16_t>(stripe_slot_)));
}

void CheckEmitter::emit_budget_reset(CodeIR& ir) const {
  if (!budget_) return;
  ir.insns.push_back(Insn::make(op::kInvokestatic, budget_ref_));
  store_budget(ir);
}

void CheckEmitter::store_budget(CodeIR& ir) const {
  ir.insns.push_back(Insn::make(op::kDup));
  ir.insns.push_back(Insn::make(op::kIstore, local_slot_));
  ir.insns.push_back(Insn::make(op::kIstore, local_slot_ + 1));
}

void CheckEmitter::emit_spend_all(CodeIR& ir) const {
  if (!budget_) return;
  ir.insns.push_back(Insn::make(op::kIload, local_slot_ + 1));
  ir.insns.push_back(Insn::make(op::kInvokestatic, spent_));
}

// `spent(start - left); start = left`: should the call throw into a handler of this method,
// which then goes on without the budget taken after the call, nothing is counted twice.
void CheckEmitter::emit_before_call(CodeIR& ir) const {
  if (!budget_) return;
  emit_spent(ir);
  ir.insns.push_back(Insn::make(op::kIload, local_slot_));
  ir.insns.push_back(Insn::make(op::kIstore, local_slot_ + 1));
}

void CheckEmitter::emit_spent(CodeIR& ir) const {
  if (!budget_) return;
  for (Insn i : {Insn::make(op::kIload, local_slot_ + 1), Insn::make(op::kIload, local_slot_),
                 Insn::make(op::kIsub), Insn::make(op::kInvokestatic, spent_)}) {
    ir.insns.push_back(i);
  }
}

// The checking method: `if (--left <= 0) leave for the twin`: the loop touches no memory and
// has no rare path that joins it again. The twin: `if (--left <= 0) { left = start =
// spend(start); if (left <= 0) sample; }`. A budget runs out exactly at 0, having taken `start`
// back edges.
void CheckEmitter::emit_budget_check(CodeIR& ir, LabelId sample) const {
  if (!twin_) {
    ir.insns.push_back(Insn::make(op::kIinc, local_slot_, -1));
    ir.insns.push_back(Insn::make(op::kIload, local_slot_));
    ir.insns.push_back(Insn::make_branch(op::kIfle, sample));
    return;
  }
  LabelId skip = ir.new_label();
  for (Insn i : {Insn::make(op::kIinc, local_slot_, -1), Insn::make(op::kIload, local_slot_),
                 Insn::make_branch(op::kIfgt, skip), Insn::make(op::kIload, local_slot_ + 1),
                 Insn::make(op::kInvokestatic, spend_)}) {
    ir.insns.push_back(i);
  }
  store_budget(ir);
  ir.insns.push_back(Insn::make(op::kIload, local_slot_));
  ir.insns.push_back(Insn::make_branch(op::kIfle, sample));
  ir.insns.push_back(Insn::make_label(skip));
}

void CheckEmitter::emit_tick(CodeIR& ir, uint16_t method, LabelId sample) const {
  if (method_counter_ != 0) {
    ir.insns.push_back(Insn::make(op::kGetstatic, method_counter_));
    ir.insns.push_back(
        Insn::make(op::kInvokestatic, method == tick_entry_ ? tick_entry_of_ : tick_of_));
    ir.insns.push_back(Insn::make_branch(op::kIfle, sample));
    return;
  }
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
  if (!has_local() && !has_stripe_local()) return Ok{};
  const auto slot = static_cast<uint32_t>(has_local() ? local_slot_ : stripe_slot_);
  for (LabelInfo& info : ir.labels) {
    if (!info.frame) continue;
    FrameLocals& locals = info.frame->locals;
    uint32_t used = frame_slots(locals);
    if (used > slot) return Error::plain("a frame already uses the checks' local slot");
    locals.insert(locals.end(), slot - used, VType{VTag::kTop});
    if (has_local()) {
      locals.insert(locals.end(), local_slots(), VType{VTag::kInteger});
    } else {
      locals.push_back(VType{VTag::kObject, object_class_});
    }
  }
  return Ok{};
}

}  // namespace duplex
