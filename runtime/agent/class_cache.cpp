#include "runtime/agent/class_cache.h"

#include <dlfcn.h>
#include <sys/stat.h>
#define XXH_STATIC_LINKING_ONLY  // XXH3_state_t on the stack
#include <xxhash.h>

#include <cstring>
#include <filesystem>

#include "classfile/archive.h"

namespace duplex::agent {
namespace {

// Entry layout (integers little-endian):
//   magic "duplexc1", key (2 x u64), original size (u64), changed (u8),
//   class name (u32 length + bytes), class bytes (u32 length + bytes),
//   site tables (u32 count, each u32 length + bytes), XXH3-64 of everything before (u64).
constexpr char kMagic[8] = {'d', 'u', 'p', 'l', 'e', 'x', 'c', '1'};
constexpr size_t kChecksumSize = 8;

void put_u64(std::vector<uint8_t>& out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<uint8_t>(v >> (8 * i)));
}

void put_u32(std::vector<uint8_t>& out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<uint8_t>(v >> (8 * i)));
}

void put_blob(std::vector<uint8_t>& out, std::span<const uint8_t> blob) {
  put_u32(out, static_cast<uint32_t>(blob.size()));
  out.insert(out.end(), blob.begin(), blob.end());
}

std::span<const uint8_t> bytes_of(std::string_view s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

// Reads an entry front to back; any read past the end makes it fail for good.
class EntryReader {
 public:
  explicit EntryReader(std::span<const uint8_t> data) : data_(data) {}

  bool ok() const { return ok_; }
  bool at_end() const { return at_ == data_.size(); }

  uint64_t u64() { return little_endian(8); }
  uint32_t u32() { return static_cast<uint32_t>(little_endian(4)); }
  uint8_t u8() { return static_cast<uint8_t>(little_endian(1)); }

  std::span<const uint8_t> blob() {
    uint32_t size = u32();
    if (!ok_ || size > data_.size() - at_) {
      ok_ = false;
      return {};
    }
    auto out = data_.subspan(at_, size);
    at_ += size;
    return out;
  }

  bool magic() {
    if (data_.size() < sizeof kMagic || std::memcmp(data_.data(), kMagic, sizeof kMagic) != 0)
      return ok_ = false;
    at_ = sizeof kMagic;
    return true;
  }

 private:
  uint64_t little_endian(size_t n) {
    if (!ok_ || n > data_.size() - at_) {
      ok_ = false;
      return 0;
    }
    uint64_t v = 0;
    for (size_t i = 0; i < n; ++i) v |= static_cast<uint64_t>(data_[at_ + i]) << (8 * i);
    at_ += n;
    return v;
  }

  std::span<const uint8_t> data_;
  size_t at_ = 0;
  bool ok_ = true;
};

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
  std::vector<uint8_t> out(kMagic, kMagic + sizeof kMagic);
  out.reserve(64 + rewrite.class_name.size() + rewrite.bytes.size());
  put_u64(out, key.high);
  put_u64(out, key.low);
  put_u64(out, original_size);
  out.push_back(rewrite.changed ? 1 : 0);
  put_blob(out, bytes_of(rewrite.class_name));
  put_blob(out, rewrite.bytes);
  put_u32(out, static_cast<uint32_t>(rewrite.site_tables.size()));
  for (const std::string& table : rewrite.site_tables) put_blob(out, bytes_of(table));
  put_u64(out, XXH3_64bits(out.data(), out.size()));
  return out;
}

std::optional<CachedRewrite> decode_cache_entry(std::span<const uint8_t> entry, const CacheKey& key,
                                                uint64_t original_size) {
  if (entry.size() < sizeof kMagic + kChecksumSize) return std::nullopt;
  auto body = entry.first(entry.size() - kChecksumSize);
  EntryReader checksum(entry.last(kChecksumSize));
  if (checksum.u64() != XXH3_64bits(body.data(), body.size())) return std::nullopt;
  EntryReader r(body);
  if (!r.magic()) return std::nullopt;
  CacheKey stored{r.u64(), r.u64()};
  if (stored != key || r.u64() != original_size) return std::nullopt;
  CachedRewrite out;
  uint8_t changed = r.u8();
  auto name = r.blob();
  auto bytes = r.blob();
  uint32_t tables = r.u32();
  // Each table takes at least its 4-byte length: a count past that is corrupt, not a reason
  // to reserve gigabytes.
  if (!r.ok() || changed > 1 || tables > body.size() / 4) return std::nullopt;
  out.changed = changed == 1;
  out.class_name.assign(name.begin(), name.end());
  out.bytes.assign(bytes.begin(), bytes.end());
  for (uint32_t i = 0; i < tables && r.ok(); ++i) {
    auto table = r.blob();
    out.site_tables.emplace_back(table.begin(), table.end());
  }
  if (!r.ok() || !r.at_end()) return std::nullopt;
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
  std::string path = path_of(key);
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return std::nullopt;  // the common miss: no file
  auto data = read_file(path);
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
