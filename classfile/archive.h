// Jar, directory and plain-file I/O for the class-file layer (jars through libzip).
//
// Reading never modifies an input jar (it is opened read-only). Writing goes to a temporary
// file next to the destination and is renamed into place on commit, so readers of the
// destination never see a half-written file. Every failure is an Error whose reason names the
// file and, where one applies, the entry: "h2.jar: entry org/h2/Foo.class: CRC error".
//
// Nothing here is thread-safe: use one JarReader / JarWriter per thread.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "classfile/error.h"

struct zip;         // libzip's archive handle (zip_t)
struct zip_source;  // libzip's data source (zip_source_t)

namespace duplex {

// Zip compression methods the rewriter cares about (others are copied through untouched).
inline constexpr uint16_t kZipStored = 0;
inline constexpr uint16_t kZipDeflated = 8;

// The deflate level for entries duplex writes: zlib's default, which on class files gives
// output within about 1% of level 9 at well under half the time.
inline constexpr int kJarDeflateLevel = 6;

// Entry data deflated ahead of time (raw deflate, as zip stores it), so the expensive part
// of writing a jar can run on any thread; JarWriter::replace_deflated adds it as it is.
struct DeflatedData {
  std::vector<uint8_t> compressed;
  uint64_t size = 0;  // uncompressed
  uint32_t crc = 0;   // of the uncompressed bytes
};

// Deflates `data` with zlib at `level`. Thread-safe; the output depends only on the input
// and the level (and the zlib build), never on the thread or the time.
DeflatedData deflate_data(std::span<const uint8_t> data, int level = kJarDeflateLevel);

// A modification time exactly as a zip header stores it (MS-DOS format, local time, 2 s steps).
struct DosTime {
  uint16_t time = 0;  // hour << 11 | minute << 5 | second / 2
  uint16_t date = 0;  // (year - 1980) << 9 | month << 5 | day
  friend bool operator==(const DosTime&, const DosTime&) = default;
};

// One central-directory record of a jar.
struct JarEntry {
  uint64_t index = 0;  // position in the central directory
  std::string name;    // raw bytes as stored (jars use UTF-8); duplicates are possible
  uint64_t size = 0;   // uncompressed
  uint64_t compressed_size = 0;
  uint32_t crc = 0;
  uint16_t method = kZipStored;
  DosTime mtime;
  bool is_directory = false;  // name ends with '/'
};

// A jar opened read-only. Cheap to move; copies share the open archive.
class JarReader {
 public:
  // Fails with a clear Error for a missing, unreadable, corrupt, truncated or non-zip file.
  static Result<JarReader> open(const std::string& path);
  // A JDK jmod: a zip behind a 4-byte "JM\1\0" header, its offsets counted from the zip's
  // start. Its classes are the entries under "classes/".
  static Result<JarReader> open_jmod(const std::string& path);

  const std::string& path() const { return path_; }
  // In central-directory order.
  const std::vector<JarEntry>& entries() const { return entries_; }
  // The archive comment (raw bytes), empty if none.
  std::string archive_comment() const;
  // The first entry with this exact name, or nullptr.
  const JarEntry* find(std::string_view name) const;
  // The uncompressed bytes, CRC-checked. `entry` must come from entries().
  Result<std::vector<uint8_t>> read(const JarEntry& entry) const;
  // The stored (still compressed) bytes, exactly as they sit in the file.
  Result<std::vector<uint8_t>> read_raw(const JarEntry& entry) const;
  // Bytes before the zip's first entry, which Java skips: a launcher script prepended to make
  // the jar an executable (Spring Boot's "fully executable" jars), with the zip's offsets
  // counted from its own start or adjusted to the file's. 0 for a plain jar.
  uint64_t prefix_size() const { return prefix_; }
  // Those bytes.
  Result<std::vector<uint8_t>> read_prefix() const;

 private:
  friend class JarWriter;
  JarReader(std::string path, std::shared_ptr<zip> za, std::vector<JarEntry> entries)
      : path_(std::move(path)), za_(std::move(za)), entries_(std::move(entries)) {}
  Result<std::vector<uint8_t>> read_with(const JarEntry& entry, uint32_t flags) const;

  std::string path_;
  std::shared_ptr<zip> za_;  // shared so a JarWriter can keep it open until commit
  std::vector<JarEntry> entries_;
  uint64_t prefix_ = 0;
};

// Writes a new jar. Entries appear in the order they are added. Nothing is visible at the
// destination until commit(); abort() or destruction without commit leaves no file behind.
// libzip cannot write two entries with the same name: adding a duplicate fails.
class JarWriter {
 public:
  static Result<JarWriter> create(const std::string& destination);
  JarWriter(JarWriter&& other) noexcept;
  JarWriter& operator=(JarWriter&& other) noexcept;
  ~JarWriter();

  // Copies an entry byte-identically: the compressed data is copied raw, and the name, method,
  // mtime, external attributes, extra fields and comment are kept. The compressed data is not
  // re-verified (read() the entry first if that matters).
  Status copy(const JarReader& from, const JarEntry& entry);
  // Writes `data` under the entry's name with the entry's method, mtime, attributes, extra
  // fields and comment (the rewrite of one entry of `from`).
  Status replace(const JarReader& from, const JarEntry& entry, std::span<const uint8_t> data);
  // As replace, with the data already deflated (deflate_data): stored as given, with no
  // compression at commit. Only for an entry whose method is kZipDeflated.
  Status replace_deflated(const JarReader& from, const JarEntry& entry, DeflatedData data);
  // Adds `data` as `name`, deflated, with `mtime` (default: now). If this writer already holds
  // an entry of that name, its data is replaced in place, keeping its position, method and
  // mtime (unless `mtime` is given).
  Status put(std::string_view name, std::span<const uint8_t> data,
             std::optional<DosTime> mtime = std::nullopt);
  // Adds a new entry `name` with data already deflated (deflate_data), stored as given, with
  // `mtime` and put's file attributes. Fails on a name the writer already holds.
  Status put_deflated(std::string_view name, DeflatedData data, DosTime mtime);

  // Writes the jar and renames it onto the destination. The writer is finished afterwards.
  Status commit();
  // Discards everything written; safe to call more than once.
  void abort();

  // Sets the archive comment (a jar with no entries gets none).
  Status set_archive_comment(std::string_view comment);
  // Bytes written before the zip at commit (JarReader::read_prefix's: a launcher script).
  void set_prefix(std::vector<uint8_t> bytes) { prefix_ = std::move(bytes); }
  // At commit the jar gets the permissions of the file at `path` (an executable jar's execute
  // bits) instead of those of the file it replaces, before it is moved into place.
  void set_permissions_of(std::string path) { permissions_of_ = std::move(path); }

  const std::string& destination() const { return dest_; }
  // Where the jar is written before commit; empty once committed or aborted.
  const std::string& temp_path() const { return temp_; }

 private:
  struct Written {
    std::optional<DosTime> mtime;  // empty once the entry was dropped after a failure
    uint16_t method = kZipDeflated;
  };

  JarWriter(std::string dest, std::string temp, zip* za)
      : dest_(std::move(dest)), temp_(std::move(temp)), za_(za) {}
  Result<uint64_t> add_source(std::string_view name, zip_source* data, uint16_t method,
                              DosTime mtime, bool set_method);
  Status set_method(uint64_t index, uint16_t method);
  Status set_file_attributes(uint64_t index, std::string_view name);
  Status copy_metadata(uint64_t index, const JarReader& from, const JarEntry& entry);
  Status drop_on_failure(uint64_t index, Status status);
  Status close_archive();
  void keep_source(const JarReader& from);
  Error fail(std::string_view entry, std::string_view what) const;

  std::string dest_;
  std::string temp_;
  zip* za_ = nullptr;
  std::vector<Written> written_;               // by libzip index
  std::vector<std::shared_ptr<zip>> sources_;  // readers whose data is copied at commit
  std::vector<uint8_t> prefix_;
  std::string permissions_of_;  // empty: keep the replaced file's
};

// True for names ending in ".class", including module-info.class and versioned classes.
bool is_class_entry(std::string_view name);

// A multi-release jar name "META-INF/versions/N/path" split into N and path. Other names
// give release 0 and the whole name.
struct VersionedName {
  int release = 0;
  std::string_view path;
};
VersionedName split_versioned(std::string_view name);

// True for the jar signature files directly in META-INF/: *.SF, *.RSA, *.DSA, *.EC, SIG-*
// (case-insensitive, as the JDK checks them). MANIFEST.MF is not one.
bool is_signature_file(std::string_view name);

// The manifest with every "*-Digest" attribute removed from its per-entry sections; sections
// left with only their Name are dropped. The main section and all other bytes are kept.
std::string strip_manifest_digests(std::string_view manifest);

// Reads a whole plain file (a .class input, say).
Result<std::vector<uint8_t>> read_file(const std::string& path);

// Writes a file atomically (temp file + rename), creating missing parent directories.
Status write_file_atomic(const std::string& path, std::span<const uint8_t> data);

// The regular files under `root`, relative to it with '/' separators, sorted bytewise.
// Symlinks to files are listed; symlinked directories are not entered.
Result<std::vector<std::string>> list_files(const std::string& root);

}  // namespace duplex
