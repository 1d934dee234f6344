// The code transforms. Each builds a new CodeIR from the original; the caller assembles it.
#pragma once

#include <optional>
#include <string>

#include "classfile/code_ir.h"
#include "classfile/error.h"
#include "rewriter/cfg.h"
#include "rewriter/dup_plan.h"
#include "rewriter/rewriter.h"
#include "rewriter/sites.h"

namespace duplex {

// An outlined method's twin: the synthetic method that holds the duplicated code.
struct TwinCode {
  CodeIR code;
  std::string name;
  std::string descriptor;
};

struct TransformedCode {
  CodeIR code;
  uint32_t checks = 0;  // checks placed
  std::optional<TwinCode> twin;
  // The method keeps its Code attribute as it was (`code` is the original, for the call-site
  // table): only the twin is new (a method sampled through its callers).
  bool keep_method_code = false;
};

struct OutlineLayout;
enum class OutlineSide : uint8_t { kChecking, kTwin };

// Which half of an outlined method to build (rewriter/outline_layout.h); no layout: the
// checking and duplicated code share one method.
struct Outline {
  const OutlineLayout* layout = nullptr;
  OutlineSide side = OutlineSide::kChecking;
  uint16_t twin_methodref = 0;  // kChecking: the pool Methodref the checks call
  bool hand_back = false;       // RewriteOptions::hand_back
};

// Full- or Partial-Duplication (by `plan`); with `with_events` false, Checks-only.
Result<TransformedCode> duplicate_code(const MethodView& method, const Cfg& cfg,
                                       const MethodSites& sites, const DupPlan& plan,
                                       ConstantPool& pool, bool with_events, bool count_edges,
                                       const Outline& outline = {},
                                       CheckForm check = CheckForm::kCall);

// No-Duplication: every instrumented point behind its own check. With `samples_callees` (a
// method left without duplicated code in a mode that duplicates, whose small callees are
// sampled only when a sampled caller calls them) a sampled call samples its callee too.
Result<TransformedCode> guard_each_event(const MethodView& method, const MethodSites& sites,
                                         ConstantPool& pool, bool samples_callees = false);

// Exhaustive: the events with no framework.
Result<TransformedCode> insert_events(const MethodView& method, const MethodSites& sites,
                                      ConstantPool& pool);

// The check: `invokestatic Duplex.check()Z` (the runtime decrements the counter).
Result<Insn> make_check_call(ConstantPool& pool, std::string_view runtime_class);

}  // namespace duplex
