// The per-method code IR, built only for methods being edited.
//
// Instructions live in one vector. Labels replace offsets: a label is a pseudo-instruction
// (opcode Insn::kLabel) placed in the list, and branches, switch cases, try/catch ranges, line
// numbers, local-variable ranges, type annotations and StackMapTable frames all refer to
// labels. Every instruction remembers its offset in the original method (-1 for inserted
// code), which is how rewritten code maps back to the original.
//
// Editing: build a new insn vector (or insert into this one), create labels with new_label(),
// and hand the IR to assemble_code() (assembler.h). Frames are only needed on labels the
// original method had them on; the assembler computes the rest by forward simulation.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "classfile/attributes.h"
#include "classfile/class_file.h"
#include "classfile/error.h"

namespace duplex {

using LabelId = uint32_t;
inline constexpr LabelId kNoLabel = 0xFFFFFFFFu;

struct Insn {
  static constexpr uint16_t kLabel = 0x100;  // pseudo-opcode marking the position of label `a`

  // User-provided, so that value-initialisation (vector::resize, Insn{}) only runs the member
  // initialisers below and does not zero the whole object first.
  constexpr Insn() noexcept {}

  uint16_t opcode = 0;  // a JVM opcode (never `wide`: see `wide`), or kLabel
  // Written with the wide prefix. The assembler adds the prefix by itself when an index or
  // increment does not fit the short form, and keeps it if it was there.
  bool wide = false;
  // Operand, by shape: local index (loads, stores, iinc, ret); value (bipush, sipush); pool
  // index (ldc*, field/method/type instructions, invokedynamic); atype (newarray); the
  // label id (kLabel).
  int32_t a = 0;
  // Second operand: iinc increment; multianewarray dimensions; invokeinterface count.
  int32_t b = 0;
  // Branch and jsr target; the default target of a switch.
  LabelId target = kNoLabel;
  uint32_t switch_index = 0;     // tableswitch/lookupswitch: index into CodeIR::switches
  int32_t original_offset = -1;  // offset in the parsed method; -1 for inserted instructions

  bool is_label() const { return opcode == kLabel; }
  LabelId label() const { return static_cast<LabelId>(a); }

  static Insn make_label(LabelId id) {
    Insn i;
    i.opcode = kLabel;
    i.a = static_cast<int32_t>(id);
    return i;
  }
  static Insn make(uint8_t opcode, int32_t a = 0, int32_t b = 0) {
    Insn i;
    i.opcode = opcode;
    i.a = a;
    i.b = b;
    return i;
  }
  static Insn make_branch(uint8_t opcode, LabelId target) {
    Insn i;
    i.opcode = opcode;
    i.target = target;
    return i;
  }
};

struct SwitchTable {
  int32_t low = 0;               // tableswitch: the lowest key (high = low + targets.size() - 1)
  std::vector<int32_t> keys;     // lookupswitch: the match keys, one per target
  std::vector<LabelId> targets;  // case targets; the default is in Insn::target
};

struct LabelInfo {
  LabelInfo() noexcept {}  // user-provided: see Insn()

  int32_t original_offset = -1;  // where the label stood in the original method, if anywhere
  // The StackMapTable frame at this label, in list form. VType::data of an Uninitialized
  // entry is the LabelId placed just before its `new` instruction.
  std::optional<Frame> frame;
};

struct TryCatch {
  LabelId start = kNoLabel;
  LabelId end = kNoLabel;  // exclusive
  LabelId handler = kNoLabel;
  uint16_t catch_type = 0;  // pool Class index; 0 catches everything
};

struct LineNumber {
  LabelId label = kNoLabel;
  uint16_t line = 0;
};

struct LocalVar {  // an entry of LocalVariableTable or LocalVariableTypeTable
  LabelId start = kNoLabel;
  LabelId end = kNoLabel;  // exclusive; may be the label at the end of the code
  uint16_t name_index = 0;
  uint16_t descriptor_index = 0;  // signature index for LocalVariableTypeTable
  uint16_t index = 0;
};

// A type annotation on code. The offsets inside `raw` are ignored on assembly: the labels
// below carry them.
struct CodeTypeAnnotationIR {
  CodeTypeAnnotation raw;
  std::vector<std::pair<LabelId, LabelId>> ranges;  // localvar_target: (start, end) per range
  LabelId insn = kNoLabel;  // offset_target and type_argument_target: label at the instruction
};

class CodeIR {
 public:
  // A new IR takes its thread's spare buffers for the lists below (empty, with capacity) and
  // gives them back when destroyed, so an IR per method costs no allocation for them once a
  // thread has seen a few methods (classfile/scratch.h).
  CodeIR();
  ~CodeIR();
  CodeIR(const CodeIR&) = default;
  CodeIR(CodeIR&&) noexcept = default;
  CodeIR& operator=(const CodeIR&) = default;
  CodeIR& operator=(CodeIR&&) noexcept = default;

  uint16_t max_stack = 0;   // recomputed by the assembler
  uint16_t max_locals = 0;  // preserved (raise it if you add locals)
  std::vector<Insn> insns;
  std::vector<SwitchTable> switches;
  std::vector<LabelInfo> labels;      // indexed by LabelId
  std::vector<TryCatch> try_catches;  // in exception-table order (first match wins)
  std::vector<LineNumber> line_numbers;
  std::vector<LocalVar> local_variables;
  std::vector<LocalVar> local_variable_types;
  std::vector<CodeTypeAnnotationIR> visible_type_annotations;
  std::vector<CodeTypeAnnotationIR> invisible_type_annotations;
  // Code attributes this library does not understand. They may hold offsets, so the
  // assembler drops them (with a note) rather than write stale data.
  std::vector<Attribute> unknown_attributes;
  bool had_stack_map_table = false;  // the original method had a StackMapTable attribute

  LabelId new_label() {
    labels.emplace_back();
    return static_cast<LabelId>(labels.size() - 1);
  }
};

// Identifies the method for error messages and for the implicit entry frame.
struct MethodContext {
  std::string class_name;  // internal name
  std::string method_name;
  std::string descriptor;
  uint16_t access_flags = 0;
  uint16_t major_version = 0;

  static MethodContext of(const ClassFile& cf, const Member& method);
  // The same, into an existing context: its strings keep their capacity, so a context
  // reused across methods costs no allocation.
  void assign(const ClassFile& cf, const Member& method);
  std::string method_id() const { return method_name + descriptor; }
};

// Builds the IR of `method` (which must have a Code attribute). May add Class entries to the
// pool (for the implicit entry frame). Fails, without touching the method, on malformed code:
// an unknown opcode, a branch into the middle of an instruction, a table offset that is not
// on an instruction boundary, or a bad StackMapTable; and on code the JVM refuses that
// assembling would silently repair: an attribute name that is not a Utf8 entry, a pool index
// that is out of range or of the wrong kind for its instruction (and a bad catch_type,
// LocalVariableTable name, descriptor or index), non-zero reserved operand bytes, or, from
// version 51, a missing StackMapTable frame where the verifier needs one. Pool indices are
// checked against ClassFile::parsed_pool_count(), so entries added since parsing never make
// a bad index good. Code written since parsing (a method an edit already replaced, which may
// name the entries added with it) is read with CodeSource::kWritten: its indices are checked
// against the pool as it is now.
enum class CodeSource : uint8_t { kParsed, kWritten };
Result<CodeIR> build_code_ir(ClassFile& cf, const Member& method,
                             CodeSource source = CodeSource::kParsed);

}  // namespace duplex
