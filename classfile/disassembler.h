// A javap-like disassembler with stable text, for debugging and golden tests.
#pragma once

#include <string>

#include "classfile/class_file.h"
#include "classfile/code_ir.h"

namespace duplex {

struct DisasmOptions {
  bool constant_pool = false;  // list the pool
  bool frames = true;          // show StackMapTable frames
};

// The whole class: header, fields, methods with code, exception tables, line numbers,
// local variables and frames. Never fails: damaged parts are shown as <bad ...>.
std::string disassemble(const ClassFile& cf, const DisasmOptions& options = {});

// One method's IR (labels shown as L<n>), for tests of edits before assembly.
std::string disassemble_ir(const ClassFile& cf, const CodeIR& ir);

}  // namespace duplex
