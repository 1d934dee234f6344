// Which blocks the duplicated code keeps and which checking-code edges carry a check:
// Full-Duplication keeps everything and checks the entry and every back edge;
// Partial-Duplication drops top and bottom nodes (paper, section 3.1).
#pragma once

#include <cstdint>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "classfile/code_ir.h"
#include "rewriter/cfg.h"

namespace duplex {

class SampledCalls;

// A flag per edge of a Cfg, read as flags[block][successor index]. One array in Cfg::edges
// order rather than a vector per block: plans are made for every method rewritten.
class EdgeFlags {
 public:
  EdgeFlags() = default;
  explicit EdgeFlags(const Cfg& cfg) : cfg_(&cfg), flags_(cfg.edges.size(), 0) {}

  std::span<uint8_t> operator[](size_t block) {
    const BasicBlock& b = cfg_->blocks[block];
    return std::span(flags_).subspan(b.first_edge, b.succs.size());
  }
  std::span<const uint8_t> operator[](size_t block) const {
    const BasicBlock& b = cfg_->blocks[block];
    return std::span(flags_).subspan(b.first_edge, b.succs.size());
  }
  // Some edge has its flag set.
  bool any() const {
    for (uint8_t f : flags_) {
      if (f) return true;
    }
    return false;
  }

 private:
  const Cfg* cfg_ = nullptr;
  std::vector<uint8_t> flags_;
};

struct DupPlan {
  std::vector<uint8_t> kept;  // by block: has a copy in the duplicated code
  bool entry_check = false;
  // By block, by successor index: the checking-code edge carries a check into the copy of
  // its target.
  EdgeFlags check_edge;
  // The edge counts one back edge (test option count_edges).
  EdgeFlags count_edge;
  // A small loop-free method (RewriteOptions::flag_check_max_bytes): its checks read the
  // runtime's `sampling` flag, which the duplicated code of a sampled caller sets around its
  // calls, instead of decrementing the counter (see rewriter/check_emitter.h).
  bool flag_checks = false;
  // Set: the duplicated code's calls go through sampled-call sites (rewriter/sampled_calls.h),
  // so that the small methods they reach run their sampled twins.
  SampledCalls* sampled_calls = nullptr;
  // Methods of the class a call may reach without counting a check (rewriter/quiet_methods.h),
  // by name + descriptor; null: every call may count.
  const std::set<std::string>* quiet_methods = nullptr;
  // Exit checks at back edges find the thread's counter through a local set at the method's
  // start (RewriteOptions::stripe_in_local).
  bool stripe_in_local = false;
  // The Fieldref of the method's own counter (RewriteOptions::method_counters, outlined exit
  // checks only), which its counting checks decrement instead of the shared counter; 0: shared.
  uint16_t method_counter = 0;
};

// True for a method that code outside the rewritten classes probably calls (the JVM, the JDK's
// collections and callbacks): a class initializer, a synthetic method, or a method with the
// erased signature of java.lang.Object's or a JDK callback interface's. A heuristic: the
// rewriter sees no class hierarchy.
bool likely_entered_from_outside(const MethodContext& method);

// True for a method whose checks should be flag checks: no back edge, at most `max_bytes`
// bytes of original code (0: never), and not likely entered from outside, since only a
// sampled caller's duplicated code sets the flag that samples it.
bool wants_flag_checks(const MethodContext& method, const Cfg& cfg, uint32_t code_bytes,
                       uint32_t max_bytes);

DupPlan plan_full_duplication(const Cfg& cfg, bool count_edges);
// `instrumented`: by block, holds an instrumented point (the entry block does when the method
// entry is instrumented).
DupPlan plan_partial_duplication(const Cfg& cfg, const std::vector<uint8_t>& instrumented,
                                 bool count_edges);

}  // namespace duplex
