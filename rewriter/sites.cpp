#include "rewriter/sites.h"

#include <algorithm>

#include "classfile/scratch.h"

namespace duplex {

MethodSites::MethodSites(const MethodView& method,
                         const std::vector<std::shared_ptr<const Instrumentation>>& list) {
  // Every method's sites pass through these lists once: per-thread buffers (scratch.h).
  thread_local std::vector<SitePoint> spare_points;
  thread_local std::vector<Site> spare_sites;
  thread_local std::vector<uint32_t> spare_next;
  scratch::Borrowed<SitePoint> points(spare_points);
  scratch::Borrowed<Site> unsorted(spare_sites);
  const size_t n = method.code.insns.size();
  for (const auto& instrumentation : list) {
    points.vec.clear();
    instrumentation->select(method, points.vec);
    for (SitePoint& p : points.vec) {
      bool valid =
          p.kind == SiteKind::kMethodEntry || (p.insn < n && !method.code.insns[p.insn].is_label());
      if (!valid) continue;  // a plug-in pointing at nothing: ignore rather than corrupt
      auto& dest = p.kind == SiteKind::kMethodEntry ? entry_ : unsorted.vec;
      dest.push_back(Site{instrumentation.get(), std::move(p)});
    }
  }
  // A counting sort by instruction, stable, so that sites at one instruction keep the order of
  // the instrumentations; begin_[i] is then the number of sites before instruction i.
  begin_.assign(n + 1, 0);
  for (const Site& site : unsorted.vec) ++begin_[site.point.insn + 1];
  for (size_t i = 0; i < n; ++i) begin_[i + 1] += begin_[i];
  insn_sites_.resize(unsorted.vec.size());
  scratch::Borrowed<uint32_t> next(spare_next);  // where the next site of each instruction goes
  next.vec.assign(begin_.begin(), begin_.end());
  for (Site& site : unsorted.vec) insn_sites_[next.vec[site.point.insn]++] = std::move(site);
}

Status emit_events(const MethodView& method, std::span<const Site> sites, ConstantPool& pool,
                   CodeIR& ir, uint16_t first_free_local) {
  if (sites.empty()) return Ok{};  // most instructions: called for each one of a copy
  EventCode code(pool, ir.insns, method.runtime_class, first_free_local, method.counters);
  for (const Site& site : sites) {
    code.next_event();
    if (auto s = site.instrumentation->emit(method, site.point, code); !s) return s;
  }
  ir.max_locals = std::max(ir.max_locals, code.locals_needed());
  return Ok{};
}

}  // namespace duplex
