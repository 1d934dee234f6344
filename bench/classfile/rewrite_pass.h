// One pass of the rewriter over classes in memory, for duplex-classfile-bench.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace duplex_bench {

// rewrite_class() with Full-Duplication and both built-in instrumentations on every class;
// returns the sum of the output sizes (so the work is not optimised away).
size_t pass_rewrite_full(const std::vector<std::vector<uint8_t>>& classes);

}  // namespace duplex_bench
