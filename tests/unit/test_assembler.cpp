// Tests of assemble_code / replace_code: relaxation, switch padding, operand forms, frames,
// limits; golden disassembly of edited fixture methods (tests/golden/*.txt, regenerate with
// DUPLEX_UPDATE_GOLDEN=1); and HotSpot runs of the rewritten fixtures with full verification.
#include <catch2/catch.hpp>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <sys/wait.h>
#include <unistd.h>

#include "classfile/assembler.h"
#include "classfile/attributes.h"
#include "classfile/class_file.h"
#include "classfile/code_ir.h"
#include "classfile/disassembler.h"
#include "classfile/opcodes.h"
#include "golden.h"

namespace fs = std::filesystem;
using namespace duplex;
using duplex::test::check_golden;

namespace {

std::vector<uint8_t> read_bytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}

void write_bytes(const fs::path& p, const std::vector<uint8_t>& bytes) {
  fs::create_directories(p.parent_path());
  std::ofstream out(p, std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
}

fs::path fixtures_dir() {
  if (const char* env = std::getenv("DUPLEX_FIXTURES_DIR")) return env;
  return DUPLEX_FIXTURES_DIR;
}

// The harness classes are built next to the fixtures (tests/java/meson.build).
fs::path harness_dir() {
  if (const char* env = std::getenv("DUPLEX_HARNESS_DIR")) return env;
  return fixtures_dir().parent_path() / "harness";
}

ClassFile load_fixture(const std::string& name) {
  auto bytes = read_bytes(fixtures_dir() / "fixtures" / (name + ".class"));
  auto cf = ClassFile::parse(bytes);
  INFO("fixture " << name << (cf ? "" : ": " + cf.error().message()));
  REQUIRE(cf.ok());
  return std::move(cf.value());
}

Member& method_named(ClassFile& cf, std::string_view name) {
  for (auto& m : cf.methods) {
    if (cf.member_name(m) == name) return m;
  }
  FAIL("no method " << name);
  return cf.methods[0];
}

CodeIR ir_of(ClassFile& cf, const Member& m) {
  auto ir = build_code_ir(cf, m);
  INFO((ir ? "" : ir.error().message()));
  REQUIRE(ir.ok());
  return std::move(ir.value());
}

AssembledCode replace(ClassFile& cf, Member& m, CodeIR& ir) {
  auto out = replace_code(cf, m, ir);
  INFO((out ? "" : out.error().message()));
  REQUIRE(out.ok());
  return std::move(out.value());
}

// Index of the n-th (0-based) real instruction with this opcode, scanning from the end when
// n is negative (-1 = the last one).
size_t find_insn(const CodeIR& ir, uint16_t opcode, int n = 0) {
  std::vector<size_t> hits;
  for (size_t i = 0; i < ir.insns.size(); ++i) {
    if (ir.insns[i].opcode == opcode) hits.push_back(i);
  }
  REQUIRE(!hits.empty());
  size_t k = n >= 0 ? static_cast<size_t>(n) : hits.size() - static_cast<size_t>(-n);
  REQUIRE(k < hits.size());
  return hits[k];
}

void insert_nops(CodeIR& ir, size_t at, size_t count) {
  ir.insns.insert(ir.insns.begin() + static_cast<std::ptrdiff_t>(at), count, Insn::make(op::kNop));
}

// Inserts `goto L; L:` before insns[at]: a no-op branch that needs a computed frame at L.
void insert_noop_branch(CodeIR& ir, size_t at) {
  LabelId l = ir.new_label();
  Insn pair[] = {Insn::make_branch(op::kGoto, l), Insn::make_label(l)};
  ir.insns.insert(ir.insns.begin() + static_cast<std::ptrdiff_t>(at), std::begin(pair),
                  std::end(pair));
}

// The class reduced to the given methods, for disassembling just those.
std::string disassemble_methods(const ClassFile& cf,
                                std::initializer_list<std::string_view> names) {
  ClassFile copy = cf;
  copy.methods.clear();
  for (const auto& m : cf.methods) {
    for (auto n : names) {
      if (cf.member_name(m) == n) copy.methods.push_back(m);
    }
  }
  return disassemble(copy);
}

// Runs of nops (tens of thousands in the relaxation test) become one summary line.
std::string collapse_nops(const std::string& text) {
  std::istringstream in(text);
  std::string line, out, first;
  size_t run = 0;
  auto flush = [&] {
    if (run == 1) out += first + "\n";
    if (run > 1) out += first + "  ... " + std::to_string(run) + " nops in all\n";
    run = 0;
  };
  while (std::getline(in, line)) {
    bool nop = line.size() >= 5 && line.compare(line.size() - 5, 5, ": nop") == 0;
    if (nop) {
      if (run++ == 0) first = line;
      continue;
    }
    flush();
    out += line + "\n";
  }
  flush();
  return out;
}

std::vector<uint8_t> serialize(const ClassFile& cf) {
  auto bytes = cf.write();
  REQUIRE(bytes.ok());
  return std::move(bytes.value());
}

// A fresh class per call: the edits below mutate it.
std::vector<uint8_t> code_bytes(const ClassFile& cf, const Member& m) {
  auto code = decode_code(*cf.find_attribute(m.attributes, "Code"));
  REQUIRE(code.ok());
  return {code->code.begin(), code->code.end()};
}

// ---- the edits behind the golden files (also run on HotSpot below) ----

// 33000 nops before the loop's back edge: the exit test becomes an inverted conditional over
// goto_w (with a computed frame after it), and the back edge a goto_w.
constexpr size_t kBigNops = 33000;

void edit_big_loop(ClassFile& cf, std::string_view method, uint16_t back_edge = op::kGoto) {
  Member& m = method_named(cf, method);
  CodeIR ir = ir_of(cf, m);
  insert_nops(ir, find_insn(ir, back_edge, -1), kBigNops);
  AssembledCode out = replace(cf, m, ir);
  CHECK(out.code_length > 32768);
}

// Shifts a switch by `nops` bytes so that its padding changes.
void edit_switch_padding(ClassFile& cf, std::string_view method, size_t nops) {
  Member& m = method_named(cf, method);
  CodeIR ir = ir_of(cf, m);
  insert_nops(ir, 0, nops);
  replace(cf, m, ir);
}

// `goto L; L:` after the insns[after] so L gets a computed frame.
void edit_noop_branch_after(ClassFile& cf, std::string_view method, uint16_t opcode, int n) {
  Member& m = method_named(cf, method);
  CodeIR ir = ir_of(cf, m);
  insert_noop_branch(ir, find_insn(ir, opcode, n) + 1);
  replace(cf, m, ir);
}

// `goto L; L:` before every instruction with one of these opcodes.
void edit_noop_branch_before_each(ClassFile& cf, Member& m, std::initializer_list<uint16_t> ops) {
  CodeIR ir = ir_of(cf, m);
  for (size_t i = ir.insns.size(); i-- > 0;) {
    for (uint16_t o : ops) {
      if (ir.insns[i].opcode == o) insert_noop_branch(ir, i);
    }
  }
  replace(cf, m, ir);
}

void edit_constructors(ClassFile& outer, ClassFile& conditional) {
  // `this` is uninitializedThis on the stack and in local 0 at L.
  edit_noop_branch_after(conditional, "<init>", 0x2a /* aload_0 */, 0);
  // Two `new`s are on the stack, still uninitialized, at L.
  edit_noop_branch_after(outer, "nestedNew", op::kDup, 1);
}

void edit_nested_try(ClassFile& cf) {
  Member& m = method_named(cf, "nested");
  edit_noop_branch_before_each(cf, m, {op::kInvokestatic, op::kAthrow});
}

void edit_long_double(ClassFile& cf) {
  for (const char* name : {"mix", "instanceMix", "sumLongs", "series", "slotReuse", "compares"}) {
    Member& m = method_named(cf, name);
    edit_noop_branch_before_each(cf, m, {0xac, 0xad, 0xae, 0xaf, 0xb0, 0xb1});
  }
}

void edit_old_jsr(ClassFile& cf) {
  edit_big_loop(cf, "loop");
  for (auto& m : cf.methods) {
    if (cf.member_name(m) == "loop" || cf.find_attribute(m.attributes, "Code") == nullptr) continue;
    CodeIR ir = ir_of(cf, m);
    insert_nops(ir, 0, 1);
    replace(cf, m, ir);
  }
}

// Every method of the class through the IR, unedited.
void reassemble_all(ClassFile& cf) {
  for (auto& m : cf.methods) {
    if (cf.find_attribute(m.attributes, "Code") == nullptr) continue;
    CodeIR ir = ir_of(cf, m);
    replace(cf, m, ir);
  }
}

// ---- running HotSpot ----

struct Run {
  int status = -1;
  std::string output;
};

Run run_command(const std::string& cmd) {
  Run r;
  FILE* p = popen((cmd + " 2>&1").c_str(), "r");
  if (p == nullptr) return r;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) r.output.append(buf, n);
  int st = pclose(p);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return r;
}

std::string java_verify(const std::string& main_and_args) {
  return "java -XX:+UnlockDiagnosticVMOptions -XX:+BytecodeVerificationLocal -Xverify:all -cp '" +
         harness_dir().string() + "' " + main_and_args;
}

}  // namespace

TEST_CASE("unedited code keeps its offsets", "[assembler]") {
  ClassFile cf = load_fixture("Loops");
  Member& m = method_named(cf, "nested");
  std::vector<uint8_t> before = code_bytes(cf, m);
  CodeIR ir = ir_of(cf, m);
  auto out = assemble_code(ir, cf.pool, MethodContext::of(cf, m));
  REQUIRE(out.ok());
  CHECK(out->code_length == before.size());
  REQUIRE(out->insn_offsets.size() == ir.insns.size());
  for (size_t i = 0; i < ir.insns.size(); ++i) {
    CHECK(out->insn_offsets[i] == (ir.insns[i].is_label() ? -1 : ir.insns[i].original_offset));
  }
  for (size_t l = 0; l < ir.labels.size(); ++l) {
    CHECK(out->label_offsets[l] == ir.labels[l].original_offset);
  }
  // Deterministic: the same IR gives the same bytes.
  auto again = assemble_code(ir, cf.pool, MethodContext::of(cf, m));
  REQUIRE(again.ok());
  CHECK(again->code_attribute == out->code_attribute);
}

TEST_CASE("relaxation widens branches past 32 KiB", "[assembler]") {
  ClassFile cf = load_fixture("Loops");
  edit_big_loop(cf, "forSum");
  Member& m = method_named(cf, "forSum");
  CodeIR ir = ir_of(cf, m);  // the output decodes again
  size_t goto_w = 0, conditionals = 0;
  for (const auto& i : ir.insns) {
    goto_w += i.opcode == op::kGotoW;
    conditionals += is_conditional_branch(static_cast<uint8_t>(i.opcode));
  }
  CHECK(goto_w == 2);  // the back edge and the trampoline of the exit test
  CHECK(conditionals == 1);
  // The trampoline's fall-through carries a frame.
  std::vector<uint8_t> code = code_bytes(cf, m);
  size_t at = 0;
  while (at < code.size() && !is_conditional_branch(code[at])) ++at;
  REQUIRE(at + 8 < code.size());
  CHECK(code[at + 1] == 0);
  CHECK(code[at + 2] == 8);
  CHECK(code[at + 3] == op::kGotoW);
  bool framed = false;
  for (const auto& l : ir.labels)
    framed = framed || (l.original_offset == int32_t(at + 8) && l.frame);
  CHECK(framed);
}

TEST_CASE("jsr becomes jsr_w when its subroutine is far", "[assembler]") {
  ClassFile cf = load_fixture("OldJsr");
  edit_big_loop(cf, "loop");
  CodeIR ir = ir_of(cf, method_named(cf, "loop"));
  size_t jsr_w = 0;
  for (const auto& i : ir.insns) jsr_w += i.opcode == op::kJsrW;
  CHECK(jsr_w == 1);
  CHECK_FALSE(ir.had_stack_map_table);
}

TEST_CASE("code over 65535 bytes is an error and changes nothing", "[assembler]") {
  ClassFile cf = load_fixture("Loops");
  Member& m = method_named(cf, "forSum");
  std::vector<uint8_t> before = code_bytes(cf, m);
  CodeIR ir = ir_of(cf, m);
  insert_nops(ir, find_insn(ir, op::kGoto, -1), 65536);
  auto out = replace_code(cf, m, ir);
  REQUIRE_FALSE(out.ok());
  CHECK(out.error().reason.find("65535") != std::string::npos);
  CHECK(out.error().method == "forSum(I)I");
  CHECK(code_bytes(cf, m) == before);
}

TEST_CASE("wide locals, big iinc and ldc_w are chosen by operand", "[assembler]") {
  ClassFile cf = load_fixture("Loops");
  Member& m = method_named(cf, "forSum");
  uint16_t big = 0;
  for (int32_t v = 1000000; big <= 255; ++v) big = cf.pool.add_integer(v).value();
  CodeIR ir = ir_of(cf, m);
  ir.max_locals = 301;
  std::vector<Insn> prologue = {Insn::make(0x03),
                                Insn::make(op::kIstore, 300),
                                Insn::make(op::kIinc, 300, 1000),
                                Insn::make(op::kIinc, 2, -200),
                                Insn::make(op::kIload, 300),
                                Insn::make(op::kPop),
                                Insn::make(op::kLdc, big),
                                Insn::make(op::kPop)};
  ir.insns.insert(ir.insns.begin(), prologue.begin(), prologue.end());
  replace(cf, m, ir);
  std::vector<uint8_t> code = code_bytes(cf, m);
  std::vector<uint8_t> expected = {0x03,         0xc4,
                                   0x36,         0x01,
                                   0x2c,  // wide istore 300
                                   0xc4,         0x84,
                                   0x01,         0x2c,
                                   0x03,         0xe8,  // wide iinc 300 1000
                                   0xc4,         0x84,
                                   0x00,         0x02,
                                   0xff,         0x38,  // wide iinc 2 -200
                                   0xc4,         0x15,
                                   0x01,         0x2c,
                                   0x57,  // wide iload 300
                                   0x13,         uint8_t(big >> 8),
                                   uint8_t(big), 0x57};  // ldc_w
  REQUIRE(code.size() > expected.size());
  CHECK(std::vector<uint8_t>(code.begin(), code.begin() + expected.size()) == expected);
}

TEST_CASE("assembly errors name the problem", "[assembler]") {
  ClassFile cf = load_fixture("Loops");
  Member& m = method_named(cf, "forSum");
  MethodContext ctx = MethodContext::of(cf, m);
  SECTION("branch to a label never placed") {
    CodeIR ir = ir_of(cf, m);
    LabelId nowhere = ir.new_label();
    ir.insns.insert(ir.insns.begin(), Insn::make_branch(op::kGoto, nowhere));
    auto out = assemble_code(ir, cf.pool, ctx);
    REQUIRE_FALSE(out.ok());
    CHECK(out.error().reason.find("never placed") != std::string::npos);
  }
  SECTION("label placed twice") {
    CodeIR ir = ir_of(cf, m);
    ir.insns.push_back(Insn::make_label(0));
    REQUIRE_FALSE(assemble_code(ir, cf.pool, ctx).ok());
  }
  SECTION("stack underflow") {
    CodeIR ir = ir_of(cf, m);
    ir.insns.insert(ir.insns.begin(), Insn::make(op::kPop));
    auto out = assemble_code(ir, cf.pool, ctx);
    REQUIRE_FALSE(out.ok());
    CHECK(out.error().reason.find("underflow") != std::string::npos);
  }
  SECTION("two labels at one offset with different frames") {
    CodeIR ir = ir_of(cf, m);
    size_t at = 0;
    while (!(ir.insns[at].is_label() && ir.labels[ir.insns[at].label()].frame)) ++at;
    LabelId other = ir.new_label();
    ir.labels[other].frame = Frame{};
    ir.insns.insert(ir.insns.begin() + static_cast<std::ptrdiff_t>(at), Insn::make_label(other));
    REQUIRE_FALSE(assemble_code(ir, cf.pool, ctx).ok());
  }
}

TEST_CASE("an exception range that becomes empty is dropped with a note", "[assembler]") {
  ClassFile cf = load_fixture("NestedTry");
  Member& m = method_named(cf, "nested");
  CodeIR ir = ir_of(cf, m);
  REQUIRE(ir.try_catches.size() >= 2);
  size_t before = ir.try_catches.size();
  ir.try_catches[0].end = ir.try_catches[0].start;
  auto out = assemble_code(ir, cf.pool, MethodContext::of(cf, m));
  REQUIRE(out.ok());
  REQUIRE(!out->notes.empty());
  Attribute a{0, {}, {}};
  a.set_data(out->code_attribute);
  auto code = decode_code(a);
  REQUIRE(code.ok());
  CHECK(code->exception_table.size() == before - 1);
}

TEST_CASE("golden: goto_w and inverted conditionals past 32 KiB", "[assembler][golden]") {
  ClassFile cf = load_fixture("Loops");
  edit_big_loop(cf, "forSum");
  check_golden("big_loop", collapse_nops(disassemble_methods(cf, {"forSum"})));
}

TEST_CASE("golden: switch padding after 1, 2 and 3 inserted bytes", "[assembler][golden]") {
  for (size_t nops = 1; nops <= 3; ++nops) {
    ClassFile cf = load_fixture("Switches");
    for (const char* name : {"dense", "sparse", "strings"}) edit_switch_padding(cf, name, nops);
    check_golden("switch_padding_" + std::to_string(nops),
                 disassemble_methods(cf, {"dense", "sparse", "strings"}));
  }
}

TEST_CASE("golden: frames with uninitializedThis and Uninitialized(new)", "[assembler][golden]") {
  ClassFile outer = load_fixture("Constructors");
  ClassFile conditional = load_fixture("Constructors$Conditional");
  edit_constructors(outer, conditional);
  check_golden("constructor_frames", disassemble_methods(conditional, {"<init>"}) +
                                         disassemble_methods(outer, {"nestedNew"}));
}

TEST_CASE("golden: nested try/catch", "[assembler][golden]") {
  ClassFile cf = load_fixture("NestedTry");
  edit_nested_try(cf);
  check_golden("nested_try", disassemble_methods(cf, {"nested"}));
}

TEST_CASE("golden: jsr/ret in a version 49 class", "[assembler][golden]") {
  ClassFile cf = load_fixture("OldJsr");
  edit_old_jsr(cf);
  check_golden("old_jsr", collapse_nops(disassemble(cf)));
}

TEST_CASE("golden: long and double locals", "[assembler][golden]") {
  ClassFile cf = load_fixture("LongDouble");
  edit_long_double(cf);
  check_golden("long_double", disassemble_methods(cf, {"mix", "sumLongs", "slotReuse"}));
}

// Every fixture class goes through the IR (the ones above with their edits), is written to a
// temporary directory, verified by HotSpot and run; its output must match the originals'.
TEST_CASE("rewritten fixtures verify and behave the same on HotSpot", "[assembler][hotspot]") {
  if (!fs::exists(harness_dir() / "duplex" / "test" / "RunFixtures.class")) {
    WARN("harness not built at " << harness_dir().string() << "; skipping");
    return;
  }
  fs::path out = fs::temp_directory_path() / ("duplex-asm-" + std::to_string(getpid()));
  fs::remove_all(out);
  std::map<std::string, ClassFile> classes;
  // By path under fixtures/ without ".class": "Loops", "base/Parent".
  const fs::path root = fixtures_dir() / "fixtures";
  for (const auto& e : fs::recursive_directory_iterator(root)) {
    if (e.path().extension() != ".class") continue;
    std::string name = fs::relative(e.path(), root).replace_extension().string();
    classes.emplace(name, load_fixture(name));
  }
  edit_big_loop(classes.at("Loops"), "forSum");
  edit_switch_padding(classes.at("Switches"), "dense", 1);
  edit_switch_padding(classes.at("Switches"), "sparse", 2);
  edit_switch_padding(classes.at("Switches"), "strings", 3);
  edit_constructors(classes.at("Constructors"), classes.at("Constructors$Conditional"));
  edit_nested_try(classes.at("NestedTry"));
  edit_long_double(classes.at("LongDouble"));
  edit_old_jsr(classes.at("OldJsr"));
  for (auto& [name, cf] : classes) {
    reassemble_all(cf);
    write_bytes(out / "fixtures" / (name + ".class"), serialize(cf));
  }
  Run verify = run_command(java_verify("duplex.test.VerifyAll '" + out.string() + "'"));
  INFO(verify.output);
  CHECK(verify.status == 0);
  Run before =
      run_command(java_verify("duplex.test.RunFixtures '" + fixtures_dir().string() + "'"));
  Run after = run_command(java_verify("duplex.test.RunFixtures '" + out.string() + "'"));
  CHECK(before.status == 0);
  CHECK(after.status == 0);
  CHECK(after.output == before.output);
  fs::remove_all(out);
}

namespace {

// Same cache as the round-trip tests in test_code_ir.cpp.
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

// The summary line of VerifyAll (or all of the output if there is none).
std::string tail(const std::string& output) {
  size_t at = output.rfind("verified ");
  return at == std::string::npos ? output : output.substr(at);
}

// Shifts every method by 5 bytes (switch padding changes) and adds a computed frame at its
// start; returns the number of methods edited, and lists the failures.
size_t edit_every_method(const fs::path& in, const fs::path& out, std::vector<std::string>& fails) {
  size_t edited = 0;
  for (const auto& e : fs::recursive_directory_iterator(in)) {
    if (!e.is_regular_file() || e.path().extension() != ".class") continue;
    auto cf = ClassFile::parse(read_bytes(e.path()));
    if (!cf) {
      fails.push_back(e.path().string() + ": " + cf.error().message());
      continue;
    }
    for (auto& m : cf->methods) {
      if (cf->find_attribute(m.attributes, "Code") == nullptr) continue;
      // HotSpot relies on Object.<init> being a lone `return` (it rewrites that return to
      // register finalizers) and crashes at boot if it is anything else.
      if (cf->name() == "java/lang/Object") continue;
      auto ir = build_code_ir(cf.value(), m);
      if (!ir) {
        fails.push_back(ir.error().message());
        continue;
      }
      insert_nops(ir.value(), 0, 2);
      insert_noop_branch(ir.value(), 2);
      auto r = replace_code(cf.value(), m, ir.value());
      if (!r) fails.push_back(r.error().message());
      edited += r.ok();
    }
    write_bytes(out / fs::relative(e.path(), in), serialize(cf.value()));
  }
  return edited;
}

}  // namespace

// Slow (about a minute): every method of java.base and h2.jar edited, then verified by
// HotSpot. Run explicitly with "[hotspot-jdk]".
TEST_CASE("edited java.base and h2 classes verify on HotSpot", "[.hotspot-jdk]") {
  fs::path base = cached_extract(
      "java-base-17",
      "jmod extract --dir %s /usr/lib/jvm/java-17-openjdk-amd64/jmods/java.base.jmod "
      ">/dev/null 2>&1");
  fs::path h2 = cached_extract("h2", "unzip -q -o /usr/share/java/h2.jar '*.class' -d %s");
  REQUIRE(!base.empty());
  REQUIRE(!h2.empty());
  fs::path out = fs::temp_directory_path() / ("duplex-asm-jdk-" + std::to_string(getpid()));
  fs::remove_all(out);
  std::vector<std::string> fails;
  size_t n = edit_every_method(base / "classes", out / "jdk" / "java.base", fails);
  n += edit_every_method(h2, out / "h2", fails);
  std::printf("[assembler] edited %zu methods, %zu failures\n", n, fails.size());
  for (size_t i = 0; i < fails.size() && i < 20; ++i) std::printf("  %s\n", fails[i].c_str());
  CHECK(fails.empty());
  Run jdk =
      run_command(java_verify("duplex.test.VerifyAll --jdk '" + (out / "jdk").string() + "'"));
  std::printf("[assembler] java.base: %s\n", tail(jdk.output).c_str());
  INFO(jdk.output.substr(0, 20000));
  CHECK(jdk.status == 0);
  Run app = run_command(java_verify("duplex.test.VerifyAll '" + (out / "h2").string() + "'"));
  std::printf("[assembler] h2: %s\n", tail(app.output).c_str());
  INFO(app.output.substr(0, 20000));
  CHECK(app.status == 0);
  if (std::getenv("DUPLEX_KEEP_OUTPUT") == nullptr) fs::remove_all(out);
}

namespace {

// Where inserting code keeps it reachable: after an instruction that falls through.
size_t middle_fall_through(const CodeIR& ir) {
  for (size_t i = ir.insns.size() / 2; i < ir.insns.size(); ++i) {
    const Insn& prev = ir.insns[i - 1];
    if (!prev.is_label() && !ends_block(static_cast<uint8_t>(prev.opcode)) &&
        prev.opcode != op::kJsr && prev.opcode != op::kJsrW)
      return i;
  }
  return 0;
}

// 33000 nops in the middle of every method of `in` that has a branch, so that branches
// across the middle are relaxed; returns how many methods were edited.
size_t stretch_methods(const fs::path& in, const fs::path& out, std::vector<std::string>& fails) {
  size_t edited = 0;
  for (const auto& e : fs::recursive_directory_iterator(in)) {
    if (!e.is_regular_file() || e.path().extension() != ".class") continue;
    auto cf = ClassFile::parse(read_bytes(e.path()));
    if (!cf) continue;
    bool changed = false;
    for (auto& m : cf->methods) {
      const Attribute* code = cf->find_attribute(m.attributes, "Code");
      if (code == nullptr || code->data.size() > 20000 || cf->name() == "java/lang/Object")
        continue;
      auto ir = build_code_ir(cf.value(), m);
      if (!ir || ir->labels.empty()) continue;
      size_t at = middle_fall_through(ir.value());
      if (at == 0) continue;
      insert_nops(ir.value(), at, kBigNops);
      auto r = replace_code(cf.value(), m, ir.value());
      if (!r) fails.push_back(r.error().message());
      edited += r.ok();
      changed = changed || r.ok();
    }
    if (changed) write_bytes(out / fs::relative(e.path(), in), serialize(cf.value()));
  }
  return edited;
}

}  // namespace

// Slow: relaxation (goto_w, jsr_w, inverted conditionals and their frames) on real code, checked
// by HotSpot. Run explicitly with "[hotspot-relax]".
TEST_CASE("stretched java.util and h2 methods verify on HotSpot", "[.hotspot-relax]") {
  fs::path base = cached_extract(
      "java-base-17",
      "jmod extract --dir %s /usr/lib/jvm/java-17-openjdk-amd64/jmods/java.base.jmod "
      ">/dev/null 2>&1");
  fs::path h2 = cached_extract("h2", "unzip -q -o /usr/share/java/h2.jar '*.class' -d %s");
  REQUIRE((!base.empty() && !h2.empty()));
  fs::path out = fs::temp_directory_path() / ("duplex-asm-relax-" + std::to_string(getpid()));
  fs::remove_all(out);
  std::vector<std::string> fails;
  size_t n = stretch_methods(base / "classes" / "java" / "util",
                             out / "jdk" / "java.base" / "java" / "util", fails);
  n += stretch_methods(h2 / "org" / "h2" / "command", out / "h2" / "org" / "h2" / "command", fails);
  std::printf("[assembler] stretched %zu methods, %zu failures\n", n, fails.size());
  for (size_t i = 0; i < fails.size() && i < 20; ++i) std::printf("  %s\n", fails[i].c_str());
  CHECK(fails.empty());
  Run jdk =
      run_command(java_verify("duplex.test.VerifyAll --jdk '" + (out / "jdk").string() + "'"));
  std::printf("[assembler] java.util: %s\n", tail(jdk.output).c_str());
  INFO(jdk.output.substr(0, 20000));
  CHECK(jdk.status == 0);
  Run app = run_command(java_verify("duplex.test.VerifyAll --cp '" + h2.string() + "' '" +
                                    (out / "h2").string() + "'"));
  std::printf("[assembler] h2 command: %s\n", tail(app.output).c_str());
  INFO(app.output.substr(0, 20000));
  CHECK(app.status == 0);
  if (std::getenv("DUPLEX_KEEP_OUTPUT") == nullptr) fs::remove_all(out);
}
