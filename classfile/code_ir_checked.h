// The checked IR builder (code_ir_checked.cpp): the same IR as build_code_ir for code it
// accepts, and for code it refuses the exact reason. Internal to the class-file layer.
#pragma once

#include "classfile/class_file.h"
#include "classfile/code_ir.h"
#include "classfile/error.h"

namespace duplex {

Result<CodeIR> build_code_ir_checked(ClassFile& cf, const Member& method,
                                     CodeSource source = CodeSource::kParsed);

}  // namespace duplex
