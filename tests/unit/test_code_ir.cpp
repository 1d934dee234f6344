// Tests of build_code_ir: decoding, label placement, malformed code, and the round trip
// IR -> assemble_code over every method of the fixtures and of real classes (java.base from
// the JDK's jmod, h2.jar): unedited code must come back byte for byte.
#include <catch2/catch.hpp>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "classfile/assembler.h"
#include "classfile/attributes.h"
#include "classfile/class_file.h"
#include "classfile/code_ir.h"
#include "classfile/code_ir_checked.h"
#include "classfile/opcodes.h"

namespace fs = std::filesystem;
using namespace duplex;

namespace {

std::vector<uint8_t> read_bytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}

fs::path fixtures_dir() {
  if (const char* env = std::getenv("DUPLEX_FIXTURES_DIR")) return env;
  return DUPLEX_FIXTURES_DIR;
}

ClassFile load_fixture(const std::string& name) {
  auto bytes = read_bytes(fixtures_dir() / "fixtures" / (name + ".class"));
  auto cf = ClassFile::parse(bytes);
  INFO("fixture " << name << (cf ? "" : ": " + cf.error().message()));
  REQUIRE(cf.ok());
  return std::move(cf.value());
}

const Member* find_method(const ClassFile& cf, std::string_view name) {
  for (const auto& m : cf.methods) {
    if (cf.member_name(m) == name) return &m;
  }
  return nullptr;
}

// A raw attribute inside the Code attribute: its name index and body.
struct RawCodeAttribute {
  uint16_t name_index = 0;
  std::vector<uint8_t> body;
};

// Pool of the classes below. Entries the tests name:
//   #2 Class T, #5 Utf8 "m", #7 Utf8 "Code", #9 Methodref T.m()V, #12 Fieldref T.m:I,
//   #13 Integer 7, #14 Utf8 "StackMapTable", #15 InterfaceMethodref T.m()V,
//   #16 Utf8 "LocalVariableTable"; the count is 17.
constexpr uint16_t kPoolCount = 17;

// A class `T` (major `major`) whose only method is `m()V` (static unless `access` says
// otherwise) with this code (max_stack 4), these handlers and these attributes of its Code
// attribute.
std::vector<uint8_t> class_with_code(const std::vector<uint8_t>& code,
                                     const std::vector<ExceptionTableEntry>& handlers = {},
                                     uint16_t major = 52,
                                     const std::vector<RawCodeAttribute>& code_attributes = {},
                                     uint16_t max_locals = 4, uint16_t access = 0x09) {
  ByteWriter w;
  w.u4(0xCAFEBABE);
  w.u2(0);
  w.u2(major);
  w.u2(kPoolCount);
  auto utf8 = [&w](std::string_view s) {
    w.u1(1);
    w.u2(static_cast<uint32_t>(s.size()));
    w.bytes(s);
  };
  utf8("T");                    // #1
  w.u1(7), w.u2(1);             // #2 Class T
  utf8("java/lang/Object");     // #3
  w.u1(7), w.u2(3);             // #4 Class java/lang/Object
  utf8("m");                    // #5
  utf8("()V");                  // #6
  utf8("Code");                 // #7
  w.u1(12), w.u2(5), w.u2(6);   // #8 NameAndType m ()V
  w.u1(10), w.u2(2), w.u2(8);   // #9 Methodref T.m()V
  utf8("I");                    // #10
  w.u1(12), w.u2(5), w.u2(10);  // #11 NameAndType m I
  w.u1(9), w.u2(2), w.u2(11);   // #12 Fieldref T.m:I
  w.u1(3), w.u4(7);             // #13 Integer 7
  utf8("StackMapTable");        // #14
  w.u1(11), w.u2(2), w.u2(8);   // #15 InterfaceMethodref T.m()V
  utf8("LocalVariableTable");   // #16
  w.u2(0x21), w.u2(2), w.u2(4), w.u2(0), w.u2(0);
  w.u2(1), w.u2(access), w.u2(5), w.u2(6), w.u2(1), w.u2(7);
  size_t attrs_size = 0;
  for (const auto& a : code_attributes) attrs_size += 6 + a.body.size();
  w.u4(static_cast<uint32_t>(12 + code.size() + 8 * handlers.size() + attrs_size));
  w.u2(4), w.u2(max_locals), w.u4(static_cast<uint32_t>(code.size()));
  w.bytes(code);
  w.u2(static_cast<uint32_t>(handlers.size()));
  for (const auto& h : handlers) {
    w.u2(h.start_pc), w.u2(h.end_pc), w.u2(h.handler_pc), w.u2(h.catch_type);
  }
  w.u2(static_cast<uint32_t>(code_attributes.size()));
  for (const auto& a : code_attributes) {
    w.u2(a.name_index);
    w.u4(static_cast<uint32_t>(a.body.size()));
    w.bytes(a.body);
  }
  w.u2(0);
  return w.take();
}

Result<CodeIR> ir_of_code(const std::vector<uint8_t>& code,
                          const std::vector<ExceptionTableEntry>& handlers = {},
                          uint16_t major = 52,
                          const std::vector<RawCodeAttribute>& code_attributes = {},
                          uint16_t max_locals = 4, uint16_t access = 0x09) {
  auto cf =
      ClassFile::parse(class_with_code(code, handlers, major, code_attributes, max_locals, access));
  INFO((cf ? "" : cf.error().message()));
  REQUIRE(cf.ok());
  return build_code_ir(cf.value(), cf->methods[0]);
}

// Checks that building failed for T.m()V at this bytecode offset with this in the reason.
void check_rejected(const Result<CodeIR>& ir, int64_t offset, std::string_view reason) {
  REQUIRE_FALSE(ir.ok());
  INFO(ir.error().message());
  CHECK(ir.error().class_name == "T");
  CHECK(ir.error().method == "m()V");
  CHECK(ir.error().offset_kind == OffsetKind::kBytecode);
  CHECK(ir.error().offset == offset);
  CHECK(ir.error().reason.find(reason) != std::string::npos);
}

size_t count_labels(const CodeIR& ir) {
  size_t n = 0;
  for (const auto& i : ir.insns) n += i.is_label() ? 1 : 0;
  return n;
}

// ---- round trip ----

struct RoundTripStats {
  size_t classes = 0;
  size_t methods = 0;
  size_t identical_code = 0;
  size_t max_stack_differs = 0;
  size_t identical_stack_map = 0;
  size_t with_stack_map = 0;
  std::vector<std::string> failures;

  void fail(std::string what) {
    if (failures.size() < 20)
      failures.push_back(std::move(what));
    else if (failures.size() == 20)
      failures.push_back("...");
  }
};

std::span<const uint8_t> attribute_body(const ClassFile& cf, const CodeAttribute& code,
                                        std::string_view name) {
  const Attribute* a = cf.find_attribute(code.attributes, name);
  return a ? a->data : std::span<const uint8_t>{};
}

bool same(std::span<const uint8_t> a, std::span<const uint8_t> b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end());
}

bool same_exceptions(const CodeAttribute& a, const CodeAttribute& b) {
  if (a.exception_table.size() != b.exception_table.size()) return false;
  for (size_t i = 0; i < a.exception_table.size(); ++i) {
    const auto &x = a.exception_table[i], &y = b.exception_table[i];
    if (x.start_pc != y.start_pc || x.end_pc != y.end_pc || x.handler_pc != y.handler_pc ||
        x.catch_type != y.catch_type)
      return false;
  }
  return true;
}

void compare_method(ClassFile& cf, const Member& m, RoundTripStats& stats) {
  std::string id =
      cf.name() + "." + std::string(cf.member_name(m)) + std::string(cf.member_descriptor(m));
  const Attribute* attr = cf.find_attribute(m.attributes, "Code");
  if (attr == nullptr) return;
  ++stats.methods;
  auto before = decode_code(*attr);
  auto ir = build_code_ir(cf, m);
  if (!before || !ir) return stats.fail(id + ": " + (ir ? before.error() : ir.error()).message());
  auto out = assemble_code(ir.value(), cf.pool, MethodContext::of(cf, m));
  if (!out) return stats.fail(id + ": " + out.error().message());
  Attribute rebuilt{attr->name_index, {}, {}};
  rebuilt.set_data(out->code_attribute);
  auto after = decode_code(rebuilt);
  if (!after) return stats.fail(id + ": reassembled Code does not decode");
  if (!same(before->code, after->code) || !same_exceptions(before.value(), after.value()))
    return stats.fail(id + ": code or exception table differs");
  if (before->max_locals != after->max_locals) return stats.fail(id + ": max_locals differs");
  if (!same(attribute_body(cf, *before, "LineNumberTable"),
            attribute_body(cf, *after, "LineNumberTable")))
    return stats.fail(id + ": LineNumberTable differs");
  ++stats.identical_code;
  if (before->max_stack != after->max_stack) ++stats.max_stack_differs;
  auto smt = attribute_body(cf, *before, "StackMapTable");
  if (!smt.empty()) {
    ++stats.with_stack_map;
    if (same(smt, attribute_body(cf, *after, "StackMapTable"))) ++stats.identical_stack_map;
  }
}

void round_trip_class(const std::vector<uint8_t>& bytes, const std::string& where,
                      RoundTripStats& stats) {
  auto cf = ClassFile::parse(bytes);
  if (!cf) return stats.fail(where + ": " + cf.error().message());
  ++stats.classes;
  for (const auto& m : cf->methods) compare_method(cf.value(), m, stats);
}

void round_trip_dir(const fs::path& dir, RoundTripStats& stats) {
  std::vector<fs::path> files;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (e.is_regular_file() && e.path().extension() == ".class") files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  for (const auto& f : files) round_trip_class(read_bytes(f), f.string(), stats);
}

void report(const char* what, const RoundTripStats& s) {
  std::printf(
      "[code_ir] round trip %s: %zu classes, %zu methods, %zu identical code, %zu max_stack "
      "differs, %zu/%zu StackMapTable byte-identical, %zu failures\n",
      what, s.classes, s.methods, s.identical_code, s.max_stack_differs, s.identical_stack_map,
      s.with_stack_map, s.failures.size());
  for (const auto& f : s.failures) std::printf("  %s\n", f.c_str());
}

// Extracts a JDK module or a jar once per machine into the temp directory.
fs::path cached_extract(const std::string& name, const std::string& command_fmt) {
  fs::path dir = fs::temp_directory_path() / ("duplex-test-" + name);
  if (fs::exists(dir / ".done")) return dir;
  fs::path tmp = dir.string() + ".tmp";
  fs::remove_all(tmp);
  fs::create_directories(tmp);
  std::string cmd = command_fmt;
  cmd.replace(cmd.find("%s"), 2, tmp.string());
  if (std::system(cmd.c_str()) != 0) return {};
  std::ofstream(tmp / ".done") << "ok\n";
  fs::remove_all(dir);
  fs::rename(tmp, dir);
  return dir;
}

}  // namespace

TEST_CASE("build_code_ir places labels only where needed", "[code_ir]") {
  // 0: iconst_0  1: ifeq 6  4: iconst_1  5: pop  6: return (version 50: no frames needed)
  auto ir = ir_of_code({0x03, 0x99, 0x00, 0x05, 0x04, 0x57, 0xb1}, {}, 50);
  REQUIRE(ir.ok());
  REQUIRE(ir->labels.size() == 1);
  CHECK(ir->labels[0].original_offset == 6);
  REQUIRE(ir->insns.size() == 6);
  CHECK(ir->insns[1].opcode == op::kIfeq);
  CHECK(ir->insns[1].target == 0);
  CHECK(ir->insns[4].is_label());
  CHECK(ir->insns[5].original_offset == 6);
}

TEST_CASE("build_code_ir decodes switches, wide forms and jsr", "[code_ir]") {
  std::vector<uint8_t> code = {
      0x03,                                       // 0: iconst_0
      0xaa, 0,    0,                              // 1: tableswitch, padding to 4
      0,    0,    0,    29,                       //    default -> 30
      0,    0,    0,    1,    0,    0,    0, 2,   //    low 1, high 2
      0,    0,    0,    29,   0,    0,    0, 30,  //    1 -> 30, 2 -> 31
      0xc4, 0x84, 0x01, 0x00, 0x03, 0xe8,         // 24: wide iinc 256, 1000
      0xb1,                                       // 30: return
      0xb1,                                       // 31: return
  };
  auto ir = ir_of_code(code, {}, 50, {}, 257);  // max_locals: 257, for iinc 256
  INFO((ir ? "" : ir.error().message()));
  REQUIRE(ir.ok());
  REQUIRE(ir->switches.size() == 1);
  CHECK(ir->switches[0].low == 1);
  CHECK(ir->switches[0].targets.size() == 2);
  const Insn* iinc = nullptr;
  for (const auto& i : ir->insns) {
    if (i.opcode == op::kIinc) iinc = &i;
  }
  REQUIRE(iinc != nullptr);
  CHECK(iinc->wide);
  CHECK(iinc->a == 256);
  CHECK(iinc->b == 1000);
  CHECK(count_labels(ir.value()) == 2);
}

TEST_CASE("build_code_ir rejects malformed code with the offset", "[code_ir]") {
  SECTION("branch into the middle of an instruction") {
    // 0: sipush 1  3: goto -2 (offset 1, inside sipush)  6: return
    auto ir = ir_of_code({0x11, 0x00, 0x01, 0xa7, 0xff, 0xfe, 0xb1});
    REQUIRE_FALSE(ir.ok());
    CHECK(ir.error().offset == 3);
    CHECK(ir.error().offset_kind == OffsetKind::kBytecode);
    CHECK(ir.error().class_name == "T");
    CHECK(ir.error().method == "m()V");
    CHECK(ir.error().reason.find("middle") != std::string::npos);
  }
  SECTION("branch out of range") {
    auto ir = ir_of_code({0xa7, 0x00, 0x10});
    REQUIRE_FALSE(ir.ok());
    CHECK(ir.error().offset == 0);
  }
  SECTION("unknown opcode") {
    auto ir = ir_of_code({0x00, 0xcb, 0xb1});
    REQUIRE_FALSE(ir.ok());
    CHECK(ir.error().offset == 1);
  }
  SECTION("code falls off the end") {
    auto ir = ir_of_code({0x00, 0x00});
    REQUIRE_FALSE(ir.ok());
    CHECK(ir.error().offset == 1);
  }
  SECTION("truncated instruction") {
    auto ir = ir_of_code({0xb1, 0x11, 0x00});
    REQUIRE_FALSE(ir.ok());
    CHECK(ir.error().offset == 1);
  }
  SECTION("wide before an opcode it cannot modify") {
    auto ir = ir_of_code({0xc4, 0x00, 0x00, 0x01, 0xb1});
    REQUIRE_FALSE(ir.ok());
    CHECK(ir.error().offset == 0);
  }
  SECTION("exception handler not on an instruction boundary") {
    // 0: sipush 1  3: pop  4: return
    auto ir = ir_of_code({0x11, 0x00, 0x01, 0x57, 0xb1}, {{0, 3, 2, 0}});
    REQUIRE_FALSE(ir.ok());
    CHECK(ir.error().offset == 2);
  }
  SECTION("lookupswitch target out of range") {
    std::vector<uint8_t> code = {0x03, 0xab, 0, 0, 0, 0, 0, 12,   0, 0,   0,
                                 1,    0,    0, 0, 5, 0, 0, 0x10, 0, 0xb1};
    auto ir = ir_of_code(code);
    REQUIRE_FALSE(ir.ok());
    CHECK(ir.error().offset == 1);
  }
}

TEST_CASE("build_code_ir rejects pool references of the wrong kind", "[code_ir]") {
  SECTION("invokevirtual of a Fieldref") {
    // 0: nop  1: invokevirtual #12  4: return
    check_rejected(ir_of_code({0x00, 0xb6, 0x00, 12, 0xb1}), 1,
                   "invokevirtual names pool #12 (Fieldref), expected Methodref");
  }
  SECTION("getfield of a Methodref") {
    check_rejected(ir_of_code({0xb4, 0x00, 9, 0xb1}), 0,
                   "getfield names pool #9 (Methodref), expected Fieldref");
  }
  SECTION("ldc of an entry that is not loadable") {
    check_rejected(ir_of_code({0x12, 5, 0x57, 0xb1}), 0, "ldc names pool #5 (Utf8)");
  }
  SECTION("ldc2_w of an Integer") {
    check_rejected(ir_of_code({0x14, 0x00, 13, 0x58, 0xb1}), 0,
                   "ldc2_w names pool #13 (Integer), expected Long or Double");
  }
  SECTION("new and checkcast of something else than a Class") {
    check_rejected(ir_of_code({0xbb, 0x00, 13, 0x57, 0xb1}), 0,
                   "new names pool #13 (Integer), expected Class");
    check_rejected(ir_of_code({0x01, 0xc0, 0x00, 9, 0x57, 0xb1}), 1,
                   "checkcast names pool #9 (Methodref), expected Class");
  }
  SECTION("invokestatic of an InterfaceMethodref before version 52") {
    check_rejected(ir_of_code({0xb8, 0x00, 15, 0xb1}, {}, 51), 0,
                   "invokestatic names pool #15 (InterfaceMethodref)");
    CHECK(ir_of_code({0xb8, 0x00, 15, 0xb1}, {}, 52).ok());
  }
  SECTION("an index out of the pool, and index 0") {
    check_rejected(ir_of_code({0xb2, 0x01, 0x00, 0x57, 0xb1}), 0,
                   "getstatic names pool #256, not an entry of the pool (count 17)");
    check_rejected(ir_of_code({0xb8, 0x00, 0x00, 0xb1}), 0,
                   "invokestatic names pool #0, not an entry");
  }
  SECTION("invokeinterface with a non-zero fourth byte or a wrong count") {
    check_rejected(ir_of_code({0x01, 0xb9, 0x00, 15, 1, 1, 0xb1}), 1,
                   "invokeinterface's fourth operand byte is not zero");
    check_rejected(ir_of_code({0x01, 0xb9, 0x00, 15, 2, 0, 0xb1}), 1,
                   "invokeinterface count 2 does not match its descriptor");
    check_rejected(ir_of_code({0x01, 0xb9, 0x00, 15, 0, 0, 0xb1}), 1,
                   "invokeinterface count 0 does not match its descriptor");
    CHECK(ir_of_code({0x01, 0xb9, 0x00, 15, 1, 0, 0xb1}).ok());
  }
  SECTION("a catch_type that is not a Class") {
    // 0: nop  1: return  2: athrow (handler, no frame needed at version 50)
    check_rejected(ir_of_code({0x00, 0xb1, 0xbf}, {{0, 1, 2, 13}}, 50), 2,
                   "catch_type #13 is not a Class entry");
    CHECK(ir_of_code({0x00, 0xb1, 0xbf}, {{0, 1, 2, 2}}, 50).ok());
  }
}

TEST_CASE("build_code_ir rejects locals past max_locals", "[code_ir]") {
  SECTION("a load, a two-slot store, an iinc") {
    check_rejected(ir_of_code({0x15, 4, 0x57, 0xb1}), 0, "iload uses local 4, past max_locals 4");
    // 0: lconst_0  1: lstore_3 (slots 3 and 4)
    check_rejected(ir_of_code({0x09, 0x42, 0xb1}), 1, "lstore_3 uses local 3, past max_locals 4");
    check_rejected(ir_of_code({0x84, 7, 1, 0xb1}), 0, "iinc uses local 7, past max_locals 4");
    CHECK(ir_of_code({0x09, 0x41, 0xb1}).ok());  // lstore_2: slots 2 and 3
  }
  SECTION("the parameters") {
    // An instance method: `this` takes a slot, and max_locals is 0.
    check_rejected(ir_of_code({0xb1}, {}, 52, {}, 0, 0x01), 0,
                   "the parameters take 1 local slots, past max_locals 0");
    CHECK(ir_of_code({0xb1}, {}, 52, {}, 0, 0x09).ok());
  }
}

TEST_CASE("build_code_ir rejects non-zero switch padding before version 51", "[code_ir]") {
  // 0: iconst_0  1: tableswitch, padding 2 bytes, default -> 20, low 0, high 0, 0 -> 20
  // 20: return
  std::vector<uint8_t> code = {0x03, 0xaa, 0, 0, 0, 0, 0, 19, 0,  0,   0,
                               0,    0,    0, 0, 0, 0, 0, 0,  19, 0xb1};
  CHECK(ir_of_code(code, {}, 50).ok());
  code[3] = 1;
  check_rejected(ir_of_code(code, {}, 50), 1,
                 "switch padding bytes are not zero (required before version 51)");
  // From version 51 the JVM ignores the padding (frames at 20, the target).
  CHECK(ir_of_code(code, {}, 51, {{14, {0, 1, 20}}}).ok());
}

TEST_CASE("build_code_ir checks references against the pool as parsed", "[code_ir]") {
  // 0: getstatic #19  3: pop  4: return. #19 is past the parsed pool (count 17), and stays an
  // error after the pool grows so that #19 becomes a Fieldref.
  auto cf = ClassFile::parse(class_with_code({0xb2, 0x00, 19, 0x57, 0xb1}));
  REQUIRE(cf.ok());
  CHECK(cf->parsed_pool_count() == kPoolCount);
  auto added = cf->pool.add_fieldref("T", "x", "I");
  REQUIRE(added.ok());
  REQUIRE(*added == 19);
  CHECK(cf->pool.count() > kPoolCount);
  CHECK(cf->parsed_pool_count() == kPoolCount);
  check_rejected(build_code_ir(cf.value(), cf->methods[0]), 0,
                 "getstatic names pool #19, not an entry of the pool (count 17)");
  // Code an edit wrote (CodeSource::kWritten) may name what the edit added, in both builders;
  // beyond the pool it is still refused.
  auto written = build_code_ir(cf.value(), cf->methods[0], CodeSource::kWritten);
  REQUIRE(written.ok());
  CHECK(written->insns.size() >= 3);
  CHECK(build_code_ir_checked(cf.value(), cf->methods[0], CodeSource::kWritten).ok());
  auto beyond = ClassFile::parse(class_with_code({0xb2, 0x00, 40, 0x57, 0xb1}));
  REQUIRE(beyond.ok());
  REQUIRE(beyond->pool.add_fieldref("T", "x", "I").ok());
  CHECK_FALSE(build_code_ir(beyond.value(), beyond->methods[0], CodeSource::kWritten).ok());
}

TEST_CASE("build_code_ir rejects a Code attribute whose name is not a Utf8", "[code_ir]") {
  for (uint16_t name : {uint16_t{13}, uint16_t{kPoolCount}, uint16_t{0}}) {
    auto cf = ClassFile::parse(class_with_code({0xb1}, {}, 52, {{name, {1, 2}}}));
    REQUIRE(cf.ok());
    auto ir = build_code_ir(cf.value(), cf->methods[0]);
    REQUIRE_FALSE(ir.ok());
    INFO(ir.error().message());
    CHECK(ir.error().class_name == "T");
    CHECK(ir.error().method == "m()V");
    CHECK(ir.error().offset_kind == OffsetKind::kClassFile);
    // The attribute header: after the Code attribute's 12-byte header, one instruction, the
    // empty exception table and the attribute count.
    const Attribute* code = cf->find_attribute(cf->methods[0].attributes, "Code");
    REQUIRE(code != nullptr);
    CHECK(ir.error().offset == static_cast<int64_t>(cf->file_offset_of(code->data) + 8 + 1 + 4));
    CHECK(ir.error().reason ==
          "Code attribute name #" + std::to_string(name) + " is not a Utf8 entry");
  }
}

TEST_CASE("build_code_ir rejects a LocalVariableTable past max_locals", "[code_ir]") {
  // One entry: start 0, length 1, name #5, descriptor #10 (I), index 4 (max_locals is 4).
  std::vector<uint8_t> lvt = {0, 1, 0, 0, 0, 1, 0, 5, 0, 10, 0, 4};
  check_rejected(ir_of_code({0xb1}, {}, 52, {{16, lvt}}), 0,
                 "LocalVariableTable names local 4, past max_locals 4");
  lvt.back() = 3;
  CHECK(ir_of_code({0xb1}, {}, 52, {{16, lvt}}).ok());
  lvt[7] = 13;  // the name is an Integer
  check_rejected(ir_of_code({0xb1}, {}, 52, {{16, lvt}}), 0,
                 "name or descriptor is not a Utf8 entry");
}

namespace {

// Reassembles T.m()V with `goto L; L:` inserted first (a branch whose target needs a frame):
// whether the new Code carries a StackMapTable.
bool table_after_inserted_branch(const std::vector<uint8_t>& code, uint16_t major,
                                 const std::vector<ExceptionTableEntry>& handlers = {}) {
  auto cf = ClassFile::parse(class_with_code(code, handlers, major));
  REQUIRE(cf.ok());
  const Member& m = cf->methods[0];
  auto ir = build_code_ir(cf.value(), m);
  REQUIRE(ir.ok());
  LabelId l = ir->new_label();
  Insn pair[] = {Insn::make_branch(op::kGoto, l), Insn::make_label(l)};
  ir->insns.insert(ir->insns.begin(), std::begin(pair), std::end(pair));
  auto out = assemble_code(ir.value(), cf->pool, MethodContext::of(cf.value(), m));
  INFO((out ? "" : out.error().message()));
  REQUIRE(out.ok());
  Attribute rebuilt{cf->find_attribute(m.attributes, "Code")->name_index, {}, {}};
  rebuilt.set_data(out->code_attribute);
  auto after = decode_code(rebuilt);
  REQUIRE(after.ok());
  return !attribute_body(cf.value(), *after, "StackMapTable").empty();
}

}  // namespace

// javac omits the StackMapTable from a method without branch targets, and version 50 may omit
// it altogether: HotSpot then fails the whole class over to its old verifier, several times as
// slow. So an edit that adds a branch to such a method gives it frames; a method whose own code
// branched without a table relied on the old verifier and keeps it (its merge points' frames
// would need the class hierarchy).
TEST_CASE("version 50: an added branch brings frames to a method that needed none", "[code_ir]") {
  const std::vector<uint8_t> straight = {0x03, 0x57, 0xb1};  // iconst_0  pop  return
  CHECK(table_after_inserted_branch(straight, 50));
  CHECK(table_after_inserted_branch(straight, 52));
  CHECK_FALSE(table_after_inserted_branch(straight, 49));  // no frames before version 50
  // 0: iconst_0  1: ifeq 6  4: iconst_1  5: pop  6: return
  CHECK_FALSE(table_after_inserted_branch({0x03, 0x99, 0x00, 0x05, 0x04, 0x57, 0xb1}, 50));
  // 0: nop  1: return  2: athrow, the handler of [0, 1)
  CHECK_FALSE(table_after_inserted_branch({0x00, 0xb1, 0xbf}, 50, {{0, 1, 2, 0}}));
}

TEST_CASE("build_code_ir requires StackMapTable frames from version 51", "[code_ir]") {
  // 0: iconst_0  1: ifeq 6  4: iconst_1  5: pop  6: return
  const std::vector<uint8_t> branch = {0x03, 0x99, 0x00, 0x05, 0x04, 0x57, 0xb1};
  SECTION("a branch target") {
    check_rejected(ir_of_code(branch, {}, 51), 1,
                   "no StackMapTable frame at branch target 6 (required from class version 51)");
    CHECK(ir_of_code(branch, {}, 50).ok());
    // One same_frame at 6.
    CHECK(ir_of_code(branch, {}, 51, {{14, {0, 1, 6}}}).ok());
  }
  SECTION("a switch target") {
    // 0: iconst_0  1: lookupswitch (pad 2) default -> 20, 1 pair: 5 -> 21  20: return 21: return
    std::vector<uint8_t> code = {0x03, 0xab, 0, 0, 0, 0, 0, 19, 0,  0,    0,
                                 1,    0,    0, 0, 5, 0, 0, 0,  20, 0xb1, 0xb1};
    // Frames at 20 and 21 (same_frame 20, same_frame 0): fine; without 21, rejected.
    CHECK(ir_of_code(code, {}, 52, {{14, {0, 2, 20, 0}}}).ok());
    check_rejected(ir_of_code(code, {}, 52, {{14, {0, 1, 20}}}), 1,
                   "no StackMapTable frame at switch target 21");
  }
  SECTION("an exception handler") {
    // 0: nop  1: return  2: athrow
    check_rejected(ir_of_code({0x00, 0xb1, 0xbf}, {{0, 1, 2, 0}}, 52), 2,
                   "no StackMapTable frame at the instruction after return");
    // same_locals_1_stack_item_frame at 2 (delta 2), stack: Object java/lang/Throwable is
    // not in the pool, so use Object #4.
    CHECK(ir_of_code({0x00, 0xb1, 0xbf}, {{0, 1, 2, 0}}, 52, {{14, {0, 1, 66, 7, 0, 4}}}).ok());
  }
  SECTION("a handler that is not after an unconditional jump") {
    // 0: nop  1: nop  2: return; handler [0, 1) -> 1
    check_rejected(ir_of_code({0x00, 0x00, 0xb1}, {{0, 1, 1, 0}}, 52), 1,
                   "no StackMapTable frame at exception handler");
  }
  SECTION("the instruction after a goto") {
    // 0: goto 4  3: nop  4: return; a frame at 4 only.
    check_rejected(ir_of_code({0xa7, 0x00, 0x04, 0x00, 0xb1}, {}, 52, {{14, {0, 1, 4}}}), 3,
                   "no StackMapTable frame at the instruction after goto");
    CHECK(ir_of_code({0xa7, 0x00, 0x04, 0x00, 0xb1}, {}, 52, {{14, {0, 2, 3, 0}}}).ok());
  }
}

TEST_CASE("build_code_ir refuses frames larger than max_locals or max_stack from version 51",
          "[code_ir]") {
  // 0: iconst_0  1: ifeq 6  4: iconst_1  5: pop  6: return; max_stack 4.
  const std::vector<uint8_t> branch = {0x03, 0x99, 0x00, 0x05, 0x04, 0x57, 0xb1};
  // full_frame at 6, locals [int, double]: 3 slots.
  const std::vector<uint8_t> three_locals = {0, 1, 255, 0, 6, 0, 2, 1, 3, 0, 0};
  // full_frame at 6, no locals, stack [double, double, double]: 6 slots.
  const std::vector<uint8_t> six_on_stack = {0, 1, 255, 0, 6, 0, 0, 0, 3, 3, 3, 3};
  CHECK(ir_of_code(branch, {}, 52, {{14, three_locals}}, 3).ok());
  check_rejected(ir_of_code(branch, {}, 52, {{14, three_locals}}, 2), 6,
                 "StackMapTable frame holds 3 local slots, past max_locals 2");
  check_rejected(ir_of_code(branch, {}, 52, {{14, six_on_stack}}), 6,
                 "StackMapTable frame holds 6 stack slots, past max_stack 4");
  // Version 50: HotSpot falls back to the old verifier, which ignores the table.
  CHECK(ir_of_code(branch, {}, 50, {{14, three_locals}}, 2).ok());
}

TEST_CASE("build_code_ir refuses a frame type that names no Class entry", "[code_ir]") {
  // 0: iconst_0  1: ifeq 6  4: iconst_1  5: pop  6: return (static, no parameters).
  const std::vector<uint8_t> branch = {0x03, 0x99, 0x00, 0x05, 0x04, 0x57, 0xb1};
  // full_frame at 6, locals [Object #index], empty stack.
  auto frame_naming = [](uint16_t index) {
    return std::vector<uint8_t>{
        0, 1, 255, 0, 6, 0, 1, 7, static_cast<uint8_t>(index >> 8), static_cast<uint8_t>(index),
        0, 0};
  };
  CHECK(ir_of_code(branch, {}, 52, {{14, frame_naming(2)}}).ok());  // #2 Class T
  check_rejected(ir_of_code(branch, {}, 52, {{14, frame_naming(13)}}), 6,
                 "StackMapTable frame names pool #13, not a Class entry");
  check_rejected(ir_of_code(branch, {}, 52, {{14, frame_naming(63512)}}), 6,
                 "StackMapTable frame names pool #63512, not a Class entry");
  // Version 50 too: HotSpot would fall back to the old verifier and ignore the table, but the
  // rewriter casts to frame types in the code it writes, so the method is refused.
  check_rejected(ir_of_code(branch, {}, 50, {{14, frame_naming(13)}}), 6,
                 "StackMapTable frame names pool #13, not a Class entry");
}

TEST_CASE("build_code_ir keeps offsets, frames and Uninitialized labels", "[code_ir]") {
  ClassFile cf = load_fixture("Constructors");
  const Member* m = find_method(cf, "nestedNew");
  REQUIRE(m != nullptr);
  auto ir = build_code_ir(cf, *m);
  REQUIRE(ir.ok());
  CHECK(ir->had_stack_map_table);
  bool saw_uninitialized = false;
  for (const auto& label : ir->labels) {
    if (!label.frame) continue;
    for (const VType& v : label.frame->stack) {
      if (v.tag != VTag::kUninitialized) continue;
      saw_uninitialized = true;
      REQUIRE(v.data < ir->labels.size());
      // The label named by the frame stands just before a `new`.
      int32_t at = ir->labels[v.data].original_offset;
      bool found = false;
      for (size_t i = 0; i + 1 < ir->insns.size(); ++i) {
        if (ir->insns[i].is_label() && ir->insns[i].label() == v.data) {
          size_t j = i;
          while (ir->insns[j].is_label()) ++j;
          found = ir->insns[j].opcode == op::kNew && ir->insns[j].original_offset == at;
        }
      }
      CHECK(found);
    }
  }
  CHECK(saw_uninitialized);
}

TEST_CASE("unedited fixture methods round-trip byte for byte", "[code_ir]") {
  RoundTripStats stats;
  round_trip_dir(fixtures_dir() / "fixtures", stats);
  report("fixtures", stats);
  CHECK(stats.failures.empty());
  CHECK(stats.methods > 50);
  CHECK(stats.identical_code == stats.methods);
}

TEST_CASE("unedited java.base methods round-trip byte for byte", "[code_ir][jdk]") {
  fs::path dir = cached_extract(
      "java-base-17",
      "jmod extract --dir %s /usr/lib/jvm/java-17-openjdk-amd64/jmods/java.base.jmod "
      ">/dev/null 2>&1");
  if (dir.empty()) {
    WARN("jmod extract failed; skipping");
    return;
  }
  RoundTripStats stats;
  round_trip_dir(dir / "classes", stats);
  report("java.base", stats);
  CHECK(stats.failures.empty());
  CHECK(stats.classes > 5000);
}

TEST_CASE("unedited h2.jar methods round-trip byte for byte", "[code_ir][jdk]") {
  if (!fs::exists("/usr/share/java/h2.jar")) return;
  fs::path dir = cached_extract("h2", "unzip -q -o /usr/share/java/h2.jar '*.class' -d %s");
  if (dir.empty()) {
    WARN("unzip failed; skipping");
    return;
  }
  RoundTripStats stats;
  round_trip_dir(dir, stats);
  report("h2.jar", stats);
  CHECK(stats.failures.empty());
  CHECK(stats.classes > 500);
}
