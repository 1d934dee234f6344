// CodeIR's buffers come from, and go back to, per-thread spares: the rewriter and the IR round
// trip build several IRs per method, each of which would otherwise allocate its lists anew.
#include "classfile/code_ir.h"

#include "classfile/scratch.h"

namespace duplex {

namespace {

struct IrSpares {
  scratch::SpareStack<Insn> insns;
  scratch::SpareStack<LabelInfo> labels;
  scratch::SpareStack<TryCatch> try_catches;
  scratch::SpareStack<LineNumber> line_numbers;
  scratch::SpareStack<LocalVar> local_variables;  // and local variable types

  void exchange(CodeIR& ir, bool taking) {
    auto one = [taking](auto& stack, auto& v) { taking ? stack.take(v) : stack.give_back(v); };
    one(insns, ir.insns);
    one(labels, ir.labels);
    one(try_catches, ir.try_catches);
    one(line_numbers, ir.line_numbers);
    one(local_variables, ir.local_variables);
    one(local_variables, ir.local_variable_types);
  }
};

}  // namespace

CodeIR::CodeIR() {
  if (IrSpares* s = scratch::PerThread<IrSpares>::get()) s->exchange(*this, true);
}

CodeIR::~CodeIR() {
  // Most IRs destroyed are moved-from temporaries (results passed along): nothing to keep.
  if (insns.capacity() == 0 && labels.capacity() == 0) return;
  if (IrSpares* s = scratch::PerThread<IrSpares>::existing()) s->exchange(*this, false);
}

}  // namespace duplex
