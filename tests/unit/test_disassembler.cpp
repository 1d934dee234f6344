// Tests of the disassembler: key lines of a javac-compiled class, the IR listing, damaged
// input (hand-made and fuzzed) and a whole real jar.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "classfile/archive.h"
#include "classfile/attributes.h"
#include "classfile/class_file.h"
#include "classfile/code_ir.h"
#include "classfile/disassembler.h"
#include "classfile/opcodes.h"

namespace fs = std::filesystem;
using duplex::Attribute;
using duplex::ClassFile;
using duplex::DisasmOptions;
using duplex::Member;

namespace {

// One source exercising every operand shape the listing resolves, plus the attributes it
// decodes. Compiled once per test run with javac.
const char* const kSampleSource = R"java(
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

public class Sample implements Runnable {
  static final int X = 42;
  static final String S = "hi\n\"there\"";
  static final float F = 1.5f;
  long l = 5;
  final int k;

  Sample(boolean b) { this(b ? 1 : 2); }
  Sample(int k) { this.k = k; }

  public void run() { System.out.println("hello"); }

  static int table(int k) {
    switch (k) { case 1: return 10; case 2: return 20; case 3: return 30; default: return -1; }
  }
  static int lookup(int k) {
    switch (k) { case 1: return 10; case 1000: return 20; default: return -1; }
  }
  static double constants(float f) { long big = 123456789012L; return 2.5 + f + big; }
  static float floats(float f) { return f * 3.25f; }
  static int ints(int i) { return i + 100000; }
  static Class<?> klass() { return String.class; }
  static int wide(int[] a) {
    int s = 0;
    for (int i = 0; i < a.length; i++) s += a[i];
    int w = 0;
    for (int j = 0; j < 400; j++) w += 1000;
    return s + w;
  }
  static String concat(String a, int b) { return a + b; }
  static Object guarded() throws IOException {
    try { return new StringBuilder("x"); } catch (RuntimeException e) { return null; }
    finally { System.out.println(); }
  }
  static Object uninit(boolean b) { return new StringBuilder(b ? "a" : "b"); }
  static List<String> generic() { List<String> list = new ArrayList<>(); return list; }
  static int[][] multi() { return new int[2][3]; }
  static boolean iface(List<String> l) { return l.isEmpty(); }
  static Runnable lambda() { return () -> {}; }
}
)java";

// A per-process scratch directory, removed when the test program exits.
struct ScratchDir {
  fs::path path;
  ScratchDir() {
    path = fs::temp_directory_path() / ("duplex-disasm-test-" + std::to_string(::getpid()));
    fs::create_directories(path);
  }
  ~ScratchDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

const fs::path& scratch() {
  static ScratchDir dir;
  return dir.path;
}

std::vector<uint8_t> read_bytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}

// Compiles Sample.java once; empty bytes if javac is unavailable or fails.
const std::vector<uint8_t>& sample_bytes() {
  static const std::vector<uint8_t> bytes = [] {
    fs::path dir = scratch() / "sample";
    fs::create_directories(dir);
    std::ofstream(dir / "Sample.java") << kSampleSource;
    std::string cmd = "javac --release 17 -g -d '" + dir.string() + "' '" +
                      (dir / "Sample.java").string() + "' > '" + (dir / "javac.log").string() +
                      "' 2>&1";
    if (std::system(cmd.c_str()) != 0) return std::vector<uint8_t>{};
    return read_bytes(dir / "Sample.class");
  }();
  return bytes;
}

ClassFile sample_class() {
  REQUIRE_FALSE(sample_bytes().empty());
  auto cf = ClassFile::parse(sample_bytes());
  REQUIRE(cf.ok());
  return std::move(cf.value());
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

// True if some line matches `pattern` (ECMAScript, searched within the line).
bool has_line(const std::string& text, const std::string& pattern) {
  std::regex re(pattern);
  for (const std::string& line : lines_of(text)) {
    if (std::regex_search(line, re)) return true;
  }
  return false;
}

#define CHECK_LINE(text, pattern)       \
  do {                                  \
    INFO("pattern: " << (pattern));     \
    CHECK(has_line((text), (pattern))); \
  } while (false)

bool starts_with(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

std::string_view trim_left(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  return s;
}

// The integer after `marker` in `s`, or -1.
long number_after(std::string_view s, std::string_view marker) {
  size_t at = s.find(marker);
  if (at == std::string_view::npos) return -1;
  std::string rest(s.substr(at + marker.size()));
  if (rest.empty() || !isdigit(static_cast<unsigned char>(rest[0]))) return -1;
  return std::strtol(rest.c_str(), nullptr, 10);
}

// Checks every branch, switch case and switch default of a listing lands on an instruction
// line of the same method. Returns the offending lines.
std::vector<std::string> bad_branch_targets(const std::string& text) {
  std::vector<std::string> problems;
  std::set<long> starts;
  std::vector<std::pair<long, std::string>> targets;
  auto finish_method = [&] {
    for (const auto& [t, line] : targets) {
      if (!starts.count(t)) problems.push_back(line);
    }
    starts.clear();
    targets.clear();
  };
  for (const std::string& line : lines_of(text)) {
    if (starts_with(line, "  method ")) finish_method();
    std::string_view s = trim_left(line);
    if (starts_with(s, "case ")) {
      targets.emplace_back(number_after(s, "-> "), line);
      continue;
    }
    if (s.empty() || !isdigit(static_cast<unsigned char>(s[0])) || s.find(": ") == s.npos) {
      continue;
    }
    starts.insert(std::strtol(std::string(s).c_str(), nullptr, 10));
    std::string_view insn = s.substr(s.find(": ") + 2);
    if (starts_with(insn, "if") || starts_with(insn, "goto") || starts_with(insn, "jsr")) {
      targets.emplace_back(number_after(insn, " "), line);
    } else if (insn.find("switch ") != insn.npos) {
      targets.emplace_back(number_after(insn, "default "), line);
    }
  }
  finish_method();
  return problems;
}

size_t count_prefix(const std::string& text, std::string_view prefix) {
  size_t n = 0;
  for (const std::string& line : lines_of(text)) n += starts_with(line, prefix);
  return n;
}

size_t code_methods(const ClassFile& cf) {
  size_t n = 0;
  for (const Member& m : cf.methods) n += cf.find_attribute(m.attributes, "Code") != nullptr;
  return n;
}

const Member& method_named(const ClassFile& cf, std::string_view name) {
  for (const Member& m : cf.methods) {
    if (cf.member_name(m) == name) return m;
  }
  FAIL("no method " << name);
  return cf.methods.front();
}

}  // namespace

TEST_CASE("disassemble shows the class header, fields and attributes", "[disasm]") {
  ClassFile cf = sample_class();
  std::string out = duplex::disassemble(cf);
  CHECK_LINE(out, "^class Sample$");
  CHECK_LINE(out, "^  version: 61\\.0 \\(Java 17\\)$");
  CHECK_LINE(out, "^  flags: 0x0021 public super$");
  CHECK_LINE(out, "^  super_class: #\\d+ java/lang/Object$");
  CHECK_LINE(out, "^    #\\d+ java/lang/Runnable$");
  CHECK_LINE(out, "^  field X I$");
  CHECK_LINE(out, "^    flags: 0x0018 static final$");
  CHECK_LINE(out, "^    ConstantValue: int 42$");
  CHECK_LINE(out, R"(^    ConstantValue: String "hi\\n\\"there\\""$)");
  CHECK_LINE(out, "^    ConstantValue: float 1\\.5$");
  CHECK_LINE(out, "^  method run\\(\\)V$");
  CHECK_LINE(out, "^    Exceptions: java/io/IOException$");
  CHECK_LINE(out, "^  SourceFile: Sample\\.java$");
  CHECK_LINE(out, "^  BootstrapMethods: 2$");
  CHECK_LINE(out,
             "^        arg MethodHandle REF_invokeStatic Sample\\.lambda\\$lambda\\$0\\(\\)V$");
  CHECK_LINE(out, "^  InnerClasses \\(\\d+ bytes\\)$");
}

TEST_CASE("disassemble resolves instruction operands", "[disasm]") {
  std::string out = duplex::disassemble(sample_class());
  const std::string at = "^ +\\d+: ";
  CHECK_LINE(out,
             at + "invokevirtual #\\d+ java/io/PrintStream\\.println\\(Ljava/lang/String;\\)V$");
  CHECK_LINE(out, at + "getstatic #\\d+ java/lang/System\\.out:Ljava/io/PrintStream;$");
  CHECK_LINE(out, at + "putfield #\\d+ Sample\\.k:I$");
  CHECK_LINE(out, at + "ldc #\\d+ String \"hello\"$");
  CHECK_LINE(out, at + "ldc2_w #\\d+ long 123456789012$");
  CHECK_LINE(out, at + "ldc2_w #\\d+ double 2\\.5$");
  CHECK_LINE(out, at + "ldc #\\d+ float 3\\.25$");
  CHECK_LINE(out, at + "ldc #\\d+ int 100000$");
  CHECK_LINE(out, at + "ldc #\\d+ Class java/lang/String$");
  CHECK_LINE(out, at + "tableswitch 1\\.\\.3 default \\d+$");
  CHECK_LINE(out, "^ +case 2 -> \\d+$");
  CHECK_LINE(out, at + "lookupswitch 2 cases default \\d+$");
  CHECK_LINE(out, "^ +case 1000 -> \\d+$");
  CHECK_LINE(out, at + "wide iinc \\d+, 1000$");
  CHECK_LINE(out, at + "iinc \\d+, 1$");
  CHECK_LINE(out, at + "if_icmpge \\d+$");
  CHECK_LINE(out, at + "goto \\d+$");
  CHECK_LINE(out, at + "invokedynamic #\\d+ "
                       "#\\d+:makeConcatWithConstants\\(Ljava/lang/String;I\\)Ljava/lang/String;$");
  CHECK_LINE(out, at + "invokeinterface #\\d+ java/util/List\\.isEmpty\\(\\)Z, 1$");
  CHECK_LINE(out, at + "multianewarray #\\d+ \\[\\[I, 2$");
  CHECK_LINE(out, at + "new #\\d+ java/lang/StringBuilder$");
  CHECK_LINE(out, at + "bipush 10$");
  CHECK_LINE(out, "^        0: aload_0$");  // offsets right-aligned under Code:
  CHECK(bad_branch_targets(out).empty());
  CHECK(out.find("<bad") == std::string::npos);
}

TEST_CASE("disassemble lists code tables and frames", "[disasm]") {
  ClassFile cf = sample_class();
  std::string out = duplex::disassemble(cf);
  CHECK_LINE(out, "^    Code: max_stack=\\d+ max_locals=\\d+ code_length=\\d+$");
  CHECK_LINE(out, "^      from \\d+ to \\d+ target \\d+ type java/lang/RuntimeException$");
  CHECK_LINE(out, "^      from \\d+ to \\d+ target \\d+ type any$");
  CHECK_LINE(out, "^      line \\d+: 0$");
  CHECK_LINE(out, "^      start 0 length \\d+ slot 0 this LSample;$");
  CHECK_LINE(out, "^    LocalVariableTypeTable:$");
  CHECK_LINE(out,
             "^      start \\d+ length \\d+ slot 0 list Ljava/util/List<Ljava/lang/String;>;$");
  CHECK_LINE(out, "^    StackMapTable: \\d+ frames$");
  CHECK_LINE(out, "^      frame @\\d+ locals=\\[int\\] stack=\\[\\]$");
  CHECK_LINE(out, "stack=\\[Uninitialized\\(0\\), Uninitialized\\(0\\)\\]$");
  CHECK_LINE(out, "locals=\\[uninitialized_this, int\\] stack=\\[uninitialized_this\\]$");
  CHECK_LINE(out, "locals=\\[\\[I, int, int\\] stack=\\[\\]$");
  CHECK_LINE(out, "locals=\\[\\] stack=\\[java/lang/Throwable\\]$");
}

TEST_CASE("disassemble options and determinism", "[disasm]") {
  ClassFile cf = sample_class();
  std::string plain = duplex::disassemble(cf);
  CHECK(plain == duplex::disassemble(sample_class()));  // stable across parses
  CHECK(plain.find("constant pool") == std::string::npos);

  DisasmOptions no_frames;
  no_frames.frames = false;
  std::string without = duplex::disassemble(cf, no_frames);
  CHECK(without.find("StackMapTable") == std::string::npos);
  CHECK(without.find("frame @") == std::string::npos);

  DisasmOptions pool;
  pool.constant_pool = true;
  std::string with_pool = duplex::disassemble(cf, pool);
  CHECK_LINE(with_pool, "^constant pool: \\d+ slots$");
  CHECK_LINE(with_pool, "^  #\\d+ = Methodref #\\d+\\.#\\d+ java/lang/Object\\.<init>\\(\\)V$");
  CHECK_LINE(with_pool, "^  #\\d+ = Long 123456789012$");
  CHECK_LINE(with_pool, "^  #\\d+ = Utf8 \"Sample\"$");
  CHECK_LINE(with_pool, "^  #\\d+ = NameAndType #\\d+:#\\d+ println\\(Ljava/lang/String;\\)V$");
}

TEST_CASE("disassemble_ir shows labels, tables and frames", "[disasm]") {
  ClassFile cf = sample_class();
  auto table = duplex::build_code_ir(cf, method_named(cf, "table"));
  REQUIRE(table.ok());
  std::string out = duplex::disassemble_ir(cf, *table);
  CHECK_LINE(out, "^max_stack=\\d+ max_locals=1$");
  CHECK_LINE(out, "^L\\d+:$");
  CHECK_LINE(out, "^    tableswitch 1\\.\\.3 default L\\d+$");
  CHECK_LINE(out, "^        case 3 -> L\\d+$");
  CHECK_LINE(out, "^    line \\d+$");
  CHECK_LINE(out, "^    frame locals=\\[int\\] stack=\\[\\]$");
  CHECK(out.find("<bad") == std::string::npos);

  auto guarded = duplex::build_code_ir(cf, method_named(cf, "guarded"));
  REQUIRE(guarded.ok());
  out = duplex::disassemble_ir(cf, *guarded);
  CHECK_LINE(out, "^try L\\d+\\.\\.L\\d+ handler L\\d+ type java/lang/RuntimeException$");
  CHECK_LINE(out, "^try L\\d+\\.\\.L\\d+ handler L\\d+ type any$");

  auto uninit = duplex::build_code_ir(cf, method_named(cf, "uninit"));
  REQUIRE(uninit.ok());
  out = duplex::disassemble_ir(cf, *uninit);
  CHECK_LINE(out, "stack=\\[Uninitialized\\(L\\d+\\), Uninitialized\\(L\\d+\\)\\]$");
  CHECK_LINE(out, "^    ifeq L\\d+$");
}

TEST_CASE("disassemble_ir shows edits before assembly", "[disasm]") {
  ClassFile cf = sample_class();
  auto ir = duplex::build_code_ir(cf, method_named(cf, "run"));
  REQUIRE(ir.ok());
  duplex::LabelId skip = ir->new_label();
  std::vector<duplex::Insn> edited{duplex::Insn::make_branch(duplex::op::kGoto, skip),
                                   duplex::Insn::make(duplex::op::kNop),
                                   duplex::Insn::make_label(skip)};
  edited.insert(edited.end(), ir->insns.begin(), ir->insns.end());
  ir->insns = std::move(edited);
  std::string out = duplex::disassemble_ir(cf, *ir);
  std::string label = "L";  // built by appending: `"L" + ...` trips a GCC 12 false warning
  label += std::to_string(skip);
  REQUIRE(lines_of(out).size() > 4);
  CHECK(lines_of(out)[1] == "    goto " + label);
  CHECK(lines_of(out)[2] == "    nop");
  CHECK(lines_of(out)[3] == label + ":");
  CHECK_LINE(out,
             "^    invokevirtual #\\d+ java/io/PrintStream\\.println\\(Ljava/lang/String;\\)V$");
}

TEST_CASE("disassemble_ir marks damaged IR", "[disasm]") {
  ClassFile cf = sample_class();
  duplex::CodeIR ir;
  duplex::LabelId l0 = ir.new_label();
  ir.insns.push_back(duplex::Insn::make_label(l0));
  ir.insns.push_back(duplex::Insn::make_branch(duplex::op::kGoto, 77));
  duplex::Insn sw = duplex::Insn::make(duplex::op::kTableswitch);
  sw.switch_index = 5;
  ir.insns.push_back(sw);
  ir.insns.push_back(duplex::Insn::make(duplex::op::kInvokevirtual, 65535));
  duplex::Insn pseudo;
  pseudo.opcode = 0x1ff;
  ir.insns.push_back(pseudo);
  ir.try_catches.push_back({l0, 99, l0, 0});
  std::string out = duplex::disassemble_ir(cf, ir);
  CHECK_LINE(out, "^    goto <bad label 77>$");
  CHECK_LINE(out, "^    tableswitch <bad switch 5>$");
  CHECK_LINE(out, "^    invokevirtual #65535 <bad member reference #65535>$");
  CHECK_LINE(out, "^    <bad pseudo-opcode 511>$");
  CHECK_LINE(out, "^try L0\\.\\.<bad label 99> handler L0 type any$");
}

namespace {

void append_u2(std::vector<uint8_t>& out, uint32_t v) {
  out.push_back(static_cast<uint8_t>(v >> 8));
  out.push_back(static_cast<uint8_t>(v));
}

void append_u4(std::vector<uint8_t>& out, uint32_t v) {
  append_u2(out, v >> 16);
  append_u2(out, v & 0xffff);
}

// A Code attribute body: max_stack 4, max_locals 4, `code`, then `tail` (the exception table
// and the attributes; by default both empty).
std::vector<uint8_t> code_body(const std::vector<uint8_t>& code,
                               const std::vector<uint8_t>& tail = {0, 0, 0, 0}) {
  std::vector<uint8_t> out{0, 4, 0, 4};
  append_u4(out, static_cast<uint32_t>(code.size()));
  out.insert(out.end(), code.begin(), code.end());
  out.insert(out.end(), tail.begin(), tail.end());
  return out;
}

// A tail holding no exception handlers and one attribute called `name` with `body`.
std::vector<uint8_t> one_attribute(ClassFile& cf, std::string_view name,
                                   const std::vector<uint8_t>& body) {
  auto index = cf.pool.add_utf8(name);
  REQUIRE(index.ok());
  std::vector<uint8_t> out{0, 0, 0, 1};
  append_u2(out, *index);
  append_u4(out, static_cast<uint32_t>(body.size()));
  out.insert(out.end(), body.begin(), body.end());
  return out;
}

// The listing after replacing run()'s Code attribute body.
std::string with_run_code(ClassFile& cf, std::vector<uint8_t> body) {
  Member& run = const_cast<Member&>(method_named(cf, "run"));
  Attribute* code = cf.find_attribute(run.attributes, "Code");
  REQUIRE(code != nullptr);
  code->set_data(std::move(body));
  return duplex::disassemble(cf);
}

}  // namespace

TEST_CASE("disassemble marks damaged instructions and keeps going", "[disasm]") {
  struct Case {
    std::vector<uint8_t> code;
    const char* expected;  // a line pattern
  };
  const Case cases[] = {
      {{0xfe}, "^        0: <bad opcode 0xfe; 1 bytes not decoded>$"},
      {{0x00, 0x10}, "^        1: <bad truncated bipush; 1 bytes not decoded>$"},
      {{0xa7, 0x7f, 0xff}, "^        0: goto <bad target 32767>$"},
      {{0xa7, 0x00, 0x01, 0x00}, "^        0: goto <bad target 1>$"},
      {{0x99, 0xff, 0x00}, "^        0: ifeq <bad target -256>$"},
      {{0xc4, 0x00, 0x00, 0x00}, "^        0: <bad wide before nop \\(0x00\\); 4 bytes"},
      {{0x00, 0xc4}, "^        1: <bad truncated wide; 1 bytes not decoded>$"},
      {{0xaa, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x7f, 0xff, 0xff, 0xff},
       "<bad tableswitch 0\\.\\.2147483647 does not fit the code"},
      {{0xaa, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 5, 0, 0, 0, 0},
       "<bad tableswitch 5\\.\\.0 does not fit the code"},
      {{0xab, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff},
       "<bad lookupswitch with -1 pairs does not fit the code"},
      {{0xab, 0, 0}, "<bad truncated lookupswitch"},
      {{0xb6, 0xff, 0xff}, "^        0: invokevirtual #65535 <bad member reference #65535>$"},
      {{0xb2, 0x00, 0x00}, "^        0: getstatic #0 <bad member reference #0>$"},
      {{0x12, 0x00}, "^        0: ldc #0 <bad constant #0>$"},
      {{0xbb, 0x00, 0x01}, "^        0: new #1 <bad class #1>$"},
      {{0xbc, 0x03}, "^        0: newarray <bad array type 3>$"},
      {{0xba, 0x00, 0x01, 0, 0}, "^        0: invokedynamic #1 <bad dynamic reference #1>$"},
  };
  for (const Case& c : cases) {
    ClassFile cf = sample_class();
    std::string out = with_run_code(cf, code_body(c.code));
    INFO(out);
    CHECK_LINE(out, c.expected);
    CHECK_LINE(out, "^  method lambda\\$lambda\\$0\\(\\)V$");  // later methods still listed
    CHECK_LINE(out, "^  SourceFile: Sample\\.java$");
  }
}

TEST_CASE("disassemble marks damaged attributes and keeps going", "[disasm]") {
  SECTION("Code attribute too short") {
    ClassFile cf = sample_class();
    CHECK_LINE(with_run_code(cf, {0, 1, 0}), "^    Code: <bad Code: .*>$");
  }
  SECTION("damaged tables inside Code") {
    for (const char* name :
         {"LineNumberTable", "LocalVariableTable", "LocalVariableTypeTable", "StackMapTable"}) {
      ClassFile cf = sample_class();
      auto tail = one_attribute(cf, name, {0, 9, 1});
      std::string out = with_run_code(cf, code_body({0xb1}, tail));
      CHECK_LINE(out, std::string("^    ") + name + ": <bad " + name + ": .*>$");
      CHECK_LINE(out, "^        0: return$");
    }
  }
  SECTION("exception table with a bad catch type") {
    ClassFile cf = sample_class();
    std::string out =
        with_run_code(cf, code_body({0xb1}, {0, 1, 0, 0, 0, 1, 0, 0, 0xff, 0xf0, 0, 0}));
    CHECK_LINE(out, "^      from 0 to 1 target 0 type <bad class #65520>$");
  }
  SECTION("member attributes and names") {
    ClassFile cf = sample_class();
    Member& run = const_cast<Member&>(method_named(cf, "run"));
    auto exc = cf.pool.add_utf8("Exceptions");
    REQUIRE(exc.ok());
    Attribute bad_exc;
    bad_exc.name_index = *exc;
    bad_exc.set_data({0, 5, 0});
    run.attributes.push_back(bad_exc);
    run.name_index = 60000;
    cf.fields.front().attributes.front().set_data({0, 0, 0});  // X's ConstantValue
    cf.this_class = 0;
    std::string out = duplex::disassemble(cf);
    CHECK_LINE(out, "^class <bad class #0>$");
    CHECK_LINE(out, "^  method <bad utf8 #60000>\\(\\)V$");
    CHECK_LINE(out, "^    Exceptions: <bad Exceptions: .*>$");
    CHECK_LINE(out, "^    ConstantValue: <bad length 3>$");
  }
}

TEST_CASE("disassemble survives randomly damaged class files", "[disasm]") {
  const std::vector<uint8_t>& original = sample_bytes();
  REQUIRE_FALSE(original.empty());
  std::mt19937 rng(20240521);  // fixed seed: failures must reproduce
  DisasmOptions all;
  all.constant_pool = true;
  int parsed = 0;
  for (int round = 0; round < 3000; ++round) {
    std::vector<uint8_t> bytes = original;
    int flips = 1 + static_cast<int>(rng() % 4);
    for (int i = 0; i < flips; ++i) {
      bytes[rng() % bytes.size()] = static_cast<uint8_t>(rng());
    }
    auto cf = ClassFile::parse(bytes);
    if (!cf) continue;
    ++parsed;
    CHECK_FALSE(duplex::disassemble(*cf, all).empty());
  }
  CHECK(parsed > 1000);  // most flips land in code or strings and still parse
}

TEST_CASE("disassemble survives random code bytes", "[disasm]") {
  std::mt19937 rng(7);
  ClassFile cf = sample_class();
  for (int round = 0; round < 2000; ++round) {
    std::vector<uint8_t> code(1 + rng() % 40);
    for (uint8_t& b : code) b = static_cast<uint8_t>(rng());
    std::string out = with_run_code(cf, code_body(code));
    CHECK(out.find("\n        0: ") != std::string::npos);
  }
}

TEST_CASE("disassemble every fixture class", "[disasm]") {
  std::vector<fs::path> classes;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(DUPLEX_FIXTURES_DIR, ec), end; !ec && it != end;
       it.increment(ec)) {
    if (it->path().extension() == ".class") classes.push_back(it->path());
  }
  if (classes.empty()) {
    WARN("no fixture classes under " DUPLEX_FIXTURES_DIR " yet");
    return;
  }
  for (const fs::path& p : classes) {
    INFO(p.string());
    auto cf = ClassFile::parse(read_bytes(p));
    REQUIRE(cf.ok());
    std::string out = duplex::disassemble(*cf);
    CHECK(out.find("<bad") == std::string::npos);
    CHECK(count_prefix(out, "        0: ") == code_methods(*cf));
    CHECK(bad_branch_targets(out).empty());
  }
}

TEST_CASE("disassemble every class of h2.jar", "[disasm][slow]") {
  const char* jar_path = "/usr/share/java/h2.jar";
  if (!fs::exists(jar_path)) {
    WARN("h2.jar not installed");
    return;
  }
  auto jar = duplex::JarReader::open(jar_path);
  REQUIRE(jar.ok());
  size_t classes = 0;
  for (const duplex::JarEntry& entry : jar->entries()) {
    if (entry.is_directory || !duplex::is_class_entry(entry.name)) continue;
    INFO(entry.name);
    auto bytes = jar->read(entry);
    REQUIRE(bytes.ok());
    auto cf = ClassFile::parse(*bytes);
    REQUIRE(cf.ok());
    ++classes;
    std::string out = duplex::disassemble(*cf);
    REQUIRE(out.find("<bad") == std::string::npos);
    // Every method with code lists its instructions, from offset 0 on.
    REQUIRE(count_prefix(out, "    Code: max_stack=") == code_methods(*cf));
    REQUIRE(count_prefix(out, "        0: ") == code_methods(*cf));
    std::vector<std::string> bad_targets = bad_branch_targets(out);
    REQUIRE(bad_targets.empty());
  }
  CHECK(classes > 900);
}
