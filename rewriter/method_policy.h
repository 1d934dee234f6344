// Which transforms to try for a method, in order: the requested one and its fallbacks, or,
// under the auto policy, a choice from the method's size and instrumentation density.
#pragma once

#include <string>
#include <vector>

#include "classfile/code_ir.h"
#include "rewriter/cfg.h"
#include "rewriter/rewriter.h"
#include "rewriter/sites.h"

namespace duplex {

struct PolicyInput {
  const CodeIR& ir;
  const Cfg& cfg;
  const MethodSites& sites;
  const RewriteOptions& options;
  bool flag_checks;  // the method's checks would be flag checks (wants_flag_checks)
  bool runs_once;    // a class initializer: the JVM runs it once per class
};

struct PolicyChoice {
  std::vector<Transform> candidates;  // tried in order: the first that builds within the limits
  std::string rationale;              // set when the policy itself explains the order (auto, jsr)
};

PolicyChoice candidate_transforms(const PolicyInput& input);
Transform requested_transform(Mode mode);
bool uses_subroutines(const CodeIR& ir);

}  // namespace duplex
