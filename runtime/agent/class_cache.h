// Rewritten classes kept on disk across runs (agent option cache=DIR).
//
// Rewriting is deterministic: the same class bytes, rewritten by the same agent build with the
// same options, give the same result. So a program run again under the agent can take each
// class's rewrite (its bytes and site tables, or "nothing to instrument") from a file instead of
// rewriting it, which on short runs is most of the agent's start-up cost (docs/RESULTS.md).
//
// An entry is found by a 128-bit XXH3 hash of the agent's fingerprint (its own shared library's
// bytes and the rewrite options) followed by the class bytes, and is checked on every load: its
// key, the original's size and a checksum of the whole entry must match, or it is a miss and is
// written again. Entries are written to a temporary file and renamed into place, so JVMs
// sharing a directory never read half an entry. Nothing here throws or aborts: every failure
// is a miss, or an error value the caller logs.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "classfile/error.h"

namespace duplex::agent {

struct CachedRewrite {
  bool changed = false;  // false: the rewriter had nothing to instrument in the class
  std::string class_name;
  std::vector<uint8_t> bytes;            // the rewritten class (empty when unchanged)
  std::vector<std::string> site_tables;  // ClassRewrite::site_tables
};

struct CacheKey {
  uint64_t high = 0;
  uint64_t low = 0;
  bool operator==(const CacheKey&) const = default;
};

// An entry's bytes, and back; decode returns nullopt for anything but a complete, intact entry
// for `key` (exposed for the unit tests).
std::vector<uint8_t> encode_cache_entry(const CacheKey& key, uint64_t original_size,
                                        const CachedRewrite& rewrite);
std::optional<CachedRewrite> decode_cache_entry(std::span<const uint8_t> entry, const CacheKey& key,
                                                uint64_t original_size);

class ClassCache {
 public:
  // Uses `dir` (created if missing, with its parents). `fingerprint` is everything besides a
  // class's bytes that decides its rewrite. Fails if the directory cannot be created or
  // written.
  static Result<ClassCache> open(const std::string& dir, std::string_view fingerprint);

  CacheKey key_of(std::span<const uint8_t> original) const;
  // The entry for `key`, or nullopt (absent, unreadable, or not intact).
  std::optional<CachedRewrite> load(const CacheKey& key, uint64_t original_size) const;
  Status store(const CacheKey& key, uint64_t original_size, const CachedRewrite& rewrite) const;

  const std::string& dir() const { return dir_; }

 private:
  std::string path_of(const CacheKey& key) const;

  std::string dir_;
  CacheKey seed_;  // the fingerprint's hash: the first 16 bytes every key hashes
};

// The fingerprint of this build of the agent: the bytes of the shared library that holds this
// function (so a rebuilt agent never reads a cache an older one wrote), followed by `options`.
Result<std::string> agent_fingerprint(std::string_view options);

}  // namespace duplex::agent
