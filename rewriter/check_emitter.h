// The code of one check, in each CheckForm (rewriter.h), for Full- and Partial-Duplication.
//
// Two kinds of check. A counting check decrements the sample counter and takes a sample when
// it reaches zero (the paper's check). A flag check, for small loop-free methods
// (DupPlan::flag_checks), only reads `Duplex.sampling`: the duplicated code sets it around each
// call it makes, so such a method runs its duplicated code when a sampled caller calls it
// (directly, or through uninstrumented code in between). The entry check of every counting
// method clears the flag, so a sample never extends into a method that samples itself.
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
  // With `exits` (the checking method of an outlined pair that does not hand back) every
  // counting check is `invokestatic tick()I; ifle sample`: the twin decides.
  static Result<CheckEmitter> make(ConstantPool& pool, std::string_view runtime_class,
                                   CheckForm form, int32_t counter_slot, bool flag_checks,
                                   bool exits = false);

  bool has_local() const { return local_slot_ >= 0; }
  int32_t local_slot() const { return local_slot_; }

  // An edge check: branches to `sample` when it fires. May create labels in `ir`.
  void emit(CodeIR& ir, LabelId sample) const;
  // The method entry's check: checkEntry() (in the local form, then the local reloaded).
  void emit_entry(CodeIR& ir, LabelId sample) const;
  // Sets or clears the sampling flag (around a call in the duplicated code).
  void emit_set_sampling(CodeIR& ir, bool on) const;
  // With a local counter: load it from the shared counter (at the method's first instruction,
  // and after every call, whose checks decrement the shared counter).
  void emit_reload(CodeIR& ir) const;
  // Every frame in `ir` gets the local counter as an int (frames are only placed after the
  // first instruction, which sets it). Fails if a frame already reaches the slot.
  Status add_local_to_frames(CodeIR& ir) const;

 private:
  void emit_flag(CodeIR& ir, LabelId sample) const;  // `getstatic sampling; ifne sample`
  void emit_call(CodeIR& ir, LabelId sample) const;
  void emit_inline(CodeIR& ir, LabelId sample) const;
  void emit_local(CodeIR& ir, LabelId sample) const;
  void emit_tick(CodeIR& ir, uint16_t method, LabelId sample) const;

  CheckForm form_ = CheckForm::kCall;
  bool flag_ = false;
  bool exits_ = false;
  uint16_t tick_ = 0, tick_entry_ = 0;
  int32_t local_slot_ = -1;
  uint16_t check_ = 0, check_entry_ = 0, counter_ = 0, fire_ = 0, sampling_ = 0;
};

}  // namespace duplex
