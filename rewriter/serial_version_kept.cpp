#include "rewriter/serial_version_kept.h"

#include "classfile/serial_version.h"

namespace duplex {
namespace {

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

Result<bool> keep_serial_version(std::span<const uint8_t> original_bytes, ClassFile& rewritten) {
  if (declares_serial_version_uid(rewritten)) return false;
  auto original = ClassFile::parse(original_bytes);
  if (!original) return original.error();
  auto before = serial_version_input(*original);
  if (!before) return before.error();
  auto after = serial_version_input(rewritten);
  if (!after) return after.error();
  if (before.value() == after.value()) return false;
  auto value = default_serial_version_uid(*original);
  if (!value) return value.error();
  if (auto s = declare_serial_version(rewritten, *value); !s) return s.error();
  return true;
}

}  // namespace duplex
