#include "rewriter/sites.h"

#include <algorithm>

namespace duplex {

MethodSites::MethodSites(const MethodView& method,
                         const std::vector<std::shared_ptr<const Instrumentation>>& list) {
  std::vector<SitePoint> points;
  for (const auto& instrumentation : list) {
    points.clear();
    instrumentation->select(method, points);
    for (SitePoint& p : points) {
      bool valid = p.kind == SiteKind::kMethodEntry ||
                   (p.insn < method.code.insns.size() && !method.code.insns[p.insn].is_label());
      if (!valid) continue;  // a plug-in pointing at nothing: ignore rather than corrupt
      auto& dest = p.kind == SiteKind::kMethodEntry ? entry_ : insn_sites_;
      dest.push_back(Site{instrumentation.get(), std::move(p)});
    }
  }
  // Stable: sites at one instruction keep the order of the instrumentations.
  std::stable_sort(insn_sites_.begin(), insn_sites_.end(),
                   [](const Site& a, const Site& b) { return a.point.insn < b.point.insn; });
  const size_t n = method.code.insns.size();
  begin_.assign(n + 1, static_cast<uint32_t>(insn_sites_.size()));
  for (size_t s = insn_sites_.size(); s-- > 0;)
    begin_[insn_sites_[s].point.insn] = static_cast<uint32_t>(s);
  for (size_t i = n; i-- > 0;) begin_[i] = std::min(begin_[i], begin_[i + 1]);
}

Status emit_events(const MethodView& method, std::span<const Site> sites, ConstantPool& pool,
                   CodeIR& ir, uint16_t first_free_local) {
  EventCode code(pool, ir.insns, method.runtime_class, first_free_local, method.counters);
  for (const Site& site : sites) {
    code.next_event();
    if (auto s = site.instrumentation->emit(method, site.point, code); !s) return s;
  }
  ir.max_locals = std::max(ir.max_locals, code.locals_needed());
  return Ok{};
}

}  // namespace duplex
