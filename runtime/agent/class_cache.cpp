#include "runtime/agent/class_cache.h"

#include <dlfcn.h>
#define XXH_STATIC_LINKING_ONLY  // XXH3_state_t on the stack
#include <xxhash.h>

#include <algorithm>
#include <filesystem>

#include "classfile/archive.h"
#include "classfile/bytes.h"

namespace duplex::agent {
namespace {

// Entry layout (integers big-endian, as classfile/bytes.h reads and writes them):
//   magic "duplexc1", key (2 x u8), original size (u8), changed (u1),
//   class name (u4 length + bytes), class bytes (u4 length + bytes),
//   site tables (u4 count, each u4 length + bytes), XXH3-64 of everything before (u8).
constexpr std::string_view kMagic = "duplexc1";
constexpr size_t kChecksumSize = 8;

void put_u8(ByteWriter& out, uint64_t v) {
  out.u4(static_cast<uint32_t>(v >> 32));
  out.u4(static_cast<uint32_t>(v));
}

uint64_t get_u8(ByteReader& in) {
  uint64_t high = in.u4();
  return high << 32 | in.u4();
}

void put_blob(ByteWriter& out, std::string_view blob) {
  out.u4(static_cast<uint32_t>(blob.size()));
  out.bytes(blob);
}

std::span<const uint8_t> get_blob(ByteReader& in) {
  return in.bytes(in.u4());
}

std::span<const uint8_t> bytes_of(std::string_view s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

CacheKey key_from(XXH128_hash_t h) {
  return {h.high64, h.low64};
}

std::string hex(uint64_t v) {
  static const char digits[] = "0123456789abcdef";
  std::string s(16, '0');
  for (int i = 15; i >= 0; --i, v >>= 4) s[static_cast<size_t>(i)] = digits[v & 15];
  return s;
}

}  // namespace

std::vector<uint8_t> encode_cache_entry(const CacheKey& key, uint64_t original_size,
                                        const CachedRewrite& rewrite) {
  ByteWriter out;
  out.reserve(64 + rewrite.class_name.size() + rewrite.bytes.size());
  out.bytes(kMagic);
  put_u8(out, key.high);
  put_u8(out, key.low);
  put_u8(out, original_size);
  out.u1(rewrite.changed ? 1 : 0);
  put_blob(out, rewrite.class_name);
  out.u4(static_cast<uint32_t>(rewrite.bytes.size()));
  out.bytes(rewrite.bytes);
  out.u4(static_cast<uint32_t>(rewrite.site_tables.size()));
  for (const std::string& table : rewrite.site_tables) put_blob(out, table);
  put_u8(out, XXH3_64bits(out.view().data(), out.size()));
  return out.take();
}

std::optional<CachedRewrite> decode_cache_entry(std::span<const uint8_t> entry, const CacheKey& key,
                                                uint64_t original_size) {
  if (entry.size() < kMagic.size() + kChecksumSize) return std::nullopt;
  auto body = entry.first(entry.size() - kChecksumSize);
  ByteReader checksum(entry.last(kChecksumSize));
  if (get_u8(checksum) != XXH3_64bits(body.data(), body.size())) return std::nullopt;
  ByteReader r(body);
  auto magic = r.bytes(kMagic.size());
  if (!std::equal(magic.begin(), magic.end(), kMagic.begin(), kMagic.end())) return std::nullopt;
  CacheKey stored{get_u8(r), get_u8(r)};
  if (stored != key || get_u8(r) != original_size) return std::nullopt;
  uint8_t changed = r.u1();
  auto name = get_blob(r);
  auto bytes = get_blob(r);
  uint32_t tables = r.u4();
  // Each table takes at least its 4-byte length: a count past that is corrupt, not a reason
  // to reserve gigabytes.
  if (r.failed() || changed > 1 || tables > body.size() / 4) return std::nullopt;
  CachedRewrite out;
  out.changed = changed == 1;
  out.class_name.assign(name.begin(), name.end());
  out.bytes.assign(bytes.begin(), bytes.end());
  for (uint32_t i = 0; i < tables && !r.failed(); ++i) {
    auto table = get_blob(r);
    out.site_tables.emplace_back(table.begin(), table.end());
  }
  if (r.failed() || !r.rest().empty()) return std::nullopt;
  return out;
}

Result<ClassCache> ClassCache::open(const std::string& dir, std::string_view fingerprint) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return Error::plain("cannot create " + dir + ": " + ec.message());
  if (!std::filesystem::is_directory(dir, ec)) return Error::plain(dir + " is not a directory");
  // Written once now, so that a directory the JVM cannot write is reported at start-up.
  std::string probe = (std::filesystem::path(dir) / "README").string();
  if (auto s = write_file_atomic(
          probe, bytes_of("Rewritten classes of the duplex agent (option cache=DIR): one file "
                          "per class, safe to delete.\n"));
      !s) {
    return s.error();
  }
  ClassCache cache;
  cache.dir_ = dir;
  cache.seed_ = key_from(XXH3_128bits(fingerprint.data(), fingerprint.size()));
  return cache;
}

CacheKey ClassCache::key_of(std::span<const uint8_t> original) const {
  XXH3_state_t state;
  XXH3_128bits_reset(&state);
  XXH3_128bits_update(&state, &seed_, sizeof seed_);
  XXH3_128bits_update(&state, original.data(), original.size());
  return key_from(XXH3_128bits_digest(&state));
}

// DIR/ab/<32 hex digits>: 256 subdirectories keep each one small.
std::string ClassCache::path_of(const CacheKey& key) const {
  std::string name = hex(key.high) + hex(key.low);
  return (std::filesystem::path(dir_) / name.substr(0, 2) / name).string();
}

std::optional<CachedRewrite> ClassCache::load(const CacheKey& key, uint64_t original_size) const {
  auto data = read_file(path_of(key));  // a miss when there is no such file
  if (!data) return std::nullopt;
  return decode_cache_entry(*data, key, original_size);
}

Status ClassCache::store(const CacheKey& key, uint64_t original_size,
                         const CachedRewrite& rewrite) const {
  return write_file_atomic(path_of(key), encode_cache_entry(key, original_size, rewrite));
}

Result<std::string> agent_fingerprint(std::string_view options) {
  Dl_info info;
  if (::dladdr(reinterpret_cast<void*>(&agent_fingerprint), &info) == 0 || !info.dli_fname)
    return Error::plain("cannot find the agent's own shared library");
  auto library = read_file(info.dli_fname);
  if (!library) return library.error();
  XXH128_hash_t h = XXH3_128bits(library->data(), library->size());
  std::string fingerprint = "duplex-agent " + hex(h.high64) + hex(h.low64) + "\n";
  fingerprint.append(options);
  return fingerprint;
}

}  // namespace duplex::agent
