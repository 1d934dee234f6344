// Where two CodeIRs differ, field by field: for tests and the fuzzer, which hold the two IR
// builders (code_ir_builder.cpp, code_ir_checked.cpp) to building the same IR.
#pragma once

#include <string>

#include "classfile/code_ir.h"

namespace duplex {

// "" when a and b are the same IR, else the first difference found.
std::string code_ir_difference(const CodeIR& a, const CodeIR& b);

}  // namespace duplex
