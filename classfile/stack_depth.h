// The operand-stack depth walk behind compute_max_stack (frames.h), for callers that already
// know where each label stands: the assembler's layout finds the label positions anyway, and
// this spares a pass over the instructions. Internal to the class-file layer.
#pragma once

#include <cstdint>
#include <vector>

#include "classfile/code_ir.h"
#include "classfile/error.h"

namespace duplex {

// max_stack of `ir`; label_pos[id] is the index in ir.insns where label `id` stands, or
// UINT32_MAX if it is not placed. Errors name no method (the caller adds it).
Result<uint16_t> max_stack_depth(const CodeIR& ir, const ConstantPool& pool,
                                 const std::vector<uint32_t>& label_pos);

}  // namespace duplex
