// Frames and stack depth without a class hierarchy.
//
// Frames for new labels are computed by forward simulation of the instructions from the
// nearest known frame, following control-flow edges. No common-superclass computation is
// needed: where a label without a frame is reached with two different states, the operand
// stacks must be equal; a local the paths disagree on becomes Top there (null and a class type
// meet at the class type), and the simulation then follows the code on to the next known
// frames, refusing a read of such a local and a known frame that declares one. Any other
// disagreement is an error ("cannot merge frames without a class hierarchy"). Rewritten code
// meets such merges where a twin's entry parameters or a handler's exception share a slot the
// original code reuses later.
#pragma once

#include <cstdint>
#include <vector>

#include "classfile/code_ir.h"
#include "classfile/error.h"

namespace duplex {

// Gives every label in `needed` that has no frame a frame, computed by simulation from the
// entry frame and the frames present. May add Class entries to the pool.
Status compute_missing_frames(CodeIR& ir, ConstantPool& pool, const MethodContext& ctx,
                              const std::vector<LabelId>& needed);

// The maximum operand-stack depth over every path (long and double count two), or an error
// on underflow or an inconsistent depth at a join.
Result<uint16_t> compute_max_stack(const CodeIR& ir, const ConstantPool& pool,
                                   const MethodContext& ctx);

// Slots a field or return descriptor takes on the stack: 0 (V), 1 or 2 (J, D).
int descriptor_slots(std::string_view field_descriptor);
// Parameter slots of a method descriptor (not counting `this`), or -1 if malformed.
int parameter_slots(std::string_view method_descriptor);
// The same, also giving the index of the ')' that ends the parameters when well formed.
int parameter_slots(std::string_view method_descriptor, size_t& close);

}  // namespace duplex
