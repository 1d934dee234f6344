// A parsed class file. Parsing keeps every attribute as raw bytes (a view into the input), so
// writing an unedited class gives the input back byte for byte, and methods that are not
// edited are copied byte for byte. Decoders for the attributes the rewriter needs are in
// attributes.h; the per-method code IR is in code_ir.h.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "classfile/attribute_store.h"
#include "classfile/constant_pool.h"
#include "classfile/error.h"

namespace duplex {

// Access flags used by the library (JVMS 4.1, 4.5, 4.6).
namespace access {
inline constexpr uint16_t kPublic = 0x0001;
inline constexpr uint16_t kPrivate = 0x0002;
inline constexpr uint16_t kProtected = 0x0004;
inline constexpr uint16_t kStatic = 0x0008;
inline constexpr uint16_t kFinal = 0x0010;
inline constexpr uint16_t kSynchronized = 0x0020;  // methods; ACC_SUPER on classes
inline constexpr uint16_t kBridge = 0x0040;        // methods
inline constexpr uint16_t kVolatile = 0x0040;      // fields
inline constexpr uint16_t kVarargs = 0x0080;       // methods
inline constexpr uint16_t kTransient = 0x0080;     // fields
inline constexpr uint16_t kNative = 0x0100;
inline constexpr uint16_t kInterface = 0x0200;
inline constexpr uint16_t kAbstract = 0x0400;
inline constexpr uint16_t kStrict = 0x0800;
inline constexpr uint16_t kSynthetic = 0x1000;
inline constexpr uint16_t kAnnotation = 0x2000;
inline constexpr uint16_t kEnum = 0x4000;
inline constexpr uint16_t kModule = 0x8000;
}  // namespace access

// An attribute as stored: its name index and its body bytes. The body is a view into either
// the parsed input or a buffer this attribute owns (after an edit).
struct Attribute {
  uint16_t name_index = 0;
  std::span<const uint8_t> data;
  // Keeps `data` alive when it is not the input's: a buffer of its own (set_data), or the
  // class's AttributeStore (ClassFile::set_attribute_data).
  std::shared_ptr<const void> owned;

  void set_data(std::vector<uint8_t> bytes);
};

struct Member {  // a field or a method
  uint16_t access_flags = 0;
  uint16_t name_index = 0;
  uint16_t descriptor_index = 0;
  std::vector<Attribute> attributes;
};

// Whether `internal_name` is a class's name as the JVM accepts it in this_class (JVMS 4.2.1):
// non-empty identifiers separated by '/', none holding '.', ';' or '['. Parsing does not check
// it; code that builds descriptors from the name must (a ';' would split it in two).
bool is_binary_class_name(std::string_view internal_name);

class ClassFile {
 public:
  uint16_t minor_version = 0;
  uint16_t major_version = 0;
  ConstantPool pool;
  uint16_t access_flags = 0;
  uint16_t this_class = 0;
  uint16_t super_class = 0;
  std::vector<uint16_t> interfaces;
  std::vector<Member> fields;
  std::vector<Member> methods;
  std::vector<Attribute> attributes;

  // Supported versions: 45 (Java 1.1) to 69 (Java 25).
  static constexpr uint16_t kMinMajor = 45;
  static constexpr uint16_t kMaxMajor = 69;

  // Parses a whole class file. The bytes are copied once and kept alive by the result, so
  // the caller's buffer may go away. Trailing bytes after the class are an error.
  static Result<ClassFile> parse(std::span<const uint8_t> bytes);
  // Serialises the class. Fails only if a count overflows its u2/u4 field.
  Result<std::vector<uint8_t>> write() const;

  // Internal name of this class ("java/lang/String"), or "<unknown>" if the pool is broken.
  std::string name() const;
  std::string_view member_name(const Member& m) const;
  std::string_view member_descriptor(const Member& m) const;
  std::string_view attribute_name(const Attribute& a) const;
  // The first attribute with this name, or nullptr.
  const Attribute* find_attribute(const std::vector<Attribute>& attrs, std::string_view name) const;
  Attribute* find_attribute(std::vector<Attribute>& attrs, std::string_view name) const;

  bool has_stack_map_frames() const { return major_version >= 50; }

  // Gives `attribute` (of this class) a copy of `bytes` as its body, kept in the class's
  // AttributeStore: for bodies made in bulk, such as every rewritten method's Code attribute.
  void set_attribute_data(Attribute& attribute, std::span<const uint8_t> bytes);

  // Appends a method with `code_attribute` as its Code attribute's body (adding its name,
  // descriptor and "Code" to the pool, in that order; the body is copied). Fails, adding no
  // method, when the pool is full.
  Status append_method(uint16_t access, std::string_view name, std::string_view descriptor,
                       std::span<const uint8_t> code_attribute);
  // Appends a field without attributes (adding its name and descriptor to the pool). Fails,
  // adding no field, when the pool is full.
  Status append_field(uint16_t access, std::string_view name, std::string_view descriptor);

  // constant_pool_count as parsed, before any edit grew the pool (the current count for a
  // class that was not parsed). References in the original code and attributes are checked
  // against this: an index that was out of range in the input must stay an error after the
  // rewriter appended entries, or a rewrite would "repair" a class the JVM refuses.
  uint16_t parsed_pool_count() const { return source_ ? parsed_pool_count_ : pool.count(); }

  // Where `bytes` (a view from this class's attributes) starts in the parsed class file, so
  // decoders can report class-file offsets; 0 for bytes that were not parsed (edited ones).
  size_t file_offset_of(std::span<const uint8_t> bytes) const {
    if (!source_ || bytes.empty()) return 0;
    const uint8_t* base = source_->data();
    if (bytes.data() < base || bytes.data() >= base + source_->size()) return 0;
    return static_cast<size_t>(bytes.data() - base);
  }

 private:
  static Result<ClassFile> parse_body(ClassFile cf, ByteReader& in);

  void write_pool(ByteWriter& out) const;
  // The pool is the one parsed, with entries only appended since: its parsed bytes can be
  // copied as they were read.
  bool pool_as_parsed() const {
    return source_ && pool.parse_origin() == parsed_pool_origin_ &&
           pool.count() >= parsed_pool_count_;
  }

  std::shared_ptr<const std::vector<uint8_t>> source_;  // keeps parsed views alive
  uint16_t parsed_pool_count_ = 0;
  uint64_t parsed_pool_origin_ = 0;             // the pool parsed (see write_pool)
  std::span<const uint8_t> parsed_pool_bytes_;  // its entries' bytes in source_
  AttributeStoreHandle attribute_store_;        // bodies given by set_attribute_data
};

}  // namespace duplex
