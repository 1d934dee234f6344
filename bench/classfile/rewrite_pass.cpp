// The rewriter's share of duplex-classfile-bench: `--mode rewrite-full` runs rewrite_class()
// with the CLI's defaults (Full-Duplication, call-edge and field-access) over every class in
// memory, so the rewriter proper can be set beside ASM's in-memory copy without the jar's
// inflating and deflating, which dominate `duplex instrument` end to end.
#include "bench/classfile/rewrite_pass.h"

#include "rewriter/instrumentation.h"
#include "rewriter/rewriter.h"

namespace duplex_bench {

namespace {

duplex::RewriteOptions full_duplication_both() {
  duplex::RewriteOptions options;
  options.mode = duplex::Mode::kFull;
  options.list_sites = false;  // as the duplex program and the agent rewrite
  for (const char* name : {"call-edge", "field-access"})
    options.instrumentations.push_back(duplex::make_builtin_instrumentation(name));
  return options;
}

}  // namespace

size_t pass_rewrite_full(const std::vector<std::vector<uint8_t>>& classes) {
  static const duplex::RewriteOptions options = full_duplication_both();
  size_t sum = 0;
  for (const auto& c : classes) {
    auto r = duplex::rewrite_class(c, options);
    sum += r ? r->bytes.size() : 0;
  }
  return sum;
}

}  // namespace duplex_bench
