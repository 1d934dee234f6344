// The constant pool: parsed exactly, written back byte for byte, and editable with
// de-duplication. Utf8 entries keep their raw modified-UTF-8 bytes so that a round trip is
// exact; text() decodes them to standard UTF-8 for display.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "classfile/bytes.h"
#include "classfile/error.h"

namespace duplex {

enum class CpTag : uint8_t {
  kUnusable = 0,  // index 0, and the second slot of a Long or Double
  kUtf8 = 1,
  kInteger = 3,
  kFloat = 4,
  kLong = 5,
  kDouble = 6,
  kClass = 7,
  kString = 8,
  kFieldref = 9,
  kMethodref = 10,
  kInterfaceMethodref = 11,
  kNameAndType = 12,
  kMethodHandle = 15,
  kMethodType = 16,
  kDynamic = 17,
  kInvokeDynamic = 18,
  kModule = 19,
  kPackage = 20,
};

const char* cp_tag_name(CpTag tag);

// A tag as one bit, for sets of tags (masks).
constexpr uint32_t tag_bit(CpTag t) {
  return 1u << static_cast<unsigned>(t);
}

struct CpEntry {
  CpTag tag = CpTag::kUnusable;
  // Two reference fields, meaning by tag:
  //   Class, String, MethodType, Module, Package: a = name/string/descriptor Utf8 index
  //   Field/Method/InterfaceMethodref: a = class index, b = name-and-type index
  //   NameAndType: a = name index, b = descriptor index
  //   MethodHandle: a = reference kind (1..9), b = reference index
  //   Dynamic, InvokeDynamic: a = bootstrap method attr index, b = name-and-type index
  uint16_t a = 0;
  uint16_t b = 0;
  uint64_t bits = 0;  // Integer/Float: low 32 bits; Long/Double: all 64
  // Utf8: the raw modified-UTF-8 bytes. In a pool's entries this views text the pool owns
  // (one buffer for the parsed entries, so parsing allocates once rather than per string);
  // an entry given to add() may view anything alive during the call.
  std::string_view utf8;
};

// A symbolic member reference resolved through the pool.
struct MemberRef {
  std::string_view owner;  // internal class name
  std::string_view name;
  std::string_view descriptor;
};

class ConstantPool {
 public:
  ConstantPool();
  // Copies own their text (the Utf8 views are re-pointed); moves keep the buffers.
  ConstantPool(const ConstantPool& other);
  ConstantPool& operator=(const ConstantPool& other);
  ConstantPool(ConstantPool&&) noexcept = default;
  ConstantPool& operator=(ConstantPool&&) noexcept = default;

  // Parses constant_pool_count and the entries. Checks every cross-reference's index and tag.
  static Result<ConstantPool> parse(ByteReader& in);
  // The same for bytes that `source` owns: the parsed Utf8 texts stay views of them (the pool
  // keeps `source` alive) instead of being copied, since ClassFile::parse keeps its input.
  static Result<ConstantPool> parse(ByteReader& in, std::shared_ptr<const void> source);
  void write(ByteWriter& out) const;
  // Writes the entries from index `first` on (without the count).
  void write_entries(ByteWriter& out, uint32_t first) const;

  // constant_pool_count as written in the class file (entries + 1).
  uint16_t count() const { return static_cast<uint16_t>(entries_.size()); }
  const CpEntry* entry(uint32_t index) const {
    if (index == 0 || index >= entries_.size()) return nullptr;
    const CpEntry& e = entries_[index];
    return e.tag == CpTag::kUnusable ? nullptr : &e;
  }
  CpTag tag(uint32_t index) const {
    const CpEntry* e = entry(index);
    return e ? e->tag : CpTag::kUnusable;
  }

  // Checked accessors: nullopt when the index is out of range or has the wrong tag.
  std::optional<std::string_view> utf8(uint32_t index) const {  // raw modified UTF-8
    const CpEntry* e = entry(index);
    if (!e || e->tag != CpTag::kUtf8) return std::nullopt;
    return e->utf8;
  }
  std::optional<std::string_view> class_name(uint32_t index) const {  // Class -> name
    const CpEntry* e = entry(index);
    if (!e || e->tag != CpTag::kClass) return std::nullopt;
    return utf8(e->a);
  }
  std::optional<MemberRef> member_ref(uint32_t index) const;  // Field/Method/InterfaceMethodref
  std::optional<std::pair<std::string_view, std::string_view>> name_and_type(uint32_t index) const;
  // Invokedynamic / Dynamic: bootstrap index, name and descriptor.
  struct DynamicRef {
    uint16_t bootstrap_index;
    std::string_view name;
    std::string_view descriptor;
  };
  std::optional<DynamicRef> dynamic_ref(uint32_t index) const;

  // Adds an entry, or returns the index of an identical one already present.
  // Fails when the pool would pass 65535 slots (Long and Double take two).
  Result<uint16_t> add_utf8(std::string_view modified_utf8);
  Result<uint16_t> add_class(std::string_view internal_name);
  Result<uint16_t> add_string(std::string_view modified_utf8);
  Result<uint16_t> add_integer(int32_t value);
  Result<uint16_t> add_float_bits(uint32_t bits);
  Result<uint16_t> add_long(int64_t value);
  Result<uint16_t> add_double_bits(uint64_t bits);
  Result<uint16_t> add_name_and_type(std::string_view name, std::string_view descriptor);
  Result<uint16_t> add_fieldref(std::string_view owner, std::string_view name,
                                std::string_view desc);
  Result<uint16_t> add_methodref(std::string_view owner, std::string_view name,
                                 std::string_view desc);
  Result<uint16_t> add_interface_methodref(std::string_view owner, std::string_view name,
                                           std::string_view desc);
  // MethodHandle: `kind` is the reference kind (JVMS 4.4.8, 1..9), `reference` the pool index
  // of the Fieldref, Methodref or InterfaceMethodref it names.
  Result<uint16_t> add_method_handle(uint8_t kind, uint16_t reference);
  // InvokeDynamic: `bootstrap` indexes the class's BootstrapMethods (classfile/bootstrap_table.h).
  Result<uint16_t> add_invoke_dynamic(uint16_t bootstrap, std::string_view name,
                                      std::string_view descriptor);
  // Adds an arbitrary entry (de-duplicated), for callers that build references themselves.
  Result<uint16_t> add(const CpEntry& entry);

  // Re-points the Fieldref, Methodref or InterfaceMethodref at `index` to the Class entry
  // `class_index` (a member moved to another class). Every index into the pool stays valid;
  // the pool gets a new id() and is written entry by entry from then on.
  Status set_member_owner(uint16_t index, uint16_t class_index);
  // Likewise re-points it to the NameAndType entry `name_and_type` (a member whose descriptor
  // changed as it moved).
  Status set_member_name_and_type(uint16_t index, uint16_t name_and_type);

  // Marks, in `used` (a flag per index, count() of them), every entry a marked entry refers
  // to, transitively: a Class its name, a member reference its Class and NameAndType, ...
  // (Bootstrap arguments are the BootstrapMethods attribute's: mark them first.)
  void mark_references(std::vector<bool>& used) const;
  // Every entry `used` does not mark becomes an empty Utf8 entry (an unmarked Long or Double
  // two of them), so that a pool copied for a class that needs few of its entries keeps their
  // indices, and little else. Mark the references of the kept entries first.
  void keep_only(const std::vector<bool>& used);

  static constexpr uint32_t kMaxCount = 65535;  // constant_pool_count is a u2

  // Identifies this pool object for caches of derived data (see initial_frame): a copy, a
  // moved-to pool and a new pool get a new id, and entries are only ever appended, so
  // (id(), count()) names one exact pool state.
  uint64_t id() const { return id_.value; }
  // Identifies the parse a pool came from, so that an owner can tell its pool was not
  // replaced since: kept when the pool moves, 0 for a copy or a pool that was not parsed.
  uint64_t parse_origin() const { return origin_; }

 private:
  Status set_member_part(uint16_t index, uint16_t part, CpTag part_tag);
  static Result<ConstantPool> parse_checked(ByteReader& in);
  bool parse_fast(ByteReader& in, bool copy_text);
  bool references_sound() const;
  static size_t hash_of(CpTag tag, uint16_t a, uint16_t b, uint64_t bits, std::string_view utf8);
  static size_t hash_of(const CpEntry& e);
  std::optional<uint16_t> find(const CpEntry& e) const;
  std::optional<uint16_t> find_utf8(std::string_view text) const;
  Result<uint16_t> add_referring(const CpEntry& entry, size_t pool_size);
  void build_index() const;
  void contents_changed();
  bool scan_instead() const;
  void index_insert(uint16_t index) const;
  std::optional<uint16_t> find_class(std::string_view name) const;
  void build_class_index() const;
  void class_index_insert(uint16_t index) const;
  std::optional<std::string> check_references(uint32_t index) const;
  Result<uint16_t> add_ref1(CpTag tag, std::string_view utf8_text);
  Result<uint16_t> append(const CpEntry& entry);
  Result<uint16_t> add_member(CpTag tag, std::string_view owner, std::string_view name,
                              std::string_view desc);

  struct Id {
    uint64_t value = next();
    Id() = default;
    Id(const Id&) : value(next()) {}
    Id& operator=(const Id&) {
      value = next();
      return *this;
    }
    static uint64_t next();
  };

  void own_text();
  void own_parsed_text();
  void own_text_span(const char* lo, const char* hi);

  std::vector<CpEntry> entries_;  // entries_[0] is unusable
  Id id_;
  uint64_t origin_ = 0;  // see parse_origin
  // The text of Utf8 entries: parsed ones in one buffer (or in source_), added ones packed
  // into blocks that never move (so views stay valid as more are added; a rewrite adds a key
  // string per site, and a string each cost two allocations).
  std::vector<char> parsed_text_;
  std::shared_ptr<const void> source_;  // or the parsed texts are views of this (see parse)
  std::vector<std::unique_ptr<char[]>> added_blocks_;
  char* added_cursor_ = nullptr;  // where the next added text goes, in the last block
  size_t added_block_free_ = 0;   // bytes left there
  std::string_view keep_added_text(std::string_view text);
  // Open-addressing hash set of entry indices (0 = empty slot), hashed by contents and
  // built on the first add; lookups compare the candidates' contents. A flat table of u2
  // costs one allocation per pool where a node-based map cost one per entry, and pools are
  // indexed once per class the rewriter touches.
  mutable std::vector<uint16_t> slots_;
  mutable uint32_t indexed_count_ = 0;  // entries in slots_
  mutable bool indexed_ = false;
  static constexpr uint32_t kScansBeforeIndex = 4;
  mutable uint32_t scans_ = 0;  // look-ups answered by a scan (see scan_instead)
  // Class entries by name, the same kind of table. add_class looks here first: the entry
  // frame of every method asks for its parameters' classes, which a pool usually has
  // already, and indexing only the Class entries is far cheaper than indexing every entry.
  mutable std::vector<uint16_t> class_slots_;  // empty until the first add_class
  mutable uint32_t class_count_ = 0;
  // What add_member returned lately, by where its arguments' text lives: the rewriter asks
  // for the same few runtime methods at every site, with the same string constants. A hit
  // is checked against the entry's text, so a reused address only costs a miss; the pool
  // only grows, so an answer once given stays the answer for the same text.
  std::array<uint16_t, 256>
      member_memo_{};  // 16 slots missed often: a rewrite asks for ~20 members
  static size_t member_memo_slot(std::string_view owner, std::string_view name,
                                 std::string_view desc);
  bool member_matches(uint16_t index, CpTag tag, std::string_view owner, std::string_view name,
                      std::string_view desc) const;
};

// Modified UTF-8 (JVMS 4.4.7) to standard UTF-8, for display. Malformed bytes become U+FFFD.
std::string modified_utf8_to_utf8(std::string_view modified);
// Standard UTF-8 to modified UTF-8 (NUL as C0 80, supplementary characters as surrogate pairs).
std::string utf8_to_modified_utf8(std::string_view utf8);
// Orders two modified-UTF-8 texts as Java's String.compareTo orders the strings they encode (by
// UTF-16 code unit): negative, zero or positive.
int compare_as_java_strings(std::string_view a, std::string_view b);

}  // namespace duplex
