// Decoders and encoders for the attributes the rewriter needs (JVMS 4.7). Each decoder is
// bounds-checked and returns an Error naming the class-file byte offset on malformed input;
// each encoder writes the attribute body (without the name index and length).
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "classfile/bytes.h"
#include "classfile/class_file.h"
#include "classfile/error.h"
#include "classfile/small_vector.h"

namespace duplex {

// ---- Code (JVMS 4.7.3) ----
struct ExceptionTableEntry {
  uint16_t start_pc = 0;
  uint16_t end_pc = 0;
  uint16_t handler_pc = 0;
  uint16_t catch_type = 0;  // 0 = any (finally)
};

struct CodeAttribute {
  uint16_t max_stack = 0;
  uint16_t max_locals = 0;
  std::span<const uint8_t> code;
  std::vector<ExceptionTableEntry> exception_table;
  std::vector<Attribute> attributes;  // LineNumberTable, StackMapTable, ... (views)
};

// `attr` must be a Code attribute of `cf`; its views stay valid as long as attr's bytes do.
// `file_offset` is where the attribute body starts in the class file, for error offsets.
Result<CodeAttribute> decode_code(const Attribute& attr, size_t file_offset = 0);
// The same into `out`, reusing its vectors (for per-method loops), except that the nested
// attributes get no owner: their views are valid only as long as attr's bytes are.
Status decode_code_into(const Attribute& attr, CodeAttribute& out, size_t file_offset = 0);
std::vector<uint8_t> encode_code(const CodeAttribute& code);

// ---- Verification types and frames (JVMS 4.7.4) ----
enum class VTag : uint8_t {
  kTop = 0,
  kInteger = 1,
  kFloat = 2,
  kDouble = 3,
  kLong = 4,
  kNull = 5,
  kUninitializedThis = 6,
  kObject = 7,
  kUninitialized = 8,
};

struct VType {
  VTag tag = VTag::kTop;
  // Object: constant-pool Class index. Uninitialized: in a decoded StackMapTable, the bytecode
  // offset of the `new`; inside a CodeIR, the LabelId placed at that `new`.
  uint32_t data = 0;

  bool operator==(const VType&) const = default;
  bool is_wide() const { return tag == VTag::kLong || tag == VTag::kDouble; }
};

// The slots a list of verification types takes: a Long or Double takes two.
inline uint32_t slot_count(std::span<const VType> types) {
  uint32_t n = 0;
  for (const VType& v : types) n += v.is_wide() ? 2 : 1;
  return n;
}

// A frame's lists keep their first entries inline (most frames fit), so a frame copied onto a
// label costs no allocation.
using FrameLocals = SmallVector<VType, 8>;
using FrameStack = SmallVector<VType, 2>;

// A frame in the class file's list form: a Long or Double is ONE entry standing for two slots.
struct Frame {
  FrameLocals locals;
  FrameStack stack;
  bool operator==(const Frame&) const = default;
  // Both lists, for a loop over every type the frame holds.
  std::array<std::span<VType>, 2> lists() { return {locals, stack}; }
  std::array<std::span<const VType>, 2> lists() const { return {locals, stack}; }
};

// A StackMapTable decoded to absolute offsets and full frames.
struct OffsetFrame {
  uint32_t offset = 0;
  Frame frame;
};

// `initial` is the implicit frame at offset 0 (see initial_frame()).
Result<std::vector<OffsetFrame>> decode_stack_map_table(std::span<const uint8_t> body,
                                                        const Frame& initial,
                                                        size_t file_offset = 0);
// The same into `out` (cleared first), reusing its capacity.
Status decode_stack_map_table_into(std::span<const uint8_t> body, const Frame& initial,
                                   std::vector<OffsetFrame>& out, size_t file_offset = 0);
// The same for a caller that keeps the frames elsewhere (the IR builder: on its labels), so
// that they are built in place rather than moved there: each frame is built in the empty
// Frame that place(context, offset) returns, in order. False, without a reason, wherever
// decode_stack_map_table_into fails or `place` returns null.
bool decode_stack_map_table_placed(std::span<const uint8_t> body, const Frame& initial,
                                   Frame* (*place)(void* context, uint32_t offset), void* context);
// Encodes frames (sorted by strictly increasing offset) with the most compact frame kinds.
// Fails if offsets are not strictly increasing.
Result<std::vector<uint8_t>> encode_stack_map_table(const std::vector<OffsetFrame>& frames,
                                                    const Frame& initial);
// The same, appended to `out`, for frames held elsewhere.
struct FrameAt {
  uint32_t offset = 0;
  const Frame* frame = nullptr;
};
Status write_stack_map_table(ByteWriter& out, std::span<const FrameAt> frames,
                             const Frame& initial);

// The implicit frame at method entry, from the descriptor (JVMS 4.10.1.6). Adds Class
// entries to the pool for reference parameters (de-duplicated). Fails on a bad descriptor.
Result<Frame> initial_frame(ConstantPool& pool, std::string_view class_name,
                            std::string_view method_name, std::string_view descriptor,
                            uint16_t access_flags);
// The same without the copy: the frame is kept in a per-thread cache and stays valid until
// the next call on this thread.
Result<const Frame*> initial_frame_ref(ConstantPool& pool, std::string_view class_name,
                                       std::string_view method_name, std::string_view descriptor,
                                       uint16_t access_flags);

// ---- LineNumberTable, LocalVariableTable, LocalVariableTypeTable ----
struct LineNumberEntry {
  uint16_t start_pc = 0;
  uint16_t line = 0;
};
Result<std::vector<LineNumberEntry>> decode_line_numbers(std::span<const uint8_t> body,
                                                         size_t file_offset = 0);
// Decodes and appends to `out` (a method may have several LineNumberTable attributes).
Status append_line_numbers(std::span<const uint8_t> body, std::vector<LineNumberEntry>& out,
                           size_t file_offset = 0);
std::vector<uint8_t> encode_line_numbers(const std::vector<LineNumberEntry>& entries);

struct LocalVariableEntry {
  uint16_t start_pc = 0;
  uint16_t length = 0;
  uint16_t name_index = 0;
  uint16_t descriptor_index = 0;  // the signature index in a LocalVariableTypeTable
  uint16_t index = 0;
};
Result<std::vector<LocalVariableEntry>> decode_local_variables(std::span<const uint8_t> body,
                                                               size_t file_offset = 0);
Status append_local_variables(std::span<const uint8_t> body, std::vector<LocalVariableEntry>& out,
                              size_t file_offset = 0);
std::vector<uint8_t> encode_local_variables(const std::vector<LocalVariableEntry>& entries);

// ---- Exceptions (JVMS 4.7.5) ----
Result<std::vector<uint16_t>> decode_exceptions(std::span<const uint8_t> body,
                                                size_t file_offset = 0);

// ---- BootstrapMethods (JVMS 4.7.23) ----
struct BootstrapMethod {
  uint16_t method_handle = 0;
  std::vector<uint16_t> arguments;
};
Result<std::vector<BootstrapMethod>> decode_bootstrap_methods(std::span<const uint8_t> body,
                                                              size_t file_offset = 0);

// ---- Type annotations inside Code (JVMS 4.7.20) ----
// Only the target kinds that may appear in a Code attribute are decoded structurally; the
// type_path and the annotation itself are kept as raw bytes (they hold no offsets).
struct LocalVarTargetRange {
  uint16_t start_pc = 0;
  uint16_t length = 0;
  uint16_t index = 0;
};
struct CodeTypeAnnotation {
  uint8_t target_type = 0;
  // 0x40/0x41 localvar_target:
  std::vector<LocalVarTargetRange> ranges;
  // 0x42 catch_target: exception_table_index
  uint16_t exception_table_index = 0;
  // 0x43..0x46 offset_target, 0x47..0x4B type_argument_target:
  uint16_t offset = 0;
  uint8_t type_argument_index = 0;
  std::vector<uint8_t> type_path;   // path_length byte and the path entries
  std::vector<uint8_t> annotation;  // type_index, pairs (raw)
};
Result<std::vector<CodeTypeAnnotation>> decode_code_type_annotations(std::span<const uint8_t> body,
                                                                     size_t file_offset = 0);
std::vector<uint8_t> encode_code_type_annotations(const std::vector<CodeTypeAnnotation>& annos);

// Parses one element_value / annotation to find its end (annotations nest). Returns the
// number of bytes, or an Error. Exposed for other attribute walkers.
Result<size_t> measure_annotation(std::span<const uint8_t> bytes, size_t file_offset = 0);

}  // namespace duplex
