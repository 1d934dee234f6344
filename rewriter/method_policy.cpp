#include "rewriter/method_policy.h"

#include "classfile/opcodes.h"

namespace duplex {
namespace {

bool duplicates(Transform t) {
  return t == Transform::kFull || t == Transform::kPartial || t == Transform::kChecksOnly;
}

size_t count_back_edges(const Cfg& cfg) {
  size_t n = 0;
  for (const BasicBlock& b : cfg.blocks) {
    for (const CfgEdge& e : b.succs) n += e.back;
  }
  return n;
}

// Auto: with the outlined layout the copy lives in the twin, so the method itself grows by
// its checks only, and Full-Duplication measured fastest: bcprov steady state at interval 1000,
// Full +44%, Partial +96%, No-Duplication +418% (Partial's checks on the edges into kept
// blocks sit inside loops as often as Full's back-edge checks, and they enter the twin more
// often). No-Duplication puts a check at every point: it only wins where points execute at
// most once per call (no loops) and are few, so that it runs no more checks than the entry
// check and adds less bytecode than the call of the twin. (The first rule, tuned for bytecode
// size with the inline layout, chose No-Duplication for most methods and measured slower:
// docs/RESULTS.md.) Partial and No-Duplication remain fallbacks where Full cannot be built or
// passes a limit. Auto used to prefer whichever kept a method within the inlining size it had
// (MaxInlineSize, FreqInlineSize): that put No-Duplication's checks into loops and measured
// 4-16 points slower than Full in steady state (docs/design/hotspot-costs.md, section 14).
constexpr size_t kMaxNoDupPoints = 2;

PolicyChoice auto_choice(const PolicyInput& in) {
  PolicyChoice choice;
  size_t points = in.sites.count();
  size_t back_edges = count_back_edges(in.cfg);
  // A method small enough for flag checks gets them only under Full or Partial: there its
  // entry reads a flag and never counts, which is cheaper than any counting check
  // (docs/RESULTS.md: auto @1000 choosing No-Duplication for these measured slower than Full).
  bool sparse = back_edges == 0 && points <= kMaxNoDupPoints && !in.flag_checks;
  // A class initializer runs once: however many checks No-Duplication puts in it, they run once
  // (a loop's, once per iteration of that one run), while a copy of it is loaded and verified
  // with every class (auto's bytecode growth over six Debian jars: 307.9% -> 302.4%).
  if (in.runs_once) sparse = true;
  if (sparse) {
    choice.candidates = {Transform::kNoDup, Transform::kFull, Transform::kPartial};
  } else {
    choice.candidates = {Transform::kFull, Transform::kPartial, Transform::kNoDup};
  }
  choice.rationale = "auto: " + std::to_string(points) + " point(s), " +
                     std::to_string(back_edges) + " back edge(s): " +
                     (in.runs_once     ? "a class initializer runs once, so no-duplication first"
                      : sparse         ? "few and loop-free, so no-duplication first"
                      : in.flag_checks ? "small enough for flag checks, so full first"
                                       : "full first");
  return choice;
}

}  // namespace

Transform requested_transform(Mode mode) {
  switch (mode) {
    case Mode::kFull:
      return Transform::kFull;
    case Mode::kPartial:
      return Transform::kPartial;
    case Mode::kNoDup:
      return Transform::kNoDup;
    case Mode::kExhaustive:
      return Transform::kExhaustive;
    case Mode::kChecksOnly:
      return Transform::kChecksOnly;
    case Mode::kAuto:
      return Transform::kUnchanged;
  }
  return Transform::kUnchanged;
}

bool uses_subroutines(const CodeIR& ir) {
  for (const Insn& i : ir.insns) {
    if (i.opcode == op::kJsr || i.opcode == op::kJsrW || i.opcode == op::kRet) return true;
  }
  return false;
}

PolicyChoice candidate_transforms(const PolicyInput& in) {
  PolicyChoice choice;
  switch (in.options.mode) {
    case Mode::kFull:
      choice.candidates = {Transform::kFull, Transform::kPartial, Transform::kNoDup};
      break;
    case Mode::kPartial:
      choice.candidates = {Transform::kPartial, Transform::kNoDup};
      break;
    case Mode::kNoDup:
      choice.candidates = {Transform::kNoDup};
      break;
    case Mode::kExhaustive:
      choice.candidates = {Transform::kExhaustive};
      break;
    case Mode::kChecksOnly:
      choice.candidates = {Transform::kChecksOnly};
      break;
    case Mode::kAuto:
      choice = auto_choice(in);
      break;
  }
  if (uses_subroutines(in.ir)) {
    // jsr/ret subroutines cannot be duplicated safely (ret targets are dynamic).
    std::vector<Transform> kept;
    for (Transform t : choice.candidates) {
      if (!duplicates(t)) kept.push_back(t);
    }
    if (kept.size() != choice.candidates.size()) {
      choice.rationale = "holds jsr/ret subroutines, which cannot be duplicated";
    }
    choice.candidates = std::move(kept);
  }
  return choice;
}

}  // namespace duplex
