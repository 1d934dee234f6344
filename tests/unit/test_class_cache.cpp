// The agent's class cache (cache=DIR, runtime/agent/class_cache.h): entries round-trip, and
// anything but an intact entry for the same key and class size is a miss, never a wrong class.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "runtime/agent/class_cache.h"
#include "test_support.h"

using namespace duplex::agent;
using duplex::test::TempDir;

namespace {

CachedRewrite sample_rewrite() {
  CachedRewrite r;
  r.changed = true;
  r.class_name = "org/example/Widget";
  r.bytes = {0xCA, 0xFE, 0xBA, 0xBE, 0, 0, 0, 61, 1, 2, 3};
  r.site_tables = {"duplex-sites 1\nclass org/example/Widget\n", std::string(70000, 'x')};
  return r;
}

void check_same(const CachedRewrite& a, const CachedRewrite& b) {
  CHECK(a.changed == b.changed);
  CHECK(a.class_name == b.class_name);
  CHECK(a.bytes == b.bytes);
  CHECK(a.site_tables == b.site_tables);
}

// The single entry file the cache wrote under `dir` (other than its README).
std::filesystem::path only_entry(const std::filesystem::path& dir) {
  std::vector<std::filesystem::path> found;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir)) {
    if (e.is_regular_file() && e.path().filename() != "README") found.push_back(e.path());
  }
  REQUIRE(found.size() == 1);
  return found[0];
}

}  // namespace

TEST_CASE("cache entries round-trip, changed and unchanged", "[class_cache]") {
  CacheKey key{0x0123456789abcdefULL, 0xfedcba9876543210ULL};
  CachedRewrite changed = sample_rewrite();
  auto decoded = decode_cache_entry(encode_cache_entry(key, 4096, changed), key, 4096);
  REQUIRE(decoded);
  check_same(*decoded, changed);

  CachedRewrite unchanged;
  unchanged.class_name = "a/B";
  decoded = decode_cache_entry(encode_cache_entry(key, 7, unchanged), key, 7);
  REQUIRE(decoded);
  check_same(*decoded, unchanged);
}

TEST_CASE("a cache entry for another key or size, cut short, extended or altered is a miss",
          "[class_cache]") {
  CacheKey key{1, 2};
  std::vector<uint8_t> entry = encode_cache_entry(key, 100, sample_rewrite());
  REQUIRE(decode_cache_entry(entry, key, 100));
  CHECK_FALSE(decode_cache_entry(entry, CacheKey{1, 3}, 100));
  CHECK_FALSE(decode_cache_entry(entry, CacheKey{0, 2}, 100));
  CHECK_FALSE(decode_cache_entry(entry, key, 101));
  for (size_t n : {size_t{0}, size_t{7}, size_t{15}, size_t{40}, entry.size() / 2, entry.size() - 9,
                   entry.size() - 1}) {
    CHECK_FALSE(decode_cache_entry(std::span(entry).first(n), key, 100));
  }
  std::vector<uint8_t> longer = entry;
  longer.push_back(0);
  CHECK_FALSE(decode_cache_entry(longer, key, 100));
  // Every byte matters: flipping any one bit anywhere is caught (by the checksum, or by the
  // checksum itself no longer matching).
  for (size_t i = 0; i<entry.size(); i += entry.size()> 2000 ? 97 : 1) {
    std::vector<uint8_t> altered = entry;
    altered[i] ^= 0x10;
    CHECK_FALSE(decode_cache_entry(altered, key, 100));
  }
}

TEST_CASE("the class cache stores, finds and refuses entries on disk", "[class_cache]") {
  TempDir tmp;
  std::string dir = (tmp.path() / "nested" / "cache").string();
  auto cache = ClassCache::open(dir, "fingerprint A");
  REQUIRE(cache);
  CHECK(std::filesystem::is_regular_file(std::filesystem::path(dir) / "README"));

  std::vector<uint8_t> original = {0xCA, 0xFE, 0xBA, 0xBE, 9, 9, 9};
  CacheKey key = cache->key_of(original);
  CHECK_FALSE(cache->load(key, original.size()));  // nothing stored yet
  REQUIRE(cache->store(key, original.size(), sample_rewrite()));
  auto hit = cache->load(key, original.size());
  REQUIRE(hit);
  check_same(*hit, sample_rewrite());

  // Other bytes, or the same bytes under another fingerprint (another agent build or other
  // rewrite options), have other keys.
  std::vector<uint8_t> other = original;
  other.back() = 8;
  CHECK_FALSE(cache->key_of(other) == key);
  auto cache_b = ClassCache::open(dir, "fingerprint B");
  REQUIRE(cache_b);
  CHECK_FALSE(cache_b->key_of(original) == key);
  CHECK_FALSE(cache_b->load(cache_b->key_of(original), original.size()));

  // A damaged file is a miss, and storing again repairs it.
  std::filesystem::path file = only_entry(dir);
  std::filesystem::resize_file(file, std::filesystem::file_size(file) - 3);
  CHECK_FALSE(cache->load(key, original.size()));
  REQUIRE(cache->store(key, original.size(), sample_rewrite()));
  CHECK(cache->load(key, original.size()));
}

TEST_CASE("a cache directory that cannot be made is an error value", "[class_cache]") {
  TempDir tmp;
  std::filesystem::path file = tmp.path() / "plain-file";
  std::ofstream(file) << "not a directory";
  auto cache = ClassCache::open((file / "cache").string(), "f");
  REQUIRE_FALSE(cache);
  CHECK(cache.error().message().find("plain-file") != std::string::npos);
  CHECK_FALSE(ClassCache::open(file.string(), "f"));
}

TEST_CASE("the agent fingerprint names the build and the options", "[class_cache]") {
  auto a = agent_fingerprint("mode full\n");
  auto b = agent_fingerprint("mode nodup\n");
  REQUIRE(a);
  REQUIRE(b);
  CHECK(a->rfind("duplex-agent ", 0) == 0);
  CHECK(a->find("mode full\n") != std::string::npos);
  CHECK(*a != *b);
}
