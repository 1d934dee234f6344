// The instrumented points of one method, gathered from every instrumentation, and the
// emission of their events.
#pragma once

#include <span>
#include <vector>

#include "rewriter/instrumentation.h"

namespace duplex {

struct Site {
  const Instrumentation* instrumentation = nullptr;
  SitePoint point;
};

class MethodSites {
 public:
  MethodSites(const MethodView& method,
              const std::vector<std::shared_ptr<const Instrumentation>>& instrumentations);

  std::span<const Site> entry() const { return entry_; }
  // Sites before instruction `insn`, in instrumentation order.
  std::span<const Site> at(size_t insn) const {
    return std::span<const Site>(insn_sites_)
        .subspan(begin_[insn], begin_[insn + 1] - begin_[insn]);
  }
  bool has_any() const { return !entry_.empty() || !insn_sites_.empty(); }
  size_t count() const { return entry_.size() + insn_sites_.size(); }
  std::span<const Site> all_instruction_sites() const { return insn_sites_; }

 private:
  std::vector<Site> entry_;
  std::vector<Site> insn_sites_;  // sorted by instruction index
  std::vector<uint32_t> begin_;   // begin_[i]: first of insn_sites_ at instruction >= i
};

// Appends the events of `sites` to `ir.insns`, raising ir.max_locals for their scratch locals
// (which start at `first_free_local`: past the original method's locals and any the transform
// added).
Status emit_events(const MethodView& method, std::span<const Site> sites, ConstantPool& pool,
                   CodeIR& ir, uint16_t first_free_local);

}  // namespace duplex
