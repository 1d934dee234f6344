#include "rewriter/dup_plan.h"

#include <string_view>

#include "classfile/class_file.h"

namespace duplex {
namespace {

DupPlan empty_plan(const Cfg& cfg, bool count_edges) {
  DupPlan plan;
  plan.kept.assign(cfg.blocks.size(), 0);
  plan.check_edge = EdgeFlags(cfg);
  plan.count_edge = EdgeFlags(cfg);
  if (!count_edges) return plan;
  for (size_t b = 0; b < cfg.blocks.size(); ++b) {
    const auto& succs = cfg.blocks[b].succs;
    for (size_t e = 0; e < succs.size(); ++e) plan.count_edge[b][e] = succs[e].back;
  }
  return plan;
}

// Blocks reachable from `seeds` over the duplicated-code DAG (edges that are not back
// edges), forwards or backwards. Only Partial-Duplication asks, and rarely.
std::vector<uint8_t> dag_closure(const Cfg& cfg, const std::vector<uint8_t>& seeds, bool forward) {
  const size_t n = cfg.blocks.size();
  std::vector<std::vector<uint32_t>> adjacent(n);
  for (uint32_t b = 0; b < n; ++b) {
    for (const CfgEdge& e : cfg.blocks[b].succs) {
      if (e.back) continue;
      if (forward) {
        adjacent[b].push_back(e.to);
      } else {
        adjacent[e.to].push_back(b);
      }
    }
  }
  std::vector<uint8_t> seen = seeds;
  std::vector<uint32_t> work;
  for (uint32_t b = 0; b < n; ++b) {
    if (seen[b]) work.push_back(b);
  }
  while (!work.empty()) {
    uint32_t b = work.back();
    work.pop_back();
    for (uint32_t next : adjacent[b]) {
      if (!seen[next]) {
        seen[next] = 1;
        work.push_back(next);
      }
    }
  }
  return seen;
}

// Exception edges carry no check. The back edges among them are javac's catch-all handlers
// that cover their own first instructions (try/finally, synchronized), taken only when the
// handler itself throws; a check there would stand where the exception is on the operand
// stack, which keeps the method from being outlined (H2's MVMap.operate, its hottest method,
// was). A cycle through such an edge is still bounded: the duplicated code's back edges
// return to the checking code.
bool may_carry_check(const CfgEdge& edge) {
  return edge.kind != EdgeKind::kException;
}

}  // namespace

DupPlan plan_full_duplication(const Cfg& cfg, bool count_edges) {
  DupPlan plan = empty_plan(cfg, count_edges);
  plan.kept.assign(cfg.blocks.size(), 1);
  plan.entry_check = !cfg.blocks.empty();
  for (size_t b = 0; b < cfg.blocks.size(); ++b) {
    const auto& succs = cfg.blocks[b].succs;
    for (size_t e = 0; e < succs.size(); ++e)
      plan.check_edge[b][e] = succs[e].back && may_carry_check(succs[e]);
  }
  return plan;
}

DupPlan plan_partial_duplication(const Cfg& cfg, const std::vector<uint8_t>& instrumented,
                                 bool count_edges) {
  DupPlan plan = empty_plan(cfg, count_edges);
  // Nodes downstream of instrumentation are not top-nodes; nodes upstream of it are not
  // bottom-nodes. What is both lies between instrumented nodes and is kept.
  std::vector<uint8_t> below = dag_closure(cfg, instrumented, /*forward=*/true);
  std::vector<uint8_t> above = dag_closure(cfg, instrumented, /*forward=*/false);
  for (size_t b = 0; b < cfg.blocks.size(); ++b) plan.kept[b] = below[b] && above[b];
  plan.entry_check = !cfg.blocks.empty() && plan.kept[0];
  for (size_t b = 0; b < cfg.blocks.size(); ++b) {
    const auto& succs = cfg.blocks[b].succs;
    for (size_t e = 0; e < succs.size(); ++e) {
      const CfgEdge& edge = succs[e];
      // Checks into removed nodes would sample nothing.
      if (!plan.kept[edge.to] || !may_carry_check(edge)) continue;
      // Back edges keep their check; an edge from a top-node into kept code gains one
      // (section 3.1), since the check that led there (entry or back edge) was removed.
      plan.check_edge[b][e] = edge.back || !plan.kept[b];
    }
  }
  return plan;
}

namespace {

// Erased signatures the JVM or the JDK itself calls on application objects: java.lang.Object's
// methods, and the JDK's callback interfaces. A method with one of them is usually entered from
// code that is not instrumented (HashMap calling hashCode, Arrays.sort calling compare), where
// no sampled caller sets the `sampling` flag, so flag checks would never sample it.
constexpr std::string_view kCalledByTheJdk[] = {
    "main([Ljava/lang/String;)V",
    "hashCode()I",
    "equals(Ljava/lang/Object;)Z",
    "toString()Ljava/lang/String;",
    "compareTo(Ljava/lang/Object;)I",
    "compare(Ljava/lang/Object;Ljava/lang/Object;)I",
    "run()V",
    "call()Ljava/lang/Object;",
    "get()Ljava/lang/Object;",
    "apply(Ljava/lang/Object;)Ljava/lang/Object;",
    "accept(Ljava/lang/Object;)V",
    "test(Ljava/lang/Object;)Z",
    "iterator()Ljava/util/Iterator;",
    "hasNext()Z",
    "next()Ljava/lang/Object;",
    "close()V",
    "read()I",
    "write(I)V",
};

}  // namespace

bool likely_entered_from_outside(const MethodContext& method) {
  // Class initializers run from the JVM; synthetic methods (lambda bodies, bridges, accessors)
  // are called from generated or JDK code.
  if (method.method_name == "<clinit>" || (method.access_flags & access::kSynthetic)) return true;
  // Compared as name + descriptor, without building the string for every method; the lengths
  // first, which rule out nearly every entry for nearly every method.
  const std::string_view name = method.method_name;
  const size_t length = name.size() + method.descriptor.size();
  for (std::string_view s : kCalledByTheJdk) {
    if (s.size() != length) continue;
    if (s.starts_with(name) && s.substr(name.size()) == method.descriptor) return true;
  }
  return false;
}

bool wants_flag_checks(const MethodContext& method, const Cfg& cfg, uint32_t code_bytes,
                       uint32_t max_bytes) {
  if (code_bytes == 0 || code_bytes > max_bytes) return false;
  if (likely_entered_from_outside(method)) return false;
  for (const BasicBlock& block : cfg.blocks) {
    for (const CfgEdge& edge : block.succs) {
      if (edge.back) return false;
    }
  }
  return true;
}

}  // namespace duplex
