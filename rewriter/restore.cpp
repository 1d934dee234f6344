#include "rewriter/restore.h"

#include <algorithm>
#include <map>
#include <string>

#include "classfile/class_file.h"

namespace duplex {
namespace {

std::string member_key(const ClassFile& cf, const Member& m) {
  return std::string(cf.member_name(m)) + std::string(cf.member_descriptor(m));
}

// The original's entries must sit at the same indices in the rewritten pool, or its copied
// attributes would point at other constants.
bool pool_is_prefix(const ConstantPool& original, const ConstantPool& rewritten) {
  if (original.count() > rewritten.count()) return false;
  ByteWriter a, b;
  original.write(a);
  rewritten.write(b);
  std::vector<uint8_t> x = a.take();
  std::vector<uint8_t> y = b.take();
  // Both start with constant_pool_count (u2); the entries follow in order.
  return x.size() <= y.size() && std::equal(x.begin() + 2, x.end(), y.begin() + 2);
}

}  // namespace

Result<std::vector<uint8_t>> restore_keeping_members(std::span<const uint8_t> original,
                                                     std::span<const uint8_t> rewritten) {
  auto orig = ClassFile::parse(original);
  if (!orig) return orig.error();
  auto out = ClassFile::parse(rewritten);
  if (!out) return out.error();
  if (orig->name() != out->name()) {
    return Error::plain("restore: the rewritten bytes are of " + out->name() + ", not " +
                        orig->name());
  }
  if (!pool_is_prefix(orig->pool, out->pool)) {
    return Error::plain("restore: " + orig->name() +
                        "'s constant pool is not a prefix of the rewritten class's");
  }
  std::map<std::string, const Member*> originals;
  for (const Member& m : orig->methods) originals[member_key(*orig, m)] = &m;
  size_t matched = 0;
  for (Member& m : out->methods) {
    auto it = originals.find(member_key(*out, m));
    if (it == originals.end()) continue;  // added by the rewrite: kept, never called
    m.access_flags = it->second->access_flags;
    m.attributes = it->second->attributes;  // views kept alive by `orig`'s buffer below
    ++matched;
  }
  if (matched != originals.size()) {
    return Error::plain("restore: " + orig->name() + " lost methods in the rewrite");
  }
  return out->write();
}

}  // namespace duplex
