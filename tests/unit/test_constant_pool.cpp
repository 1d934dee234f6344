#include <catch2/catch.hpp>

#include <algorithm>

#include "classfile/class_file.h"
#include "classfile/constant_pool.h"
#include "classfile/pool_use.h"
#include "test_support.h"

using namespace duplex;

namespace {

// A pool with `count` slots written by hand: count, then the raw entries.
Result<ConstantPool> parse_pool(std::vector<uint8_t> bytes) {
  ByteReader in(bytes);
  return ConstantPool::parse(in);
}

// java.lang.Object of the JDK, parsed: a real pool to edit.
ClassFile jdk_object() {
  auto bytes = test::jdk_class("java/lang/Object");
  REQUIRE(!bytes.empty());
  auto cf = ClassFile::parse(bytes);
  REQUIRE(cf.ok());
  return std::move(cf.value());
}

}  // namespace

TEST_CASE("adding entries de-duplicates against the parsed pool", "[constant_pool]") {
  ClassFile cf = jdk_object();
  ConstantPool& pool = cf.pool;
  uint16_t before = pool.count();
  auto object_class = pool.add_class("java/lang/Object");
  REQUIRE(object_class.ok());
  CHECK(*object_class == cf.this_class);
  CHECK(pool.count() == before);

  auto ref = pool.add_methodref("duplex/Runtime", "sample", "(I)V");
  REQUIRE(ref.ok());
  CHECK(pool.count() > before);
  auto again = pool.add_methodref("duplex/Runtime", "sample", "(I)V");
  REQUIRE(again.ok());
  CHECK(*again == *ref);
  auto m = pool.member_ref(*ref);
  REQUIRE(m.has_value());
  CHECK(m->owner == "duplex/Runtime");
  CHECK(m->name == "sample");
  CHECK(m->descriptor == "(I)V");
}

TEST_CASE("Long and Double take two slots", "[constant_pool]") {
  ConstantPool pool;
  auto l = pool.add_long(1234567890123LL);
  REQUIRE(l.ok());
  CHECK(*l == 1);
  CHECK(pool.count() == 3);
  CHECK(pool.entry(2) == nullptr);  // the unusable second slot
  auto i = pool.add_integer(7);
  REQUIRE(i.ok());
  CHECK(*i == 3);
  auto d = pool.add_double_bits(0x400921FB54442D18ULL);
  REQUIRE(d.ok());
  CHECK(pool.count() == 6);

  ByteWriter out;
  pool.write(out);
  auto round = parse_pool(out.take());
  REQUIRE(round.ok());
  CHECK(round->tag(1) == CpTag::kLong);
  CHECK(round->entry(1)->bits == 1234567890123ULL);
  CHECK(round->tag(4) == CpTag::kDouble);
}

TEST_CASE("the pool refuses to pass 65535 slots", "[constant_pool]") {
  ConstantPool pool;
  Result<uint16_t> last = uint16_t{0};
  for (int i = 0; i < 65534; ++i) {
    last = pool.add_integer(i);
    REQUIRE(last.ok());
  }
  CHECK(pool.count() == 65535);
  auto full = pool.add_integer(-1);
  REQUIRE_FALSE(full.ok());
  CHECK(full.error().reason.find("constant pool is full") != std::string::npos);
  // An existing entry is still found.
  auto existing = pool.add_integer(5);
  REQUIRE(existing.ok());
  CHECK(*existing == 6);
}

TEST_CASE("a wide entry cannot take the last free slot", "[constant_pool]") {
  ConstantPool pool;
  for (int i = 0; i < 65533; ++i) REQUIRE(pool.add_integer(i).ok());
  CHECK(pool.count() == 65534);
  CHECK_FALSE(pool.add_long(1).ok());
  CHECK(pool.add_integer(-5).ok());
}

TEST_CASE("malformed pools give errors with offsets", "[constant_pool]") {
  SECTION("unknown tag") {
    auto r = parse_pool({0, 2, 2, 0, 0});
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().offset == 2);
    CHECK(r.error().reason.find("unknown tag 2") != std::string::npos);
  }
  SECTION("truncated Utf8") {
    auto r = parse_pool({0, 2, 1, 0, 10, 'a', 'b'});
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().reason.find("truncated") != std::string::npos);
  }
  SECTION("Class pointing at an Integer") {
    auto r = parse_pool({0, 3, 3, 0, 0, 0, 1, 7, 0, 1});
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().reason.find("is not a Utf8") != std::string::npos);
    CHECK(r.error().offset == 7);
  }
  SECTION("reference out of range") {
    auto r = parse_pool({0, 2, 8, 0, 9});
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().reason.find("#9") != std::string::npos);
  }
  SECTION("Long in the last slot") {
    auto r = parse_pool({0, 2, 5, 0, 0, 0, 0, 0, 0, 0, 1});
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().reason.find("last slot") != std::string::npos);
  }
  SECTION("bad method handle kind") {
    auto r = parse_pool({0, 2, 15, 10, 0, 1});
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().reason.find("reference kind 10") != std::string::npos);
  }
  SECTION("zero count") {
    auto r = parse_pool({0, 0});
    REQUIRE_FALSE(r.ok());
  }
}

TEST_CASE("modified UTF-8 converts both ways", "[constant_pool]") {
  std::string nul_mod =
      "a\xC0\x80"
      "b";
  CHECK(modified_utf8_to_utf8(nul_mod) == std::string("a\0b", 3));
  CHECK(utf8_to_modified_utf8(std::string("a\0b", 3)) == nul_mod);
  // U+1F600 is a surrogate pair of two 3-byte units in modified UTF-8.
  std::string smile = "\xF0\x9F\x98\x80";
  std::string smile_mod = utf8_to_modified_utf8(smile);
  CHECK(smile_mod.size() == 6);
  CHECK(modified_utf8_to_utf8(smile_mod) == smile);
  CHECK(modified_utf8_to_utf8("caf\xC3\xA9") == "caf\xC3\xA9");
  // Garbage decodes to replacement characters rather than failing.
  CHECK(modified_utf8_to_utf8("\xFF") == "\xEF\xBF\xBD");
}

TEST_CASE("a member reference can be re-pointed to another class", "[constant_pool]") {
  ClassFile cf = jdk_object();
  ConstantPool& pool = cf.pool;
  auto ref = pool.add_methodref("a/Host", "run$duplex", "(I)V");
  auto other = pool.add_class("a/Host$DuplexTwins");
  REQUIRE(ref.ok());
  REQUIRE(other.ok());
  uint64_t id = pool.id();
  REQUIRE(pool.set_member_owner(*ref, *other).ok());
  CHECK(pool.id() != id);
  CHECK(pool.member_ref(*ref)->owner == "a/Host$DuplexTwins");
  // The look-ups know the change: the new owner finds the entry, the old one makes a new one.
  auto found = pool.add_methodref("a/Host$DuplexTwins", "run$duplex", "(I)V");
  REQUIRE(found.ok());
  CHECK(*found == *ref);
  auto again = pool.add_methodref("a/Host", "run$duplex", "(I)V");
  REQUIRE(again.ok());
  CHECK(*again != *ref);
  // A parsed entry re-pointed is written as changed (not copied from the parsed bytes).
  uint16_t parsed_ref = 0;
  for (uint32_t i = 1; i < cf.parsed_pool_count() && parsed_ref == 0; ++i)
    if (pool.tag(i) == CpTag::kMethodref) parsed_ref = static_cast<uint16_t>(i);
  REQUIRE(parsed_ref != 0);
  REQUIRE(pool.set_member_owner(parsed_ref, *other).ok());
  auto written = cf.write();
  REQUIRE(written.ok());
  auto reread = ClassFile::parse(written.value());
  REQUIRE(reread.ok());
  CHECK(reread->pool.member_ref(parsed_ref)->owner == "a/Host$DuplexTwins");
  // Errors: not a member reference, not a Class.
  CHECK_FALSE(pool.set_member_owner(*other, *other).ok());
  CHECK_FALSE(pool.set_member_owner(*ref, *ref).ok());
  CHECK_FALSE(pool.set_member_owner(0, *other).ok());
  CHECK_FALSE(pool.set_member_owner(65000, *other).ok());
}

TEST_CASE("a member reference can be given another name and type", "[constant_pool]") {
  ClassFile cf = jdk_object();
  ConstantPool& pool = cf.pool;
  auto ref = pool.add_methodref("a/Host", "run$duplex", "(ILjava/lang/Object;)V");
  auto type = pool.add_name_and_type("run$duplex", "(ILduplex/runtime/NotInlined;)V");
  REQUIRE(ref.ok());
  REQUIRE(type.ok());
  uint64_t id = pool.id();
  REQUIRE(pool.set_member_name_and_type(*ref, *type).ok());
  CHECK(pool.id() != id);
  CHECK(pool.member_ref(*ref)->owner == "a/Host");
  CHECK(pool.member_ref(*ref)->descriptor == "(ILduplex/runtime/NotInlined;)V");
  // The look-ups know the change, and the class writes it.
  auto found = pool.add_methodref("a/Host", "run$duplex", "(ILduplex/runtime/NotInlined;)V");
  REQUIRE(found.ok());
  CHECK(*found == *ref);
  auto written = cf.write();
  REQUIRE(written.ok());
  auto reread = ClassFile::parse(written.value());
  REQUIRE(reread.ok());
  CHECK(reread->pool.member_ref(*ref)->descriptor == "(ILduplex/runtime/NotInlined;)V");
  // Errors: not a member reference, not a NameAndType.
  auto owner = pool.add_class("a/Host");
  REQUIRE(owner.ok());
  CHECK_FALSE(pool.set_member_name_and_type(*type, *type).ok());
  CHECK_FALSE(pool.set_member_name_and_type(*ref, *owner).ok());
  CHECK_FALSE(pool.set_member_name_and_type(0, *type).ok());
}

TEST_CASE("a pool keeps only the entries marked and what they refer to", "[constant_pool]") {
  ClassFile cf = jdk_object();
  ConstantPool pool = cf.pool;
  auto ref = pool.add_methodref("a/Host", "run", "(J)V");
  auto wide = pool.add_long(1234567890123LL);
  auto unused_wide = pool.add_double_bits(0x4000000000000000ULL);
  REQUIRE(ref.ok());
  REQUIRE(wide.ok());
  REQUIRE(unused_wide.ok());
  uint16_t count = pool.count();
  std::vector<bool> used(count, false);
  used[*ref] = true;
  used[*wide] = true;
  pool.mark_references(used);
  // The Methodref, its Class and NameAndType, their three Utf8s; the Long.
  CHECK(std::count(used.begin(), used.end(), true) == 7);
  pool.keep_only(used);
  CHECK(pool.count() == count);  // every index stays
  REQUIRE(pool.member_ref(*ref).has_value());
  CHECK(pool.member_ref(*ref)->owner == "a/Host");
  CHECK(pool.member_ref(*ref)->name == "run");
  CHECK(pool.tag(*wide) == CpTag::kLong);
  CHECK(pool.tag(*wide + 1) == CpTag::kUnusable);  // its second slot
  // An entry not kept is an empty Utf8, a Double not kept two of them.
  CHECK(pool.utf8(cf.this_class) == std::string_view());
  CHECK(pool.utf8(*unused_wide) == std::string_view());
  CHECK(pool.utf8(*unused_wide + 1) == std::string_view());
  // The pool writes and parses again, and its look-ups know the new contents.
  ByteWriter w;
  pool.write(w);
  auto written = w.take();
  ByteReader in(written);
  auto reread = ConstantPool::parse(in);
  REQUIRE(reread.ok());
  CHECK(reread->count() == count);
  CHECK(reread->member_ref(*ref)->descriptor == "(J)V");
  auto again = pool.add_methodref("a/Host", "run", "(J)V");
  REQUIRE(again.ok());
  CHECK(*again == *ref);
}

TEST_CASE("entries used since parsing: what added code names, and every parsed entry",
          "[constant_pool][pool_use]") {
  // java.lang.Object's methods carry attributes pool_entries_used does not read (Exceptions,
  // annotations): since parsing, only what was added needs accounting for.
  ClassFile cf = jdk_object();
  const uint32_t parsed = cf.parsed_pool_count();
  CHECK_FALSE(pool_entries_used(cf).has_value());
  auto unused_text = cf.pool.add_string("only a moved method named this");
  auto unused_ref = cf.pool.add_methodref("a/Gone", "away", "()V");
  auto used_text = cf.pool.add_string("the new method's constant");
  REQUIRE(unused_text.ok());
  REQUIRE(unused_ref.ok());
  REQUIRE(used_text.ok());
  // A new method: ldc_w the used string, areturn.
  std::vector<uint8_t> code = {0,
                               1,
                               0,
                               0,
                               0,
                               0,
                               0,
                               4,
                               0x13,
                               static_cast<uint8_t>(*used_text >> 8),
                               static_cast<uint8_t>(*used_text),
                               0xb0,
                               0,
                               0,
                               0,
                               0};
  REQUIRE(cf.append_method(0x0008, "fresh", "()Ljava/lang/String;", code).ok());

  auto used = pool_entries_used_since(cf, parsed);
  REQUIRE(used.has_value());
  for (uint32_t i = 1; i < parsed; ++i) CHECK((*used)[i]);
  CHECK((*used)[*used_text]);
  CHECK((*used)[cf.pool.entry(*used_text)->a]);  // and its text
  CHECK_FALSE((*used)[*unused_text]);
  CHECK_FALSE((*used)[*unused_ref]);
  cf.pool.keep_only(*used);
  auto bytes = cf.write();
  REQUIRE(bytes.ok());
  auto again = ClassFile::parse(*bytes);
  REQUIRE(again.ok());
  CHECK(again->pool.utf8(*unused_text) == std::string_view());  // emptied, index kept
  CHECK(again->pool.count() == cf.pool.count());
  // Everything parsed is as it was.
  ClassFile original = jdk_object();
  for (uint32_t i = 1; i < parsed; ++i) {
    INFO("entry #" << i);
    CHECK(again->pool.tag(i) == original.pool.tag(i));
    CHECK(again->pool.utf8(i) == original.pool.utf8(i));
  }

  // An attribute the reader cannot follow, named by an added entry: nothing can be dropped.
  auto name = cf.pool.add_utf8("SomethingNew");
  REQUIRE(name.ok());
  Attribute odd;
  odd.name_index = *name;
  odd.set_data({0, 0});
  cf.attributes.push_back(odd);
  CHECK_FALSE(pool_entries_used_since(cf, parsed).has_value());
  const std::string_view index_free[] = {"SomethingNew"};
  CHECK(pool_entries_used_since(cf, parsed, index_free).has_value());
}
