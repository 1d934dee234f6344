// Jar I/O through libzip, plus the small plain-file and directory helpers the rewriter needs.
//
// libzip 1.7 keeps an entry's mtime as a time_t, converting through local time, so a DOS
// time it cannot round-trip (a zero date, a time inside a DST gap) would come out changed.
// To report and keep mtimes exactly as stored we read the DOS fields from the central
// directory ourselves, and after libzip writes a jar we patch any field it got wrong.
#include "classfile/archive.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zip.h>
#include <zlib.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <new>
#include <stdexcept>
#include <utility>

namespace duplex {
namespace {

// ---- Error text -------------------------------------------------------------------------

Error file_error(std::string_view file, std::string_view reason) {
  return Error::plain(std::string(file) + ": " + std::string(reason));
}

Error entry_error(std::string_view file, std::string_view entry, std::string_view reason) {
  return Error::plain(std::string(file) + ": entry " + std::string(entry) + ": " +
                      std::string(reason));
}

std::string errno_text(int err) {
  return std::strerror(err);
}

std::string zip_code_text(int code) {
  zip_error_t e;
  zip_error_init_with_code(&e, code);
  std::string text = zip_error_strerror(&e);
  zip_error_fini(&e);
  return text;
}

std::string archive_error_text(zip_t* za) {
  return zip_error_strerror(zip_get_error(za));
}

// zip_open only reports a code; reword the ones users meet so they say what is wrong.
std::string open_error_text(int code) {
  switch (code) {
    case ZIP_ER_NOZIP:
      // libzip 1.7 also lands here for a jar with data prepended (a launcher script), which
      // JarReader::open then opens past the prefix; this is what is left.
      return "not a zip file (no usable end of central directory: truncated, corrupt, "
             "prefixed or not a jar)";
    case ZIP_ER_INCONS:
      return "corrupt zip file (inconsistent central directory)";
    default:
      return zip_code_text(code);
  }
}

// ---- Small POSIX helpers ----------------------------------------------------------------

bool pread_all(int fd, uint64_t offset, size_t n, std::vector<uint8_t>& out) {
  out.resize(n);
  size_t got = 0;
  while (got < n) {
    ssize_t r = ::pread(fd, out.data() + got, n - got, static_cast<off_t>(offset + got));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    got += static_cast<size_t>(r);
  }
  return true;
}

bool write_all(int fd, std::span<const uint8_t> data) {
  size_t done = 0;
  while (done < data.size()) {
    ssize_t r = ::write(fd, data.data() + done, data.size() - done);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    done += static_cast<size_t>(r);
  }
  return true;
}

// A name in the destination's directory that no other writer (thread or process) will pick,
// hidden so directory listings do not show half-written output.
std::string temp_name_for(const std::string& path) {
  static std::atomic<uint64_t> counter{0};
  std::filesystem::path p(path);
  std::string name = "." + p.filename().string() + ".duplex-" + std::to_string(::getpid()) + "-" +
                     std::to_string(counter++) + "-" +
                     std::to_string(std::time(nullptr) & 0xFFFFFF) + ".tmp";
  return (p.parent_path() / name).string();
}

// Gives `temp` the permissions of the file at `from`, if there is one (a replaced file keeps
// its own); otherwise `temp` keeps the umask default it was created with.
void keep_mode(const std::string& temp, const std::string& from) {
  struct stat st;
  if (::stat(from.c_str(), &st) == 0) ::chmod(temp.c_str(), st.st_mode & 07777);
}

// Rewrites the file at `path` (a temp of `dest`'s) with `prefix` before its bytes, through
// another temp file renamed over it: a zip with a launcher script in front, whose offsets still
// count from the zip's start, as the input's did.
Status prepend_to_file(const std::string& path, const std::string& dest,
                       std::span<const uint8_t> prefix) {
  std::string with = temp_name_for(dest);
  int in = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  int out = ::open(with.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  bool ok = in >= 0 && out >= 0 && write_all(out, prefix);
  std::vector<uint8_t> buf(1 << 20);
  while (ok) {
    ssize_t n = ::read(in, buf.data(), buf.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      ok = n == 0;
      break;
    }
    ok = write_all(out, std::span<const uint8_t>(buf.data(), static_cast<size_t>(n)));
  }
  int err = errno;
  if (in >= 0) ::close(in);
  if (out >= 0 && ::close(out) != 0 && ok) ok = false, err = errno;
  if (ok && ::rename(with.c_str(), path.c_str()) == 0) return Ok{};
  if (ok) err = errno;
  if (out >= 0) ::unlink(with.c_str());
  return file_error(dest, "cannot put the launcher script before the jar: " + errno_text(err));
}

// ---- Raw central directory ----------------------------------------------------------------

uint64_t le(std::span<const uint8_t> b, size_t at, int n) {
  uint64_t v = 0;
  for (int i = n - 1; i >= 0; --i) v = v << 8 | b[at + static_cast<size_t>(i)];
  return v;
}

struct CentralRecord {
  DosTime mtime;
  uint64_t record_offset = 0;  // of the central-directory record
  uint64_t local_offset = 0;   // of the local file header
};

struct CentralLocation {
  uint64_t start = 0;  // where the central directory really is in the file
  uint64_t size = 0;
  uint64_t count = 0;
  int64_t shift = 0;  // bytes prepended to the zip (a launcher script): add to stored offsets
};

// Reads the zip64 end record that the locator just before the classic end record points to.
std::optional<CentralLocation> locate_zip64(int fd, uint64_t eocd) {
  std::vector<uint8_t> b;
  if (eocd < 20 || !pread_all(fd, eocd - 20, 20, b) || le(b, 0, 4) != 0x07064b50) return {};
  uint64_t end64 = le(b, 8, 8);
  if (!pread_all(fd, end64, 56, b) || le(b, 0, 4) != 0x06064b50) return {};
  CentralLocation loc{0, le(b, 40, 8), le(b, 32, 8), 0};
  if (loc.size > end64) return {};
  loc.start = end64 - loc.size;
  loc.shift = static_cast<int64_t>(loc.start) - static_cast<int64_t>(le(b, 48, 8));
  return loc;
}

std::optional<CentralLocation> locate_central_directory(int fd, uint64_t file_size) {
  if (file_size < 22) return {};
  const uint64_t tail_len = std::min<uint64_t>(file_size, 22 + 0xFFFF);
  const uint64_t tail_start = file_size - tail_len;
  std::vector<uint8_t> tail;
  if (!pread_all(fd, tail_start, tail_len, tail)) return {};
  // The last end record whose comment fits in the file, as other readers pick it.
  for (size_t i = tail_len - 22 + 1; i-- > 0;) {
    if (le(tail, i, 4) != 0x06054b50 || i + 22 + le(tail, i + 20, 2) > tail_len) continue;
    uint64_t count = le(tail, i + 10, 2), size = le(tail, i + 12, 4), off = le(tail, i + 16, 4);
    if (count == 0xFFFF || size == 0xFFFFFFFF || off == 0xFFFFFFFF) {
      return locate_zip64(fd, tail_start + i);
    }
    uint64_t eocd = tail_start + i;
    if (size > eocd) return {};
    return CentralLocation{eocd - size, size, count,
                           static_cast<int64_t>(eocd - size) - static_cast<int64_t>(off)};
  }
  return {};
}

// The local header offset, from the zip64 extra field when the record holds 0xFFFFFFFF.
uint64_t local_offset_of(std::span<const uint8_t> rec, std::span<const uint8_t> extra) {
  uint64_t offset = le(rec, 42, 4);
  if (offset != 0xFFFFFFFF) return offset;
  for (size_t p = 0; p + 4 <= extra.size();) {
    uint64_t id = le(extra, p, 2), len = le(extra, p + 2, 2);
    if (p + 4 + len > extra.size()) break;
    if (id == 1) {
      size_t at = p + 4;
      if (le(rec, 24, 4) == 0xFFFFFFFF) at += 8;  // uncompressed size comes first
      if (le(rec, 20, 4) == 0xFFFFFFFF) at += 8;  // then the compressed size
      if (at + 8 <= p + 4 + len) return le(extra, at, 8);
    }
    p += 4 + len;
  }
  return offset;
}

std::vector<CentralRecord> parse_central_directory(int fd, const CentralLocation& loc) {
  std::vector<uint8_t> cd;
  if (!pread_all(fd, loc.start, loc.size, cd)) return {};
  std::vector<CentralRecord> out;
  size_t pos = 0;
  for (uint64_t i = 0; i < loc.count; ++i) {
    if (pos + 46 > cd.size() || le(cd, pos, 4) != 0x02014b50) return {};
    std::span<const uint8_t> rec(cd.data() + pos, 46);
    size_t name_len = le(rec, 28, 2), extra_len = le(rec, 30, 2), comment_len = le(rec, 32, 2);
    size_t total = 46 + name_len + extra_len + comment_len;
    if (pos + total > cd.size()) return {};
    std::span<const uint8_t> extra(cd.data() + pos + 46 + name_len, extra_len);
    DosTime t{static_cast<uint16_t>(le(rec, 12, 2)), static_cast<uint16_t>(le(rec, 14, 2))};
    uint64_t local = local_offset_of(rec, extra) + static_cast<uint64_t>(loc.shift);
    out.push_back({t, loc.start + pos, local});
    pos += total;
  }
  return out;
}

// Best effort: an empty result means "use libzip's view" (libzip reports real corruption).
std::vector<CentralRecord> read_central_records(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return {};
  std::vector<CentralRecord> out;
  struct stat st;
  if (::fstat(fd, &st) == 0) {
    if (auto loc = locate_central_directory(fd, static_cast<uint64_t>(st.st_size))) {
      out = parse_central_directory(fd, *loc);
    }
  }
  ::close(fd);
  return out;
}

// Writes one entry's DOS time into its central record and its local header.
bool write_dos_time(int fd, const CentralRecord& rec, DosTime t) {
  uint8_t b[4] = {static_cast<uint8_t>(t.time), static_cast<uint8_t>(t.time >> 8),
                  static_cast<uint8_t>(t.date), static_cast<uint8_t>(t.date >> 8)};
  return ::pwrite(fd, b, 4, static_cast<off_t>(rec.record_offset + 12)) == 4 &&
         ::pwrite(fd, b, 4, static_cast<off_t>(rec.local_offset + 10)) == 4;
}

// Rewrites the DOS time fields of written entries where libzip's time_t round trip lost them.
Status patch_mtimes(const std::string& path, const std::vector<DosTime>& wanted) {
  std::vector<CentralRecord> records = read_central_records(path);
  if (records.size() != wanted.size()) return file_error(path, "cannot re-read the written jar");
  int fd = -1;
  for (size_t i = 0; i < records.size(); ++i) {
    if (records[i].mtime == wanted[i]) continue;
    if (fd < 0) fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0 || !write_dos_time(fd, records[i], wanted[i])) {
      int err = errno;
      if (fd >= 0) ::close(fd);
      return file_error(path, "cannot set entry times: " + errno_text(err));
    }
  }
  if (fd >= 0 && ::close(fd) != 0) {
    return file_error(path, "cannot set entry times: " + errno_text(errno));
  }
  return Ok{};
}

DosTime dos_time_from(time_t t) {
  struct tm tm;
  if (::localtime_r(&t, &tm) == nullptr || tm.tm_year < 80) return DosTime{0, 0x21};  // 1980-01-01
  return DosTime{static_cast<uint16_t>(tm.tm_hour << 11 | tm.tm_min << 5 | tm.tm_sec / 2),
                 static_cast<uint16_t>((tm.tm_year - 80) << 9 | (tm.tm_mon + 1) << 5 | tm.tm_mday)};
}

// ---- Reading entries ----------------------------------------------------------------------

Status check_regular_file(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return file_error(path, errno_text(errno));
  if (S_ISDIR(st.st_mode)) return file_error(path, "is a directory, not a file");
  if (!S_ISREG(st.st_mode)) return file_error(path, "not a regular file");
  if (::access(path.c_str(), R_OK) != 0) return file_error(path, errno_text(errno));
  return Ok{};
}

Result<std::vector<JarEntry>> list_entries(zip_t* za, const std::string& path) {
  zip_int64_t n = zip_get_num_entries(za, 0);
  std::vector<CentralRecord> raw = read_central_records(path);
  if (raw.size() != static_cast<uint64_t>(n)) raw.clear();  // libzip disagrees: trust libzip
  std::vector<JarEntry> out;
  out.reserve(static_cast<size_t>(n));
  for (zip_uint64_t i = 0; i < static_cast<zip_uint64_t>(n); ++i) {
    zip_stat_t st;
    zip_stat_init(&st);
    if (zip_stat_index(za, i, ZIP_FL_ENC_RAW, &st) != 0) {
      return file_error(path, "entry #" + std::to_string(i) + ": " + archive_error_text(za));
    }
    JarEntry e;
    e.index = i;
    e.name = st.name ? st.name : "";
    e.size = st.size;
    e.compressed_size = st.comp_size;
    e.crc = st.crc;
    e.method = static_cast<uint16_t>(st.comp_method);
    e.mtime = raw.empty() ? dos_time_from(st.mtime) : raw[i].mtime;
    e.is_directory = !e.name.empty() && e.name.back() == '/';
    out.push_back(std::move(e));
  }
  return out;
}

// More than this in one entry is a zip bomb or a corrupt size, not a class or resource.
constexpr size_t kMaxEntryBytes = size_t{1} << 31;

// A jar with bytes prepended (a launcher script: Java reads such jars, libzip 1.7 does not),
// opened as the window after them, where its offsets count from; `prefix` gets their count.
// nullptr when the file is no such jar.
zip_t* open_past_prefix(const std::string& path, uint64_t& prefix) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return nullptr;
  struct stat st;
  std::optional<CentralLocation> loc;
  if (::fstat(fd, &st) == 0) loc = locate_central_directory(fd, static_cast<uint64_t>(st.st_size));
  ::close(fd);
  if (!loc || loc->shift <= 0) return nullptr;
  zip_error_t error;
  zip_error_init(&error);
  zip_source_t* source =
      zip_source_file_create(path.c_str(), static_cast<zip_uint64_t>(loc->shift), -1, &error);
  zip_t* za = source ? zip_open_from_source(source, ZIP_RDONLY, &error) : nullptr;
  if (za == nullptr && source) zip_source_free(source);
  zip_error_fini(&error);
  if (za != nullptr) prefix = static_cast<uint64_t>(loc->shift);
  return za;
}

// Bytes before the first entry of a jar that libzip opened whole: a launcher script prepended
// with the offsets adjusted to count from the file's start (`zip -A`), which libzip reads as
// it is. 0 when the file starts with an entry.
uint64_t leading_bytes(const std::string& path) {
  std::vector<uint8_t> head;
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  bool read = fd >= 0 && pread_all(fd, 0, 4, head);
  if (fd >= 0) ::close(fd);
  if (!read || le(head, 0, 4) == 0x04034b50) return 0;
  std::vector<CentralRecord> records = read_central_records(path);
  uint64_t first = UINT64_MAX;
  for (const CentralRecord& r : records) first = std::min(first, r.local_offset);
  return records.empty() ? 0 : first;
}

}  // namespace

// ---- JarReader ----------------------------------------------------------------------------

Result<JarReader> JarReader::open(const std::string& path) {
  if (auto ok = check_regular_file(path); !ok) return ok.error();
  int code = 0;
  zip_t* za = zip_open(path.c_str(), ZIP_RDONLY, &code);
  uint64_t prefix = 0;
  if (za == nullptr && (code == ZIP_ER_NOZIP || code == ZIP_ER_INCONS)) {
    za = open_past_prefix(path, prefix);
  } else if (za != nullptr) {
    prefix = leading_bytes(path);
  }
  if (za == nullptr) return file_error(path, open_error_text(code));
  std::shared_ptr<zip> owned(za, zip_discard);
  auto entries = list_entries(za, path);
  if (!entries) return entries.error();
  JarReader reader(path, std::move(owned), std::move(entries.value()));
  reader.prefix_ = prefix;
  return reader;
}

Result<std::vector<uint8_t>> JarReader::read_prefix() const {
  std::vector<uint8_t> out;
  int fd = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC);
  bool ok = fd >= 0 && pread_all(fd, 0, static_cast<size_t>(prefix_), out);
  if (fd >= 0) ::close(fd);
  if (!ok) return file_error(path_, "cannot read the bytes before the zip");
  return out;
}

Result<JarReader> JarReader::open_jmod(const std::string& path) {
  if (auto ok = check_regular_file(path); !ok) return ok.error();
  static constexpr uint8_t kMagic[] = {'J', 'M', 1, 0};
  uint8_t head[4] = {};
  std::FILE* f = std::fopen(path.c_str(), "rb");
  size_t got = f ? std::fread(head, 1, sizeof head, f) : 0;
  if (f) std::fclose(f);
  if (got != sizeof head || std::memcmp(head, kMagic, sizeof head) != 0)
    return file_error(path, "not a jmod (no JM header)");
  zip_error_t error;
  zip_error_init(&error);
  // The window after the header (length -1: to the end of the file) is the zip.
  zip_source_t* source = zip_source_file_create(path.c_str(), sizeof head, -1, &error);
  zip_t* za = source ? zip_open_from_source(source, ZIP_RDONLY, &error) : nullptr;
  if (za == nullptr) {
    if (source) zip_source_free(source);
    std::string why = zip_error_strerror(&error);
    zip_error_fini(&error);
    return file_error(path, "not a readable jmod: " + why);
  }
  zip_error_fini(&error);
  std::shared_ptr<zip> owned(za, zip_discard);
  auto entries = list_entries(za, path);
  if (!entries) return entries.error();
  return JarReader(path, std::move(owned), std::move(entries.value()));
}

const JarEntry* JarReader::find(std::string_view name) const {
  for (const JarEntry& e : entries_) {
    if (e.name == name) return &e;
  }
  return nullptr;
}

Result<std::vector<uint8_t>> JarReader::read(const JarEntry& entry) const {
  return read_with(entry, 0);
}

Result<std::vector<uint8_t>> JarReader::read_raw(const JarEntry& entry) const {
  return read_with(entry, ZIP_FL_COMPRESSED);
}

Result<std::vector<uint8_t>> JarReader::read_with(const JarEntry& entry, uint32_t flags) const {
  zip_file_t* f = zip_fopen_index(za_.get(), entry.index, flags);
  if (f == nullptr) return entry_error(path_, entry.name, archive_error_text(za_.get()));
  std::vector<uint8_t> out;
  uint8_t buf[1 << 16];
  for (;;) {
    // Read to the end even when the size is reached: libzip checks the CRC at end of data.
    zip_int64_t r = zip_fread(f, buf, sizeof buf);
    if (r < 0) {
      std::string why = zip_error_strerror(zip_file_get_error(f));
      zip_fclose(f);
      return entry_error(path_, entry.name, why);
    }
    if (r == 0) break;
    if (out.size() + static_cast<size_t>(r) > kMaxEntryBytes) {
      zip_fclose(f);
      return entry_error(path_, entry.name, "larger than 2 GiB");
    }
    out.insert(out.end(), buf, buf + r);
  }
  if (int rc = zip_fclose(f); rc != 0) return entry_error(path_, entry.name, zip_code_text(rc));
  uint64_t expected = (flags & ZIP_FL_COMPRESSED) ? entry.compressed_size : entry.size;
  if (out.size() != expected) {
    return entry_error(path_, entry.name,
                       "read " + std::to_string(out.size()) + " bytes, central directory says " +
                           std::to_string(expected));
  }
  return out;
}

}  // namespace duplex

namespace duplex {

std::string JarReader::archive_comment() const {
  int len = 0;
  const char* c = zip_get_archive_comment(za_.get(), &len, ZIP_FL_ENC_RAW);
  return c == nullptr || len <= 0 ? std::string() : std::string(c, static_cast<size_t>(len));
}

// ---- JarWriter ----------------------------------------------------------------------------

namespace {

// libzip frees the copy when it is done with it, possibly only at zip_close.
zip_source_t* buffer_source(zip_t* za, std::span<const uint8_t> data) {
  void* copy = nullptr;
  if (!data.empty()) {
    copy = std::malloc(data.size());
    if (copy == nullptr) return nullptr;
    std::memcpy(copy, data.data(), data.size());
  }
  zip_source_t* src = zip_source_buffer(za, copy, data.size(), 1);
  if (src == nullptr) std::free(copy);
  return src;
}

// Pre-deflated data for libzip: the stat reports it as deflated with a known CRC and size,
// so zip_close copies it as it is (no recompression, no CRC pass).
struct DeflatedSource {
  DeflatedData data;
  size_t pos = 0;
  zip_error_t error;
};

zip_int64_t deflated_source_callback(void* state, void* out, zip_uint64_t len,
                                     zip_source_cmd_t cmd) {
  auto* s = static_cast<DeflatedSource*>(state);
  switch (cmd) {
    case ZIP_SOURCE_OPEN:
      s->pos = 0;
      return 0;
    case ZIP_SOURCE_READ: {
      size_t n = std::min<size_t>(len, s->data.compressed.size() - s->pos);
      if (n > 0) std::memcpy(out, s->data.compressed.data() + s->pos, n);
      s->pos += n;
      return static_cast<zip_int64_t>(n);
    }
    case ZIP_SOURCE_CLOSE:
      return 0;
    case ZIP_SOURCE_STAT: {
      if (len < sizeof(zip_stat_t)) {
        zip_error_set(&s->error, ZIP_ER_INVAL, 0);
        return -1;
      }
      auto* st = static_cast<zip_stat_t*>(out);
      zip_stat_init(st);
      st->valid = ZIP_STAT_SIZE | ZIP_STAT_COMP_SIZE | ZIP_STAT_CRC | ZIP_STAT_COMP_METHOD |
                  ZIP_STAT_ENCRYPTION_METHOD;
      st->size = s->data.size;
      st->comp_size = s->data.compressed.size();
      st->crc = s->data.crc;
      st->comp_method = ZIP_CM_DEFLATE;
      st->encryption_method = ZIP_EM_NONE;
      return sizeof(zip_stat_t);
    }
    case ZIP_SOURCE_ERROR:
      return zip_error_to_data(&s->error, out, len);
    case ZIP_SOURCE_FREE:
      zip_error_fini(&s->error);
      delete s;
      return 0;
    case ZIP_SOURCE_SUPPORTS:
      return ZIP_SOURCE_SUPPORTS_READABLE;
    default:
      zip_error_set(&s->error, ZIP_ER_OPNOTSUPP, 0);
      return -1;
  }
}

zip_source_t* deflated_source(zip_t* za, DeflatedData data) {
  auto* s = new DeflatedSource{std::move(data), 0, {}};
  zip_error_init(&s->error);
  zip_source_t* src = zip_source_function(za, deflated_source_callback, s);
  if (src == nullptr) {
    zip_error_fini(&s->error);
    delete s;
  }
  return src;
}

// An archive with no entries: libzip would delete the file instead of writing one.
Status write_empty_zip(const std::string& path) {
  const uint8_t eocd[22] = {0x50, 0x4b, 0x05, 0x06};
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  if (fd < 0) return file_error(path, errno_text(errno));
  bool ok = write_all(fd, eocd);
  if (::close(fd) != 0) ok = false;
  return ok ? Status(Ok{}) : Status(file_error(path, "write failed: " + errno_text(errno)));
}

}  // namespace

Result<JarWriter> JarWriter::create(const std::string& dest) {
  if (dest.empty()) return Error::plain("jar writer: empty destination path");
  std::string dir = std::filesystem::path(dest).parent_path().string();
  if (dir.empty()) dir = ".";
  struct stat st;
  if (::stat(dir.c_str(), &st) != 0)
    return file_error(dest, "directory " + dir + " does not exist");
  if (!S_ISDIR(st.st_mode)) return file_error(dest, dir + " is not a directory");
  // libzip only touches the disk at commit; fail now rather than after all the work.
  if (::access(dir.c_str(), W_OK) != 0) return file_error(dest, "cannot write to " + dir);
  if (::stat(dest.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
    return file_error(dest, "is a directory");
  for (int attempt = 0; attempt < 16; ++attempt) {
    std::string temp = temp_name_for(dest);
    int code = 0;
    zip_t* za = zip_open(temp.c_str(), ZIP_CREATE | ZIP_EXCL, &code);
    if (za != nullptr) return JarWriter(dest, temp, za);
    if (code != ZIP_ER_EXISTS)
      return file_error(dest, "cannot start " + temp + ": " + zip_code_text(code));
  }
  return file_error(dest, "cannot pick a temporary file name");
}

JarWriter::JarWriter(JarWriter&& o) noexcept
    : dest_(std::move(o.dest_)),
      temp_(std::exchange(o.temp_, {})),
      za_(std::exchange(o.za_, nullptr)),
      written_(std::move(o.written_)),
      sources_(std::move(o.sources_)) {}

JarWriter& JarWriter::operator=(JarWriter&& o) noexcept {
  if (this != &o) {
    abort();
    dest_ = std::move(o.dest_);
    temp_ = std::exchange(o.temp_, {});
    za_ = std::exchange(o.za_, nullptr);
    written_ = std::move(o.written_);
    sources_ = std::move(o.sources_);
  }
  return *this;
}

JarWriter::~JarWriter() {
  abort();
}

Error JarWriter::fail(std::string_view entry, std::string_view what) const {
  return entry_error(dest_, entry, what);
}

Status JarWriter::copy(const JarReader& from, const JarEntry& entry) {
  if (za_ == nullptr) return file_error(dest_, "jar writer is already committed or aborted");
  // Whole-entry ZIP_FL_COMPRESSED: libzip copies the stored bytes without recompressing.
  zip_source_t* src = zip_source_zip(za_, from.za_.get(), entry.index, ZIP_FL_COMPRESSED, 0, -1);
  if (src == nullptr) return fail(entry.name, archive_error_text(za_));
  // Left unset, the method is taken from the raw data (so even methods libzip cannot write
  // survive); stored data must be marked stored or libzip would deflate it.
  auto index = add_source(entry.name, src, entry.method, entry.mtime, entry.method == kZipStored);
  if (!index) return index.error();
  keep_source(from);
  return drop_on_failure(*index, copy_metadata(*index, from, entry));
}

Status JarWriter::replace(const JarReader& from, const JarEntry& entry,
                          std::span<const uint8_t> data) {
  if (za_ == nullptr) return file_error(dest_, "jar writer is already committed or aborted");
  zip_source_t* src = buffer_source(za_, data);
  if (src == nullptr) return fail(entry.name, archive_error_text(za_));
  auto index = add_source(entry.name, src, entry.method, entry.mtime, true);
  if (!index) return index.error();
  return drop_on_failure(*index, copy_metadata(*index, from, entry));
}

Status JarWriter::replace_deflated(const JarReader& from, const JarEntry& entry,
                                   DeflatedData data) {
  if (za_ == nullptr) return file_error(dest_, "jar writer is already committed or aborted");
  if (entry.method != kZipDeflated) return fail(entry.name, "pre-deflated data for a stored entry");
  zip_source_t* src = deflated_source(za_, std::move(data));
  if (src == nullptr) return fail(entry.name, archive_error_text(za_));
  auto index = add_source(entry.name, src, kZipDeflated, entry.mtime, true);
  if (!index) return index.error();
  return drop_on_failure(*index, copy_metadata(*index, from, entry));
}

Status JarWriter::put(std::string_view name, std::span<const uint8_t> data,
                      std::optional<DosTime> mtime) {
  if (za_ == nullptr) return file_error(dest_, "jar writer is already committed or aborted");
  zip_source_t* src = buffer_source(za_, data);
  if (src == nullptr) return fail(name, archive_error_text(za_));
  zip_int64_t existing = zip_name_locate(za_, std::string(name).c_str(), ZIP_FL_ENC_RAW);
  if (existing >= 0 && written_[static_cast<size_t>(existing)].mtime) {
    auto index = static_cast<uint64_t>(existing);
    if (zip_file_replace(za_, index, src, 0) != 0) {
      zip_source_free(src);
      return fail(name, archive_error_text(za_));
    }
    if (mtime) written_[index].mtime = *mtime;
    return set_method(index, written_[index].method);
  }
  DosTime when = mtime.value_or(dos_time_from(std::time(nullptr)));
  auto index = add_source(name, src, kZipDeflated, when, true);
  if (!index) return index.error();
  return drop_on_failure(*index, set_file_attributes(*index, name));
}

Status JarWriter::put_deflated(std::string_view name, DeflatedData data, DosTime mtime) {
  if (za_ == nullptr) return file_error(dest_, "jar writer is already committed or aborted");
  zip_source_t* src = deflated_source(za_, std::move(data));
  if (src == nullptr) return fail(name, archive_error_text(za_));
  auto index = add_source(name, src, kZipDeflated, mtime, true);
  if (!index) return index.error();
  return drop_on_failure(*index, set_file_attributes(*index, name));
}

// Unix permissions as `jar` tools write them: rw-r--r-- files, rwxr-xr-x directories.
Status JarWriter::set_file_attributes(uint64_t index, std::string_view name) {
  bool dir = name.ends_with('/');
  zip_uint32_t attr = dir ? (040755u << 16 | 0x10) : (0100644u << 16);
  if (zip_file_set_external_attributes(za_, index, 0, ZIP_OPSYS_UNIX, attr) != 0) {
    return fail(name, archive_error_text(za_));
  }
  return Ok{};
}

Status JarWriter::set_archive_comment(std::string_view comment) {
  if (za_ == nullptr) return file_error(dest_, "jar writer is already committed or aborted");
  if (comment.size() > 0xFFFF) return file_error(dest_, "archive comment longer than 65535 bytes");
  if (zip_set_archive_comment(za_, comment.data(), static_cast<zip_uint16_t>(comment.size())) !=
      0) {
    return file_error(dest_, archive_error_text(za_));
  }
  return Ok{};
}

Result<uint64_t> JarWriter::add_source(std::string_view name, zip_source* src, uint16_t method,
                                       DosTime mtime, bool set) {
  std::string n(name);
  if (n.empty() || n.find('\0') != std::string::npos) {
    zip_source_free(src);
    return fail(name, "invalid entry name (empty or containing NUL)");
  }
  zip_int64_t index = zip_file_add(za_, n.c_str(), src, ZIP_FL_ENC_GUESS);
  if (index < 0) {
    zip_source_free(src);
    bool dup = zip_error_code_zip(zip_get_error(za_)) == ZIP_ER_EXISTS;
    std::string why = dup ? "duplicate entry name (libzip cannot write two entries of one name)"
                          : archive_error_text(za_);
    zip_error_clear(za_);
    return fail(name, why);
  }
  auto i = static_cast<uint64_t>(index);
  written_.resize(std::max<size_t>(written_.size(), i + 1));
  written_[i] = Written{mtime, method};
  Status st = set ? set_method(i, method) : Status(Ok{});
  // libzip stores the time as time_t; commit() fixes any DOS value that does not round-trip.
  if (st && zip_file_set_dostime(za_, i, mtime.time, mtime.date, 0) != 0) {
    st = fail(name, archive_error_text(za_));
  }
  if (auto dropped = drop_on_failure(i, st); !dropped) return dropped.error();
  return i;
}

// Methods libzip cannot compress with fall back to deflate: new data must be written somehow.
Status JarWriter::set_method(uint64_t index, uint16_t method) {
  zip_int32_t m = zip_compression_method_supported(method, 1) ? method : ZIP_CM_DEFLATE;
  written_[index].method = static_cast<uint16_t>(m);
  // Deflate at kJarDeflateLevel (libzip's default is 9: slower for about 1% smaller output).
  zip_uint32_t level = m == ZIP_CM_DEFLATE ? kJarDeflateLevel : 0;
  if (zip_set_file_compression(za_, index, m, level) != 0) {
    return fail(zip_get_name(za_, index, ZIP_FL_ENC_RAW), archive_error_text(za_));
  }
  return Ok{};
}

Status JarWriter::copy_metadata(uint64_t index, const JarReader& from, const JarEntry& entry) {
  zip_t* src = from.za_.get();
  auto broke = [&](zip_t* which) { return fail(entry.name, archive_error_text(which)); };
  zip_uint8_t opsys = 0;
  zip_uint32_t attr = 0;
  if (zip_file_get_external_attributes(src, entry.index, 0, &opsys, &attr) != 0) return broke(src);
  if (zip_file_set_external_attributes(za_, index, 0, opsys, attr) != 0) return broke(za_);
  // libzip hides the fields it manages itself (zip64, Info-ZIP unicode); the rest are copied.
  for (zip_flags_t where : {ZIP_FL_LOCAL, ZIP_FL_CENTRAL}) {
    zip_int16_t count = zip_file_extra_fields_count(src, entry.index, where);
    if (count < 0) return broke(src);
    for (zip_uint16_t k = 0; k < static_cast<zip_uint16_t>(count); ++k) {
      zip_uint16_t id = 0, len = 0;
      const zip_uint8_t* data = zip_file_extra_field_get(src, entry.index, k, &id, &len, where);
      if (data == nullptr && len != 0) return broke(src);
      if (zip_file_extra_field_set(za_, index, id, ZIP_EXTRA_FIELD_NEW, data, len, where) != 0) {
        return broke(za_);
      }
    }
  }
  zip_uint32_t len = 0;
  const char* comment = zip_file_get_comment(src, entry.index, &len, ZIP_FL_ENC_RAW);
  if (comment != nullptr && len > 0 &&
      zip_file_set_comment(za_, index, comment, static_cast<zip_uint16_t>(len), 0) != 0) {
    return broke(za_);
  }
  return Ok{};
}

// A half-configured entry is removed so a caller may skip it and carry on.
Status JarWriter::drop_on_failure(uint64_t index, Status status) {
  if (!status) {
    zip_delete(za_, index);
    written_[index].mtime.reset();
  }
  return status;
}

void JarWriter::keep_source(const JarReader& from) {
  if (std::find(sources_.begin(), sources_.end(), from.za_) == sources_.end()) {
    sources_.push_back(from.za_);
  }
}

Status JarWriter::close_archive() {
  std::vector<DosTime> wanted;
  for (const Written& w : written_) {
    if (w.mtime) wanted.push_back(*w.mtime);
  }
  if (wanted.empty()) {
    zip_discard(std::exchange(za_, nullptr));
    return write_empty_zip(temp_);
  }
  if (zip_close(za_) != 0) {
    std::string why = archive_error_text(za_);
    zip_discard(std::exchange(za_, nullptr));
    return file_error(dest_, "writing the jar failed: " + why);
  }
  za_ = nullptr;
  return patch_mtimes(temp_, wanted);
}

Status JarWriter::commit() {
  if (za_ == nullptr) return file_error(dest_, "jar writer is already committed or aborted");
  Status closed = close_archive();
  if (!closed) {
    abort();
    return closed;
  }
  if (!prefix_.empty()) {
    if (Status s = prepend_to_file(temp_, dest_, prefix_); !s) {
      abort();
      return s;
    }
  }
  keep_mode(temp_, permissions_of_.empty() ? dest_ : permissions_of_);
  if (::rename(temp_.c_str(), dest_.c_str()) != 0) {
    Error e = file_error(dest_, "cannot move " + temp_ + " into place: " + errno_text(errno));
    abort();
    return e;
  }
  temp_.clear();
  abort();  // releases the sources; nothing left to delete
  return Ok{};
}

void JarWriter::abort() {
  if (za_ != nullptr) zip_discard(std::exchange(za_, nullptr));
  if (!temp_.empty()) ::unlink(std::exchange(temp_, {}).c_str());
  written_.clear();
  sources_.clear();
}

DeflatedData deflate_data(std::span<const uint8_t> data, int level) {
  DeflatedData out;
  out.size = data.size();
  out.crc = static_cast<uint32_t>(
      crc32_z(crc32_z(0, nullptr, 0), data.data(), static_cast<z_size_t>(data.size())));
  z_stream zs{};
  // Raw deflate (no zlib header), as zip stores it, with zlib's default window and memory.
  if (deflateInit2(&zs, level, Z_DEFLATED, -MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
    throw std::bad_alloc();
  }
  out.compressed.resize(deflateBound(&zs, static_cast<uLong>(data.size())));
  zs.next_in = const_cast<Bytef*>(data.data());
  zs.avail_in = static_cast<uInt>(data.size());
  zs.next_out = out.compressed.data();
  zs.avail_out = static_cast<uInt>(out.compressed.size());
  int rc = deflate(&zs, Z_FINISH);
  out.compressed.resize(zs.total_out);
  deflateEnd(&zs);
  if (rc != Z_STREAM_END) throw std::runtime_error("deflate failed");
  return out;
}

// ---- Entry names --------------------------------------------------------------------------

namespace {

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

bool istarts_with(std::string_view s, std::string_view prefix) {
  return s.size() >= prefix.size() && iequals(s.substr(0, prefix.size()), prefix);
}

bool iends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && iequals(s.substr(s.size() - suffix.size()), suffix);
}

}  // namespace

bool is_class_entry(std::string_view name) {
  return name.ends_with(".class");
}

VersionedName split_versioned(std::string_view name) {
  constexpr std::string_view kPrefix = "META-INF/versions/";
  if (!name.starts_with(kPrefix)) return {0, name};
  std::string_view rest = name.substr(kPrefix.size());
  size_t slash = rest.find('/');
  // Nine digits at most keeps the number in an int; real releases have two.
  if (slash == 0 || slash == std::string_view::npos || slash > 9 || slash + 1 == rest.size()) {
    return {0, name};
  }
  int release = 0;
  for (char c : rest.substr(0, slash)) {
    if (c < '0' || c > '9') return {0, name};
    release = release * 10 + (c - '0');
  }
  if (release == 0) return {0, name};
  return {release, rest.substr(slash + 1)};
}

bool is_signature_file(std::string_view name) {
  if (!istarts_with(name, "META-INF/")) return false;
  std::string_view file = name.substr(9);
  if (file.empty() || file.find('/') != std::string_view::npos) return false;
  if (istarts_with(file, "SIG-")) return true;
  for (std::string_view ext : {".SF", ".RSA", ".DSA", ".EC"}) {
    if (file.size() > ext.size() && iends_with(file, ext)) return true;
  }
  return false;
}

// ---- Manifest -----------------------------------------------------------------------------

namespace {

// Physical lines with their terminators (CRLF, LF or CR, as the manifest spec allows).
std::vector<std::string_view> split_lines(std::string_view text) {
  std::vector<std::string_view> lines;
  size_t start = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '\n' && text[i] != '\r') continue;
    size_t end = (text[i] == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ? i + 2 : i + 1;
    lines.push_back(text.substr(start, end - start));
    start = end;
    i = end - 1;
  }
  if (start < text.size()) lines.push_back(text.substr(start));
  return lines;
}

bool is_blank(std::string_view line) {
  return line.empty() || line[0] == '\r' || line[0] == '\n';
}

// One section's lines, minus digest attributes (with their continuation lines). Empty when
// nothing but the Name would be left.
std::string strip_section(std::span<const std::string_view> lines) {
  std::string kept;
  bool keep = false, has_other = false;
  for (std::string_view line : lines) {
    if (line[0] != ' ') {  // a new attribute; continuations start with one space
      std::string_view attr = line.substr(0, line.find(':'));
      keep = !iends_with(attr, "-Digest");
      if (keep && !iequals(attr, "Name")) has_other = true;
    }
    if (keep) kept += line;
  }
  return has_other ? kept : std::string();
}

}  // namespace

std::string strip_manifest_digests(std::string_view manifest) {
  std::vector<std::string_view> lines = split_lines(manifest);
  std::string out;
  size_t i = 0;
  for (; i < lines.size() && !is_blank(lines[i]); ++i) out += lines[i];  // the main section
  while (i < lines.size()) {
    if (is_blank(lines[i])) {
      out += lines[i++];
      continue;
    }
    size_t end = i;
    while (end < lines.size() && !is_blank(lines[end])) ++end;
    std::string kept = strip_section(std::span(lines).subspan(i, end - i));
    out += kept;
    // A dropped section takes its separating blank line with it.
    i = (kept.empty() && end < lines.size()) ? end + 1 : end;
  }
  return out;
}

// ---- Plain files and directories ----------------------------------------------------------

Result<std::vector<uint8_t>> read_file(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return file_error(path, errno_text(errno));
  struct stat st;
  if (::fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
    ::close(fd);
    return file_error(path, "is a directory, not a file");
  }
  std::vector<uint8_t> out;
  uint8_t buf[1 << 16];
  for (;;) {
    // Read to end of file rather than trusting st_size (files may change or be special).
    ssize_t r = ::read(fd, buf, sizeof buf);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) {
      int err = errno;
      ::close(fd);
      return file_error(path, "read failed: " + errno_text(err));
    }
    if (r == 0) break;
    out.insert(out.end(), buf, buf + r);
  }
  ::close(fd);
  return out;
}

Status write_file_atomic(const std::string& path, std::span<const uint8_t> data) {
  std::filesystem::path parent = std::filesystem::path(path).parent_path();
  std::error_code ec;
  if (!parent.empty()) std::filesystem::create_directories(parent, ec);
  if (ec)
    return file_error(path, "cannot create directory " + parent.string() + ": " + ec.message());
  std::string temp;
  int fd = -1;
  for (int attempt = 0; attempt < 16 && fd < 0; ++attempt) {
    temp = temp_name_for(path);
    fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0 && errno != EEXIST)
      return file_error(path, "cannot create temporary file: " + errno_text(errno));
  }
  if (fd < 0) return file_error(path, "cannot pick a temporary file name");
  bool ok = write_all(fd, data);
  int err = errno;
  if (::close(fd) != 0 && ok) {
    ok = false;
    err = errno;
  }
  keep_mode(temp, path);
  if (ok && ::rename(temp.c_str(), path.c_str()) == 0) return Ok{};
  if (ok) err = errno;
  ::unlink(temp.c_str());
  return file_error(path, "write failed: " + errno_text(err));
}

Result<std::vector<std::string>> list_files(const std::string& root) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(root, ec)) {
    return file_error(root, ec ? ec.message() : std::string("not a directory"));
  }
  std::vector<std::string> out;
  fs::recursive_directory_iterator it(root, ec), end;
  for (; !ec && it != end; it.increment(ec)) {
    std::error_code type_ec;
    if (!it->is_regular_file(type_ec)) continue;  // follows symlinks; skips dirs, fifos, ...
    out.push_back(it->path().lexically_relative(root).generic_string());
  }
  if (ec) return file_error(root, "cannot list: " + ec.message());
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace duplex
