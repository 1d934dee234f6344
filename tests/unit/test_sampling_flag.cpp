// The sampling flag's protocol in rewritten code (runtime `Duplex.sampling`): duplicated code
// sets it before each of its calls, so that the small methods it calls sample themselves, and
// clears it where it leaves the copy (rewriter/duplicate_code.cpp, copy_block). Checked here by
// a data flow over every rewritten method of the test fixtures, in every layout: no call of
// checking code and no return or athrow may be reached with the flag as duplicated code set it.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "classfile/class_file.h"
#include "classfile/code_ir.h"
#include "classfile/opcodes.h"
#include "rewriter/rewriter.h"
#include "test_support.h"

using namespace duplex;
namespace fs = std::filesystem;

namespace {

// What the flag may hold at an instruction: as the method was entered with, unset, or set by
// this method's duplicated code.
enum FlagState : uint8_t { kAsEntered = 1, kUnset = 2, kSetHere = 4 };

struct FlagWalk {
  const ConstantPool& pool;
  const CodeIR& ir;
  std::vector<uint32_t> position;  // by label: instruction index
  std::vector<uint8_t> in;         // by instruction: FlagState bits
  std::vector<uint32_t> work;
  std::vector<std::string> problems;

  FlagWalk(const ConstantPool& p, const CodeIR& code) : pool(p), ir(code) {
    position.assign(ir.labels.size(), UINT32_MAX);
    for (uint32_t i = 0; i < ir.insns.size(); ++i) {
      if (ir.insns[i].is_label()) position[ir.insns[i].label()] = i;
    }
    in.assign(ir.insns.size(), 0);
  }

  bool names(const Insn& insn, std::string_view owner, std::string_view name) const {
    auto ref = pool.member_ref(static_cast<uint32_t>(insn.a));
    return ref && ref->owner == owner && (name.empty() || ref->name == name);
  }
  bool is_flag_store(const Insn& insn) const {
    return insn.opcode == op::kPutstatic && names(insn, "duplex/runtime/Duplex", "sampling");
  }
  // The instruction before i, labels skipped (UINT32_MAX if none).
  uint32_t previous(uint32_t i) const {
    while (i > 0) {
      if (!ir.insns[--i].is_label()) return i;
    }
    return UINT32_MAX;
  }
  // A call of the program's own code, not of the runtime or the counters.
  bool is_program_call(const Insn& insn) const {
    if (!is_invoke(insn.opcode) || insn.opcode == op::kInvokedynamic) return false;
    auto ref = pool.member_ref(static_cast<uint32_t>(insn.a));
    if (!ref) return false;
    return ref->owner != "duplex/runtime/Duplex" && ref->owner != "java/lang/Thread" &&
           ref->owner != "java/util/concurrent/atomic/AtomicLongArray" &&
           !ref->name.starts_with("duplex$");
  }
  // A call right after `invokestatic currentThread; putstatic sampling`: duplicated code's.
  bool is_flagged_call(uint32_t i) const {
    uint32_t store = previous(i);
    if (store == UINT32_MAX || !is_flag_store(ir.insns[store])) return false;
    uint32_t value = previous(store);
    return value != UINT32_MAX && ir.insns[value].opcode == op::kInvokestatic &&
           names(ir.insns[value], "java/lang/Thread", "currentThread");
  }

  bool is_protocol(const Insn& insn) const {
    if (insn.opcode == op::kAconstNull || is_flag_store(insn)) return true;
    return insn.opcode == op::kInvokestatic && names(insn, "java/lang/Thread", "currentThread");
  }

  void reach(uint32_t i, uint8_t state) {
    if (i >= in.size() || (in[i] | state) == in[i]) return;
    in[i] |= state;
    work.push_back(i);
  }
  void reach_label(LabelId l, uint8_t state) {
    if (l < position.size()) reach(position[l], state);
  }

  uint8_t after(uint32_t i, uint8_t state) const {
    const Insn& insn = ir.insns[i];
    if (!is_flag_store(insn)) return state;
    uint32_t value = previous(i);
    bool unset = value != UINT32_MAX && ir.insns[value].opcode == op::kAconstNull;
    return unset ? kUnset : kSetHere;
  }

  std::string at(uint32_t i) const { return std::to_string(ir.insns[i].original_offset); }

  void step(uint32_t i) {
    const Insn& insn = ir.insns[i];
    const uint8_t state = in[i];
    if (insn.is_label()) return reach(i + 1, state);
    auto o = static_cast<uint8_t>(insn.opcode);
    bool flagged = is_flagged_call(i);
    if (is_program_call(insn) && !flagged && (state & kSetHere))
      problems.push_back("call at " + at(i) + " sees the copy's flag");
    if ((is_return(o) || o == op::kAthrow) && (state & kSetHere))
      problems.push_back("exit at " + at(i) + " leaves the flag set");
    // An exception from a flagged call leaves with the flag set, as it always did; other
    // instructions throw with the state they were reached with.
    uint8_t thrown = state;
    if (flagged) thrown = in[previous(previous(i))];
    for (const TryCatch& tc : ir.try_catches) {
      if (is_protocol(insn)) break;  // the flag's own instructions do not throw
      uint32_t start = position[tc.start], end = position[tc.end];
      if (start <= i && i < end) reach_label(tc.handler, thrown);
    }
    uint8_t out = after(i, state);
    if (is_switch(o)) {
      reach_label(insn.target, out);
      for (LabelId t : ir.switches[insn.switch_index].targets) reach_label(t, out);
      return;
    }
    if (is_conditional_branch(o) || is_unconditional_jump(o)) reach_label(insn.target, out);
    if (!ends_block(o)) reach(i + 1, out);
  }

  std::vector<std::string> run() {
    reach(0, kAsEntered);
    while (!work.empty()) {
      uint32_t i = work.back();
      work.pop_back();
      step(i);
    }
    return problems;
  }
};

// The test fixtures, or (DUPLEX_FIXTURES_DIR set) any directory of classes, such as a jar
// unpacked, to check the protocol on real code.
std::vector<fs::path> fixture_classes() {
  const char* env = std::getenv("DUPLEX_FIXTURES_DIR");
  std::vector<fs::path> out;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(env ? env : DUPLEX_FIXTURES_DIR, ec), end;
       !ec && it != end; it.increment(ec)) {
    if (it->path().extension() == ".class") out.push_back(it->path());
  }
  return out;
}

struct Layout {
  const char* name;
  Mode mode;
  bool outline;
  bool hand_back;
  uint32_t caller_sampled_bytes = 0;
};

}  // namespace

TEST_CASE("sampling flag: set for the copy's calls, unset wherever control leaves the copy",
          "[rewriter]") {
  std::vector<fs::path> classes = fixture_classes();
  REQUIRE(classes.size() > 20);
  size_t methods = 0, flagged_calls = 0;
  for (Layout layout : {Layout{"full, outlined", Mode::kFull, true, false},
                        Layout{"partial, outlined", Mode::kPartial, true, false},
                        Layout{"checks, outlined", Mode::kChecksOnly, true, false},
                        Layout{"full, hand-back", Mode::kFull, true, true},
                        Layout{"full, inline", Mode::kFull, false, false},
                        Layout{"partial, inline", Mode::kPartial, false, false},
                        Layout{"full, sampled through callers", Mode::kFull, true, false, 325}}) {
    RewriteOptions options;
    options.mode = layout.mode;
    options.outline = layout.outline;
    options.hand_back = layout.hand_back;
    options.caller_sampled_max_bytes = layout.caller_sampled_bytes;
    if (layout.mode != Mode::kChecksOnly) {
      options.instrumentations = {make_builtin_instrumentation("call-edge"),
                                  make_builtin_instrumentation("field-access")};
    }
    for (const fs::path& file : classes) {
      auto rewritten = rewrite_class(test::read_file(file), options);
      if (!rewritten || !rewritten->changed) continue;
      auto cf = ClassFile::parse(rewritten->bytes);
      REQUIRE(cf.ok());
      for (const Member& m : cf->methods) {
        auto ir = build_code_ir(*cf, m);
        if (!ir) continue;  // abstract or native
        FlagWalk walk(cf->pool, *ir);
        std::vector<std::string> problems = walk.run();
        for (uint32_t i = 0; i < ir->insns.size(); ++i) flagged_calls += walk.is_flagged_call(i);
        ++methods;
        INFO(layout.name << ": " << cf->name() << "." << cf->member_name(m)
                         << cf->member_descriptor(m));
        CHECK(problems == std::vector<std::string>{});
      }
    }
  }
  // The walk saw the protocol at work, not code without it.
  CHECK(methods > 500);
  CHECK(flagged_calls > 1000);
}
