// Lays a CodeIR back out as a Code attribute.
//
// Branches are relaxed to a fixpoint (goto -> goto_w, jsr -> jsr_w, a conditional ->
// inverted conditional over goto_w, switch padding recomputed), ldc becomes ldc_w and loads,
// stores and iinc take the wide prefix when their operands need it. max_stack is recomputed,
// max_locals kept. Every offset-bearing table is rewritten: exception table, LineNumberTable,
// LocalVariableTable, LocalVariableTypeTable, StackMapTable (most compact frame kinds,
// Uninitialized offsets relocated) and type annotations. Frames missing at labels that need
// one are computed by forward simulation (frames.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "classfile/class_file.h"
#include "classfile/code_ir.h"
#include "classfile/error.h"

namespace duplex {

struct AssembledCode {
  // The offset tables come from the thread's spare buffers and go back to them when the result
  // is destroyed (classfile/scratch.h): every assembled method returns two.
  AssembledCode() = default;
  ~AssembledCode();
  AssembledCode(const AssembledCode&) = default;
  AssembledCode(AssembledCode&&) noexcept = default;
  AssembledCode& operator=(const AssembledCode&) = default;
  AssembledCode& operator=(AssembledCode&&) noexcept = default;

  std::vector<uint8_t> code_attribute;  // the Code attribute body (no name index, no length)
  std::vector<int32_t> label_offsets;   // by LabelId: bytecode offset, -1 if not placed
  std::vector<int32_t> insn_offsets;    // by index into CodeIR::insns: offset, -1 for labels
  uint32_t code_length = 0;
  std::vector<std::string> notes;  // what was dropped or changed, for the user
};

// Fails (and writes nothing) when the code would pass 65535 bytes, a label is used but never
// placed, a needed frame cannot be computed, or a table overflows.
Result<AssembledCode> assemble_code(CodeIR& ir, ConstantPool& pool, const MethodContext& ctx);

// assemble_code, then replace the Code attribute of `method` in `cf`. Adds the pool entries
// for attribute names that are new to the class. The Code attribute's bytes go into the
// class's store (ClassFile::set_attribute_data), and the result's code_attribute is left empty.
Result<AssembledCode> replace_code(ClassFile& cf, Member& method, CodeIR& ir);

}  // namespace duplex
