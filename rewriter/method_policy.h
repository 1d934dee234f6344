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

struct Candidate {
  Transform transform = Transform::kUnchanged;
  // When non-zero: accept only if the new code stays within this many bytes (an inlining
  // threshold the original met); otherwise keep it as a fallback and try the next.
  uint32_t prefer_if_within = 0;
};

struct PolicyInput {
  const CodeIR& ir;
  const Cfg& cfg;
  const MethodSites& sites;
  uint32_t code_size;
  const RewriteOptions& options;
  bool flag_checks;  // the method's checks would be flag checks (wants_flag_checks)
  bool runs_once;    // a class initializer: the JVM runs it once per class
};

struct PolicyChoice {
  std::vector<Candidate> candidates;
  std::string rationale;  // set when the policy itself explains the order (auto, jsr)
};

PolicyChoice candidate_transforms(const PolicyInput& input);
Transform requested_transform(Mode mode);
bool uses_subroutines(const CodeIR& ir);

}  // namespace duplex
