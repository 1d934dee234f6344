// Which blocks the duplicated code keeps and which checking-code edges carry a check:
// Full-Duplication keeps everything and checks the entry and every back edge;
// Partial-Duplication drops top and bottom nodes (paper, section 3.1).
#pragma once

#include <cstdint>
#include <vector>

#include "rewriter/cfg.h"

namespace duplex {

struct DupPlan {
  std::vector<uint8_t> kept;  // by block: has a copy in the duplicated code
  bool entry_check = false;
  // By block, by successor index: the checking-code edge carries a check into the copy of
  // its target.
  std::vector<std::vector<uint8_t>> check_edge;
  // The same shape: the edge counts one back edge (test option count_edges).
  std::vector<std::vector<uint8_t>> count_edge;
};

DupPlan plan_full_duplication(const Cfg& cfg, bool count_edges);
// `instrumented`: by block, holds an instrumented point (the entry block does when the method
// entry is instrumented).
DupPlan plan_partial_duplication(const Cfg& cfg, const std::vector<uint8_t>& instrumented,
                                 bool count_edges);

}  // namespace duplex
