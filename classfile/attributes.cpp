// Decoders and encoders for Code, LineNumberTable, LocalVariable(Type)Table, Exceptions,
// BootstrapMethods and the type annotations of a Code attribute (JVMS 4.7). The
// StackMapTable lives in stack_map_table.cpp.
//
// Every decoder reads through a ByteReader (whose reads past the end fail softly), checks
// for failure after each variable-length piece, and insists on consuming the body exactly:
// trailing bytes mean the attribute length and its contents disagree, which is malformed.
#include "classfile/attributes.h"

#include <algorithm>

#include <string>
#include <utility>

#include "classfile/bytes.h"

namespace duplex {

namespace {

// Reader failure -> an Error at the first byte that was missing.
Error truncated(const ByteReader& in, std::string_view what) {
  return Error::at_file(static_cast<int64_t>(in.failure_offset()),
                        "truncated " + std::string(what));
}

// The common epilogue: no failed read and nothing left over.
Status finish(const ByteReader& in, std::string_view what) {
  if (in.failed()) return truncated(in, what);
  if (!in.at_end()) {
    return Error::at_file(
        static_cast<int64_t>(in.absolute_pos()),
        std::to_string(in.remaining()) + " trailing bytes after " + std::string(what));
  }
  return Ok{};
}

// Capacity for `count` entries of `size` bytes, bounded by the bytes left so that a bad
// count cannot make a large allocation. Tables are decoded for every edited method, and
// growing one entry at a time would cost several allocations each.
size_t bounded_count(uint32_t count, size_t size, const ByteReader& in) {
  return std::min<size_t>(count, in.remaining() / size);
}

ExceptionTableEntry read_exception_entry(ByteReader& in) {
  ExceptionTableEntry e;
  e.start_pc = in.u2();
  e.end_pc = in.u2();
  e.handler_pc = in.u2();
  e.catch_type = in.u2();
  return e;
}

Status read_exception_table(ByteReader& in, std::vector<ExceptionTableEntry>& out) {
  uint16_t count = in.u2();
  out.reserve(bounded_count(count, 8, in));
  for (uint32_t i = 0; i < count && !in.failed(); ++i) out.push_back(read_exception_entry(in));
  if (in.failed()) return truncated(in, "exception table");
  return Ok{};
}

// The views are into the parent's bytes; decode_code gives them the parent's owner.
Status read_nested_attributes(ByteReader& in, std::vector<Attribute>& out) {
  uint16_t count = in.u2();
  out.reserve(bounded_count(count, 6, in));
  for (uint32_t i = 0; i < count && !in.failed(); ++i) {
    Attribute& a = out.emplace_back();
    a.name_index = in.u2();
    uint32_t length = in.u4();
    a.data = in.bytes(length);
    if (in.failed()) out.pop_back();
  }
  if (in.failed()) return truncated(in, "Code attribute's attributes");
  return Ok{};
}

}  // namespace

// ---- Code ----

Status decode_code_into(const Attribute& attr, CodeAttribute& code, size_t file_offset) {
  ByteReader in(attr.data, file_offset);
  code.exception_table.clear();
  code.attributes.clear();
  code.max_stack = in.u2();
  code.max_locals = in.u2();
  size_t length_at = in.absolute_pos();
  uint32_t code_length = in.u4();
  if (in.failed()) return truncated(in, "Code attribute header");
  // JVMS 4.7.3: code_length must be greater than zero and less than 65536.
  if (code_length == 0 || code_length > 65535) {
    return Error::at_file(static_cast<int64_t>(length_at),
                          "code_length " + std::to_string(code_length) + " not in 1..65535");
  }
  code.code = in.bytes(code_length);
  if (in.failed()) return truncated(in, "bytecode");
  if (auto s = read_exception_table(in, code.exception_table); !s) return s;
  if (auto s = read_nested_attributes(in, code.attributes); !s) return s;
  return finish(in, "Code attribute");
}

Result<CodeAttribute> decode_code(const Attribute& attr, size_t file_offset) {
  CodeAttribute code;
  if (auto s = decode_code_into(attr, code, file_offset); !s) return s.error();
  // Nested attributes share the parent's owner so the views outlive edits of the parent.
  for (Attribute& a : code.attributes) a.owned = attr.owned;
  return code;
}

std::vector<uint8_t> encode_code(const CodeAttribute& code) {
  ByteWriter out;
  out.u2(code.max_stack);
  out.u2(code.max_locals);
  out.u4(static_cast<uint32_t>(code.code.size()));
  out.bytes(code.code);
  out.u2(static_cast<uint32_t>(code.exception_table.size()));
  for (const auto& e : code.exception_table) {
    out.u2(e.start_pc);
    out.u2(e.end_pc);
    out.u2(e.handler_pc);
    out.u2(e.catch_type);
  }
  out.u2(static_cast<uint32_t>(code.attributes.size()));
  for (const auto& a : code.attributes) {
    out.u2(a.name_index);
    out.u4(static_cast<uint32_t>(a.data.size()));
    out.bytes(a.data);
  }
  return out.take();
}

// ---- LineNumberTable ----

Status append_line_numbers(std::span<const uint8_t> body, std::vector<LineNumberEntry>& out,
                           size_t file_offset) {
  ByteReader in(body, file_offset);
  uint16_t count = in.u2();
  out.reserve(out.size() + bounded_count(count, 4, in));
  for (uint32_t i = 0; i < count && !in.failed(); ++i) {
    LineNumberEntry e;
    e.start_pc = in.u2();
    e.line = in.u2();
    out.push_back(e);
  }
  return finish(in, "LineNumberTable");
}

Result<std::vector<LineNumberEntry>> decode_line_numbers(std::span<const uint8_t> body,
                                                         size_t file_offset) {
  std::vector<LineNumberEntry> entries;
  if (auto s = append_line_numbers(body, entries, file_offset); !s) return s.error();
  return entries;
}

std::vector<uint8_t> encode_line_numbers(const std::vector<LineNumberEntry>& entries) {
  ByteWriter out;
  out.u2(static_cast<uint32_t>(entries.size()));
  for (const auto& e : entries) {
    out.u2(e.start_pc);
    out.u2(e.line);
  }
  return out.take();
}

// ---- LocalVariableTable / LocalVariableTypeTable (same layout) ----

Status append_local_variables(std::span<const uint8_t> body, std::vector<LocalVariableEntry>& out,
                              size_t file_offset) {
  ByteReader in(body, file_offset);
  uint16_t count = in.u2();
  out.reserve(out.size() + bounded_count(count, 10, in));
  for (uint32_t i = 0; i < count && !in.failed(); ++i) {
    LocalVariableEntry e;
    e.start_pc = in.u2();
    e.length = in.u2();
    e.name_index = in.u2();
    e.descriptor_index = in.u2();
    e.index = in.u2();
    out.push_back(e);
  }
  return finish(in, "local variable table");
}

Result<std::vector<LocalVariableEntry>> decode_local_variables(std::span<const uint8_t> body,
                                                               size_t file_offset) {
  std::vector<LocalVariableEntry> entries;
  if (auto s = append_local_variables(body, entries, file_offset); !s) return s.error();
  return entries;
}

std::vector<uint8_t> encode_local_variables(const std::vector<LocalVariableEntry>& entries) {
  ByteWriter out;
  out.u2(static_cast<uint32_t>(entries.size()));
  for (const auto& e : entries) {
    out.u2(e.start_pc);
    out.u2(e.length);
    out.u2(e.name_index);
    out.u2(e.descriptor_index);
    out.u2(e.index);
  }
  return out.take();
}

// ---- Exceptions ----

Result<std::vector<uint16_t>> decode_exceptions(std::span<const uint8_t> body, size_t file_offset) {
  ByteReader in(body, file_offset);
  std::vector<uint16_t> classes;
  uint16_t count = in.u2();
  for (uint32_t i = 0; i < count && !in.failed(); ++i) classes.push_back(in.u2());
  if (auto s = finish(in, "Exceptions attribute"); !s) return s.error();
  return classes;
}

// ---- BootstrapMethods ----

Result<std::vector<BootstrapMethod>> decode_bootstrap_methods(std::span<const uint8_t> body,
                                                              size_t file_offset) {
  ByteReader in(body, file_offset);
  std::vector<BootstrapMethod> methods;
  uint16_t count = in.u2();
  for (uint32_t i = 0; i < count && !in.failed(); ++i) {
    BootstrapMethod m;
    m.method_handle = in.u2();
    uint16_t nargs = in.u2();
    for (uint32_t j = 0; j < nargs && !in.failed(); ++j) m.arguments.push_back(in.u2());
    methods.push_back(std::move(m));
  }
  if (auto s = finish(in, "BootstrapMethods attribute"); !s) return s.error();
  return methods;
}

// ---- Annotations (JVMS 4.7.16) ----

namespace {

// Annotations nest through '@' and '[' element values; a hostile class file could nest them
// deeply enough to exhaust the stack, so the walk gives up past this depth.
constexpr int kMaxAnnotationDepth = 64;

Status skip_annotation(ByteReader& in, int depth);

Status skip_element_value(ByteReader& in, int depth) {
  if (depth > kMaxAnnotationDepth) {
    return Error::at_file(static_cast<int64_t>(in.absolute_pos()),
                          "annotation nesting deeper than " + std::to_string(kMaxAnnotationDepth));
  }
  size_t tag_at = in.absolute_pos();
  uint8_t tag = in.u1();
  if (in.failed()) return truncated(in, "element_value");
  switch (tag) {
    case 'B':
    case 'C':
    case 'D':
    case 'F':
    case 'I':
    case 'J':
    case 'S':
    case 'Z':
    case 's':
    case 'c':
      in.skip(2);  // const_value_index or class_info_index
      break;
    case 'e':
      in.skip(4);  // type_name_index, const_name_index
      break;
    case '@':
      return skip_annotation(in, depth + 1);
    case '[': {
      uint16_t count = in.u2();
      for (uint32_t i = 0; i < count && !in.failed(); ++i) {
        if (auto s = skip_element_value(in, depth + 1); !s) return s;
      }
      break;
    }
    default:
      return Error::at_file(static_cast<int64_t>(tag_at),
                            "unknown element_value tag " + std::to_string(tag));
  }
  if (in.failed()) return truncated(in, "element_value");
  return Ok{};
}

Status skip_annotation(ByteReader& in, int depth) {
  in.skip(2);  // type_index
  uint16_t pairs = in.u2();
  for (uint32_t i = 0; i < pairs && !in.failed(); ++i) {
    in.skip(2);  // element_name_index
    if (auto s = skip_element_value(in, depth); !s) return s;
  }
  if (in.failed()) return truncated(in, "annotation");
  return Ok{};
}

}  // namespace

// Measures one `annotation` structure (type_index, element_value_pairs), nested ones included.
Result<size_t> measure_annotation(std::span<const uint8_t> bytes, size_t file_offset) {
  ByteReader in(bytes, file_offset);
  if (auto s = skip_annotation(in, 0); !s) return s.error();
  return in.pos();
}

// ---- Type annotations in Code (JVMS 4.7.20) ----

namespace {

bool is_localvar_target(uint8_t t) {
  return t == 0x40 || t == 0x41;
}
bool is_catch_target(uint8_t t) {
  return t == 0x42;
}
bool is_offset_target(uint8_t t) {
  return t >= 0x43 && t <= 0x46;
}
bool is_type_argument_target(uint8_t t) {
  return t >= 0x47 && t <= 0x4B;
}

// Reads target_info for a target type already known to be a Code one.
void read_target_info(ByteReader& in, CodeTypeAnnotation& a) {
  if (is_localvar_target(a.target_type)) {
    uint16_t count = in.u2();
    for (uint32_t i = 0; i < count && !in.failed(); ++i) {
      LocalVarTargetRange r;
      r.start_pc = in.u2();
      r.length = in.u2();
      r.index = in.u2();
      a.ranges.push_back(r);
    }
  } else if (is_catch_target(a.target_type)) {
    a.exception_table_index = in.u2();
  } else {
    a.offset = in.u2();
    if (is_type_argument_target(a.target_type)) a.type_argument_index = in.u1();
  }
}

// Copies the bytes between `start` and the reader's position (both relative to `body`).
std::vector<uint8_t> copy_since(std::span<const uint8_t> body, size_t start, const ByteReader& in) {
  auto s = body.subspan(start, in.pos() - start);
  return {s.begin(), s.end()};
}

Result<CodeTypeAnnotation> read_code_type_annotation(ByteReader& in,
                                                     std::span<const uint8_t> body) {
  CodeTypeAnnotation a;
  size_t type_at = in.absolute_pos();
  a.target_type = in.u1();
  if (in.failed()) return truncated(in, "type annotation");
  if (a.target_type < 0x40 || a.target_type > 0x4B) {
    return Error::at_file(
        static_cast<int64_t>(type_at),
        "target type " + std::to_string(a.target_type) + " is not allowed in a Code attribute");
  }
  read_target_info(in, a);
  size_t path_start = in.pos();
  uint8_t path_length = in.u1();
  in.skip(2u * path_length);
  if (in.failed()) return truncated(in, "type annotation target");
  a.type_path = copy_since(body, path_start, in);
  size_t anno_start = in.pos();
  if (auto s = skip_annotation(in, 0); !s) return s.error();
  a.annotation = copy_since(body, anno_start, in);
  return a;
}

void write_target_info(ByteWriter& out, const CodeTypeAnnotation& a) {
  if (is_localvar_target(a.target_type)) {
    out.u2(static_cast<uint32_t>(a.ranges.size()));
    for (const auto& r : a.ranges) {
      out.u2(r.start_pc);
      out.u2(r.length);
      out.u2(r.index);
    }
  } else if (is_catch_target(a.target_type)) {
    out.u2(a.exception_table_index);
  } else if (is_offset_target(a.target_type) || is_type_argument_target(a.target_type)) {
    out.u2(a.offset);
    if (is_type_argument_target(a.target_type)) out.u1(a.type_argument_index);
  }
}

}  // namespace

Result<std::vector<CodeTypeAnnotation>> decode_code_type_annotations(std::span<const uint8_t> body,
                                                                     size_t file_offset) {
  ByteReader in(body, file_offset);
  std::vector<CodeTypeAnnotation> annos;
  uint16_t count = in.u2();
  for (uint32_t i = 0; i < count && !in.failed(); ++i) {
    auto a = read_code_type_annotation(in, body);
    if (!a) return a.error();
    annos.push_back(std::move(a.value()));
  }
  if (auto s = finish(in, "type annotations"); !s) return s.error();
  return annos;
}

std::vector<uint8_t> encode_code_type_annotations(const std::vector<CodeTypeAnnotation>& annos) {
  ByteWriter out;
  out.u2(static_cast<uint32_t>(annos.size()));
  for (const auto& a : annos) {
    out.u1(a.target_type);
    write_target_info(out, a);
    // A hand-built annotation may leave type_path empty; that means a path of length zero.
    if (a.type_path.empty()) {
      out.u1(0);
    } else {
      out.bytes(a.type_path);
    }
    out.bytes(a.annotation);
  }
  return out.take();
}

}  // namespace duplex
