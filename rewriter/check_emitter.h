// The code of one check, in each CheckForm (rewriter.h), for Full- and Partial-Duplication.
//
// Two kinds of check. A counting check decrements the sample counter and takes a sample when
// it reaches zero (the paper's check). A flag check, for small loop-free methods
// (DupPlan::flag_checks), only reads `Duplex.sampling`: the duplicated code sets it to its
// thread before each call it makes (and clears it where it leaves the copy), so such a method
// runs its duplicated code when a sampled caller of its own thread calls it (directly, or
// through uninstrumented code in between). The entry check of every counting method clears
// the flag (its own thread's), so a sample never extends into a method that samples itself.
#pragma once

#include <cstdint>
#include <string_view>

#include "classfile/code_ir.h"
#include "classfile/error.h"
#include "rewriter/rewriter.h"

namespace duplex {

class CheckEmitter {
 public:
  // `counter_slot` is the local that caches the counter (CheckForm::kLocal), or -1 when the
  // method has no local counter: then a local-form check is the call form. With
  // `flag_checks` every check of the method is a flag check, whatever the form.
  // With `exits` (an outlined pair that does not hand back) every counting check is
  // `invokestatic tick()I; ifle sample`: the twin decides. With `exits` and a local counter the
  // method keeps a loop budget instead (two locals from `counter_slot`: what is left, and what
  // it started with): back edges count down the local alone and look at the shared counter only
  // when it runs out, and returns count what they used (`spent`). In the checking method a
  // budget that runs out leaves for the twin (`spent` of the whole budget, then the twin asks
  // `due()`), so the loop has no rare path that joins it again; in the twin (`twin`) it is
  // counted in place (`spend`) and the loop goes on unless the counter ran out.
  static Result<CheckEmitter> make(ConstantPool& pool, std::string_view runtime_class,
                                   CheckForm form, int32_t counter_slot, bool flag_checks,
                                   bool exits = false, bool twin = false);

  bool has_local() const { return local_slot_ >= 0; }
  int32_t local_slot() const { return local_slot_; }
  // Local slots the counter takes (0 without one; 2 for a loop budget).
  uint16_t local_slots() const { return has_local() ? (budget_ ? 2 : 1) : 0; }
  bool has_budget() const { return budget_; }
  // Exit checks on the method's own counter (RewriteOptions::method_counters): `field` is its
  // Fieldref; entry and edge checks become `getstatic field; invokestatic tickEntryOf|tickOf;
  // ifle sample`. Only for exit checks without a budget or flag.
  Status use_method_counter(ConstantPool& pool, std::string_view runtime_class, uint16_t field);
  // Back-edge exit checks on the calling thread's counter stripe kept in local `slot` (type
  // Object; RewriteOptions::stripe_in_local): edge checks become `aload slot; invokestatic
  // tickAt; ifle sample`, and emit_stripe_init sets the local. Only for counting exit checks on
  // the shared counter, without a local counter of their own.
  Status use_stripe_local(ConstantPool& pool, std::string_view runtime_class, int32_t slot);
  bool has_stripe_local() const { return stripe_slot_ >= 0; }
  // The first local slot past the ones the checks use (`fallback` when they use none).
  uint16_t locals_end(uint16_t fallback) const;

  // An edge check: branches to `sample` when it fires. May create labels in `ir`.
  void emit(CodeIR& ir, LabelId sample) const;
  // The method entry's check: checkEntry() (in the local form, then the local reloaded).
  void emit_entry(CodeIR& ir, LabelId sample) const;
  // Sets or clears the sampling flag (around a call in the duplicated code).
  void emit_set_sampling(CodeIR& ir, bool on) const;
  // With a local counter: load it from the shared counter (after every call, whose checks
  // decrement the shared counter). A loop budget: a new one (`budget`), after a call that
  // emit_before_call prepared.
  void emit_reload(CodeIR& ir) const;
  // A loop budget, before a call whose callee may count checks: count the back edges taken
  // so far (`spent`), so that the callee's checks and the budget taken after it (emit_reload)
  // see the counter as it is, and samples fall on the checks they would fall on without
  // budgets.
  void emit_before_call(CodeIR& ir) const;
  // The method's first instructions, before any frame: the local counter loaded; a loop budget
  // set by the entry's count (`loopEntry`), or to 0 in a twin (which sets it after `expired`).
  void emit_local_init(CodeIR& ir, bool twin) const;
  // With a stripe local: `invokestatic here; astore slot`, before any frame (every frame gets
  // the slot from add_local_to_frames).
  void emit_stripe_init(CodeIR& ir) const;
  // A loop budget: after `expired()` in a twin, start a new one (`budget`).
  void emit_budget_reset(CodeIR& ir) const;
  // A loop budget: before a return, count the back edges taken (`spent`).
  void emit_spent(CodeIR& ir) const;
  // A loop budget that ran out in the checking method: count all of it (`spent`), before the
  // twin is called.
  void emit_spend_all(CodeIR& ir) const;
  // Every frame in `ir` gets the local counter's slots as ints, or the stripe local as an
  // Object (frames are only placed after the first instructions, which set them). Fails if a
  // frame already reaches the slots.
  Status add_local_to_frames(CodeIR& ir) const;

 private:
  void emit_flag(CodeIR& ir, LabelId sample) const;  // is `sampling` this thread?
  void emit_call(CodeIR& ir, LabelId sample) const;
  void emit_inline(CodeIR& ir, LabelId sample) const;
  void emit_local(CodeIR& ir, LabelId sample) const;
  void emit_tick(CodeIR& ir, uint16_t method, LabelId sample) const;
  void emit_budget_check(CodeIR& ir, LabelId sample) const;
  // The references an emitter of this kind uses, looked up or added to `pool`.
  static Result<CheckEmitter> make_refs(ConstantPool& pool, std::string_view runtime_class,
                                        CheckForm form, bool exits, bool budget);
  Result<CheckEmitter> with_budget(ConstantPool& pool, std::string_view runtime_class);
  void store_budget(CodeIR& ir) const;  // `dup; istore left; istore start`

  CheckForm form_ = CheckForm::kCall;
  bool flag_ = false;
  bool exits_ = false;
  bool budget_ = false;
  bool twin_ = false;
  uint16_t tick_ = 0, tick_entry_ = 0, loop_entry_ = 0, budget_ref_ = 0, spend_ = 0, spent_ = 0;
  int32_t local_slot_ = -1;
  uint16_t check_ = 0, check_entry_ = 0, counter_ = 0, fire_ = 0, sampling_ = 0;
  uint16_t sampling_here_ = 0, current_thread_ = 0;
  uint16_t method_counter_ = 0, tick_of_ = 0, tick_entry_of_ = 0;
  int32_t stripe_slot_ = -1;
  uint16_t here_ = 0, tick_at_ = 0, object_class_ = 0;
};

}  // namespace duplex
