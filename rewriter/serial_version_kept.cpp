#include "rewriter/serial_version_kept.h"

#include "classfile/serial_version.h"

namespace duplex {
namespace {

std::vector<std::array<uint16_t, 3>> member_keys(const std::vector<Member>& members) {
  std::vector<std::array<uint16_t, 3>> keys;
  keys.reserve(members.size());
  for (const Member& m : members)
    keys.push_back({m.access_flags, m.name_index, m.descriptor_index});
  return keys;
}

// `now` starts with the members noted in `before`, unchanged, and what follows is ignored by
// the default serialVersionUID (`ignored`).
template <typename Ignored>
bool only_ignored_members_added(const std::vector<std::array<uint16_t, 3>>& before,
                                const std::vector<Member>& now, Ignored ignored) {
  if (now.size() < before.size()) return false;
  for (size_t i = 0; i < now.size(); ++i) {
    const Member& m = now[i];
    if (i < before.size()
            ? before[i] != std::array<uint16_t, 3>{m.access_flags, m.name_index, m.descriptor_index}
            : !ignored(m))
      return false;
  }
  return true;
}

// Without hashing: the rewrite changed nothing the default serialVersionUID is computed from.
bool surely_unchanged(const SerialVersionBefore& before, const ClassFile& cf) {
  if (cf.access_flags != before.access || cf.interfaces != before.interfaces) return false;
  auto private_field_ignored = [](const Member& f) {
    return (f.access_flags & access::kPrivate) != 0 &&
           (f.access_flags & (access::kStatic | access::kTransient)) != 0;
  };
  auto private_method_ignored = [&](const Member& m) {
    return (m.access_flags & access::kPrivate) != 0 && cf.member_name(m) != "<clinit>";
  };
  return only_ignored_members_added(before.fields, cf.fields, private_field_ignored) &&
         only_ignored_members_added(before.methods, cf.methods, private_method_ignored);
}

Status declare_serial_version(ClassFile& cf, int64_t value) {
  uint16_t flags = (cf.access_flags & access::kInterface) != 0 ? access::kPublic : access::kPrivate;
  flags |= access::kStatic | access::kFinal | access::kSynthetic;
  auto constant = cf.pool.add_long(value);
  if (!constant) return constant.error();
  auto attribute_name = cf.pool.add_utf8("ConstantValue");
  if (!attribute_name) return attribute_name.error();
  if (auto s = cf.append_field(flags, "serialVersionUID", "J"); !s) return s;
  Attribute constant_value;
  constant_value.name_index = *attribute_name;
  constant_value.set_data({static_cast<uint8_t>(*constant >> 8), static_cast<uint8_t>(*constant)});
  cf.fields.back().attributes.push_back(std::move(constant_value));
  return Ok{};
}

}  // namespace

SerialVersionBefore note_serial_version(const ClassFile& cf) {
  SerialVersionBefore before;
  // A record's or an enum's is 0 whatever the members, and a declared one would change a
  // record's: treated as declared.
  before.declared = declares_serial_version_uid(cf) || serial_version_is_fixed(cf);
  if (before.declared) return before;
  before.access = cf.access_flags;
  before.interfaces = cf.interfaces;
  before.fields = member_keys(cf.fields);
  before.methods = member_keys(cf.methods);
  return before;
}

Result<bool> keep_serial_version(const SerialVersionBefore& before,
                                 std::span<const uint8_t> original_bytes, ClassFile& rewritten) {
  if (before.declared || declares_serial_version_uid(rewritten)) return false;
  if (surely_unchanged(before, rewritten)) return false;
  // Something it is computed from changed (the pool may also have been renumbered): compare.
  auto original = ClassFile::parse(original_bytes);
  if (!original) return original.error();
  auto was = serial_version_input(*original);
  if (!was) return false;  // names that do not resolve: the JVM refuses the class anyway
  auto is = serial_version_input(rewritten);
  if (is && is.value() == was.value()) return false;
  if (auto s = declare_serial_version(rewritten, serial_version_uid_of(*was)); !s) return s.error();
  return true;
}

}  // namespace duplex
