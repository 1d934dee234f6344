#include <catch2/catch.hpp>

#include <algorithm>
#include <memory>

#include "classfile/class_file.h"
#include "test_support.h"

using namespace duplex;
namespace fs = std::filesystem;

TEST_CASE("java.base classes round-trip byte for byte", "[class_file]") {
  test::TempDir dir;
  REQUIRE(test::extract_jmod("java.base", dir.path()));
  size_t parsed = 0;
  for (const auto& entry : fs::recursive_directory_iterator(dir.path() / "classes")) {
    if (entry.path().extension() != ".class") continue;
    auto bytes = test::read_file(entry.path());
    auto cf = ClassFile::parse(bytes);
    INFO(entry.path().string());
    REQUIRE(cf.ok());
    auto out = cf->write();
    REQUIRE(out.ok());
    REQUIRE(out.value() == bytes);
    ++parsed;
  }
  CHECK(parsed > 5000);
}

TEST_CASE("a parsed class names its members and attributes", "[class_file]") {
  auto bytes = test::jdk_class("java/lang/Object");
  auto cf = ClassFile::parse(bytes);
  REQUIRE(cf.ok());
  CHECK(cf->name() == "java/lang/Object");
  CHECK(cf->super_class == 0);
  CHECK(cf->major_version == 61);
  bool saw_hash = false;
  for (const Member& m : cf->methods) {
    if (cf->member_name(m) == "hashCode") {
      saw_hash = true;
      CHECK(cf->member_descriptor(m) == "()I");
      CHECK((m.access_flags & access::kNative) != 0);
    }
  }
  CHECK(saw_hash);
  CHECK(cf->find_attribute(cf->attributes, "SourceFile") != nullptr);
}

TEST_CASE("edited attributes are written from their own buffer", "[class_file]") {
  auto bytes = test::jdk_class("java/lang/Object");
  auto cf = ClassFile::parse(bytes);
  REQUIRE(cf.ok());
  Attribute* source = cf->find_attribute(cf->attributes, "SourceFile");
  REQUIRE(source != nullptr);
  auto name = cf->pool.add_utf8("Renamed.java");
  REQUIRE(name.ok());
  source->set_data({static_cast<uint8_t>(*name >> 8), static_cast<uint8_t>(*name)});
  auto out = cf->write();
  REQUIRE(out.ok());
  auto again = ClassFile::parse(out.value());
  REQUIRE(again.ok());
  const Attribute* s2 = again->find_attribute(again->attributes, "SourceFile");
  REQUIRE(s2 != nullptr);
  REQUIRE(s2->data.size() == 2);
  CHECK(again->pool.utf8(s2->data[0] << 8 | s2->data[1]) == "Renamed.java");
  // The copy outlives the original input buffer.
  bytes.assign(bytes.size(), 0);
  CHECK(again->write().ok());
}

// Bodies of every size, so that the store fills blocks, starts new ones and gives large
// bodies blocks of their own; byte i of body n is (n + i) mod 251.
static std::vector<uint8_t> numbered_body(size_t n) {
  std::vector<uint8_t> body(n % 7 == 0 ? 9000 + n : 1 + n * 37 % 700);
  for (size_t i = 0; i < body.size(); ++i) body[i] = static_cast<uint8_t>((n + i) % 251);
  return body;
}

TEST_CASE("bodies kept in the class's store stay put as more are added, in copies too",
          "[class_file]") {
  auto bytes = test::jdk_class("java/lang/Object");
  auto parsed = ClassFile::parse(bytes);
  REQUIRE(parsed.ok());
  auto cf = std::make_unique<ClassFile>(std::move(parsed.value()));
  auto name = cf->pool.add_utf8("DuplexTestBody");
  REQUIRE(name.ok());
  std::vector<Attribute> attrs(200);
  for (size_t n = 0; n < attrs.size(); ++n) {
    attrs[n].name_index = *name;
    auto body = numbered_body(n);
    cf->set_attribute_data(attrs[n], body);
    body.assign(body.size(), 0);  // the store holds a copy
  }
  auto all_intact = [&](const std::vector<Attribute>& list) {
    for (size_t n = 0; n < list.size(); ++n) {
      auto want = numbered_body(n);
      if (!std::equal(list[n].data.begin(), list[n].data.end(), want.begin(), want.end())) {
        return false;
      }
    }
    return true;
  };
  CHECK(all_intact(attrs));

  // A copy of the class gets a store of its own; both go on adding, and the attributes
  // outlive the class that stored them.
  ClassFile copy = *cf;
  std::vector<Attribute> more(50);
  for (size_t n = 0; n < more.size(); ++n) {
    more[n].name_index = *name;
    copy.set_attribute_data(more[n], numbered_body(n));
    cf->set_attribute_data(attrs[n], numbered_body(n));
  }
  // One store per class, held by each of its attributes.
  REQUIRE(attrs[0].owned != nullptr);
  CHECK(attrs[199].owned == attrs[0].owned);
  CHECK(more[49].owned == more[0].owned);
  CHECK(more[0].owned != attrs[0].owned);
  cf.reset();
  CHECK(all_intact(attrs));
  CHECK(all_intact(more));

  // A written class carries a stored body byte for byte.
  copy.attributes.push_back(more[3]);
  auto out = copy.write();
  REQUIRE(out.ok());
  auto again = ClassFile::parse(out.value());
  INFO((again.ok() ? std::string() : again.error().message()));
  REQUIRE(again.ok());
  const Attribute* body = again->find_attribute(again->attributes, "DuplexTestBody");
  REQUIRE(body != nullptr);
  auto want = numbered_body(3);
  CHECK(std::equal(body->data.begin(), body->data.end(), want.begin(), want.end()));
}

TEST_CASE("truncated, oversized and garbage inputs give clear errors", "[class_file]") {
  auto good = test::jdk_class("java/util/ArrayList");
  REQUIRE(good.size() > 1000);

  SECTION("empty") {
    auto r = ClassFile::parse({});
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().reason.find("not a class file") != std::string::npos);
  }
  SECTION("bad magic") {
    std::vector<uint8_t> text = {'h', 'e', 'l', 'l', 'o', '\n', 0, 0, 0, 0};
    auto r = ClassFile::parse(text);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().message() == "class-file byte 0: not a class file (bad magic 0x68656C6C)");
  }
  SECTION("unsupported versions") {
    for (uint16_t major : {44, 70, 0xFFFF}) {
      auto v = good;
      v[6] = static_cast<uint8_t>(major >> 8);
      v[7] = static_cast<uint8_t>(major);
      auto r = ClassFile::parse(v);
      REQUIRE_FALSE(r.ok());
      CHECK(r.error().reason.find("unsupported class file major version " +
                                  std::to_string(major)) != std::string::npos);
    }
  }
  SECTION("the supported versions' bounds parse and write back") {
    // 45 is Java 1.1, 69 Java 25: the same bytes under either version are a class this layer
    // reads (the version decides only what the verifier and the rewriter do with it).
    for (uint16_t major : {45, 69}) {
      auto v = good;
      v[6] = static_cast<uint8_t>(major >> 8);
      v[7] = static_cast<uint8_t>(major);
      auto r = ClassFile::parse(v);
      INFO("major " << major);
      REQUIRE(r.ok());
      CHECK(r->major_version == major);
      auto out = r->write();
      REQUIRE(out.ok());
      CHECK(out.value() == v);
    }
  }
  SECTION("every truncation fails cleanly") {
    // Cut at every length: each must fail with an offset inside the input.
    for (size_t len = 0; len < good.size(); len += (len < 64 ? 1 : 37)) {
      std::vector<uint8_t> cut(good.begin(), good.begin() + static_cast<long>(len));
      auto r = ClassFile::parse(cut);
      INFO("length " << len);
      REQUIRE_FALSE(r.ok());
      CHECK(r.error().offset <= static_cast<int64_t>(len));
      CHECK_FALSE(r.error().reason.empty());
    }
  }
  SECTION("trailing bytes") {
    auto v = good;
    v.push_back(0);
    auto r = ClassFile::parse(v);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().class_name == "java/util/ArrayList");
    CHECK(r.error().reason.find("1 extra bytes") != std::string::npos);
  }
  SECTION("an attribute length past the end") {
    // The last attribute of the class: its length is at size - body - 4. Make it huge.
    auto cf = ClassFile::parse(good);
    REQUIRE(cf.ok());
    const Attribute& last = cf->attributes.back();
    size_t length_at = good.size() - last.data.size() - 4;
    auto v = good;
    v[length_at] = 0x7F;
    auto r = ClassFile::parse(v);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().reason.find("runs past the end") != std::string::npos);
    CHECK(r.error().offset == static_cast<int64_t>(length_at - 2));
  }
  SECTION("random garbage after a valid header never crashes") {
    uint32_t seed = 12345;
    for (int round = 0; round < 2000; ++round) {
      auto v = good;
      for (int k = 0; k < 8; ++k) {
        seed = seed * 1103515245u + 12345u;
        size_t at = 8 + (seed >> 8) % (v.size() - 8);
        seed = seed * 1103515245u + 12345u;
        v[at] = static_cast<uint8_t>(seed >> 16);
      }
      auto r = ClassFile::parse(v);
      if (r.ok()) {
        auto out = r->write();
        REQUIRE(out.ok());
        CHECK(out.value() == v);
      } else {
        CHECK_FALSE(r.error().message().empty());
      }
    }
  }
}

TEST_CASE("malformed fixture files are rejected with their reason", "[class_file]") {
  fs::path dir = fs::path(DUPLEX_SOURCE_DIR) / "tests/data/malformed";
  size_t seen = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().extension() != ".class") continue;
    ++seen;
    auto r = ClassFile::parse(test::read_file(entry.path()));
    INFO(entry.path().filename().string());
    REQUIRE_FALSE(r.ok());
    // The file name says what is wrong; the error must say it too.
    std::string stem = entry.path().stem().string();
    std::string expected = stem.substr(stem.find('-') + 1);
    for (char& c : expected) c = c == '_' ? ' ' : c;
    CHECK(r.error().reason.find(expected) != std::string::npos);
  }
  CHECK(seen >= 3);
}
