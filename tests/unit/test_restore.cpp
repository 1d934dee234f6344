// restore_keeping_members: a rewritten class given back its original method bodies, with the
// outlined twins kept (what the agent's `stop` retransforms to).
#include <catch2/catch.hpp>

#include <map>
#include <string>

#include "classfile/class_file.h"
#include "rewriter/instrumentation.h"
#include "rewriter/restore.h"
#include "rewriter/rewriter.h"
#include "test_support.h"

using namespace duplex;

namespace {

RewriteOptions full_outlined() {
  RewriteOptions o;
  o.mode = Mode::kFull;
  o.instrumentations = {make_builtin_instrumentation("call-edge"),
                        make_builtin_instrumentation("field-access")};
  o.register_sites_in_clinit = false;
  return o;
}

// name+descriptor -> the method's attributes, as bytes.
std::map<std::string, std::string> method_attributes(const ClassFile& cf) {
  std::map<std::string, std::string> out;
  for (const Member& m : cf.methods) {
    std::string bytes = std::to_string(m.access_flags) + ":";
    for (const Attribute& a : m.attributes) {
      bytes += std::string(cf.attribute_name(a)) + "=";
      bytes.append(a.data.begin(), a.data.end());
    }
    out[std::string(cf.member_name(m)) + std::string(cf.member_descriptor(m))] = bytes;
  }
  return out;
}

}  // namespace

TEST_CASE("restore keeps the twins and gives back the original bodies", "[rewriter][restore]") {
  const std::vector<uint8_t>& original = test::fixture_class("fixtures/Loops");
  auto rewritten = rewrite_class(original, full_outlined());
  REQUIRE(rewritten.ok());
  REQUIRE(rewritten->changed);
  auto restored = restore_keeping_members(original, rewritten->bytes);
  REQUIRE(restored.ok());

  auto orig = ClassFile::parse(original);
  auto rew = ClassFile::parse(rewritten->bytes);
  auto back = ClassFile::parse(*restored);
  REQUIRE(orig.ok());
  REQUIRE(rew.ok());
  REQUIRE(back.ok());
  auto o = method_attributes(*orig);
  auto b = method_attributes(*back);
  // The same set of methods as the rewritten class (the twins stay)...
  REQUIRE(b.size() == method_attributes(*rew).size());
  size_t twins = 0;
  for (const auto& [key, attrs] : b) {
    auto it = o.find(key);
    if (it == o.end()) {
      // Twins, and the class's event counters (rewriter/class_counters.h).
      CHECK((key.find("$duplex") != std::string::npos || key.rfind("duplex$", 0) == 0));
      ++twins;
      continue;
    }
    // ...and every original method byte for byte as it was.
    CHECK(attrs == it->second);
  }
  CHECK(twins > 0);
}

TEST_CASE("restore refuses bytes that do not belong together", "[rewriter][restore]") {
  const std::vector<uint8_t>& probe = test::fixture_class("fixtures/Loops");
  auto rewritten = rewrite_class(probe, full_outlined());
  REQUIRE(rewritten.ok());
  // Another class's original.
  const std::vector<uint8_t>& other = test::fixture_class("fixtures/NestedTry");
  auto r = restore_keeping_members(other, rewritten->bytes);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().message().find("restore:") != std::string::npos);
  // Garbage is an error value, not a crash.
  std::vector<uint8_t> junk(probe.begin(), probe.begin() + 40);
  CHECK_FALSE(restore_keeping_members(junk, rewritten->bytes).ok());
  CHECK_FALSE(restore_keeping_members(probe, junk).ok());
}
