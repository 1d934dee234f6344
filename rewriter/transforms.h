// The code transforms. Each builds a new CodeIR from the original; the caller assembles it.
#pragma once

#include "classfile/code_ir.h"
#include "classfile/error.h"
#include "rewriter/cfg.h"
#include "rewriter/dup_plan.h"
#include "rewriter/sites.h"

namespace duplex {

struct TransformedCode {
  CodeIR code;
  uint32_t checks = 0;  // checks placed
};

// Full- or Partial-Duplication (by `plan`); with `with_events` false, Checks-only.
Result<TransformedCode> duplicate_code(const MethodView& method, const Cfg& cfg,
                                       const MethodSites& sites, const DupPlan& plan,
                                       ConstantPool& pool, bool with_events, bool count_edges);

// No-Duplication: every instrumented point behind its own check.
Result<TransformedCode> guard_each_event(const MethodView& method, const MethodSites& sites,
                                         ConstantPool& pool);

// Exhaustive: the events with no framework.
Result<TransformedCode> insert_events(const MethodView& method, const MethodSites& sites,
                                      ConstantPool& pool);

// The check: `invokestatic Duplex.check()Z` (the runtime decrements the counter).
Result<Insn> make_check_call(ConstantPool& pool, std::string_view runtime_class);

}  // namespace duplex
