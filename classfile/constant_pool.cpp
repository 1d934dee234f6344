#include "classfile/constant_pool.h"

#include <array>
#include <atomic>
#include <cstring>

#include "classfile/text_hash.h"

namespace duplex {
namespace {

bool is_wide(CpTag t) {
  return t == CpTag::kLong || t == CpTag::kDouble;
}

bool is_member_ref(CpTag t) {
  return t == CpTag::kFieldref || t == CpTag::kMethodref || t == CpTag::kInterfaceMethodref;
}

// What an entry's two fields must name, by the entry's tag: the tags the entries at `a` and at
// `b` may have, as masks of tag_bit; 0 where the field is not a pool index (a MethodHandle's `a`
// is its kind, a Dynamic's or InvokeDynamic's a BootstrapMethods index). One table for checking
// references and for following them.
struct ReferenceRule {
  uint32_t a = 0;
  uint32_t b = 0;
};
constexpr auto kReferenceRules = [] {
  std::array<ReferenceRule, static_cast<size_t>(CpTag::kPackage) + 1> rules{};
  auto set = [&](CpTag t, uint32_t a, uint32_t b) { rules[static_cast<size_t>(t)] = {a, b}; };
  for (CpTag t :
       {CpTag::kClass, CpTag::kString, CpTag::kMethodType, CpTag::kModule, CpTag::kPackage})
    set(t, tag_bit(CpTag::kUtf8), 0);
  for (CpTag t : {CpTag::kFieldref, CpTag::kMethodref, CpTag::kInterfaceMethodref})
    set(t, tag_bit(CpTag::kClass), tag_bit(CpTag::kNameAndType));
  set(CpTag::kNameAndType, tag_bit(CpTag::kUtf8), tag_bit(CpTag::kUtf8));
  set(CpTag::kMethodHandle, 0,
      tag_bit(CpTag::kFieldref) | tag_bit(CpTag::kMethodref) | tag_bit(CpTag::kInterfaceMethodref));
  for (CpTag t : {CpTag::kDynamic, CpTag::kInvokeDynamic}) set(t, 0, tag_bit(CpTag::kNameAndType));
  return rules;
}();

// How check_references names a set of tags of kReferenceRules.
const char* tag_set_name(uint32_t tags) {
  if (tags == tag_bit(CpTag::kUtf8)) return "a Utf8";
  if (tags == tag_bit(CpTag::kClass)) return "a Class";
  if (tags == tag_bit(CpTag::kNameAndType)) return "a NameAndType";
  return "a member reference";
}

const ReferenceRule& reference_rule(CpTag t) {
  static constexpr ReferenceRule kNone{};
  auto i = static_cast<size_t>(t);
  return i < kReferenceRules.size() ? kReferenceRules[i] : kNone;
}

// Reads the body of one entry whose tag byte has been read.
bool read_entry_body(ByteReader& in, CpEntry& e) {
  switch (e.tag) {
    case CpTag::kUtf8: {
      uint16_t len = in.u2();
      auto bytes = in.bytes(len);
      // A view of the input for now; ConstantPool::parse copies all texts at the end.
      e.utf8 = std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size());
      return true;
    }
    case CpTag::kInteger:
    case CpTag::kFloat:
      e.bits = in.u4();
      return true;
    case CpTag::kLong:
    case CpTag::kDouble:
      e.bits = static_cast<uint64_t>(in.u4()) << 32;
      e.bits |= in.u4();
      return true;
    case CpTag::kClass:
    case CpTag::kString:
    case CpTag::kMethodType:
    case CpTag::kModule:
    case CpTag::kPackage:
      e.a = in.u2();
      return true;
    case CpTag::kMethodHandle:
      e.a = in.u1();
      e.b = in.u2();
      return true;
    case CpTag::kFieldref:
    case CpTag::kMethodref:
    case CpTag::kInterfaceMethodref:
    case CpTag::kNameAndType:
    case CpTag::kDynamic:
    case CpTag::kInvokeDynamic:
      e.a = in.u2();
      e.b = in.u2();
      return true;
    default:
      return false;
  }
}

// The file offset of entry `index`, read again from `in` (positioned at the first entry) for
// an error message, so that parsing keeps no per-entry offsets.
size_t entry_offset(ByteReader in, uint32_t index) {
  for (uint32_t i = 1; i < index; ++i) {
    CpEntry e;
    e.tag = static_cast<CpTag>(in.u1());
    read_entry_body(in, e);
    if (is_wide(e.tag)) ++i;
  }
  return in.absolute_pos();
}

}  // namespace

const char* cp_tag_name(CpTag tag) {
  switch (tag) {
    case CpTag::kUnusable:
      return "Unusable";
    case CpTag::kUtf8:
      return "Utf8";
    case CpTag::kInteger:
      return "Integer";
    case CpTag::kFloat:
      return "Float";
    case CpTag::kLong:
      return "Long";
    case CpTag::kDouble:
      return "Double";
    case CpTag::kClass:
      return "Class";
    case CpTag::kString:
      return "String";
    case CpTag::kFieldref:
      return "Fieldref";
    case CpTag::kMethodref:
      return "Methodref";
    case CpTag::kInterfaceMethodref:
      return "InterfaceMethodref";
    case CpTag::kNameAndType:
      return "NameAndType";
    case CpTag::kMethodHandle:
      return "MethodHandle";
    case CpTag::kMethodType:
      return "MethodType";
    case CpTag::kDynamic:
      return "Dynamic";
    case CpTag::kInvokeDynamic:
      return "InvokeDynamic";
    case CpTag::kModule:
      return "Module";
    case CpTag::kPackage:
      return "Package";
  }
  return "?";
}

ConstantPool::ConstantPool() : entries_(1) {}

ConstantPool::ConstantPool(const ConstantPool& other)
    : entries_(other.entries_),
      slots_(other.slots_),
      indexed_count_(other.indexed_count_),
      indexed_(other.indexed_),
      scans_(other.scans_),
      class_slots_(other.class_slots_),
      class_count_(other.class_count_) {
  own_text();
}

ConstantPool& ConstantPool::operator=(const ConstantPool& other) {
  if (this != &other) *this = ConstantPool(other);
  return *this;
}

// After parsing: the Utf8 views are in increasing order within the input, so the bytes from
// the first text to the end of the last are copied at once and the views moved over.
void ConstantPool::own_parsed_text() {
  const char* lo = nullptr;
  const char* hi = nullptr;
  for (const CpEntry& e : entries_) {
    if (e.tag != CpTag::kUtf8) continue;
    if (lo == nullptr) lo = e.utf8.data();
    hi = e.utf8.data() + e.utf8.size();
  }
  own_text_span(lo, hi);
}

// The same, given the span of the texts [lo, hi) in the input.
void ConstantPool::own_text_span(const char* lo, const char* hi) {
  parsed_text_.assign(lo, hi);
  const char* base = parsed_text_.data();
  for (CpEntry& e : entries_) {
    if (e.tag != CpTag::kUtf8) continue;
    e.utf8 = std::string_view(base + (e.utf8.data() - lo), e.utf8.size());
  }
}

// Copies every Utf8 text into one new buffer and points the entries at it. Used after
// parsing (the views are into the input) and after copying (they are into the other pool).
void ConstantPool::own_text() {
  size_t total = 0;
  for (const CpEntry& e : entries_) total += e.tag == CpTag::kUtf8 ? e.utf8.size() : 0;
  std::vector<char> text(total);
  char* p = text.data();
  for (CpEntry& e : entries_) {
    if (e.tag != CpTag::kUtf8 || e.utf8.empty()) continue;
    std::memcpy(p, e.utf8.data(), e.utf8.size());
    e.utf8 = std::string_view(p, e.utf8.size());
    p += e.utf8.size();
  }
  parsed_text_ = std::move(text);
  source_.reset();
  added_blocks_.clear();
  added_cursor_ = nullptr;
  added_block_free_ = 0;
}

std::string_view ConstantPool::keep_added_text(std::string_view text) {
  constexpr size_t kBlock = 4096;
  if (text.empty()) return {};
  if (text.size() > added_block_free_) {
    size_t size = std::max(kBlock, text.size());
    added_blocks_.push_back(std::make_unique_for_overwrite<char[]>(size));
    added_cursor_ = added_blocks_.back().get();
    added_block_free_ = size;
  }
  char* at = added_cursor_;
  std::memcpy(at, text.data(), text.size());
  added_cursor_ += text.size();
  added_block_free_ -= text.size();
  return {at, text.size()};
}

uint64_t ConstantPool::Id::next() {
  static std::atomic<uint64_t> counter{0};
  return counter.fetch_add(1, std::memory_order_relaxed) + 1;
}

Result<ConstantPool> ConstantPool::parse(ByteReader& in) {
  return parse(in, nullptr);
}

Result<ConstantPool> ConstantPool::parse(ByteReader& in, std::shared_ptr<const void> source) {
  ByteReader saved = in;
  ConstantPool pool;
  pool.origin_ = Id::next();
  if (pool.parse_fast(in, source == nullptr)) {
    pool.source_ = std::move(source);
    return pool;
  }
  in = saved;
  auto checked = parse_checked(in);  // copies the texts: the rare case
  if (checked) checked->origin_ = pool.origin_;
  return checked;
}

namespace {

uint16_t be16(const uint8_t* p) {
  return static_cast<uint16_t>(p[0] << 8 | p[1]);
}
uint32_t be32(const uint8_t* p) {
  return static_cast<uint32_t>(p[0]) << 24 | static_cast<uint32_t>(p[1]) << 16 |
         static_cast<uint32_t>(p[2]) << 8 | p[3];
}

}  // namespace

// Parses a well-formed pool straight from the bytes, with one bounds check per entry (every
// class parsed goes through here); false on anything parse_checked would report, which then
// parses again for the error.
bool ConstantPool::parse_fast(ByteReader& in, bool copy_text) {
  std::span<const uint8_t> bytes = in.rest();
  if (bytes.size() < 2) return false;
  const uint8_t* p = bytes.data();
  const uint8_t* end = p + bytes.size();
  uint16_t count = be16(p);
  p += 2;
  if (count == 0) return false;
  entries_.reserve(count + 16u);  // headroom for the first entries an edit adds
  entries_.resize(count);
  CpEntry* entries = entries_.data();
  const char* text_lo = nullptr;  // the span of the Utf8 texts in the input
  const char* text_hi = nullptr;
  for (uint32_t i = 1; i < count; ++i) {
    if (p >= end) return false;
    CpEntry& e = entries[i];
    e.tag = static_cast<CpTag>(*p);
    size_t left = static_cast<size_t>(end - p);
    switch (e.tag) {
      case CpTag::kUtf8: {
        if (left < 3 || left - 3 < be16(p + 1)) return false;
        size_t n = be16(p + 1);
        // A view of the input: own_text_span copies all texts at the end, unless the
        // pool keeps the input (parse with a source).
        e.utf8 = std::string_view(reinterpret_cast<const char*>(p + 3), n);
        if (text_lo == nullptr) text_lo = e.utf8.data();
        text_hi = e.utf8.data() + n;
        p += 3 + n;
        break;
      }
      case CpTag::kInteger:
      case CpTag::kFloat:
        if (left < 5) return false;
        e.bits = be32(p + 1);
        p += 5;
        break;
      case CpTag::kLong:
      case CpTag::kDouble:
        if (left < 9 || i + 1 >= count) return false;
        e.bits = static_cast<uint64_t>(be32(p + 1)) << 32 | be32(p + 5);
        p += 9;
        ++i;  // the slot after a Long or Double is unusable
        break;
      case CpTag::kClass:
      case CpTag::kString:
      case CpTag::kMethodType:
      case CpTag::kModule:
      case CpTag::kPackage:
        if (left < 3) return false;
        e.a = be16(p + 1);
        p += 3;
        break;
      case CpTag::kMethodHandle:
        if (left < 4) return false;
        e.a = p[1];
        e.b = be16(p + 2);
        p += 4;
        break;
      case CpTag::kFieldref:
      case CpTag::kMethodref:
      case CpTag::kInterfaceMethodref:
      case CpTag::kNameAndType:
      case CpTag::kDynamic:
      case CpTag::kInvokeDynamic:
        if (left < 5) return false;
        e.a = be16(p + 1);
        e.b = be16(p + 3);
        p += 5;
        break;
      default:
        return false;
    }
  }
  if (!references_sound()) return false;
  if (copy_text) own_text_span(text_lo, text_hi);
  in.skip(static_cast<size_t>(p - bytes.data()));
  return true;
}

// check_references for every entry, as a quick yes or no.
bool ConstantPool::references_sound() const {
  const CpEntry* entries = entries_.data();
  size_t count = entries_.size();
  auto tag = [&](uint16_t ref) { return ref < count ? entries[ref].tag : CpTag::kUnusable; };
  for (size_t i = 1; i < count; ++i) {
    const CpEntry& e = entries[i];
    const ReferenceRule& rule = reference_rule(e.tag);
    if (rule.a != 0 && (tag_bit(tag(e.a)) & rule.a) == 0) return false;
    if (rule.b != 0 && (tag_bit(tag(e.b)) & rule.b) == 0) return false;
    if (e.tag == CpTag::kMethodHandle && (e.a < 1 || e.a > 9)) return false;
  }
  return true;
}

// The parse with every read checked and every problem named.
Result<ConstantPool> ConstantPool::parse_checked(ByteReader& in) {
  ConstantPool pool;
  size_t count_at = in.absolute_pos();
  uint16_t count = in.u2();
  if (in.failed()) return Error::at_file(in.failure_offset(), "truncated before the constant pool");
  if (count == 0) return Error::at_file(count_at, "constant_pool_count is 0");
  // Headroom, so that the first entries an edit adds do not move every parsed entry.
  pool.entries_.reserve(count + 16u);
  pool.entries_.resize(count);
  ByteReader start = in;  // to find an entry's offset again for an error message
  for (uint32_t i = 1; i < count; ++i) {
    size_t at = in.absolute_pos();
    CpEntry& e = pool.entries_[i];
    e.tag = static_cast<CpTag>(in.u1());
    if (in.failed()) break;
    if (!read_entry_body(in, e)) {
      return Error::at_file(at, "constant pool entry #" + std::to_string(i) + ": unknown tag " +
                                    std::to_string(static_cast<int>(e.tag)));
    }
    if (is_wide(e.tag)) {
      if (i + 1 >= count) {
        return Error::at_file(
            at, "constant pool entry #" + std::to_string(i) + ": Long/Double takes the last slot");
      }
      ++i;  // the slot after a Long or Double is unusable
    }
  }
  if (in.failed()) {
    return Error::at_file(in.failure_offset(), "truncated inside the constant pool");
  }
  pool.own_parsed_text();
  for (uint32_t i = 1; i < count; ++i) {
    if (auto err = pool.check_references(i)) {
      return Error::at_file(entry_offset(start, i), "constant pool entry #" + std::to_string(i) +
                                                        " (" + cp_tag_name(pool.entries_[i].tag) +
                                                        "): " + *err);
    }
  }
  return pool;
}

// Why entry i refers to a missing or wrong-kind entry, or nullopt if it is sound.
std::optional<std::string> ConstantPool::check_references(uint32_t i) const {
  const CpEntry& e = entries_[i];
  if (e.tag == CpTag::kMethodHandle && (e.a < 1 || e.a > 9))
    return "reference kind " + std::to_string(e.a) + " is not 1..9";
  auto expect = [&](uint16_t ref, uint32_t allowed) -> std::optional<std::string> {
    if (allowed == 0) return std::nullopt;  // not a pool index
    CpTag t = ref < entries_.size() ? entries_[ref].tag : CpTag::kUnusable;
    if (ref != 0 && (tag_bit(t) & allowed) != 0) return std::nullopt;
    return "reference #" + std::to_string(ref) + " is not " + tag_set_name(allowed);
  };
  const ReferenceRule& rule = reference_rule(e.tag);
  if (auto err = expect(e.a, rule.a)) return err;
  return expect(e.b, rule.b);
}

void ConstantPool::write(ByteWriter& out) const {
  out.u2(count());
  write_entries(out, 1);
}

void ConstantPool::write_entries(ByteWriter& out, uint32_t first) const {
  for (size_t i = first; i < entries_.size(); ++i) {
    const CpEntry& e = entries_[i];
    if (e.tag == CpTag::kUnusable) continue;
    out.u1(static_cast<uint8_t>(e.tag));
    switch (e.tag) {
      case CpTag::kUtf8:
        out.u2(static_cast<uint32_t>(e.utf8.size()));
        out.bytes(e.utf8);
        break;
      case CpTag::kInteger:
      case CpTag::kFloat:
        out.u4(static_cast<uint32_t>(e.bits));
        break;
      case CpTag::kLong:
      case CpTag::kDouble:
        out.u4(static_cast<uint32_t>(e.bits >> 32));
        out.u4(static_cast<uint32_t>(e.bits));
        break;
      case CpTag::kMethodHandle:
        out.u1(e.a);
        out.u2(e.b);
        break;
      case CpTag::kClass:
      case CpTag::kString:
      case CpTag::kMethodType:
      case CpTag::kModule:
      case CpTag::kPackage:
        out.u2(e.a);
        break;
      default:
        out.u2(e.a);
        out.u2(e.b);
        break;
    }
  }
}

std::optional<std::pair<std::string_view, std::string_view>> ConstantPool::name_and_type(
    uint32_t index) const {
  const CpEntry* e = entry(index);
  if (!e || e->tag != CpTag::kNameAndType) return std::nullopt;
  auto name = utf8(e->a);
  auto desc = utf8(e->b);
  if (!name || !desc) return std::nullopt;
  return std::make_pair(*name, *desc);
}

std::optional<MemberRef> ConstantPool::member_ref(uint32_t index) const {
  const CpEntry* e = entry(index);
  if (!e || !is_member_ref(e->tag)) return std::nullopt;
  auto owner = class_name(e->a);
  auto nat = name_and_type(e->b);
  if (!owner || !nat) return std::nullopt;
  return MemberRef{*owner, nat->first, nat->second};
}

std::optional<ConstantPool::DynamicRef> ConstantPool::dynamic_ref(uint32_t index) const {
  const CpEntry* e = entry(index);
  if (!e || (e->tag != CpTag::kDynamic && e->tag != CpTag::kInvokeDynamic)) return std::nullopt;
  auto nat = name_and_type(e->b);
  if (!nat) return std::nullopt;
  return DynamicRef{e->a, nat->first, nat->second};
}

// ---- editing ----

size_t ConstantPool::hash_of(CpTag tag, uint16_t a, uint16_t b, uint64_t bits,
                             std::string_view utf8) {
  // Only Utf8 entries have text; the others hash their fields alone (no call into the
  // byte hash for an empty string).
  uint64_t h = tag == CpTag::kUtf8 ? text_hash(utf8) : 0;
  h ^= (static_cast<uint64_t>(tag) << 32 | static_cast<uint64_t>(a) << 16 | b) +
       0x9E3779B97F4A7C15ULL;
  h ^= bits * 0xC2B2AE3D27D4EB4FULL;
  // Final mix (from splitmix64) so that the low bits, which pick the slot, depend on all.
  h = (h ^ (h >> 30)) * 0xBF58476D1CE4E5B9ULL;
  h = (h ^ (h >> 27)) * 0x94D049BB133111EBULL;
  return static_cast<size_t>(h ^ (h >> 31));
}

size_t ConstantPool::hash_of(const CpEntry& e) {
  return hash_of(e.tag, e.a, e.b, e.bits, e.utf8);
}

// Before the pool has indexed its entries, the first few look-ups scan them instead: a class
// whose code only gains an entry or two (an entry frame's parameter class, an attribute
// name) should not pay for hashing every entry. A scan finds the same entry an index would,
// the first with the contents.
bool ConstantPool::scan_instead() const {
  if (indexed_ || scans_ >= kScansBeforeIndex) return false;
  ++scans_;
  return true;
}

std::optional<uint16_t> ConstantPool::find(const CpEntry& e) const {
  if (scan_instead()) {
    for (size_t i = 1; i < entries_.size(); ++i) {
      const CpEntry& c = entries_[i];
      if (c.tag == e.tag && c.a == e.a && c.b == e.b && c.bits == e.bits && c.utf8 == e.utf8) {
        return static_cast<uint16_t>(i);
      }
    }
    return std::nullopt;
  }
  build_index();
  size_t mask = slots_.size() - 1;
  for (size_t s = hash_of(e) & mask;; s = (s + 1) & mask) {
    uint16_t i = slots_[s];
    if (i == 0) return std::nullopt;
    const CpEntry& c = entries_[i];
    if (c.tag == e.tag && c.a == e.a && c.b == e.b && c.bits == e.bits && c.utf8 == e.utf8) {
      return i;
    }
  }
}

std::optional<uint16_t> ConstantPool::find_utf8(std::string_view text) const {
  if (scan_instead()) {
    for (size_t i = 1; i < entries_.size(); ++i) {
      const CpEntry& c = entries_[i];
      if (c.tag == CpTag::kUtf8 && c.utf8 == text) return static_cast<uint16_t>(i);
    }
    return std::nullopt;
  }
  build_index();
  size_t mask = slots_.size() - 1;
  for (size_t s = hash_of(CpTag::kUtf8, 0, 0, 0, text) & mask;; s = (s + 1) & mask) {
    uint16_t i = slots_[s];
    if (i == 0) return std::nullopt;
    const CpEntry& c = entries_[i];
    if (c.tag == CpTag::kUtf8 && c.utf8 == text) return i;
  }
}

// Linear probing; the table is kept at most half full, so probes stay short and a free slot
// always ends a search.
void ConstantPool::index_insert(uint16_t index) const {
  size_t mask = slots_.size() - 1;
  size_t s = hash_of(entries_[index]) & mask;
  while (slots_[s] != 0) s = (s + 1) & mask;
  slots_[s] = index;
  ++indexed_count_;
}

void ConstantPool::build_index() const {
  if (indexed_ && (indexed_count_ + 1) * 2 <= slots_.size()) return;
  // Room for the pool to double before the next rebuild (which hashes every entry again): a
  // pool is indexed when something is added to it, and a rewrite adds about as many entries
  // as the class had.
  size_t size = 64;
  while (size < entries_.size() * 4 + 2) size *= 2;
  slots_.assign(size, 0);
  indexed_count_ = 0;
  for (size_t i = 1; i < entries_.size(); ++i) {
    if (entries_[i].tag != CpTag::kUnusable) index_insert(static_cast<uint16_t>(i));
  }
  indexed_ = true;
}

void ConstantPool::mark_references(std::vector<bool>& used) const {
  used.resize(entries_.size(), false);
  std::vector<uint16_t> todo;
  for (size_t i = 1; i < entries_.size(); ++i)
    if (used[i]) todo.push_back(static_cast<uint16_t>(i));
  auto mark = [&](uint16_t index) {
    if (index == 0 || index >= entries_.size() || used[index]) return;
    used[index] = true;
    todo.push_back(index);
  };
  while (!todo.empty()) {
    const CpEntry& e = entries_[todo.back()];
    todo.pop_back();
    const ReferenceRule& rule = reference_rule(e.tag);
    if (rule.a != 0) mark(e.a);
    if (rule.b != 0) mark(e.b);
  }
}

void ConstantPool::keep_only(const std::vector<bool>& used) {
  CpEntry placeholder;
  placeholder.tag = CpTag::kUtf8;
  placeholder.utf8 = std::string_view("", 0);
  for (size_t i = 1; i < entries_.size(); ++i) {
    bool keep = i < used.size() && used[i];
    if (keep || entries_[i].tag == CpTag::kUnusable) continue;
    bool wide = is_wide(entries_[i].tag);
    entries_[i] = placeholder;
    if (wide && i + 1 < entries_.size()) entries_[++i] = placeholder;
  }
  contents_changed();
}

// An entry changed in place: the look-up tables forget every entry, and the pool no longer is
// the one parsed (a writer must not copy the parsed bytes) nor the state its id named.
void ConstantPool::contents_changed() {
  slots_.clear();
  indexed_ = false;
  indexed_count_ = 0;
  class_slots_.clear();
  class_count_ = 0;
  member_memo_.fill(0);
  origin_ = 0;
  id_ = Id{};
}

Status ConstantPool::set_member_owner(uint16_t index, uint16_t class_index) {
  return set_member_part(index, class_index, CpTag::kClass);
}

Status ConstantPool::set_member_name_and_type(uint16_t index, uint16_t name_and_type) {
  return set_member_part(index, name_and_type, CpTag::kNameAndType);
}

// The member reference at `index` gets `part` (a Class or a NameAndType entry, by `part_tag`)
// in place of its own.
Status ConstantPool::set_member_part(uint16_t index, uint16_t part, CpTag part_tag) {
  CpTag t = tag(index);
  if (t != CpTag::kFieldref && t != CpTag::kMethodref && t != CpTag::kInterfaceMethodref) {
    return Error::plain("pool entry #" + std::to_string(index) + " is not a member reference");
  }
  if (tag(part) != part_tag) {
    return Error::plain("pool entry #" + std::to_string(part) + " is not a " +
                        cp_tag_name(part_tag));
  }
  (part_tag == CpTag::kClass ? entries_[index].a : entries_[index].b) = part;
  contents_changed();
  return Ok{};
}

Result<uint16_t> ConstantPool::add(const CpEntry& entry) {
  if (entry.tag == CpTag::kUnusable) return Error::plain("cannot add an unusable pool entry");
  // Entries with the same contents are the same entry: the first one wins.
  if (auto existing = find(entry)) return *existing;
  return append(entry);
}

// Appends an entry known to be new.
Result<uint16_t> ConstantPool::append(const CpEntry& entry) {
  size_t slots = is_wide(entry.tag) ? 2 : 1;
  if (entries_.size() + slots > kMaxCount) {
    return Error::plain("constant pool is full: adding a " + std::string(cp_tag_name(entry.tag)) +
                        " entry would pass the limit of 65535 slots");
  }
  if (entry.tag == CpTag::kUtf8 && entry.utf8.size() > 0xFFFF) {
    return Error::plain("Utf8 constant longer than 65535 bytes");
  }
  auto index = static_cast<uint16_t>(entries_.size());
  entries_.push_back(entry);
  if (entry.tag == CpTag::kUtf8) {
    entries_.back().utf8 = keep_added_text(entry.utf8);
  }
  if (slots == 2) entries_.emplace_back();
  if (indexed_) index_insert(index);  // else the index, once built, takes it from the entries
  if (entry.tag == CpTag::kClass && !class_slots_.empty()) {
    if ((class_count_ + 1) * 2 > class_slots_.size()) {
      build_class_index();  // sized for the new entry too, which it already holds
    } else {
      class_index_insert(index);
    }
  }
  return index;
}

Result<uint16_t> ConstantPool::add_utf8(std::string_view modified_utf8) {
  if (auto existing = find_utf8(modified_utf8)) return *existing;  // no string copy
  CpEntry e;
  e.tag = CpTag::kUtf8;
  e.utf8 = modified_utf8;  // append() copies it
  return append(e);        // find_utf8 looked already
}

// An entry that refers to one appended since `pool_size` cannot be in the pool yet: no need
// to look for it (a rewrite adds a new key string, and its String entry, at every site).
Result<uint16_t> ConstantPool::add_referring(const CpEntry& entry, size_t pool_size) {
  bool refers_to_new = entry.a >= pool_size || entry.b >= pool_size;
  return refers_to_new ? append(entry) : add(entry);
}

Result<uint16_t> ConstantPool::add_ref1(CpTag tag, std::string_view utf8_text) {
  size_t before = entries_.size();
  auto name = add_utf8(utf8_text);
  if (!name) return name.error();
  CpEntry e;
  e.tag = tag;
  e.a = *name;
  return add_referring(e, before);
}

Result<uint16_t> ConstantPool::add_class(std::string_view internal_name) {
  if (auto existing = find_class(internal_name)) return *existing;
  auto name = add_utf8(internal_name);
  if (!name) return name.error();
  // No Class entry names this text (find_class indexes every one whose name is a Utf8), so
  // none has these contents: no need to look again before appending.
  CpEntry e;
  e.tag = CpTag::kClass;
  e.a = *name;
  return append(e);
}

std::optional<uint16_t> ConstantPool::find_class(std::string_view name) const {
  if (class_slots_.empty()) build_class_index();
  size_t mask = class_slots_.size() - 1;
  for (size_t s = text_hash(name) & mask;; s = (s + 1) & mask) {
    uint16_t i = class_slots_[s];
    if (i == 0) return std::nullopt;
    if (entries_[entries_[i].a].utf8 == name) return i;
  }
}

// add() takes any entry, so a Class whose name is not (yet) a Utf8 is left out: looking it
// up by name would be meaningless, and missing it only means a slower path in add_class.
void ConstantPool::class_index_insert(uint16_t index) const {
  uint16_t name = entries_[index].a;
  if (name >= entries_.size() || entries_[name].tag != CpTag::kUtf8) return;
  size_t mask = class_slots_.size() - 1;
  size_t s = text_hash(entries_[name].utf8) & mask;
  while (class_slots_[s] != 0) s = (s + 1) & mask;
  class_slots_[s] = index;
  ++class_count_;
}

void ConstantPool::build_class_index() const {
  // One pass over the entries finds the Class ones (a pool has many more of the others).
  thread_local std::vector<uint16_t> classes;
  classes.clear();
  for (size_t i = 1; i < entries_.size(); ++i) {
    if (entries_[i].tag == CpTag::kClass) classes.push_back(static_cast<uint16_t>(i));
  }
  size_t size = 16;
  while (size < classes.size() * 2 + 2) size *= 2;
  class_slots_.assign(size, 0);
  class_count_ = 0;
  for (uint16_t i : classes) class_index_insert(i);
}

Result<uint16_t> ConstantPool::add_string(std::string_view modified_utf8) {
  return add_ref1(CpTag::kString, modified_utf8);
}

Result<uint16_t> ConstantPool::add_integer(int32_t value) {
  CpEntry e;
  e.tag = CpTag::kInteger;
  e.bits = static_cast<uint32_t>(value);
  return add(e);
}

Result<uint16_t> ConstantPool::add_float_bits(uint32_t bits) {
  CpEntry e;
  e.tag = CpTag::kFloat;
  e.bits = bits;
  return add(e);
}

Result<uint16_t> ConstantPool::add_long(int64_t value) {
  CpEntry e;
  e.tag = CpTag::kLong;
  e.bits = static_cast<uint64_t>(value);
  return add(e);
}

Result<uint16_t> ConstantPool::add_double_bits(uint64_t bits) {
  CpEntry e;
  e.tag = CpTag::kDouble;
  e.bits = bits;
  return add(e);
}

Result<uint16_t> ConstantPool::add_name_and_type(std::string_view name,
                                                 std::string_view descriptor) {
  size_t before = entries_.size();
  auto n = add_utf8(name);
  if (!n) return n.error();
  auto d = add_utf8(descriptor);
  if (!d) return d.error();
  CpEntry e;
  e.tag = CpTag::kNameAndType;
  e.a = *n;
  e.b = *d;
  return add_referring(e, before);
}

size_t ConstantPool::member_memo_slot(std::string_view owner, std::string_view name,
                                      std::string_view desc) {
  auto p = [](std::string_view s) { return reinterpret_cast<uintptr_t>(s.data()) + s.size(); };
  uint64_t h = (p(owner) * 0x9E3779B97F4A7C15ULL) ^ (p(name) * 0xC2B2AE3D27D4EB4FULL) ^ p(desc);
  h ^= h >> 29;
  return static_cast<size_t>(h * 0xBF58476D1CE4E5B9ULL >> 56);  // 256 slots
}

bool ConstantPool::member_matches(uint16_t index, CpTag tag, std::string_view owner,
                                  std::string_view name, std::string_view desc) const {
  if (index == 0 || index >= entries_.size()) return false;
  const CpEntry& m = entries_[index];
  if (m.tag != tag) return false;
  const CpEntry& nat = entries_[m.b];
  return entries_[nat.a].utf8 == name && entries_[nat.b].utf8 == desc &&
         entries_[entries_[m.a].a].utf8 == owner;
}

Result<uint16_t> ConstantPool::add_member(CpTag tag, std::string_view owner, std::string_view name,
                                          std::string_view desc) {
  size_t slot = member_memo_slot(owner, name, desc);
  if (member_matches(member_memo_[slot], tag, owner, name, desc)) return member_memo_[slot];
  size_t before = entries_.size();
  auto c = add_class(owner);
  if (!c) return c.error();
  auto nat = add_name_and_type(name, desc);
  if (!nat) return nat.error();
  CpEntry e;
  e.tag = tag;
  e.a = *c;
  e.b = *nat;
  auto index = add_referring(e, before);
  if (index) member_memo_[slot] = *index;
  return index;
}

Result<uint16_t> ConstantPool::add_fieldref(std::string_view owner, std::string_view name,
                                            std::string_view desc) {
  return add_member(CpTag::kFieldref, owner, name, desc);
}

Result<uint16_t> ConstantPool::add_methodref(std::string_view owner, std::string_view name,
                                             std::string_view desc) {
  return add_member(CpTag::kMethodref, owner, name, desc);
}

Result<uint16_t> ConstantPool::add_interface_methodref(std::string_view owner,
                                                       std::string_view name,
                                                       std::string_view desc) {
  return add_member(CpTag::kInterfaceMethodref, owner, name, desc);
}

Result<uint16_t> ConstantPool::add_method_handle(uint8_t kind, uint16_t reference) {
  if (kind < 1 || kind > 9) return Error::plain("no method handle kind " + std::to_string(kind));
  CpEntry e;
  e.tag = CpTag::kMethodHandle;
  e.a = kind;
  e.b = reference;
  return add(e);
}

Result<uint16_t> ConstantPool::add_invoke_dynamic(uint16_t bootstrap, std::string_view name,
                                                  std::string_view descriptor) {
  auto nat = add_name_and_type(name, descriptor);
  if (!nat) return nat.error();
  CpEntry e;
  e.tag = CpTag::kInvokeDynamic;
  e.a = bootstrap;
  e.b = *nat;
  return add(e);
}

}  // namespace duplex
