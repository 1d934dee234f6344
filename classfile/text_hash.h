// A fast hash of text for in-memory tables (never stored or shown): eight bytes per step.
// The constant pool's indexes hash every Utf8 and Class entry of a class, and the rewriter's
// tables hash a key per instrumentation site, so std::hash's byte-wise loop showed up in
// profiles.
#pragma once

#include <cstdint>
#include <cstring>
#include <string_view>

namespace duplex {

inline uint64_t text_hash(std::string_view text) {
  const char* p = text.data();
  size_t n = text.size();
  uint64_t h = 0x9E3779B97F4A7C15ULL ^ (n * 0xC2B2AE3D27D4EB4FULL);
  for (; n >= 8; n -= 8, p += 8) {
    uint64_t w;
    std::memcpy(&w, p, 8);
    h = (h ^ w) * 0xBF58476D1CE4E5B9ULL;
    h ^= h >> 29;
  }
  if (n > 0) {
    uint64_t w = 0;
    std::memcpy(&w, p, n);
    h = (h ^ w) * 0x94D049BB133111EBULL;
  }
  h ^= h >> 32;
  h *= 0xD6E8FEB86659FD93ULL;
  return h ^ (h >> 32);
}

// For unordered containers keyed by string_view.
struct TextHash {
  size_t operator()(std::string_view text) const { return static_cast<size_t>(text_hash(text)); }
};

}  // namespace duplex
