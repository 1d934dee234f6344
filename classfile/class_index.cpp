#include "classfile/class_index.h"

#include <set>

#include "classfile/class_file.h"

namespace duplex {
namespace {

std::string signature(const ClassFile& cf, const Member& m) {
  return std::string(cf.member_name(m)) + ':' + std::string(cf.member_descriptor(m));
}

}  // namespace

bool ClassIndex::add(std::span<const uint8_t> class_bytes) {
  auto cf = ClassFile::parse(class_bytes);
  if (!cf) return false;
  std::string super_name(cf->pool.class_name(cf->super_class).value_or(""));
  auto [it, fresh] = classes_.try_emplace(cf->name());
  IndexedClass& c = it->second;
  if (fresh) {
    c.super_name = std::move(super_name);
  } else if (c.super_name != super_name) {
    c.conflicting = true;
  }
  for (const auto* members : {&cf->fields, &cf->methods}) {
    for (const Member& m : *members) {
      if (m.access_flags & access::kProtected) c.protected_members.insert(signature(*cf, m));
    }
  }
  return true;
}

void ClassIndex::merge(ClassIndex&& other) {
  for (auto& [name, theirs] : other.classes_) {
    auto [it, fresh] = classes_.try_emplace(name, std::move(theirs));
    if (fresh) continue;
    IndexedClass& ours = it->second;
    ours.conflicting =
        ours.conflicting || theirs.conflicting || ours.super_name != theirs.super_name;
    ours.protected_members.merge(theirs.protected_members);
  }
  other.classes_.clear();
}

const IndexedClass* ClassIndex::find(std::string_view internal_name) const {
  auto it = classes_.find(std::string(internal_name));
  return it == classes_.end() ? nullptr : &it->second;
}

Ancestry ClassIndex::ancestry_from(std::string_view super_name) const {
  Ancestry a;
  std::string next(super_name);
  std::set<std::string> seen;  // a malformed cycle must not loop
  while (!next.empty()) {
    const IndexedClass* c = find(next);
    if (!c && next == kObject) {  // the root, known without a class file (kObjectProtected)
      a.chain.push_back(next);
      return a;
    }
    if (!c || c->conflicting || !seen.insert(next).second) {
      a.unknown = next;
      return a;
    }
    a.chain.push_back(next);
    next = c->super_name;
  }
  return a;
}

std::vector<std::string> ClassIndex::missing_superclasses() const {
  std::set<std::string> missing;
  for (const auto& [name, c] : classes_) {
    if (!c.super_name.empty() && !classes_.contains(c.super_name)) missing.insert(c.super_name);
  }
  return {missing.begin(), missing.end()};
}

}  // namespace duplex
