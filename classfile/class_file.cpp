#include "classfile/class_file.h"

#include <cstdio>

namespace duplex {
namespace {

constexpr uint32_t kMagic = 0xCAFEBABE;

std::string hex32(uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%08X", v);
  return buf;
}

Error truncated(const ByteReader& in, const char* where) {
  return Error::at_file(static_cast<int64_t>(in.failure_offset()),
                        std::string("truncated class file (inside ") + where + ")");
}

Status read_attributes(ByteReader& in, const ConstantPool& pool, std::vector<Attribute>& out) {
  uint16_t count = in.u2();
  out.reserve(count);
  for (uint32_t i = 0; i < count && !in.failed(); ++i) {
    size_t at = in.absolute_pos();
    Attribute a;
    a.name_index = in.u2();
    uint32_t length = in.u4();
    if (in.failed()) break;
    if (length > in.remaining()) {
      return Error::at_file(static_cast<int64_t>(at),
                            "attribute length " + std::to_string(length) + " runs past the end");
    }
    a.data = in.bytes(length);
    if (!pool.utf8(a.name_index)) {
      return Error::at_file(
          static_cast<int64_t>(at),
          "attribute name #" + std::to_string(a.name_index) + " is not a Utf8 entry");
    }
    out.push_back(std::move(a));
  }
  if (in.failed()) return truncated(in, "attributes");
  return Ok{};
}

Status read_members(ByteReader& in, const ConstantPool& pool, std::vector<Member>& out,
                    const char* what) {
  uint16_t count = in.u2();
  out.reserve(count);
  for (uint32_t i = 0; i < count && !in.failed(); ++i) {
    size_t at = in.absolute_pos();
    Member m;
    m.access_flags = in.u2();
    m.name_index = in.u2();
    m.descriptor_index = in.u2();
    if (in.failed()) break;
    if (!pool.utf8(m.name_index) || !pool.utf8(m.descriptor_index)) {
      return Error::at_file(static_cast<int64_t>(at), std::string(what) + " " + std::to_string(i) +
                                                          ": name or descriptor is not a Utf8");
    }
    if (auto s = read_attributes(in, pool, m.attributes); !s) return s.error();
    out.push_back(std::move(m));
  }
  if (in.failed()) return truncated(in, what);
  return Ok{};
}

void write_attributes(ByteWriter& out, const std::vector<Attribute>& attrs) {
  out.u2(static_cast<uint32_t>(attrs.size()));
  for (const Attribute& a : attrs) {
    out.u2(a.name_index);
    out.u4(static_cast<uint32_t>(a.data.size()));
    out.bytes(a.data);
  }
}

void write_members(ByteWriter& out, const std::vector<Member>& members) {
  out.u2(static_cast<uint32_t>(members.size()));
  for (const Member& m : members) {
    out.u2(m.access_flags);
    out.u2(m.name_index);
    out.u2(m.descriptor_index);
    write_attributes(out, m.attributes);
  }
}

size_t attributes_size(const std::vector<Attribute>& attrs) {
  size_t n = 2;
  for (const Attribute& a : attrs) n += 6 + a.data.size();
  return n;
}

size_t members_size(const std::vector<Member>& members) {
  size_t n = 2;
  for (const Member& m : members) n += 6 + attributes_size(m.attributes);
  return n;
}

// The written size, exact but for the pool's added entries (counted at 9 bytes, a Long's,
// beside their text): a rewritten class is about four times its input, and growing the buffer
// on the way zero-filled and copied it each time (about 1% of a rewrite's instructions).
size_t written_size_bound(const ClassFile& cf, size_t pool_bytes, uint32_t first_entry) {
  size_t n = 10 + pool_bytes + 8 + 2 * cf.interfaces.size();
  for (uint32_t i = first_entry; i < cf.pool.count(); ++i) {
    const CpEntry* e = cf.pool.entry(i);
    n += 9 + (e && e->tag == CpTag::kUtf8 ? e->utf8.size() : 0);
  }
  return n + members_size(cf.fields) + members_size(cf.methods) + attributes_size(cf.attributes);
}

// Checks counts that the writer would otherwise silently truncate.
Status check_counts(const ClassFile& cf) {
  auto too_many = [](size_t n) { return n > 0xFFFF; };
  if (too_many(cf.interfaces.size())) return Error::plain("more than 65535 interfaces");
  if (too_many(cf.fields.size())) return Error::plain("more than 65535 fields");
  if (too_many(cf.methods.size())) return Error::plain("more than 65535 methods");
  if (too_many(cf.attributes.size())) return Error::plain("more than 65535 class attributes");
  for (const auto* members : {&cf.fields, &cf.methods}) {
    for (const Member& m : *members) {
      if (too_many(m.attributes.size())) {
        return Error::plain("member " + std::string(cf.member_name(m)) +
                            " has more than 65535 attributes");
      }
    }
  }
  return Ok{};
}

}  // namespace

void Attribute::set_data(std::vector<uint8_t> bytes) {
  auto buffer = std::make_shared<const std::vector<uint8_t>>(std::move(bytes));
  data = std::span<const uint8_t>(buffer->data(), buffer->size());
  owned = std::move(buffer);
}

void ClassFile::set_attribute_data(Attribute& attribute, std::span<const uint8_t> bytes) {
  const std::shared_ptr<AttributeStore>& store = attribute_store_.get();
  attribute.data = store->add(bytes);
  attribute.owned = store;
}

Result<ClassFile> ClassFile::parse(std::span<const uint8_t> bytes) {
  ClassFile cf;
  cf.source_ = std::make_shared<const std::vector<uint8_t>>(bytes.begin(), bytes.end());
  ByteReader in(std::span<const uint8_t>(cf.source_->data(), cf.source_->size()));
  uint32_t magic = in.u4();
  if (in.failed()) return Error::at_file(0, "not a class file (shorter than 4 bytes)");
  if (magic != kMagic)
    return Error::at_file(0, "not a class file (bad magic " + hex32(magic) + ")");
  cf.minor_version = in.u2();
  cf.major_version = in.u2();
  if (in.failed()) return truncated(in, "version");
  if (cf.major_version < kMinMajor || cf.major_version > kMaxMajor) {
    return Error::at_file(6, "unsupported class file major version " +
                                 std::to_string(cf.major_version) + " (supported: 45 to 69)");
  }
  size_t pool_at = in.pos();
  auto pool = ConstantPool::parse(in, cf.source_);
  if (!pool) return pool.error();
  cf.pool = std::move(pool.value());
  cf.parsed_pool_count_ = cf.pool.count();
  cf.parsed_pool_origin_ = cf.pool.parse_origin();
  // The entries, after the count: writing copies them from here.
  cf.parsed_pool_bytes_ =
      std::span<const uint8_t>(cf.source_->data() + pool_at + 2, in.pos() - pool_at - 2);
  return parse_body(std::move(cf), in);
}

Result<ClassFile> ClassFile::parse_body(ClassFile cf, ByteReader& in) {
  size_t header_at = in.absolute_pos();
  cf.access_flags = in.u2();
  cf.this_class = in.u2();
  cf.super_class = in.u2();
  uint16_t interface_count = in.u2();
  if (in.failed()) return truncated(in, "class header");
  if (!cf.pool.class_name(cf.this_class)) {
    return Error::at_file(static_cast<int64_t>(header_at + 2), "this_class is not a Class entry");
  }
  if (cf.super_class != 0 && !cf.pool.class_name(cf.super_class)) {
    return Error::at_file(static_cast<int64_t>(header_at + 4), "super_class is not a Class entry")
        .in(cf.name());
  }
  cf.interfaces.reserve(interface_count);
  for (uint32_t i = 0; i < interface_count; ++i) {
    size_t at = in.absolute_pos();
    uint16_t index = in.u2();
    if (in.failed()) return truncated(in, "interfaces").in(cf.name());
    if (!cf.pool.class_name(index)) {
      return Error::at_file(static_cast<int64_t>(at), "interface is not a Class entry")
          .in(cf.name());
    }
    cf.interfaces.push_back(index);
  }
  if (auto s = read_members(in, cf.pool, cf.fields, "field"); !s) return s.error().in(cf.name());
  if (auto s = read_members(in, cf.pool, cf.methods, "method"); !s) {
    return s.error().in(cf.name());
  }
  if (auto s = read_attributes(in, cf.pool, cf.attributes); !s) return s.error().in(cf.name());
  if (!in.at_end()) {
    return Error::at_file(static_cast<int64_t>(in.absolute_pos()),
                          std::to_string(in.remaining()) + " extra bytes after the class")
        .in(cf.name());
  }
  return cf;
}

Result<std::vector<uint8_t>> ClassFile::write() const {
  if (auto s = check_counts(*this); !s) return s.error().in(name());
  ByteWriter out;
  out.reserve(pool_as_parsed()
                  ? written_size_bound(*this, parsed_pool_bytes_.size(), parsed_pool_count_)
                  : written_size_bound(*this, 0, 1));
  out.u4(kMagic);
  out.u2(minor_version);
  out.u2(major_version);
  write_pool(out);
  out.u2(access_flags);
  out.u2(this_class);
  out.u2(super_class);
  out.u2(static_cast<uint32_t>(interfaces.size()));
  for (uint16_t i : interfaces) out.u2(i);
  write_members(out, fields);
  write_members(out, methods);
  write_attributes(out, attributes);
  return out.take();
}

// Entries are only appended to a pool, so the parsed ones are written as they were read and
// only the entries added since are encoded (unless the pool was replaced altogether, or an
// entry re-pointed: ConstantPool::set_member_owner gives up the parse origin).
void ClassFile::write_pool(ByteWriter& out) const {
  if (!pool_as_parsed()) {
    pool.write(out);
    return;
  }
  out.u2(pool.count());
  out.bytes(parsed_pool_bytes_);
  pool.write_entries(out, parsed_pool_count_);
}

Status ClassFile::append_field(uint16_t access, std::string_view name,
                               std::string_view descriptor) {
  auto name_index = pool.add_utf8(name);
  if (!name_index) return name_index.error();
  auto descriptor_index = pool.add_utf8(descriptor);
  if (!descriptor_index) return descriptor_index.error();
  Member f;
  f.access_flags = access;
  f.name_index = *name_index;
  f.descriptor_index = *descriptor_index;
  fields.push_back(std::move(f));
  return Ok{};
}

Status ClassFile::append_method(uint16_t access, std::string_view name, std::string_view descriptor,
                                std::span<const uint8_t> code_attribute) {
  auto name_index = pool.add_utf8(name);
  auto descriptor_index = pool.add_utf8(descriptor);
  auto code = pool.add_utf8("Code");
  for (const auto* r : {&name_index, &descriptor_index, &code}) {
    if (!*r) return r->error();
  }
  Member m;
  m.access_flags = access;
  m.name_index = *name_index;
  m.descriptor_index = *descriptor_index;
  Attribute attr;
  attr.name_index = *code;
  set_attribute_data(attr, code_attribute);
  m.attributes.push_back(std::move(attr));
  methods.push_back(std::move(m));
  return Ok{};
}

std::string ClassFile::name() const {
  auto n = pool.class_name(this_class);
  return n ? std::string(*n) : std::string("<unknown>");
}

std::string_view ClassFile::member_name(const Member& m) const {
  return pool.utf8(m.name_index).value_or("<bad name>");
}

std::string_view ClassFile::member_descriptor(const Member& m) const {
  return pool.utf8(m.descriptor_index).value_or("<bad descriptor>");
}

std::string_view ClassFile::attribute_name(const Attribute& a) const {
  return pool.utf8(a.name_index).value_or("");
}

const Attribute* ClassFile::find_attribute(const std::vector<Attribute>& attrs,
                                           std::string_view name) const {
  for (const Attribute& a : attrs) {
    if (attribute_name(a) == name) return &a;
  }
  return nullptr;
}

Attribute* ClassFile::find_attribute(std::vector<Attribute>& attrs, std::string_view name) const {
  for (Attribute& a : attrs) {
    if (attribute_name(a) == name) return &a;
  }
  return nullptr;
}

bool is_binary_class_name(std::string_view internal_name) {
  if (internal_name.empty()) return false;
  size_t start = 0;
  for (;;) {
    size_t end = internal_name.find('/', start);
    std::string_view part = internal_name.substr(start, end - start);
    if (part.empty() || part.find_first_of(".;[") != std::string_view::npos) return false;
    if (end == std::string_view::npos) return true;
    start = end + 1;
  }
}

}  // namespace duplex
