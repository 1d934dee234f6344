// Tests of the sampling rewriter on small methods compiled here with javac: what each mode
// places (checks, duplicated blocks), Partial-Duplication's removal of top and bottom nodes,
// fallbacks and their reasons, determinism, refusal of rewritten classes, and golden listings
// of one method per mode (a loop, a call and a field access: the paper's Figure 2).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <initializer_list>
#include <map>
#include <set>
#include <sstream>
#include <string_view>

#include "classfile/archive.h"
#include "classfile/assembler.h"
#include "classfile/attributes.h"
#include "classfile/bytes.h"
#include "classfile/class_file.h"
#include "classfile/code_ir.h"
#include "classfile/disassembler.h"
#include "classfile/opcodes.h"
#include "golden.h"
#include "rewriter/dup_plan.h"
#include "rewriter/quiet_methods.h"
#include "rewriter/rewriter.h"
#include "test_support.h"

using namespace duplex;
namespace fs = std::filesystem;

namespace {

// A class with one method per situation. `big` grows past HotSpot's HugeMethodLimit when
// duplicated.
std::string probe_source() {
  std::ostringstream big;
  for (int i = 0; i < 480; ++i) big << "    x = x * " << i << " + (x >> 3);\n";
  big << "    counter = scale(x);\n";
  return "public class Probe {\n"
         "  static int counter;\n"
         "  int field;\n"
         "  static int sumArray(int[] a) { int s = 0; for (int i = 0; i < a.length; i++) s += "
         "a[i]; return s; }\n"
         "  int loopWithField(int n) { int s = 0; for (int i = 0; i < n; i++) s += field; return "
         "s; }\n"
         "  static int afterLoopField(int n) { int s = 0; for (int i = 0; i < n; i++) s += i; "
         "counter = s; return s; }\n"
         "  static int scale(int v) { return v * 3; }\n"
         "  static int golden(int[] data) {\n"
         "    int total = 0;\n"
         "    for (int i = 0; i < data.length; i++) total += scale(data[i]);\n"
         "    counter = total;\n"
         "    return total;\n"
         "  }\n"
         "  static void big(int x) {\n" +
         big.str() +
         "  }\n"
         "  int getField() { return field; }\n"
         "  int sumGetter(int n) { int s = 0; for (int i = 0; i < n; i++) s += getField(); "
         "return s; }\n"
         "}\n";
}

const std::vector<uint8_t>& probe_class() {
  static std::vector<uint8_t> bytes = [] {
    static test::TempDir dir;
    fs::path src = dir.path() / "Probe.java";
    std::ofstream(src) << probe_source();
    std::string cmd = "javac -g -d '" + dir.path().string() + "' '" + src.string() + "' 2>&1";
    if (std::system(cmd.c_str()) != 0) return std::vector<uint8_t>{};
    return test::read_file(dir.path() / "Probe.class");
  }();
  return bytes;
}

RewriteOptions options_for(Mode mode, std::vector<std::string> profiles) {
  RewriteOptions o;
  o.mode = mode;
  for (const auto& p : profiles) o.instrumentations.push_back(make_builtin_instrumentation(p));
  return o;
}

std::map<std::string, MethodReport> reports(const ClassRewrite& r) {
  std::map<std::string, MethodReport> out;
  for (const MethodReport& m : r.methods) out[m.method.substr(0, m.method.find('('))] = m;
  return out;
}

ClassRewrite rewrite(Mode mode, std::vector<std::string> profiles) {
  auto r = rewrite_class(probe_class(), options_for(mode, std::move(profiles)));
  REQUIRE(r.ok());
  return r.value();
}

using test::check_golden;
using test::method_listing;

// A class `T` (version 52) with a static int field `f` and two static methods: `a()V` reads
// `f` (an instrumentation site), `b()V` has this code and max_stack (max_locals 0) and these
// attributes inside its Code attribute. Pool (count 14): #2 Class T, #8 Utf8 "Code",
// #12 Fieldref T.f:I, #13 Integer 7.
std::vector<uint8_t> two_method_class(
    const std::vector<uint8_t>& b_code, uint16_t b_max_stack,
    const std::vector<std::pair<uint16_t, std::vector<uint8_t>>>& b_code_attributes = {}) {
  ByteWriter w;
  w.u4(0xCAFEBABE);
  w.u2(0);
  w.u2(52);
  w.u2(14);
  auto utf8 = [&w](std::string_view s) {
    w.u1(1);
    w.u2(static_cast<uint32_t>(s.size()));
    w.bytes(s);
  };
  utf8("T");                    // #1
  w.u1(7), w.u2(1);             // #2
  utf8("java/lang/Object");     // #3
  w.u1(7), w.u2(3);             // #4
  utf8("a");                    // #5
  utf8("b");                    // #6
  utf8("()V");                  // #7
  utf8("Code");                 // #8
  utf8("f");                    // #9
  utf8("I");                    // #10
  w.u1(12), w.u2(9), w.u2(10);  // #11 NameAndType f I
  w.u1(9), w.u2(2), w.u2(11);   // #12 Fieldref T.f:I
  w.u1(3), w.u4(7);             // #13 Integer 7
  w.u2(0x21), w.u2(2), w.u2(4), w.u2(0);
  w.u2(1), w.u2(0x08), w.u2(9), w.u2(10), w.u2(0);  // static int f
  w.u2(2);
  auto method = [&](uint16_t name, uint16_t max_stack, const std::vector<uint8_t>& code,
                    const std::vector<std::pair<uint16_t, std::vector<uint8_t>>>& attrs) {
    w.u2(0x09), w.u2(name), w.u2(7), w.u2(1), w.u2(8);
    size_t attrs_size = 0;
    for (const auto& a : attrs) attrs_size += 6 + a.second.size();
    w.u4(static_cast<uint32_t>(12 + code.size() + attrs_size));
    w.u2(max_stack), w.u2(0), w.u4(static_cast<uint32_t>(code.size()));
    w.bytes(code);
    w.u2(0);
    w.u2(static_cast<uint32_t>(attrs.size()));
    for (const auto& [attr_name, body] : attrs) {
      w.u2(attr_name);
      w.u4(static_cast<uint32_t>(body.size()));
      w.bytes(body);
    }
  };
  method(5, 1, {0xb2, 0x00, 12, 0x57, 0xb1}, {});  // a: getstatic f, pop, return
  method(6, b_max_stack, b_code, b_code_attributes);
  w.u2(0);
  return w.take();
}

// Rewriting T fails as a whole, naming b()V, this offset and this in the reason.
void check_class_refused(const std::vector<uint8_t>& bytes, OffsetKind kind, int64_t offset,
                         std::string_view reason) {
  auto r = rewrite_class(bytes, options_for(Mode::kFull, {"field-access"}));
  REQUIRE_FALSE(r.ok());
  INFO(r.error().message());
  CHECK(r.error().class_name == "T");
  CHECK(r.error().method == "b()V");
  CHECK(r.error().offset_kind == kind);
  CHECK(r.error().offset == offset);
  CHECK(r.error().reason.find(reason) != std::string::npos);
}

}  // namespace

TEST_CASE("java.lang.Object's <init> stays, but malformed it refuses the class (fuzz find)",
          "[rewriter]") {
  auto bytes = test::jdk_class("java/lang/Object");
  REQUIRE(!bytes.empty());
  auto cf = ClassFile::parse(bytes);
  REQUIRE(cf.ok());
  auto as_is = rewrite_class(bytes, options_for(Mode::kFull, {"call-edge", "field-access"}));
  REQUIRE(as_is.ok());
  for (const MethodReport& m : as_is->methods) {
    if (m.method == "<init>()V") CHECK(m.applied == Transform::kUnchanged);
  }
  // Its code (`return`) with an undefined opcode instead: the class is refused, as any class
  // with a malformed method is, not rewritten around the method it leaves alone.
  std::vector<uint8_t> broken = bytes;
  for (const Member& m : cf->methods) {
    if (cf->member_name(m) != "<init>") continue;
    const Attribute* code = cf->find_attribute(m.attributes, "Code");
    REQUIRE(code != nullptr);
    broken[cf->file_offset_of(code->data) + 8] = 0xcf;
  }
  auto refused = rewrite_class(broken, options_for(Mode::kFull, {"call-edge", "field-access"}));
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().method == "<init>()V");
  CHECK(refused.error().reason.find("unknown opcode 0xcf") != std::string::npos);
}

TEST_CASE("a method with no sites is left alone", "[rewriter]") {
  REQUIRE_FALSE(probe_class().empty());
  auto m = reports(rewrite(Mode::kFull, {"field-access"}));
  CHECK(m["sumArray"].applied == Transform::kUnchanged);
  CHECK(m["sumArray"].reason == "no instrumentation sites");
}

TEST_CASE("a malformed method leaves the whole class unchanged", "[rewriter]") {
  SECTION("a well-formed T is rewritten, and its pool grows") {
    auto r = rewrite_class(two_method_class({0xb1}, 0), options_for(Mode::kFull, {"field-access"}));
    REQUIRE(r.ok());
    CHECK(r->changed);
    auto cf = ClassFile::parse(r->bytes);
    REQUIRE(cf.ok());
    CHECK(cf->pool.count() > 14);
  }
  SECTION("an invoke of a Fieldref") {
    check_class_refused(two_method_class({0x00, 0xb6, 0x00, 12, 0xb1}, 1), OffsetKind::kBytecode, 1,
                        "invokevirtual names pool #12 (Fieldref), expected Methodref");
  }
  SECTION("ldc of a Fieldref, new of an Integer") {
    check_class_refused(two_method_class({0x12, 12, 0x57, 0xb1}, 1), OffsetKind::kBytecode, 0,
                        "ldc names pool #12 (Fieldref)");
    check_class_refused(two_method_class({0xbb, 0x00, 13, 0x57, 0xb1}, 1), OffsetKind::kBytecode, 0,
                        "new names pool #13 (Integer), expected Class");
  }
  SECTION("an index past the parsed pool, which rewriting a() makes a real entry") {
    check_class_refused(two_method_class({0xb2, 0x00, 14, 0x57, 0xb1}, 1), OffsetKind::kBytecode, 0,
                        "getstatic names pool #14, not an entry of the pool (count 14)");
  }
  SECTION("a missing StackMapTable frame") {
    // 0: iconst_0  1: ifeq 6  4: iconst_1  5: pop  6: return
    check_class_refused(two_method_class({0x03, 0x99, 0x00, 0x05, 0x04, 0x57, 0xb1}, 1),
                        OffsetKind::kBytecode, 1, "no StackMapTable frame at branch target 6");
  }
  SECTION("a native or abstract method with a Code attribute (HotSpot: ClassFormatError)") {
    for (uint16_t flag : {access::kNative, access::kAbstract}) {
      auto cf = ClassFile::parse(two_method_class({0xb1}, 0));
      REQUIRE(cf.ok());
      cf->methods[1].access_flags |= flag;
      auto bytes = cf->write();
      REQUIRE(bytes.ok());
      auto parsed = ClassFile::parse(bytes.value());
      REQUIRE(parsed.ok());
      const Attribute* code = parsed->find_attribute(parsed->methods[1].attributes, "Code");
      REQUIRE(code != nullptr);
      check_class_refused(bytes.value(), OffsetKind::kClassFile,
                          static_cast<int64_t>(parsed->file_offset_of(code->data)),
                          "Code attribute in a native or abstract method");
    }
  }
  SECTION("a Code attribute whose name is not a Utf8") {
    auto bytes = two_method_class({0xb1}, 0, {{13, {1}}});
    auto r = rewrite_class(bytes, options_for(Mode::kFull, {"field-access"}));
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().class_name == "T");
    CHECK(r.error().method == "b()V");
    CHECK(r.error().offset_kind == OffsetKind::kClassFile);
    // The attribute is the last thing before b's end, the class's attribute count (2 bytes)
    // and its 1-byte body.
    CHECK(r.error().offset == static_cast<int64_t>(bytes.size() - 2 - 1 - 6));
    CHECK(r.error().reason == "Code attribute name #13 is not a Utf8 entry");
  }
  SECTION("a local past max_locals (which rewriting may raise)") {
    check_class_refused(two_method_class({0x15, 0, 0x57, 0xb1}, 1), OffsetKind::kBytecode, 0,
                        "iload uses local 0, past max_locals 0");
  }
  SECTION("invokeinterface with a non-zero fourth byte") {
    check_class_refused(two_method_class({0x01, 0xb9, 0x00, 12, 1, 7, 0xb1}, 1),
                        OffsetKind::kBytecode, 1,
                        "invokeinterface's fourth operand byte is not zero");
  }
  SECTION("a declared max_stack below what the code needs") {
    check_class_refused(two_method_class({0xb2, 0x00, 12, 0x57, 0xb1}, 0), OffsetKind::kNone, -1,
                        "declared max_stack 0 is below what the code needs (1)");
  }
}

TEST_CASE("Full-Duplication checks the entry and every back edge", "[rewriter]") {
  auto m = reports(rewrite(Mode::kFull, {"field-access"}));
  CHECK(m["loopWithField"].applied == Transform::kFull);
  CHECK(m["loopWithField"].checks == 2);  // entry + the loop's back edge
  CHECK(m["loopWithField"].new_code_size > 2 * m["loopWithField"].original_code_size);
  CHECK(m["afterLoopField"].checks == 2);
}

TEST_CASE("Partial-Duplication drops top-nodes and their checks", "[rewriter]") {
  auto full = reports(rewrite(Mode::kFull, {"field-access"}));
  auto partial = reports(rewrite(Mode::kPartial, {"field-access"}));
  // The loop runs before the only field access: its blocks are top-nodes. The entry and
  // back-edge checks go; one check on the edge into the instrumented block replaces them.
  CHECK(partial["afterLoopField"].applied == Transform::kPartial);
  CHECK(partial["afterLoopField"].checks == 1);
  CHECK(partial["afterLoopField"].new_code_size < full["afterLoopField"].new_code_size);
  // The field access inside the loop keeps the loop body; the entry block is a top-node
  // (javac jumps to the loop condition first), so only the back-edge check stays.
  CHECK(partial["loopWithField"].checks == 1);
  CHECK(full["loopWithField"].checks == 2);
}

TEST_CASE("No-Duplication guards each event; Exhaustive places no check", "[rewriter]") {
  auto nodup = reports(rewrite(Mode::kNoDup, {"call-edge", "field-access"}));
  CHECK(nodup["golden"].applied == Transform::kNoDup);
  CHECK(nodup["golden"].checks == nodup["golden"].sites);  // entry (call-edge) + putstatic
  CHECK(nodup["golden"].sites == 2);
  auto exhaustive = reports(rewrite(Mode::kExhaustive, {"call-edge", "field-access"}));
  CHECK(exhaustive["golden"].applied == Transform::kExhaustive);
  CHECK(exhaustive["golden"].checks == 0);
}

TEST_CASE("duplication that would pass HugeMethodLimit falls back with the reason", "[rewriter]") {
  // The paper's layout keeps both copies in the method: past the limit.
  RewriteOptions inline_layout = options_for(Mode::kFull, {"field-access"});
  inline_layout.outline = false;
  auto in_one = rewrite_class(probe_class(), inline_layout);
  REQUIRE(in_one.ok());
  auto m = reports(in_one.value());
  const MethodReport& big = m["big"];
  REQUIRE(big.original_code_size < 8000);
  REQUIRE(big.original_code_size > 4000);
  CHECK(big.applied == Transform::kNoDup);
  CHECK(big.reason.find("HugeMethodLimit") != std::string::npos);
  CHECK(big.new_code_size <= 8000);

  inline_layout.respect_huge_method_limit = false;
  auto r = rewrite_class(probe_class(), inline_layout);
  REQUIRE(r.ok());
  CHECK(reports(r.value())["big"].applied == Transform::kFull);

  // Outlined, each half holds one copy (a Full twin has no checking code): both stay under
  // the limit, and Full applies.
  auto outlined = reports(rewrite(Mode::kFull, {"field-access"}));
  const MethodReport& split = outlined["big"];
  CHECK(split.applied == Transform::kFull);
  CHECK(split.twin_code_size > 4000);
  CHECK(split.twin_code_size <= 8000);
  CHECK(split.new_code_size - split.twin_code_size <= 8000);
}

namespace {

// Methods of a class in which an exception handler is also reached by a jump or by falling
// through: C1 refuses to compile such a method ("Exception handler can be reached by both
// normal and exceptional control flow") and it stays in the interpreter.
std::vector<std::string> handlers_reached_normally(const std::vector<uint8_t>& bytes) {
  std::vector<std::string> bad;
  auto cf = ClassFile::parse(bytes);
  if (!cf) return {"unparsable"};
  for (const Member& m : cf->methods) {
    if (!cf->find_attribute(m.attributes, "Code")) continue;
    auto ir = build_code_ir(cf.value(), m);
    if (!ir) return {"no IR: " + ir.error().message()};
    // Position of a label: the index of the first real instruction at or after it.
    std::vector<size_t> pos(ir->labels.size(), SIZE_MAX);
    size_t next_real = ir->insns.size();
    for (size_t i = ir->insns.size(); i-- > 0;) {
      if (ir->insns[i].is_label()) {
        pos[ir->insns[i].label()] = next_real;
      } else {
        next_real = i;
      }
    }
    std::set<size_t> handlers, reached;
    for (const TryCatch& tc : ir->try_catches) handlers.insert(pos[tc.handler]);
    int last_real = -1;
    for (size_t i = 0; i < ir->insns.size(); ++i) {
      const Insn& insn = ir->insns[i];
      if (insn.is_label()) continue;
      bool falls = last_real >= 0 && !ends_block(static_cast<uint8_t>(ir->insns[last_real].opcode));
      if (falls) reached.insert(i);
      last_real = static_cast<int>(i);
      if (insn.target != kNoLabel) reached.insert(pos[insn.target]);
      if (is_switch(static_cast<uint8_t>(insn.opcode))) {
        for (LabelId l : ir->switches[insn.switch_index].targets) reached.insert(pos[l]);
      }
    }
    for (size_t h : handlers) {
      if (reached.count(h)) {
        bad.push_back(std::string(cf->pool.utf8(m.name_index).value_or("?")));
        break;
      }
    }
  }
  return bad;
}

}  // namespace

TEST_CASE("no exception handler is also reached by a jump (C1 would refuse the method)",
          "[rewriter][slow]") {
  const std::string h2 = "/usr/share/java/h2.jar";
  if (!std::filesystem::exists(h2)) {
    WARN("skipped: h2.jar (libh2-java) is not installed");
    return;
  }
  auto jar = JarReader::open(h2);
  REQUIRE(jar.ok());
  // count_edges puts a counting trampoline on every back edge, exception edges included.
  struct Variant {
    Mode mode;
    bool outline, count_edges;
  };
  for (Variant v : {Variant{Mode::kFull, true, false}, Variant{Mode::kFull, false, false},
                    Variant{Mode::kChecksOnly, false, false}, Variant{Mode::kFull, true, true},
                    Variant{Mode::kPartial, false, true}}) {
    {
      Mode mode = v.mode;
      bool outline = v.outline;
      RewriteOptions o = options_for(mode, {"call-edge", "field-access"});
      o.outline = outline;
      o.count_edges = v.count_edges;
      size_t classes = 0, rewritten = 0, stack_refusals = 0;
      std::vector<std::string> bad;
      for (const JarEntry& e : jar->entries()) {
        if (!e.name.ends_with(".class")) continue;
        auto bytes = jar->read(e);
        REQUIRE(bytes.ok());
        ++classes;
        auto original_bad = handlers_reached_normally(bytes.value());
        auto r = rewrite_class(bytes.value(), o);
        if (!r.ok() || !r->changed) continue;
        ++rewritten;
        for (const MethodReport& m : r->methods) {
          if (m.reason.find("carries values on the operand stack") != std::string::npos)
            ++stack_refusals;
        }
        for (const std::string& m : handlers_reached_normally(r->bytes)) {
          bool was_already =
              std::find(original_bad.begin(), original_bad.end(), m) != original_bad.end();
          if (!was_already) bad.push_back(e.name + " " + m);
        }
      }
      INFO(mode_name(mode) << (outline ? " outlined" : " inline")
                           << (v.count_edges ? " counting edges" : "") << ": " << rewritten
                           << " of " << classes << " classes rewritten");
      CHECK(rewritten > 900);
      CHECK(bad.empty());
      if (!bad.empty()) WARN("first: " << bad.front() << " (" << bad.size() << " methods)");
      // Exception edges carry no check, so no checked edge holds the exception on the stack.
      CHECK(stack_refusals == 0);
    }
  }
}

// A class `Vec` whose constructor (10 bytes: the super call and one field write) is small
// enough for flag checks and for No-Duplication to stay within MaxInlineSize (35).
const std::vector<uint8_t>& vec_class() {
  static std::vector<uint8_t> bytes = [] {
    static test::TempDir dir;
    fs::path src = dir.path() / "Vec.java";
    std::ofstream(src) << "public class Vec {\n  double x;\n  Vec(double x) { this.x = x; }\n}\n";
    std::string cmd = "javac -g -d '" + dir.path().string() + "' '" + src.string() + "' 2>&1";
    if (std::system(cmd.c_str()) != 0) return std::vector<uint8_t>{};
    return test::read_file(dir.path() / "Vec.class");
  }();
  return bytes;
}

// Found by bench/check_jars.py in four Debian jars (lucene, plexus-utils): their compilers put a
// StackMapTable frame at offset 0 that nothing jumps to (javac only does for a loop there). The
// label moved ahead of the twin's entry dispatch took that frame along, which described the
// original's locals at the twin's first instruction, and HotSpot refused the twin ("Bad local
// variable type" at the `iload` of the entry id).
TEST_CASE("a frame at offset 0 that nothing jumps to stays off the twin's first instruction",
          "[rewriter]") {
  auto parsed = ClassFile::parse(probe_class());
  REQUIRE(parsed.ok());
  ClassFile cf = std::move(parsed.value());
  Member* method = nullptr;
  for (Member& m : cf.methods) {
    if (cf.member_name(m) == "loopWithField") method = &m;
  }
  REQUIRE(method != nullptr);
  auto ir = build_code_ir(cf, *method);
  REQUIRE(ir.ok());
  // javac -g gives offset 0 a label (its line number) but no frame: add the entry frame there.
  REQUIRE_FALSE(ir->insns.empty());
  REQUIRE(ir->insns[0].is_label());
  auto entry = initial_frame(cf.pool, "Probe", "loopWithField", cf.member_descriptor(*method),
                             method->access_flags);
  REQUIRE(entry.ok());
  ir->labels[ir->insns[0].label()].frame = entry.value();
  REQUIRE(replace_code(cf, *method, ir.value()).ok());
  auto input = cf.write();
  REQUIRE(input.ok());

  auto r = rewrite_class(input.value(), options_for(Mode::kFull, {"call-edge", "field-access"}));
  REQUIRE(r.ok());
  auto out = ClassFile::parse(r->bytes);
  REQUIRE(out.ok());
  int twins = 0;
  for (const Member& m : out->methods) {
    std::string_view name = out->member_name(m);
    const Attribute* code_attr = out->find_attribute(m.attributes, "Code");
    if (code_attr == nullptr || name.rfind("loopWithField", 0) != 0) continue;
    twins += name != "loopWithField" ? 1 : 0;
    auto code = decode_code(*code_attr);
    REQUIRE(code.ok());
    auto initial =
        initial_frame(out->pool, "Probe", name, out->member_descriptor(m), m.access_flags);
    REQUIRE(initial.ok());
    for (const Attribute& a : code->attributes) {
      if (out->attribute_name(a) != "StackMapTable") continue;
      auto frames = decode_stack_map_table(a.data, initial.value());
      REQUIRE(frames.ok());
      // A frame at offset 0 must be the method's own entry state.
      INFO(std::string(name));
      if (!frames->empty() && frames->front().offset == 0) {
        CHECK(frames->front().frame == initial.value());
      }
    }
  }
  CHECK(twins == 1);
}

TEST_CASE("auto keeps small flag-checked methods duplicated; few loop-free points get No-Dup",
          "[rewriter]") {
  // Constructors are not outlined, so Full-Duplication grows Vec's past MaxInlineSize, where
  // No-Duplication would stay within it but put a counting check with its reset path into a
  // method C2 inlines everywhere. With flag checks auto keeps Full; without them the same
  // method is loop-free with few points, for which auto chooses No-Duplication.
  REQUIRE_FALSE(vec_class().empty());
  RewriteOptions options = options_for(Mode::kAuto, {"call-edge", "field-access"});
  auto flagged = rewrite_class(vec_class(), options);
  REQUIRE(flagged.ok());
  auto m = reports(flagged.value());
  REQUIRE(m.count("<init>"));
  CHECK(m["<init>"].applied == Transform::kFull);
  CHECK(m["<init>"].new_code_size > 35);
  options.flag_check_max_bytes = 0;
  auto counting = rewrite_class(vec_class(), options);
  REQUIRE(counting.ok());
  auto n = reports(counting.value());
  CHECK(n["<init>"].applied == Transform::kNoDup);
}

TEST_CASE("auto gives a small method with a loop Full-Duplication past its inlining size",
          "[rewriter]") {
  // Sum.sum is 21 bytes with a loop: Full grows it past MaxInlineSize (35), No-Duplication
  // would not. Auto used to choose No-Duplication there, which put a counting check into the
  // loop and measured slower than Full (docs/design/hotspot-costs.md, section 14).
  static test::TempDir dir;
  fs::path src = dir.path() / "Sum.java";
  std::ofstream(src) << "public class Sum {\n  int k = 3;\n"
                        "  int sum(int n) { int s = 0; while (n-- > 0) s += k; return s; }\n}\n";
  std::string cmd = "javac -g -d '" + dir.path().string() + "' '" + src.string() + "' 2>&1";
  REQUIRE(std::system(cmd.c_str()) == 0);
  auto bytes = test::read_file(dir.path() / "Sum.class");
  auto r = rewrite_class(bytes, options_for(Mode::kAuto, {"call-edge", "field-access"}));
  REQUIRE(r.ok());
  auto m = reports(r.value());
  REQUIRE(m.count("sum"));
  CHECK(m["sum"].original_code_size <= 35);
  CHECK(m["sum"].applied == Transform::kFull);
  CHECK(m["sum"].new_code_size > 35);
}

TEST_CASE("auto guards a class initializer's events instead of duplicating it", "[rewriter]") {
  // StaticInit's <clinit> has loops and several field writes: any other method of that shape
  // gets Full-Duplication from auto. It runs once, so its checks run once; a copy of it would
  // be loaded with the class for nothing. Mode full still duplicates it.
  auto bytes = test::fixture_class("fixtures/StaticInit");
  REQUIRE_FALSE(bytes.empty());
  auto automatic = rewrite_class(bytes, options_for(Mode::kAuto, {"call-edge", "field-access"}));
  REQUIRE(automatic.ok());
  auto a = reports(automatic.value());
  REQUIRE(a.count("<clinit>"));
  CHECK(a["<clinit>"].applied == Transform::kNoDup);
  CHECK(a["<clinit>"].reason.find("runs once") != std::string::npos);
  auto full = rewrite_class(bytes, options_for(Mode::kFull, {"call-edge", "field-access"}));
  REQUIRE(full.ok());
  auto f = reports(full.value());
  CHECK(f["<clinit>"].applied == Transform::kFull);
  CHECK(a["<clinit>"].new_code_size < f["<clinit>"].new_code_size);
}

TEST_CASE("no method the rewrite adds takes its own class as a parameter", "[rewriter]") {
  // Reflective runtimes walk a class's declared methods, synthetic ones included: Groovy 2.4
  // describes a closure class by the parameter types of its methods and recursed without end
  // on twins taking the closure (`this`). Node's loops keep `this` and Node locals live at
  // their checks; Counter.add takes a Node (another class: left as it is).
  for (const char* name : {"fixtures/Reflective$Node", "fixtures/Reflective$Counter"}) {
    auto bytes = test::fixture_class(name);
    REQUIRE_FALSE(bytes.empty());
    const std::string own = "L" + std::string(name) + ";";
    for (Mode mode : {Mode::kFull, Mode::kPartial, Mode::kChecksOnly, Mode::kAuto}) {
      INFO(name << " " << mode_name(mode));
      auto r = rewrite_class(bytes, options_for(mode, {"call-edge", "field-access"}));
      REQUIRE(r.ok());
      auto before = ClassFile::parse(bytes);
      auto after = ClassFile::parse(r->bytes);
      REQUIRE(before.ok());
      REQUIRE(after.ok());
      std::set<std::string> original;
      for (const Member& m : before->methods)
        original.insert(std::string(before->member_name(m)) +
                        std::string(before->member_descriptor(m)));
      size_t added = 0;
      for (const Member& m : after->methods) {
        std::string sig =
            std::string(after->member_name(m)) + std::string(after->member_descriptor(m));
        if (original.count(sig)) continue;
        ++added;
        std::string_view desc = after->member_descriptor(m);
        CHECK(desc.substr(0, desc.find(')')).find(own) == std::string_view::npos);
      }
      CHECK(added > 0);  // the twins are there, declared with Object
    }
  }
}

TEST_CASE("a twin's parameters name only types its method's descriptor names", "[rewriter]") {
  // getDeclaredMethods() resolves every type a class's methods name: a twin taking a local of
  // a type from an optional dependency threw NoClassDefFoundError where the original class's
  // reflection worked. Reflective.describe's loop keeps a List, an Iterator and Strings live.
  auto bytes = test::fixture_class("fixtures/Reflective");
  REQUIRE_FALSE(bytes.empty());
  auto r = rewrite_class(bytes, options_for(Mode::kFull, {"call-edge", "field-access"}));
  REQUIRE(r.ok());
  auto after = ClassFile::parse(r->bytes);
  REQUIRE(after.ok());
  bool found = false;
  for (const Member& m : after->methods) {
    if (after->member_name(m) != "describe$duplex") continue;
    found = true;
    std::string_view desc = after->member_descriptor(m);
    INFO(desc);
    // (Ljava/lang/Class;...)Ljava/lang/String;: Class and String are the method's own types.
    std::string_view params = desc.substr(1, desc.find(')') - 1);
    for (size_t at = params.find('L'); at != std::string_view::npos;
         at = params.find('L', params.find(';', at))) {
      std::string_view type = params.substr(at, params.find(';', at) + 1 - at);
      CHECK((type == "Ljava/lang/Object;" || type == "Ljava/lang/Class;" ||
             type == "Ljava/lang/String;"));
    }
  }
  CHECK(found);
}

TEST_CASE("rewriting is deterministic", "[rewriter]") {
  for (Mode mode : {Mode::kFull, Mode::kPartial, Mode::kNoDup, Mode::kExhaustive, Mode::kChecksOnly,
                    Mode::kAuto}) {
    auto a = rewrite(mode, {"call-edge", "field-access"});
    auto b = rewrite(mode, {"call-edge", "field-access"});
    INFO(mode_name(mode));
    CHECK(a.changed);
    CHECK(a.bytes == b.bytes);
  }
}

TEST_CASE("a rewritten class is refused, and the runtime is never rewritten", "[rewriter]") {
  auto once = rewrite(Mode::kFull, {"call-edge"});
  REQUIRE(once.changed);
  auto cf = ClassFile::parse(once.bytes);
  REQUIRE(cf.ok());
  CHECK(is_rewritten(cf.value()));
  auto twice = rewrite_class(once.bytes, options_for(Mode::kFull, {"call-edge"}));
  REQUIRE_FALSE(twice.ok());
  CHECK(twice.error().message() ==
        "Probe: already rewritten by duplex; rewrite the original class instead");
}

TEST_CASE("a class name the JVM would refuse refuses the class", "[rewriter]") {
  // Found by fuzzing: a ';' in the class name split the descriptor of a twin that takes the
  // receiver as a parameter into two types. The JVM refuses such a class anyway.
  CHECK(is_binary_class_name("a/b/C$D"));
  CHECK(is_binary_class_name("module-info"));
  for (const char* bad : {"", "a//C", "/C", "C/", "a/C;D", "a.C", "[La/C;"}) {
    INFO(bad);
    CHECK_FALSE(is_binary_class_name(bad));
  }
  std::vector<uint8_t> bytes = probe_class();
  const std::string from = "Probe", to = "Pr;be";  // same length: every occurrence renamed
  for (size_t i = 0; i + from.size() <= bytes.size(); ++i)
    if (std::equal(from.begin(), from.end(), bytes.begin() + i))
      std::copy(to.begin(), to.end(), bytes.begin() + i);
  REQUIRE(ClassFile::parse(bytes).ok());
  auto r = rewrite_class(bytes, options_for(Mode::kFull, {"call-edge"}));
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().message() == "Pr;be: the class name is not a valid binary name (JVMS 4.2.1)");
}

TEST_CASE("a class that may be in a named module reads the runtime's module first",
          "[rewriter][modules]") {
  RewriteOptions options = options_for(Mode::kFull, {"call-edge-stack", "field-access"});
  std::vector<std::string> asked;
  options.in_named_module = [&asked](std::string_view name) {
    asked.emplace_back(name);
    return true;
  };
  auto r = rewrite_class(probe_class(), options);
  REQUIRE(r.ok());
  CHECK(asked == std::vector<std::string>{"Probe"});
  // Probe has no <clinit>: one is made, the prologue (32 bytes, guarded by a catch-all), then
  // the site table's registration.
  const std::string clinit = method_listing(r->bytes, "<clinit>");
  INFO(clinit);
  CHECK(clinit.find("0: ldc_w #") != std::string::npos);
  CHECK(clinit.find("java/lang/Class.getModule()") != std::string::npos);
  CHECK(clinit.find("String \"duplex.runtime.Duplex\"") != std::string::npos);
  // The runtime is looked up through the class's own loader (it delegates to the boot loader).
  CHECK(clinit.find("java/lang/Class.getClassLoader()") != std::string::npos);
  CHECK(clinit.find("java/lang/Module.addReads(") != std::string::npos);
  CHECK(clinit.find("from 0 to 26 target 29 type any") != std::string::npos);
  CHECK(clinit.find("32: ldc_w") != std::string::npos);  // the registration starts at 32
  CHECK(clinit.find("duplex/runtime/Duplex.register(") != std::string::npos);

  // Without the question, or answered no: no prologue.
  for (bool answer : {false, true}) {
    RewriteOptions plain = options_for(Mode::kFull, {"field-access"});
    if (answer) plain.in_named_module = [](std::string_view) { return false; };
    auto p = rewrite_class(probe_class(), plain);
    REQUIRE(p.ok());
    CHECK(method_listing(p->bytes, "<clinit>") == "<no method <clinit>>");
  }

  // A version-50 class whose twins move is raised to 55 after its <clinit> was made: the
  // prologue's handler must have its frames already (found by fuzzing h2's classes).
  {
    std::vector<uint8_t> v50 = two_method_class({0xb1}, 0);
    v50[7] = 50;
    RewriteOptions lazy = options_for(Mode::kFull, {"field-access"});
    lazy.lazy_twins = true;
    lazy.in_named_module = [](std::string_view) { return true; };
    auto raised = rewrite_class(v50, lazy);
    REQUIRE(raised.ok());
    REQUIRE_FALSE(raised->twin_class.empty());
    auto cf = ClassFile::parse(raised->bytes);
    REQUIRE(cf.ok());
    CHECK(cf->major_version == 55);
    for (const Member& m : cf->methods) {
      INFO(cf->member_name(m));
      CHECK(build_code_ir(cf.value(), m).ok());  // frames where version 55 needs them
    }
    CHECK(method_listing(raised->bytes, "<clinit>").find("frame @29") != std::string::npos);
  }

  // A class before version 49 cannot name its own Class: left unchanged, saying why.
  std::vector<uint8_t> old = two_method_class({0xb1}, 0);
  old[7] = 48;
  RewriteOptions named = options_for(Mode::kFull, {"field-access"});
  named.in_named_module = [](std::string_view) { return true; };
  auto refused = rewrite_class(old, named);
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().message() ==
        "T: it may run in a named module, whose code cannot reach the runtime without a read "
        "added first: a class before version 49 cannot ldc a Class");
}

TEST_CASE("site records name the original offsets and lines", "[rewriter]") {
  auto r = rewrite(Mode::kFull, {"call-edge-stack", "field-access"});
  bool saw_put = false, saw_entry = false;
  for (const SiteRecord& s : r.sites) {
    if (s.method != "golden([I)I") continue;
    if (s.kind == "call-edge-stack") {
      saw_entry = true;
      CHECK(s.original_offset == -1);
      CHECK(s.target == "Probe.golden([I)I");
    } else {
      saw_put = true;
      CHECK(s.target == "Probe.counter:I");
      CHECK(s.original_offset > 0);
      CHECK(s.line == 11);
    }
  }
  CHECK(saw_put);
  CHECK(saw_entry);
  CHECK_FALSE(r.site_tables.empty());  // golden calls scale(): the caller table is registered
}

TEST_CASE("golden listing: the outlined layout and its twin", "[rewriter][golden]") {
  RewriteOptions options = options_for(Mode::kFull, {"call-edge", "field-access"});
  options.outline = true;
  auto r = rewrite_class(probe_class(), options);
  REQUIRE(r.ok());
  std::string listing =
      method_listing(r->bytes, "golden") + method_listing(r->bytes, "golden$duplex");
  check_golden("rewriter/full-outline", listing);
  // The method keeps only its checking code; the twin holds the copy.
  bool outlined = false;
  for (const MethodReport& m : r->methods) {
    if (m.method == "golden([I)I") outlined = m.twin_code_size > 0;
  }
  CHECK(outlined);
}

TEST_CASE("the stripe in a local: back-edge checks count on the stripe found at the start",
          "[rewriter]") {
  RewriteOptions options = options_for(Mode::kFull, {"call-edge", "field-access"});
  options.stripe_in_local = true;
  auto r = rewrite_class(probe_class(), options);
  REQUIRE(r.ok());
  // sumGetter has a loop: both halves look the stripe up first, before any frame, and every
  // back edge counts on it; the entry check counts as before.
  for (const char* name : {"sumGetter", "sumGetter$duplex"}) {
    INFO(name);
    std::string listing = method_listing(r->bytes, name);
    size_t first = listing.find(" 0: ");
    REQUIRE(first != std::string::npos);
    std::string first_line = listing.substr(first, listing.find('\n', first) - first);
    CHECK(first_line.find("invokestatic") != std::string::npos);
    CHECK(first_line.find("Duplex.here()Ljava/lang/Object;") != std::string::npos);
    CHECK(listing.find("Duplex.here()Ljava/lang/Object;") < listing.find("astore"));
    CHECK(listing.find("Duplex.tickAt(Ljava/lang/Object;)I") != std::string::npos);
    CHECK(listing.find("Duplex.tick()I") == std::string::npos);
  }
  CHECK(method_listing(r->bytes, "sumGetter").find("Duplex.tickEntry()I") != std::string::npos);
  // A counting method without loops has only its entry check: nothing to keep.
  std::string loop_free = method_listing(r->bytes, "big");
  REQUIRE(loop_free.find("Duplex.tickEntry()I") != std::string::npos);
  CHECK(loop_free.find("Duplex.here()") == std::string::npos);
  // The layouts without exit checks refuse it, with the reason.
  RewriteOptions handback = options;
  handback.hand_back = true;
  auto refused = rewrite_class(probe_class(), handback);
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().message().find("stripe in a local") != std::string::npos);
  // Off (the default): the back edges find the stripe in tick().
  options.stripe_in_local = false;
  auto plain = rewrite_class(probe_class(), options);
  REQUIRE(plain.ok());
  std::string listing = method_listing(plain->bytes, "sumGetter");
  CHECK(listing.find("Duplex.here()") == std::string::npos);
  CHECK(listing.find("Duplex.tick()I") != std::string::npos);
}

TEST_CASE("golden listing: the local check, outlined with hand-back", "[rewriter][golden]") {
  RewriteOptions options = options_for(Mode::kFull, {"call-edge", "field-access"});
  options.check = CheckForm::kLocal;
  options.hand_back = true;  // the default layout's checks are always tick() calls
  auto r = rewrite_class(probe_class(), options);
  REQUIRE(r.ok());
  std::string method = method_listing(r->bytes, "golden");
  std::string twin = method_listing(r->bytes, "golden$duplex");
  check_golden("rewriter/full-outline-local", method + twin);
  // Both halves load the counter into a local first (the method before its entry check, the
  // twin before its dispatch); the edge checks decrement the local and call fire() at zero.
  CHECK(method.find("0: getstatic") < method.find("Duplex.check()Z"));
  CHECK(twin.find("0: getstatic") < twin.find("tableswitch"));
  for (const std::string* listing : {&method, &twin}) {
    CHECK(listing->find("putstatic #") != std::string::npos);
    CHECK(listing->find("Duplex.fire()Z") != std::string::npos);
  }
}

TEST_CASE("golden listing: the loop budget (local check, outlined, exit checks)",
          "[rewriter][golden]") {
  RewriteOptions options = options_for(Mode::kFull, {"call-edge", "field-access"});
  options.check = CheckForm::kLocal;
  auto r = rewrite_class(probe_class(), options);
  REQUIRE(r.ok());
  // loopWithField's loop calls nothing: it gets a budget (slots 4 and 5, after its own).
  std::string method = method_listing(r->bytes, "loopWithField");
  std::string twin = method_listing(r->bytes, "loopWithField$duplex");
  check_golden("rewriter/full-outline-budget", method + twin);
  // The method's first instruction takes the entry's count as the budget; its back edges only
  // count down the local, and leave for the twin when it runs out, having counted all of it.
  CHECK(method.find("Duplex.loopEntry()I") < method.find("3: dup"));
  CHECK(method.find("iinc 4, -1") != std::string::npos);
  CHECK(method.find("Duplex.spend(I)I") == std::string::npos);
  size_t leave = method.find("iload 5\n");
  CHECK(leave < method.find("Duplex.spent(I)V", leave));
  CHECK(method.find("Duplex.spent(I)V", leave) < method.find("loopWithField$duplex", leave));
  // The twin starts with a budget of 0, takes a new one after each due(), and counts a budget
  // that runs out in place.
  CHECK(twin.find("0: iconst_0") < twin.find("tableswitch"));
  CHECK(twin.find("Duplex.due()Z") < twin.find("Duplex.budget()I"));
  CHECK(twin.find("Duplex.expired()Z") == std::string::npos);
  CHECK(twin.find("Duplex.spend(I)I") != std::string::npos);
  for (const std::string* listing : {&method, &twin}) {
    // No check stores into the runtime's counter; each return counts what its loop used.
    CHECK(listing->find("Duplex.tick()I") == std::string::npos);
    CHECK(listing->find("Duplex.counter:I") == std::string::npos);
    CHECK(listing->find("Duplex.spent(I)V") < listing->find("ireturn"));
  }
  // golden's loop calls scale(), a static method of the class with flag checks, which counts
  // nothing: a budget, and nothing counted around the call.
  std::string calling = method_listing(r->bytes, "golden");
  CHECK(calling.find("Duplex.loopEntry()I") != std::string::npos);
  CHECK(calling.find("Duplex.budget()I") == std::string::npos);
  // sumGetter's loop calls getField() virtually (an override may count): the call form.
  std::string virtual_call = method_listing(r->bytes, "sumGetter");
  CHECK(virtual_call.find("Duplex.loopEntry()I") == std::string::npos);
  CHECK(virtual_call.find("Duplex.tick()I") != std::string::npos);
  // Without flag checks scale() counts too.
  options.flag_check_max_bytes = 0;
  auto counting = rewrite_class(probe_class(), options);
  REQUIRE(counting.ok());
  CHECK(method_listing(counting->bytes, "golden").find("Duplex.loopEntry()I") == std::string::npos);
}

TEST_CASE("quiet methods: static or private, small, loop-free, flag-checked", "[rewriter]") {
  auto cf = ClassFile::parse(probe_class());
  REQUIRE(cf.ok());
  RewriteOptions options = options_for(Mode::kFull, {"call-edge", "field-access"});
  std::set<std::string> quiet = quiet_methods(cf.value(), options);
  CHECK(quiet.contains("scale(I)I"));            // static, 4 bytes, no branch
  CHECK_FALSE(quiet.contains("sumArray([I)I"));  // static, but a loop
  CHECK_FALSE(quiet.contains("getField()I"));    // small, but virtual: an override may count
  CHECK_FALSE(quiet.contains("big(I)V"));        // static, loop-free, too big for flag checks
  options.flag_check_max_bytes = 0;              // every method counts its checks
  CHECK(quiet_methods(cf.value(), options).empty());
  options = options_for(Mode::kAuto, {"call-edge"});  // auto may guard events with checks
  CHECK(quiet_methods(cf.value(), options).empty());
}

TEST_CASE("the local check in the paper's layout", "[rewriter]") {
  RewriteOptions options = options_for(Mode::kFull, {"field-access"});
  options.check = CheckForm::kLocal;
  options.outline = false;
  auto r = rewrite_class(probe_class(), options);
  REQUIRE(r.ok());
  std::string looping = method_listing(r->bytes, "loopWithField");
  CHECK(looping.find("0: getstatic") < looping.find("Duplex.check()Z"));
  CHECK(looping.find("Duplex.fire()Z") != std::string::npos);
  CHECK(reports(r.value())["loopWithField"].checks == 2);
}

namespace {

// Whether `parts` occur in `text` one after the other (each found after the previous one).
bool appear_in_order(const std::string& text, std::initializer_list<std::string_view> parts) {
  size_t at = 0;
  for (std::string_view part : parts) {
    at = text.find(part, at);
    if (at == std::string::npos) return false;
    at += part.size();
  }
  return true;
}

}  // namespace

TEST_CASE("small loop-free methods get flag checks; sampled calls set the flag", "[rewriter]") {
  RewriteOptions options = options_for(Mode::kFull, {"call-edge", "field-access"});
  options.outline = false;
  auto r = rewrite_class(probe_class(), options);
  REQUIRE(r.ok());
  // getField (5 bytes, no loop): its entry reads the flag and never counts.
  std::string getter = method_listing(r->bytes, "getField");
  CHECK(getter.find("getstatic #") < getter.find("Duplex.sampling:Ljava/lang/Thread;"));
  CHECK(getter.find("Duplex.check") == std::string::npos);
  // sumGetter (a loop): a counting entry check that clears the flag, and in its duplicated
  // code the call of getField between setting and clearing the flag.
  std::string caller = method_listing(r->bytes, "sumGetter");
  CHECK(caller.find("Duplex.checkEntry()Z") != std::string::npos);
  CHECK(appear_in_order(caller, {"putstatic #", "Probe.getField()I", "putstatic #"}));
  // The checking code's call is left alone: it comes before the flag is first set.
  CHECK(caller.find("Probe.getField()I") < caller.find("putstatic #"));
  // 0 turns flag checks off: every method counts.
  options.flag_check_max_bytes = 0;
  auto counting = rewrite_class(probe_class(), options);
  REQUIRE(counting.ok());
  CHECK(method_listing(counting->bytes, "getField").find("Duplex.checkEntry()Z") !=
        std::string::npos);
}

TEST_CASE("method counters: a static field per counting method, decided in the twin",
          "[rewriter]") {
  RewriteOptions options = options_for(Mode::kFull, {"call-edge", "field-access"});
  options.method_counters = true;
  auto r = rewrite_class(probe_class(), options);
  REQUIRE(r.ok());
  // loopWithField counts its entry and back edge on its own field; its twin decides with rearm.
  std::string method = method_listing(r->bytes, "loopWithField");
  CHECK(appear_in_order(method, {"getstatic #", "Probe.duplex$k",
                                 "Duplex.tickEntryOf(Ljava/lang/Object;)I", "ifle"}));
  CHECK(method.find("Duplex.tickOf(Ljava/lang/Object;)I") != std::string::npos);
  // The check stores nothing: the runtime's per-thread cell counts.
  CHECK(method.find("putstatic") == std::string::npos);
  CHECK(method.find("Duplex.tick()I") == std::string::npos);
  CHECK(method.find("Duplex.tickEntry()I") == std::string::npos);
  std::string twin = method_listing(r->bytes, "loopWithField$duplex");
  CHECK(appear_in_order(
      twin, {"getstatic #", "Probe.duplex$k",
             "Duplex.methodCounter(Ljava/lang/Object;)Ljava/lang/Object;", "dup", "putstatic #",
             "Probe.duplex$k", "Duplex.rearm(Ljava/lang/Object;)Z"}));
  CHECK(twin.find("Duplex.expired()Z") == std::string::npos);
  // One private static synthetic Object per counting method; getField (flag-checked) has none.
  auto cf = ClassFile::parse(r->bytes);
  REQUIRE(cf.ok());
  std::set<std::string> counters;
  for (const Member& f : cf->fields) {
    std::string name(cf->pool.utf8(f.name_index).value_or(""));
    if (!name.starts_with("duplex$k")) continue;
    counters.insert(name);
    CHECK(cf->pool.utf8(f.descriptor_index).value_or("") == "Ljava/lang/Object;");
    CHECK(f.access_flags == (access::kPrivate | access::kStatic | access::kSynthetic));
  }
  CHECK(counters.size() >= 3);
  CHECK(method_listing(r->bytes, "getField").find("duplex$k") == std::string::npos);
  // Not in the paper's layout, with hand-back or with loop budgets: refused, with the reason.
  for (auto refuse : {+[](RewriteOptions& o) { o.outline = false; },
                      +[](RewriteOptions& o) { o.hand_back = true; },
                      +[](RewriteOptions& o) { o.check = CheckForm::kLocal; }}) {
    RewriteOptions bad = options;
    refuse(bad);
    auto refused = rewrite_class(probe_class(), bad);
    REQUIRE_FALSE(refused.ok());
    CHECK(refused.error().message().find("method counters") != std::string::npos);
  }
}

TEST_CASE("a No-Duplication fall-back samples the callee of each sampled call", "[rewriter]") {
  // `big` is too large for the paper's layout: it falls back to No-Duplication, and its call
  // of scale (small: flag-checked) must sample scale when the call's event samples it.
  RewriteOptions options = options_for(Mode::kFull, {"call-edge", "field-access"});
  options.outline = false;
  auto r = rewrite_class(probe_class(), options);
  REQUIRE(r.ok());
  REQUIRE(reports(r.value())["big"].applied == Transform::kNoDup);
  std::string big = method_listing(r->bytes, "big");
  CHECK(appear_in_order(big, {"Duplex.sampledCallSiteInto(Ljava/lang/String;)V", "Probe.scale(I)I",
                              "Duplex.endSample()V"}));
  CHECK(big.find("Duplex.sampledCallSite(") == std::string::npos);
  // No-Duplication as the mode: no method has flag checks, so calls only count.
  auto nodup = rewrite_class(probe_class(), options_for(Mode::kNoDup, {"call-edge"}));
  REQUIRE(nodup.ok());
  std::string plain = method_listing(nodup->bytes, "big");
  CHECK(plain.find("Duplex.sampledCallSite(Ljava/lang/String;)V") != std::string::npos);
  CHECK(plain.find("Into") == std::string::npos);
  CHECK(plain.find("endSample") == std::string::npos);
}

TEST_CASE("methods the JVM or JDK calls keep counting checks, however small", "[rewriter]") {
  auto method = [](std::string name, std::string descriptor, uint16_t flags = 0) {
    MethodContext m;
    m.class_name = "p/C";
    m.method_name = std::move(name);
    m.descriptor = std::move(descriptor);
    m.access_flags = flags;
    return m;
  };
  CHECK(likely_entered_from_outside(method("<clinit>", "()V")));
  CHECK(likely_entered_from_outside(method("main", "([Ljava/lang/String;)V", access::kStatic)));
  CHECK(likely_entered_from_outside(method("hashCode", "()I")));
  CHECK(likely_entered_from_outside(method("compare", "(Ljava/lang/Object;Ljava/lang/Object;)I")));
  CHECK(likely_entered_from_outside(method("lambda$run$0", "(I)I", access::kSynthetic)));
  CHECK_FALSE(likely_entered_from_outside(method("getField", "()I")));
  CHECK_FALSE(likely_entered_from_outside(method("hashCode", "(I)I")));  // not Object's
  CHECK_FALSE(likely_entered_from_outside(method("<init>", "()V")));
}

TEST_CASE("caller-side call edges: a key per invoke, no site tables", "[rewriter]") {
  auto r = rewrite(Mode::kFull, {"call-edge"});
  std::vector<std::string> keys;
  for (const SiteRecord& s : r.sites) {
    if (s.method == "golden([I)I") keys.push_back(s.target);
  }
  // caller class, method, descriptor, original offset, line, declared callee
  CHECK(keys == std::vector<std::string>{"Probe\tgolden\t([I)I\t14\t10\tProbe.scale(I)I"});
  CHECK(r.site_tables.empty());
}

TEST_CASE("jsr/ret methods fall back to No-Duplication", "[rewriter]") {
  auto bytes = test::fixture_class("fixtures/OldJsr");
  REQUIRE_FALSE(bytes.empty());
  auto r = rewrite_class(bytes, options_for(Mode::kFull, {"call-edge", "field-access"}));
  REQUIRE(r.ok());
  bool saw = false;
  for (const MethodReport& m : r->methods) {
    if (m.reason.find("jsr/ret") == std::string::npos) continue;
    saw = true;
    CHECK(m.applied == Transform::kNoDup);
  }
  CHECK(saw);
}

TEST_CASE("golden listings: one method in every mode", "[rewriter][golden]") {
  const bool update = std::getenv("DUPLEX_UPDATE_GOLDEN") != nullptr;
  fs::path dir = fs::path(DUPLEX_SOURCE_DIR) / "tests/golden/rewriter";
  for (Mode mode :
       {Mode::kFull, Mode::kPartial, Mode::kNoDup, Mode::kExhaustive, Mode::kChecksOnly}) {
    // The paper's layout: checking and duplicated code in one method.
    RewriteOptions options = options_for(mode, {"call-edge", "field-access"});
    options.outline = false;
    auto r = rewrite_class(probe_class(), options);
    REQUIRE(r.ok());
    std::string listing = method_listing(r->bytes, "golden");
    fs::path file = dir / (std::string(mode_name(mode)) + ".txt");
    INFO(file.string());
    if (update) {
      std::ofstream(file) << listing;
      continue;
    }
    std::ifstream in(file);
    std::string expected((std::istreambuf_iterator<char>(in)), {});
    CHECK(listing == expected);
  }
}

TEST_CASE("class counters: the table names the class and each method once", "[rewriter]") {
  auto r = rewrite(Mode::kFull, {"call-edge", "field-access"});
  auto cf = ClassFile::parse(r.bytes);
  REQUIRE(cf.ok());
  std::string table;
  for (uint16_t i = 1; i < cf->pool.count(); ++i) {
    auto text = cf->pool.utf8(i);
    if (!text) continue;
    if (text->starts_with("duplex-counters ")) table = std::string(*text);
    // Each key is written once, in the table, not as a constant of its own.
    CHECK(text->find("Probe\tgolden\t") == std::string_view::npos);
  }
  // Probe.golden calls scale() (a static call site, original offset 14, line 10) and writes
  // Probe.counter; sumGetter calls getField() on itself (a virtual call site).
  CHECK(table.starts_with("duplex-counters 2\nclass Probe\n"));
  CHECK(table.find("\nm golden\t([I)I\ns 14\t10\tProbe.scale(I)I\n") != std::string::npos);
  CHECK(table.find("\nw Probe.counter:I\n") != std::string::npos);
  CHECK(table.find("\nm sumGetter\t(I)I\nv 11\t") != std::string::npos);
  // Virtual call sites pass their slot. No-Duplication's fused events keep their keys (fewer
  // bytes in the method the program runs).
  auto listing = [](const std::vector<uint8_t>& bytes) {
    auto parsed = ClassFile::parse(bytes);
    return parsed ? disassemble(parsed.value()) : std::string();
  };
  CHECK(listing(r.bytes).find("Duplex.callSiteVirtual(Ljava/lang/Object;Ljava/util/concurrent/"
                              "atomic/AtomicLongArray;I)V") != std::string::npos);
  auto nodup = rewrite(Mode::kNoDup, {"call-edge", "field-access"});
  CHECK(listing(nodup.bytes).find("Duplex.sampledFieldWrite") != std::string::npos);
  // The accessor C2 inlines at every event is small; the table and the registration are in
  // the method its first call runs.
  CHECK(method_listing(r.bytes, "duplex$counts").find("code_length=12") != std::string::npos);
  CHECK(method_listing(r.bytes, "duplex$countsInit").find("Duplex.counters") != std::string::npos);
}
