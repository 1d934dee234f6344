// Walking a code array instruction by instruction, on its bytes, without building an IR: for
// passes that only read operands (which pool entries code names, which opcodes it uses).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>

namespace duplex {

// The length of the instruction at `pc` (switch padding and tables, the wide prefix
// included), or 0 when its opcode is undefined or it runs past the end of `code`.
size_t instruction_length(std::span<const uint8_t> code, size_t pc);

// Calls f(opcode, the instruction's bytes) for each instruction of `code`, in order; false when
// the code is malformed (f has then seen the instructions before the bad one).
template <class F>
bool for_each_instruction(std::span<const uint8_t> code, F&& f) {
  for (size_t pc = 0; pc < code.size();) {
    size_t length = instruction_length(code, pc);
    if (length == 0) return false;
    f(code[pc], code.subspan(pc, length));
    pc += length;
  }
  return true;
}

// The pool index an instruction names (ldc, ldc_w, ldc2_w, field and method instructions,
// invokedynamic, new, anewarray, checkcast, instanceof, multianewarray), or 0.
uint16_t instruction_pool_index(std::span<const uint8_t> insn);

// The target offset of a branch instruction at `pc` (the if* family, goto, goto_w, jsr,
// jsr_w), or nullopt for any other instruction or a target before the code's start.
std::optional<size_t> branch_target(std::span<const uint8_t> insn, size_t pc);

}  // namespace duplex
