// Tests for attributes.h: Code, StackMapTable, line/local-variable tables, Exceptions,
// BootstrapMethods, code type annotations and the implicit entry frame.
#include <catch2/catch.hpp>

#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "classfile/attributes.h"
#include "classfile/class_file.h"
#include "classfile/constant_pool.h"

using namespace duplex;

namespace {

using Bytes = std::vector<uint8_t>;

constexpr size_t kBase = 1000;  // a made-up file offset, to check offsets are reported from it

VType obj(uint32_t cls) {
  return VType{VTag::kObject, cls};
}
VType uninit(uint32_t at) {
  return VType{VTag::kUninitialized, at};
}
const VType kInt{VTag::kInteger, 0};
const VType kFloat{VTag::kFloat, 0};
const VType kLong{VTag::kLong, 0};
const VType kDouble{VTag::kDouble, 0};
const VType kTop{VTag::kTop, 0};
const VType kNull{VTag::kNull, 0};
const VType kUThis{VTag::kUninitializedThis, 0};

// Encodes `f` as the only frame after `prev` at offset `delta` and returns its frame type byte.
int frame_kind(const Frame& prev, const Frame& f, uint32_t delta = 0) {
  auto enc = encode_stack_map_table({{delta, f}}, prev);
  REQUIRE(enc.ok());
  REQUIRE(enc->size() >= 3);
  auto dec = decode_stack_map_table(enc.value(), prev);
  REQUIRE(dec.ok());
  REQUIRE(dec->size() == 1);
  CHECK(dec->at(0).offset == delta);
  CHECK(dec->at(0).frame == f);
  return enc.value()[2];
}

void check_error_at(const Error& e, int64_t offset) {
  INFO(e.message());
  CHECK(e.offset_kind == OffsetKind::kClassFile);
  CHECK(e.offset == offset);
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// StackMapTable

TEST_CASE("stack map: each frame kind is chosen and round-trips", "[attributes]") {
  const Frame init{{obj(5), kInt}, {}};

  SECTION("same_frame and same_frame_extended") {
    CHECK(frame_kind(init, init, 0) == 0);
    CHECK(frame_kind(init, init, 63) == 63);
    CHECK(frame_kind(init, init, 64) == 251);
    CHECK(frame_kind(init, init, 65535) == 251);
  }
  SECTION("same_locals_1_stack_item and its extended form") {
    Frame f{init.locals, {obj(9)}};
    CHECK(frame_kind(init, f, 0) == 64);
    CHECK(frame_kind(init, f, 63) == 127);
    CHECK(frame_kind(init, f, 64) == 247);
    Frame wide{init.locals, {kLong}};
    CHECK(frame_kind(init, wide, 3) == 67);
    Frame u{init.locals, {uninit(17)}};
    CHECK(frame_kind(init, u, 1) == 65);
  }
  SECTION("chop_frame removes 1..3 list entries; a Long counts as one") {
    Frame prev{{obj(5), kLong, kDouble, kFloat}, {}};
    CHECK(frame_kind(prev, Frame{{obj(5), kLong, kDouble}, {}}) == 250);
    CHECK(frame_kind(prev, Frame{{obj(5), kLong}, {}}) == 249);
    CHECK(frame_kind(prev, Frame{{obj(5)}, {}}) == 248);
    CHECK(frame_kind(prev, Frame{{}, {}}) == 255);  // four entries: too many for chop
    CHECK(frame_kind(Frame{{obj(5), kInt}, {}}, Frame{{}, {}}) == 249);  // down to nothing
  }
  SECTION("append_frame adds 1..3 list entries; a Double counts as one") {
    CHECK(frame_kind(init, Frame{{obj(5), kInt, kDouble}, {}}) == 252);
    CHECK(frame_kind(init, Frame{{obj(5), kInt, kDouble, kLong}, {}}) == 253);
    CHECK(frame_kind(init, Frame{{obj(5), kInt, kDouble, kLong, obj(7)}, {}}) == 254);
    CHECK(frame_kind(init, Frame{{obj(5), kInt, kInt, kInt, kInt, kInt}, {}}) == 255);
  }
  SECTION("full_frame when nothing shorter fits") {
    CHECK(frame_kind(init, Frame{{obj(6), kInt}, {}}) == 255);          // locals changed
    CHECK(frame_kind(init, Frame{{obj(5)}, {kInt}}) == 255);            // chop plus stack
    CHECK(frame_kind(init, Frame{init.locals, {kInt, kNull}}) == 255);  // two stack items
    CHECK(frame_kind(init, Frame{{kTop, uninit(3), kUThis}, {kNull, kFloat}}) == 255);
  }
  SECTION("trailing Top entries are kept exactly") {
    Frame tops{{obj(5), kInt, kTop, kTop}, {}};
    CHECK(frame_kind(init, tops) == 253);  // appends the two Tops
    CHECK(frame_kind(tops, init) == 249);  // and chops them again
    Frame many{{obj(5), kInt, kTop, kTop, kTop, kTop}, {}};
    CHECK(frame_kind(init, many) == 255);
    CHECK(frame_kind(many, Frame{{obj(5), kInt, kTop}, {}}) == 248);
  }
}

TEST_CASE("stack map: a sequence round-trips with absolute offsets", "[attributes]") {
  const Frame init{{kUThis, kLong, obj(3)}, {}};
  std::vector<OffsetFrame> frames = {
      {0, {init.locals, {}}},                           // same, delta 0
      {5, {init.locals, {kInt}}},                       // same_locals_1, delta 4
      {200, {init.locals, {obj(4)}}},                   // extended, delta 194
      {201, {{kUThis, kLong, obj(3), kFloat}, {}}},     // append 1
      {300, {{kUThis}, {}}},                            // chop 3
      {301, {{obj(8), kDouble}, {uninit(12), kNull}}},  // full
      {400, {{obj(8), kDouble}, {}}},                   // same_extended
  };
  auto enc = encode_stack_map_table(frames, init);
  REQUIRE(enc.ok());
  const Bytes expected = {0,      7,                // number_of_entries
                          0,                        // same, delta 0
                          64 + 4, 1,                // same_locals_1 Integer
                          247,    0, 194, 7, 0, 4,  // extended, Object #4
                          252,    0, 0,   2,        // append Float
                          248,    0, 98,            // chop 3
                          255,    0, 0,   0, 2, 7, 0, 8, 3, 0, 2, 8, 0, 12, 5,  // full
                          251,    0, 98};  // same_frame_extended
  CHECK(enc.value() == expected);
  auto dec = decode_stack_map_table(enc.value(), init);
  REQUIRE(dec.ok());
  REQUIRE(dec->size() == frames.size());
  for (size_t i = 0; i < frames.size(); ++i) {
    CHECK(dec->at(i).offset == frames[i].offset);
    CHECK(dec->at(i).frame == frames[i].frame);
  }
  auto empty = encode_stack_map_table({}, init);
  REQUIRE(empty.ok());
  CHECK(empty.value() == Bytes{0, 0});
}

TEST_CASE("stack map: encoder rejects bad input", "[attributes]") {
  const Frame init{{kInt}, {}};
  CHECK_FALSE(encode_stack_map_table({{5, init}, {5, init}}, init).ok());
  CHECK_FALSE(encode_stack_map_table({{5, init}, {4, init}}, init).ok());
  CHECK_FALSE(encode_stack_map_table({{70000, init}}, init).ok());  // delta past u2
  CHECK_FALSE(encode_stack_map_table({{1, Frame{{obj(70000)}, {}}}}, init).ok());
  CHECK_FALSE(encode_stack_map_table({{1, Frame{{VType{VTag(9), 0}}, {}}}}, init).ok());
}

TEST_CASE("stack map: malformed bodies give errors at the right offset", "[attributes]") {
  const Frame init{{obj(5), kInt}, {}};
  auto err = [&](const Bytes& body) {
    auto r = decode_stack_map_table(body, init, kBase);
    REQUIRE_FALSE(r.ok());
    return r.error();
  };
  SECTION("reserved frame types 128..246") {
    check_error_at(err({0, 1, 128}), kBase + 2);
    check_error_at(err({0, 2, 3, 246}), kBase + 3);
  }
  SECTION("truncation") {
    check_error_at(err({}), kBase);
    check_error_at(err({0}), kBase);
    check_error_at(err({0, 2, 10}), kBase + 3);                  // second frame missing
    check_error_at(err({0, 1, 64}), kBase + 3);                  // stack item missing
    check_error_at(err({0, 1, 64, 7, 0}), kBase + 4);            // Object index cut short
    check_error_at(err({0, 1, 251, 0}), kBase + 3);              // delta cut short
    check_error_at(err({0, 1, 255, 0, 0, 0, 2, 1}), kBase + 8);  // second local missing
    check_error_at(err({0, 1, 253, 0, 0, 1}), kBase + 6);        // second appended local missing
  }
  SECTION("trailing garbage") {
    check_error_at(err({0, 1, 10, 0xAA}), kBase + 3);
  }
  SECTION("bad verification type tag") {
    check_error_at(err({0, 1, 64, 9}), kBase + 3);
  }
  SECTION("chop past the start of the locals") {
    check_error_at(err({0, 1, 248, 0, 0}), kBase + 2);
    check_error_at(err({0, 2, 249, 0, 0, 248, 0, 0}), kBase + 5);
  }
}

// ---------------------------------------------------------------------------------------------
// initial_frame

TEST_CASE("initial_frame follows JVMS 4.10.1.6", "[attributes]") {
  ConstantPool pool;
  auto cls = [&](uint32_t idx) { return std::string(pool.class_name(idx).value_or("?")); };

  SECTION("static method: parameters only") {
    auto f = initial_frame(pool, "p/C", "m", "(ZBCSIFJD[I[[Ljava/lang/String;Lp/D;)V",
                           access::kStatic | access::kPublic);
    REQUIRE(f.ok());
    REQUIRE(f->locals.size() == 11);
    for (int i = 0; i < 5; ++i) CHECK(f->locals[i] == kInt);
    CHECK(f->locals[5] == kFloat);
    CHECK(f->locals[6] == kLong);
    CHECK(f->locals[7] == kDouble);
    CHECK(f->locals[8].tag == VTag::kObject);
    CHECK(cls(f->locals[8].data) == "[I");
    CHECK(cls(f->locals[9].data) == "[[Ljava/lang/String;");
    CHECK(cls(f->locals[10].data) == "p/D");
    CHECK(f->stack.empty());
  }
  SECTION("instance method: this is the class") {
    auto f = initial_frame(pool, "p/C", "run", "(Ljava/lang/String;)Ljava/lang/Object;", 0);
    REQUIRE(f.ok());
    REQUIRE(f->locals.size() == 2);
    CHECK(f->locals[0].tag == VTag::kObject);
    CHECK(cls(f->locals[0].data) == "p/C");
    CHECK(cls(f->locals[1].data) == "java/lang/String");
    // Adding the same classes again is de-duplicated.
    uint16_t count = pool.count();
    auto again = initial_frame(pool, "p/C", "run", "(Ljava/lang/String;)Ljava/lang/Object;", 0);
    REQUIRE(again.ok());
    CHECK(again.value() == f.value());
    CHECK(pool.count() == count);
  }
  SECTION("class names holding ')' (JVMS 4.2.2)") {
    auto f = initial_frame(pool, "p/C", "m", "(JLp/Odd)V;[Lp/Odd)J;)Lp/Odd)V;", access::kStatic);
    REQUIRE(f.ok());
    REQUIRE(f->locals.size() == 3);
    CHECK(f->locals[0] == kLong);
    CHECK(cls(f->locals[1].data) == "p/Odd)V");
    CHECK(cls(f->locals[2].data) == "[Lp/Odd)J;");
    CHECK_FALSE(initial_frame(pool, "p/C", "m", "(Lp/Odd)V;)Q", access::kStatic).ok());
  }
  SECTION("constructor: this is uninitialized") {
    auto f = initial_frame(pool, "p/C", "<init>", "(J)V", access::kPublic);
    REQUIRE(f.ok());
    CHECK(f->locals == FrameLocals{kUThis, kLong});
  }
  SECTION("java/lang/Object's constructor: this is initialized") {
    auto f = initial_frame(pool, "java/lang/Object", "<init>", "()V", access::kPublic);
    REQUIRE(f.ok());
    REQUIRE(f->locals.size() == 1);
    CHECK(f->locals[0].tag == VTag::kObject);
    CHECK(cls(f->locals[0].data) == "java/lang/Object");
  }
  SECTION("static initializer: nothing") {
    auto f = initial_frame(pool, "p/C", "<clinit>", "()V", access::kStatic);
    REQUIRE(f.ok());
    CHECK(f->locals.empty());
  }
  SECTION("bad descriptors fail without touching the pool") {
    uint16_t count = pool.count();
    std::string too_many = "(" + std::string(255, 'I') + ")V";  // 256 slots with `this`
    std::string too_deep = "(" + std::string(256, '[') + "I)V";
    for (const std::string& d : std::vector<std::string>{
             "", "I", "()", "(I", "I)V", "(L;)V", "(Ljava/lang/String)V", "(Ljava/lang/String;Q)V",
             "(V)V", "([)V", "(I)VV", "(I)[", "(I)Lx", "(La.b;)V", "(Ljava/lang/String;)X",
             too_many, too_deep}) {
      INFO(d);
      auto f = initial_frame(pool, "p/C", "m", d, 0);
      CHECK_FALSE(f.ok());
    }
    CHECK(pool.count() == count);
    // 255 slots counting `this` is still legal; a static method may take 255 ints.
    CHECK(initial_frame(pool, "p/C", "m", "(" + std::string(254, 'I') + ")V", 0).ok());
    CHECK(initial_frame(pool, "p/C", "m", too_many, access::kStatic).ok());
  }
}

// ---------------------------------------------------------------------------------------------
// Code

namespace {

// max_stack 2, max_locals 1, code {iconst_0, ireturn}, one handler, one nested attribute
// (#9, 3 bytes).
Bytes sample_code() {
  return {0, 2, 0, 1, 0, 0, 0, 2, 0x03, 0xAC,        // header and code
          0, 1, 0, 0, 0, 1, 0, 1, 0,    4,           // exception table
          0, 1, 0, 9, 0, 0, 0, 3, 0xA,  0xB,  0xC};  // attributes
}

}  // namespace

TEST_CASE("Code attribute decodes and re-encodes", "[attributes]") {
  Bytes body = sample_code();
  Attribute attr;
  attr.data = body;
  auto code = decode_code(attr, kBase);
  REQUIRE(code.ok());
  CHECK(code->max_stack == 2);
  CHECK(code->max_locals == 1);
  CHECK(Bytes(code->code.begin(), code->code.end()) == Bytes{0x03, 0xAC});
  CHECK(code->code.data() == body.data() + 8);  // a view, not a copy
  REQUIRE(code->exception_table.size() == 1);
  CHECK(code->exception_table[0].end_pc == 1);
  CHECK(code->exception_table[0].catch_type == 4);
  REQUIRE(code->attributes.size() == 1);
  CHECK(code->attributes[0].name_index == 9);
  CHECK(code->attributes[0].data.data() == body.data() + body.size() - 3);
  CHECK(encode_code(code.value()) == body);
}

TEST_CASE("Code attribute: malformed input", "[attributes]") {
  Bytes good = sample_code();
  auto decode = [](const Bytes& b) {
    Attribute a;
    a.data = b;
    return decode_code(a, kBase);
  };
  SECTION("every truncation fails inside the body") {
    for (size_t n = 0; n < good.size(); ++n) {
      auto r = decode(Bytes(good.begin(), good.begin() + n));
      INFO("length " << n);
      REQUIRE_FALSE(r.ok());
      CHECK(r.error().offset >= static_cast<int64_t>(kBase));
      CHECK(r.error().offset <= static_cast<int64_t>(kBase + n));
    }
    check_error_at(decode(Bytes(good.begin(), good.begin() + 9)).error(), kBase + 8);
  }
  SECTION("trailing bytes") {
    Bytes b = good;
    b.push_back(0);
    check_error_at(decode(b).error(), kBase + good.size());
  }
  SECTION("code_length must be 1..65535") {
    Bytes zero = {0, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0};
    check_error_at(decode(zero).error(), kBase + 4);
    Bytes big = {0, 1, 0, 1, 0, 1, 0, 0};
    check_error_at(decode(big).error(), kBase + 4);
  }
}

// ---------------------------------------------------------------------------------------------
// Tables

TEST_CASE("LineNumberTable, local variables, Exceptions, BootstrapMethods", "[attributes]") {
  SECTION("LineNumberTable") {
    Bytes body = {0, 2, 0, 0, 0, 10, 0, 5, 0, 11};
    auto r = decode_line_numbers(body, kBase);
    REQUIRE(r.ok());
    REQUIRE(r->size() == 2);
    CHECK(r->at(1).start_pc == 5);
    CHECK(r->at(1).line == 11);
    CHECK(encode_line_numbers(r.value()) == body);
    check_error_at(decode_line_numbers(Bytes{0, 2, 0, 0, 0, 10, 0}, kBase).error(), kBase + 6);
    check_error_at(decode_line_numbers(Bytes{0, 0, 1}, kBase).error(), kBase + 2);
  }
  SECTION("LocalVariableTable") {
    Bytes body = {0, 1, 0, 1, 0, 9, 0, 20, 0, 21, 0, 3};
    auto r = decode_local_variables(body, kBase);
    REQUIRE(r.ok());
    REQUIRE(r->size() == 1);
    CHECK(r->at(0).start_pc == 1);
    CHECK(r->at(0).length == 9);
    CHECK(r->at(0).name_index == 20);
    CHECK(r->at(0).descriptor_index == 21);
    CHECK(r->at(0).index == 3);
    CHECK(encode_local_variables(r.value()) == body);
    check_error_at(decode_local_variables(Bytes{0, 1, 0, 1, 0}, kBase).error(), kBase + 4);
    body.push_back(7);
    check_error_at(decode_local_variables(body, kBase).error(), kBase + 12);
  }
  SECTION("Exceptions") {
    auto r = decode_exceptions(Bytes{0, 2, 0, 7, 1, 0}, kBase);
    REQUIRE(r.ok());
    CHECK(r.value() == std::vector<uint16_t>{7, 256});
    check_error_at(decode_exceptions(Bytes{0, 2, 0, 7}, kBase).error(), kBase + 4);
    check_error_at(decode_exceptions(Bytes{0, 0, 0}, kBase).error(), kBase + 2);
  }
  SECTION("BootstrapMethods") {
    auto r = decode_bootstrap_methods(Bytes{0, 2, 0, 5, 0, 2, 0, 6, 0, 7, 0, 8, 0, 0}, kBase);
    REQUIRE(r.ok());
    REQUIRE(r->size() == 2);
    CHECK(r->at(0).method_handle == 5);
    CHECK(r->at(0).arguments == std::vector<uint16_t>{6, 7});
    CHECK(r->at(1).method_handle == 8);
    CHECK(r->at(1).arguments.empty());
    check_error_at(decode_bootstrap_methods(Bytes{0, 1, 0, 5, 0, 2, 0, 6}, kBase).error(),
                   kBase + 8);
    check_error_at(decode_bootstrap_methods(Bytes{0, 1, 0, 5, 0, 0, 9}, kBase).error(), kBase + 6);
  }
}

// ---------------------------------------------------------------------------------------------
// Annotations

namespace {

// An annotation (type #2) whose single element (#3) nests `depth` more annotations ('@') or
// arrays ('['), ending in an int constant.
Bytes nested_annotation(int depth, char how) {
  Bytes b = {0, 2, 0, 1, 0, 3};
  for (int i = 0; i < depth; ++i) {
    if (how == '@') {
      b.insert(b.end(), {'@', 0, 2, 0, 1, 0, 3});
    } else {
      b.insert(b.end(), {'[', 0, 1});
    }
  }
  b.insert(b.end(), {'I', 0, 4});
  return b;
}

}  // namespace

TEST_CASE("measure_annotation walks every element_value kind", "[attributes]") {
  Bytes anno = {0, 2, 0,   6,                            // type #2, six pairs
                0, 3, 'I', 0, 4,                         // const
                0, 3, 's', 0, 4,                         // string
                0, 3, 'e', 0, 5, 0,   6,                 // enum
                0, 3, 'c', 0, 7,                         // class
                0, 3, '@', 0, 2, 0,   0,                 // nested annotation, no pairs
                0, 3, '[', 0, 2, 'Z', 0, 1, 'J', 0, 1};  // array of two
  Bytes with_tail = anno;
  with_tail.insert(with_tail.end(), {0xEE, 0xEE});  // measuring stops at the end
  auto n = measure_annotation(with_tail, kBase);
  REQUIRE(n.ok());
  CHECK(n.value() == anno.size());

  SECTION("bad tag") {
    Bytes bad = {0, 2, 0, 1, 0, 3, 'X', 0, 0};
    check_error_at(measure_annotation(bad, kBase).error(), kBase + 6);
  }
  SECTION("truncations") {
    for (size_t len = 0; len < anno.size(); ++len) {
      INFO("length " << len);
      auto r = measure_annotation(std::span<const uint8_t>(anno.data(), len), kBase);
      REQUIRE_FALSE(r.ok());
      CHECK(r.error().offset <= static_cast<int64_t>(kBase + len));
    }
  }
}

TEST_CASE("annotation nesting depth is bounded", "[attributes]") {
  for (char how : {'@', '['}) {
    INFO(how);
    Bytes ok = nested_annotation(60, how);
    auto r = measure_annotation(ok);
    REQUIRE(r.ok());
    CHECK(r.value() == ok.size());
    auto deep = measure_annotation(nested_annotation(100, how), kBase);
    REQUIRE_FALSE(deep.ok());
    CHECK(deep.error().reason.find("nesting") != std::string::npos);
    CHECK(deep.error().offset > static_cast<int64_t>(kBase));
    // A hostile depth must not blow the stack either.
    CHECK_FALSE(measure_annotation(nested_annotation(200000, how)).ok());
  }
}

TEST_CASE("Code type annotations round-trip and reject non-Code targets", "[attributes]") {
  const Bytes simple = {0, 2, 0, 0};  // annotation: type #2, no pairs
  Bytes body = {0, 5};
  auto add = [&](Bytes target_and_path) {
    body.insert(body.end(), target_and_path.begin(), target_and_path.end());
    body.insert(body.end(), simple.begin(), simple.end());
  };
  add({0x40, 0, 2, 0, 1, 0, 2, 0, 3, 0, 4, 0, 5, 0, 6, /*path*/ 0});  // local_variable
  add({0x42, 0, 1, /*path*/ 1, 3, 0});                                // catch, one path step
  add({0x43, 1, 2, 0});                                               // instanceof
  add({0x47, 0, 9, 1, 0});                                            // cast, type arg 1
  add({0x4B, 0, 8, 0, 2, 0, 0, 0, 0});  // method reference type arg, path of two steps

  auto r = decode_code_type_annotations(body, kBase);
  REQUIRE(r.ok());
  REQUIRE(r->size() == 5);
  CHECK(r->at(0).target_type == 0x40);
  REQUIRE(r->at(0).ranges.size() == 2);
  CHECK(r->at(0).ranges[1].start_pc == 4);
  CHECK(r->at(0).ranges[1].index == 6);
  CHECK(r->at(0).type_path == Bytes{0});
  CHECK(r->at(0).annotation == simple);
  CHECK(r->at(1).exception_table_index == 1);
  CHECK(r->at(1).type_path == Bytes{1, 3, 0});
  CHECK(r->at(2).offset == 258);
  CHECK(r->at(3).offset == 9);
  CHECK(r->at(3).type_argument_index == 1);
  CHECK(r->at(4).type_argument_index == 0);
  CHECK(r->at(4).type_path.size() == 5);
  CHECK(encode_code_type_annotations(r.value()) == body);

  SECTION("an empty type_path is written as length zero") {
    CodeTypeAnnotation a;
    a.target_type = 0x44;
    a.offset = 3;
    a.annotation = simple;
    CHECK(encode_code_type_annotations({a}) == Bytes{0, 1, 0x44, 0, 3, 0, 0, 2, 0, 0});
  }
  SECTION("targets outside 0x40..0x4B are errors") {
    for (uint8_t t : {0x00, 0x13, 0x16, 0x3F, 0x4C, 0xFF}) {
      Bytes bad = {0, 1, t, 0, 0, 0, 0, 2, 0, 0};
      check_error_at(decode_code_type_annotations(bad, kBase).error(), kBase + 2);
    }
  }
  SECTION("truncation and trailing bytes") {
    for (size_t len = 0; len < body.size(); ++len) {
      INFO("length " << len);
      auto t = decode_code_type_annotations(std::span<const uint8_t>(body.data(), len), kBase);
      REQUIRE_FALSE(t.ok());
    }
    Bytes tail = body;
    tail.push_back(0);
    check_error_at(decode_code_type_annotations(tail, kBase).error(), kBase + body.size());
  }
}

// ---------------------------------------------------------------------------------------------
// Robustness: corrupted bodies give a value or an Error, never a crash (run under ASan).

namespace {

// Overwrites a few bytes and maybe cuts the tail, from a fixed seed.
Bytes mutate(Bytes b, uint32_t& seed) {
  auto next = [&] { return seed = seed * 1664525u + 1013904223u; };
  int flips = 1 + next() % 3;
  for (int i = 0; i < flips && !b.empty(); ++i) b[next() % b.size()] = next() >> 24;
  if (next() % 4 == 0 && !b.empty()) b.resize(next() % b.size());
  return b;
}

}  // namespace

TEST_CASE("corrupted attribute bodies never crash", "[attributes]") {
  const Frame init{{kUThis, kLong, obj(3)}, {}};
  auto smt = encode_stack_map_table({{3, {init.locals, {kInt}}},
                                     {90, {{kUThis, kLong, obj(3), kFloat, kTop}, {}}},
                                     {95, {{kInt}, {uninit(4), kNull}}}},
                                    init);
  REQUIRE(smt.ok());
  Bytes anno = nested_annotation(5, '@');
  Bytes type_annos = {0, 1, 0x40, 0, 1, 0, 1, 0, 2, 0, 3, 0};
  type_annos.insert(type_annos.end(), anno.begin(), anno.end());
  uint32_t seed = 12345;
  int accepted = 0;
  for (int i = 0; i < 3000; ++i) {
    auto frames = decode_stack_map_table(mutate(smt.value(), seed), init);
    if (frames.ok()) {
      ++accepted;
      auto enc = encode_stack_map_table(frames.value(), init);
      REQUIRE(enc.ok());
      auto again = decode_stack_map_table(enc.value(), init);
      REQUIRE(again.ok());
      CHECK(again->size() == frames->size());
    }
    Attribute a;
    Bytes code = mutate(sample_code(), seed);
    a.data = code;
    if (auto c = decode_code(a); c.ok()) CHECK(encode_code(c.value()) == code);
    (void)measure_annotation(mutate(anno, seed));
    Bytes ta = mutate(type_annos, seed);
    if (auto t = decode_code_type_annotations(ta); t.ok()) {
      CHECK(encode_code_type_annotations(t.value()) == ta);
    }
  }
  CHECK(accepted > 0);
}

// ---------------------------------------------------------------------------------------------
// Real classes

namespace {

// Reads one entry of a zip (or a jmod, which is a zip with a 4-byte header) with unzip.
Bytes read_zip_entry(const std::string& archive, const std::string& entry) {
  std::string cmd = "unzip -p '" + archive + "' '" + entry + "' 2>/dev/null";
  Bytes out;
  FILE* p = popen(cmd.c_str(), "r");
  if (p == nullptr) return out;
  uint8_t buf[65536];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.insert(out.end(), buf, buf + n);
  pclose(p);
  return out;
}

struct RoundTripStats {
  int methods = 0;
  int stack_maps = 0;
  int stack_maps_identical = 0;
  int line_tables = 0;
  int local_tables = 0;
  int type_annotations = 0;
};

Bytes to_bytes(std::span<const uint8_t> s) {
  return Bytes(s.begin(), s.end());
}

void check_stack_map(ClassFile& cf, const Member& m, const Attribute& a, RoundTripStats& st) {
  auto init =
      initial_frame(cf.pool, cf.name(), cf.member_name(m), cf.member_descriptor(m), m.access_flags);
  REQUIRE(init.ok());
  auto frames = decode_stack_map_table(a.data, init.value());
  INFO((frames.ok() ? std::string() : frames.error().message()));
  REQUIRE(frames.ok());
  auto enc = encode_stack_map_table(frames.value(), init.value());
  REQUIRE(enc.ok());
  auto again = decode_stack_map_table(enc.value(), init.value());
  REQUIRE(again.ok());
  CHECK(again->size() == frames->size());
  bool same = again->size() == frames->size();
  for (size_t i = 0; same && i < frames->size(); ++i) {
    same = again->at(i).offset == frames->at(i).offset && again->at(i).frame == frames->at(i).frame;
  }
  CHECK(same);
  ++st.stack_maps;
  if (enc.value() == to_bytes(a.data)) ++st.stack_maps_identical;
}

void check_code_attribute(ClassFile& cf, const Member& m, const Attribute& a, RoundTripStats& st) {
  std::string_view name = cf.attribute_name(a);
  if (name == "StackMapTable") {
    check_stack_map(cf, m, a, st);
  } else if (name == "LineNumberTable") {
    auto r = decode_line_numbers(a.data);
    REQUIRE(r.ok());
    CHECK(encode_line_numbers(r.value()) == to_bytes(a.data));
    ++st.line_tables;
  } else if (name == "LocalVariableTable" || name == "LocalVariableTypeTable") {
    auto r = decode_local_variables(a.data);
    REQUIRE(r.ok());
    CHECK(encode_local_variables(r.value()) == to_bytes(a.data));
    ++st.local_tables;
  } else if (name == "RuntimeVisibleTypeAnnotations" || name == "RuntimeInvisibleTypeAnnotations") {
    auto r = decode_code_type_annotations(a.data);
    REQUIRE(r.ok());
    CHECK(encode_code_type_annotations(r.value()) == to_bytes(a.data));
    ++st.type_annotations;
  }
}

void check_class(const Bytes& bytes, RoundTripStats& st) {
  auto parsed = ClassFile::parse(bytes);
  REQUIRE(parsed.ok());
  ClassFile& cf = parsed.value();
  for (const Member& m : cf.methods) {
    INFO(cf.name() << "." << cf.member_name(m) << cf.member_descriptor(m));
    const Attribute* code_attr = cf.find_attribute(m.attributes, "Code");
    if (code_attr == nullptr) continue;
    auto code = decode_code(*code_attr);
    REQUIRE(code.ok());
    CHECK(encode_code(code.value()) == to_bytes(code_attr->data));
    ++st.methods;
    for (const Attribute& a : code->attributes) check_code_attribute(cf, m, a, st);
  }
}

}  // namespace

TEST_CASE("real classes: Code and its tables re-encode to the same bytes", "[attributes]") {
  const std::string h2 = "/usr/share/java/h2.jar";
  const std::string jmod = "/usr/lib/jvm/java-17-openjdk-amd64/jmods/java.base.jmod";
  const std::string jdt = "/usr/share/java/eclipse-jdt-core.jar";
  const std::string rhino = "/usr/share/java/js.jar";
  const std::string xalan = "/usr/share/java/xalan2.jar";
  const std::vector<std::pair<std::string, std::string>> classes = {
      {h2, "org/h2/command/Parser.class"},
      {h2, "org/h2/mvstore/MVStore.class"},
      {h2, "org/h2/engine/Database.class"},
      {h2, "org/h2/jdbc/JdbcResultSet.class"},
      {jmod, "classes/java/lang/String.class"},
      {jmod, "classes/java/util/HashMap.class"},
      {jmod, "classes/java/util/concurrent/ConcurrentHashMap.class"},
      {jmod, "classes/java/lang/invoke/MethodHandles$Lookup.class"},
      {jdt, "org/eclipse/jdt/internal/codeassist/CompletionEngine.class"},
      {jdt, "org/eclipse/jdt/internal/compiler/parser/Parser.class"},
      {rhino, "org/mozilla/javascript/ScriptRuntime.class"},
      {rhino, "org/mozilla/javascript/optimizer/BodyCodegen.class"},
      {xalan, "org/apache/xalan/transformer/TransformerImpl.class"},
  };
  RoundTripStats st;
  int read = 0;
  for (const auto& [archive, entry] : classes) {
    Bytes bytes = read_zip_entry(archive, entry);
    if (bytes.empty()) {
      WARN("could not read " << entry << " from " << archive);
      continue;
    }
    ++read;
    INFO(entry);
    check_class(bytes, st);
  }
  if (read == 0) {
    WARN("no real classes available; skipped");
    return;
  }
  WARN("methods " << st.methods << ", StackMapTables " << st.stack_maps << " ("
                  << st.stack_maps_identical << " byte-identical), LineNumberTables "
                  << st.line_tables << ", local variable tables " << st.local_tables
                  << ", type annotation tables " << st.type_annotations);
  CHECK(st.methods > 500);
  CHECK(st.stack_maps > 100);
  CHECK(st.line_tables > 500);
  // javac picks the compact frame kinds, so the re-encoding should be the same bytes.
  CHECK(st.stack_maps_identical == st.stack_maps);
}
