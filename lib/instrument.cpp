#include "duplex/instrument.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <unordered_map>
#include <unordered_set>

#include "classfile/archive.h"
#include "classfile/class_file.h"
#include "classfile/class_index.h"

namespace duplex {
namespace {

namespace fs = std::filesystem;

// Dotted class name from an entry path: META-INF/versions/11/a/B.class -> a.B
std::string dotted_name_of(std::string_view entry) {
  std::string_view path = split_versioned(entry).path;
  if (path.size() > 6) path.remove_suffix(6);  // ".class"
  std::string name(path);
  for (char& c : name) {
    if (c == '/') c = '.';
  }
  return name;
}

// A short category for a fallback reason, so that summaries group alike methods.
std::string reason_category(const std::string& reason) {
  static const std::pair<const char*, const char*> kCategories[] = {
      {"HugeMethodLimit", "would pass HugeMethodLimit (8000 bytes)"},
      {"65535", "would pass the 65535-byte code limit"},
      {"jsr/ret", "jsr/ret subroutines"},
      {"uninitialized", "uninitialized object across a crossing"},
      {"inlining size", "kept within an inlining size"},
      {"no instrumentation sites", "no instrumentation sites"},
      {"cannot read the code", "unreadable code"},
  };
  for (const auto& [needle, category] : kCategories) {
    if (reason.find(needle) != std::string::npos) return category;
  }
  return reason.size() > 80 ? reason.substr(0, 80) + "..." : reason;
}

bool is_jar_name(std::string_view name) {
  return name.size() > 4 &&
         (name.substr(name.size() - 4) == ".jar" || name.substr(name.size() - 4) == ".JAR");
}

// A temporary file path, removed by the destructor.
class TempFile {
 public:
  TempFile() {
    std::string templ = (fs::temp_directory_path() / "duplex-nested-XXXXXX").string();
    int fd = mkstemp(templ.data());
    if (fd >= 0) {
      close(fd);
      path_ = templ;
    }
  }
  ~TempFile() {
    std::error_code ec;
    if (!path_.empty()) fs::remove(path_, ec);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// What rewriting one class gave, computed without touching shared state (so on any thread)
// and applied to the summary on the calling thread, in input order.
struct ClassOutcome {
  std::optional<Error> fatal;  // stops the whole run (unreadable entry, already rewritten)
  bool refused = false;        // the fatal error is the rewriter's "already rewritten"
  bool excluded = false;
  std::optional<std::string> failure;   // the rewriter's error: the class is copied unchanged
  std::optional<ClassRewrite> rewrite;  // its bytes moved to `bytes` or `deflated`
  bool changed = false;
  uint64_t bytes_before = 0;
  std::vector<uint8_t> bytes;  // the class to write: rewritten, or the input when unchanged
  std::optional<DeflatedData> deflated;       // the rewritten class, deflated ahead of time
  std::vector<uint8_t> twin_class;            // RewriteOptions::lazy_twins: written beside it
  std::optional<DeflatedData> twin_deflated;  // the twin class, deflated ahead of time
};

// Where the twin class of the class at `entry` goes: beside it ("a/B.class" ->
// "a/B$DuplexTwins.class"), in the same jar or directory and the same multi-release version.
std::string twin_entry_of(std::string_view entry) {
  std::string_view stem = entry.substr(0, entry.size() - std::string_view(".class").size());
  return std::string(stem) + kTwinClassSuffix + ".class";
}

// Lazy twins assume that the loader defining a class finds its twin class beside it, as a
// class-path loader does for an entry at the path the class's name gives (in a fat jar's or a
// war's class directory too). A class stored elsewhere is read and defined by a loader of its
// own (Jython's compiled modules under Lib/), which may ask its parent for the twin class and
// get it in another runtime package, where the class may not call it: its twins stay.
bool stored_under_its_name(std::string_view entry, std::string_view class_name) {
  std::string_view path = split_versioned(entry).path;
  for (std::string_view dir : {"", "BOOT-INF/classes/", "WEB-INF/classes/"}) {
    if (path.size() == dir.size() + class_name.size() + 6 && path.starts_with(dir) &&
        path.substr(dir.size(), class_name.size()) == class_name && path.ends_with(".class"))
      return true;
  }
  return false;
}

constexpr std::string_view kModuleInfo = "module-info.class";

// The entry names of the jar or directory being rewritten, and whether a release of a
// multi-release jar holds a module-info.class (noted as the names are added, so that no class
// has to look for one).
class EntryNames {
 public:
  void insert(std::string_view name) {
    names_.insert(name);
    const VersionedName v = split_versioned(name);
    versioned_module_info_ = versioned_module_info_ || (v.release != 0 && v.path == kModuleInfo);
  }
  bool contains(std::string_view name) const { return names_.contains(name); }
  bool versioned_module_info() const { return versioned_module_info_; }

 private:
  std::unordered_set<std::string_view> names_;
  bool versioned_module_info_ = false;
};

// Why the twin class of the class at `entry`, named `class_name`, cannot be written beside it,
// or nullopt (a reason without ':', as RewriteOptions::twin_class_veto asks).
std::optional<std::string> twin_class_refused(std::string_view entry, std::string_view class_name,
                                              bool entry_is_class_path, const EntryNames* names) {
  if (entry_is_class_path && !stored_under_its_name(entry, class_name))
    return "its entry is not at the path its name gives (a loader of its own may not find a "
           "twin class beside it)";
  if (names && names->contains(twin_entry_of(entry)))
    return "the input holds a class of its twin class's name already";
  return std::nullopt;
}

// RewriteOptions::in_named_module: whether the class at `entry`, named `class_name`, has a
// module-info.class where its packages start (a jar's root, or a module's directory in a tree
// of them; for a jar, in any release of a multi-release jar too). On the module path such a
// class is in a named module; anywhere else the prologue it gets does nothing.
bool beside_module_info(std::string_view entry, std::string_view class_name,
                        const EntryNames* names) {
  if (!names) return false;  // a class file on its own: nothing says where its packages start
  std::string root;          // where the packages start: the jar's root for a versioned entry
  if (split_versioned(entry).release == 0) {
    const std::string stem = std::string(class_name) + ".class";
    if (!entry.ends_with(stem)) return false;
    root = entry.substr(0, entry.size() - stem.size());
  }
  if (root.empty() && names->versioned_module_info()) return true;
  return names->contains(root + std::string(kModuleInfo));
}

// rewrite_class, with what only the class's place says, decided by the rewriter once it knows
// the class's name, so the class is rewritten once: whether its twins may leave it (a twin class
// beside it) and whether it may run in a named module.
Result<ClassRewrite> rewrite_at(std::string_view entry, std::span<const uint8_t> bytes,
                                const RewriteOptions& options, bool entry_is_class_path,
                                const EntryNames* names) {
  if (!names && !options.lazy_twins) return duplex::rewrite_class(bytes, options);
  RewriteOptions at_entry = options;
  if (options.lazy_twins) {
    at_entry.twin_class_veto = [&](std::string_view class_name) {
      return twin_class_refused(entry, class_name, entry_is_class_path, names);
    };
  }
  if (!options.in_named_module) {  // the caller's own answer wins
    at_entry.in_named_module = [&](std::string_view class_name) {
      return beside_module_info(entry, class_name, names);
    };
  }
  return duplex::rewrite_class(bytes, at_entry);
}

ClassOutcome compute_class(std::string_view entry, std::vector<uint8_t> bytes,
                           const InstrumentOptions& options, bool deflate, bool entry_is_class_path,
                           const EntryNames* names) {
  ClassOutcome out;
  if (!class_selected(dotted_name_of(entry), options)) {
    out.excluded = true;
    out.bytes = std::move(bytes);
    return out;
  }
  auto rewritten = rewrite_at(entry, bytes, options.rewrite, entry_is_class_path, names);
  if (!rewritten) {
    if (rewritten.error().reason.find("already rewritten") != std::string::npos) {
      out.fatal = rewritten.error();
      out.refused = true;
    } else {
      out.failure = rewritten.error().message();
    }
    out.bytes = std::move(bytes);
    return out;
  }
  out.changed = rewritten->changed;
  out.bytes_before = bytes.size();
  if (out.changed) {
    out.bytes = std::move(rewritten->bytes);
    rewritten->bytes = {};
    out.twin_class = std::move(rewritten->twin_class);
    rewritten->twin_class = {};
    if (deflate) {
      out.deflated = deflate_data(out.bytes, options.deflate_level);
      out.bytes = {};
      if (!out.twin_class.empty()) {
        out.twin_deflated = deflate_data(out.twin_class, options.deflate_level);
        out.twin_class = {};
      }
    }
  } else {
    out.bytes = std::move(bytes);
  }
  out.rewrite = std::move(rewritten.value());
  return out;
}

unsigned effective_jobs(unsigned jobs) {
  if (jobs != 0) return jobs;
  unsigned hw = std::thread::hardware_concurrency();
  return hw == 0 ? 1 : hw;
}

// Rewrites the class entries of one jar on worker threads, each with its own reader (libzip
// handles are not thread-safe), in entry order; the caller takes the outcomes in that order.
// Workers run at most kRunAheadPerThread classes per thread ahead of the caller, so the
// outcomes waiting in memory stay bounded however large the jar.
class ClassPool {
  static constexpr size_t kRunAheadPerThread = 32;

 public:
  ClassPool(const std::string& jar, const std::vector<JarEntry>& entries, const EntryNames& names,
            std::vector<size_t> classes, const InstrumentOptions& options, unsigned threads)
      : jar_(jar),
        entries_(entries),
        names_(names),
        classes_(std::move(classes)),
        options_(options),
        slots_(classes_.size()),
        run_ahead_(kRunAheadPerThread * std::max(1u, threads)) {
    size_t n = std::min<size_t>(threads, classes_.size());
    for (size_t t = 0; t < n; ++t) workers_.emplace_back([this] { work(); });
  }
  ~ClassPool() {
    {
      std::lock_guard lock(mutex_);
      stop_ = true;
    }
    room_.notify_all();
    for (std::thread& t : workers_) t.join();
  }

  // The outcome of the k-th class entry; waits for it.
  ClassOutcome take(size_t k) {
    std::unique_lock lock(mutex_);
    ready_.wait(lock, [&] { return slots_[k].has_value(); });
    ClassOutcome out = std::move(*slots_[k]);
    slots_[k].reset();
    taken_ = k + 1;
    lock.unlock();
    room_.notify_all();
    return out;
  }

 private:
  void work() {
    std::optional<JarReader> reader;
    std::optional<Error> open_error;
    for (size_t k; !stop_ && (k = next_++) < classes_.size();) {
      if (!wait_for_room(k)) return;
      const JarEntry& e = entries_[classes_[k]];
      ClassOutcome out;
      // The same file opened again lists the same entries in the same order.
      if (!reader && !open_error) {
        auto r = JarReader::open(jar_);
        if (r) {
          reader = std::move(r.value());
        } else {
          open_error = r.error();
        }
      }
      if (open_error) {
        out.fatal = *open_error;
      } else if (classes_[k] >= reader->entries().size()) {
        out.fatal = Error::plain(jar_ + ": changed while being read");
      } else if (auto bytes = reader->read(reader->entries()[classes_[k]]); !bytes) {
        out.fatal = bytes.error();
      } else {
        out = compute_class(e.name, std::move(bytes.value()), options_, e.method == kZipDeflated,
                            true, &names_);
      }
      {
        std::lock_guard lock(mutex_);
        slots_[k] = std::move(out);
      }
      ready_.notify_all();
    }
  }

  // Class k may start once the caller has taken all but run_ahead_ of the classes before it.
  // The class the caller waits for always may, so this never deadlocks. False: stopping.
  bool wait_for_room(size_t k) {
    std::unique_lock lock(mutex_);
    room_.wait(lock, [&] { return stop_ || k < taken_ + run_ahead_; });
    return !stop_;
  }

  const std::string& jar_;
  const std::vector<JarEntry>& entries_;
  const EntryNames& names_;
  const std::vector<size_t> classes_;  // indices into entries_
  const InstrumentOptions& options_;
  std::vector<std::optional<ClassOutcome>> slots_;
  std::mutex mutex_;
  std::condition_variable ready_;
  std::condition_variable room_;
  size_t taken_ = 0;  // classes the caller has taken (guarded by mutex_)
  const size_t run_ahead_;
  std::atomic<size_t> next_{0};
  std::atomic<bool> stop_{false};
  std::vector<std::thread> workers_;
};

class PathInstrumenter {
 public:
  explicit PathInstrumenter(const InstrumentOptions& options)
      : options_(options), jobs_(effective_jobs(options.jobs)) {}

  Result<InstrumentSummary> run(const std::string& input, const std::string& output) {
    auto start = std::chrono::steady_clock::now();
    std::error_code ec;
    if (!fs::exists(input, ec)) return Error::plain(input + ": no such file or directory");
    if (fs::absolute(input, ec) == fs::absolute(output, ec)) {
      return Error::plain(output + ": the output must differ from the input");
    }
    // A jmod is a zip behind a header of its own, and the JDK's modules load from the runtime
    // image, not from jmods: rewriting one would change nothing that runs.
    if (input.ends_with(".jmod") && !fs::is_directory(input, ec)) {
      return Error::plain(input +
                          ": a JDK module (.jmod) cannot be rewritten offline; the agent rewrites "
                          "JDK classes as they load (jdk=true, runtime/agent/README.md)");
    }
    if (options_.rewrite.lazy_twins && !options_.rewrite.class_index) {
      if (auto s = build_class_index(input); !s) return s.error();
    }
    Status status = Ok{};
    if (fs::is_directory(input, ec)) {
      status = rewrite_directory(input, output);
    } else if (input.ends_with(".class")) {
      status = rewrite_class_file(input, output);
    } else {
      total_ = 0;
      status = rewrite_jar(input, output);
    }
    if (!status) return status.error();
    summary_.seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return summary_;
  }

 private:
  // The lazy twins' class index: the input (with the jars it holds: those are rewritten too),
  // the class path, then the JDK's superclasses of them all. An unreadable class-path entry is
  // an error (the user named it); a JDK without jmods is a note (classes extending JDK
  // classes then keep their twins).
  Status build_class_index(const std::string& input) {
    index_ = std::make_unique<ClassIndex>();
    if (auto s = index_input(input, 0); !s) return s;
    for (const std::string& p : options_.class_path) {
      if (auto s = index_->add_path(p, jobs_); !s)
        return Error::plain("class path: " + s.error().message());
    }
    std::optional<std::string> home =
        options_.java_home.empty() ? default_java_home() : std::optional(options_.java_home);
    if (!home) {
      summary_.index_notes.push_back(
          "no JDK found (JAVA_HOME unset, no java on PATH): classes extending JDK classes keep "
          "their twins");
    } else if (auto jdk = JdkClasses::open(*home); !jdk) {
      summary_.index_notes.push_back("no JDK classes: " + jdk.error().message() +
                                     "; classes extending JDK classes keep their twins");
    } else {
      add_jdk_superclasses(*index_, *jdk);
    }
    summary_.index_classes = index_->size();
    options_.rewrite.class_index = index_.get();
    return Ok{};
  }

  // Adds `path` to the index, and the jars inside it as rewrite_tree and rewrite_nested_jar
  // find them (a jar in a directory, a jar in a jar), `depth` levels down already.
  Status index_input(const std::string& path, int depth) {
    constexpr int kMaxNesting = 8;  // deeper than any real fat jar; a zip quine stops here
    if (auto s = index_->add_path(path, jobs_); !s) return s;
    std::error_code ec;
    if (depth >= kMaxNesting) return Ok{};
    if (fs::is_directory(path, ec)) {
      auto files = list_files(path);
      if (!files) return files.error();
      for (const std::string& f : *files) {
        if (!is_jar_name(f)) continue;
        if (auto s = index_input((fs::path(path) / f).string(), depth + 1); !s) return s;
      }
      return Ok{};
    }
    if (path.ends_with(".class")) return Ok{};  // a single class input holds no jar
    auto jar = JarReader::open(path);
    if (!jar) return jar.error();
    for (const JarEntry& e : jar->entries()) {
      if (e.is_directory || !is_jar_name(e.name)) continue;
      auto bytes = jar->read(e);
      if (!bytes) return bytes.error();
      TempFile nested;
      if (nested.path().empty()) return Error::plain("cannot create a temp file");
      if (auto s = write_file_atomic(nested.path(), *bytes); !s) return s;
      if (auto s = index_input(nested.path(), depth + 1); !s)
        return Error::plain(path + "!/" + e.name + ": " + s.error().message());
    }
    return Ok{};
  }

  // Rewrites one class; on any failure but "already rewritten" the original bytes stay.
  // `entry`: the path under a directory, or a single class file's name (nothing to check).
  Result<ClassOutcome> rewrite_one(const std::string& where, std::string_view entry,
                                   std::vector<uint8_t> bytes, bool entry_is_class_path,
                                   const EntryNames* names) {
    ClassOutcome out =
        compute_class(entry, std::move(bytes), options_, false, entry_is_class_path, names);
    if (auto s = apply(where, out); !s) return s.error();
    return out;
  }

  // The class, and its twin class beside it when its twins left (lazy twins), named after the
  // twin class (a single class may be written under another name than its own). The twin class
  // goes first, so that a class calling its twin class is never left without it.
  Status write_class_files(const std::string& to, const ClassOutcome& out) {
    if (out.twin_class.empty() || !out.rewrite) return write_file_atomic(to, out.bytes);
    const std::string& name = out.rewrite->twin_class_name;
    std::string simple = name.substr(name.rfind('/') + 1);  // npos + 1 == 0
    std::string twin_path = (fs::path(to).parent_path() / (simple + ".class")).string();
    if (auto s = write_file_atomic(twin_path, out.twin_class); !s) return s;
    Status s = write_file_atomic(to, out.bytes);
    std::error_code ec;
    if (!s) fs::remove(twin_path, ec);
    return s;
  }

  // Counts one class into the summary and runs the callbacks; fails on a fatal outcome.
  Status apply(const std::string& where, ClassOutcome& out) {
    ++summary_.classes_seen;
    report_progress();
    if (out.fatal) {
      if (out.refused) return Error::plain(where + ": " + out.fatal->message());
      return *out.fatal;
    }
    if (out.excluded) {
      ++summary_.classes_excluded;
      ++summary_.classes_unchanged;
      return Ok{};
    }
    if (out.failure) {
      summary_.failures.push_back({where, std::move(*out.failure)});
      return Ok{};
    }
    record_methods(*out.rewrite);
    if (options_.on_class) options_.on_class(where, *out.rewrite);
    if (!out.changed) {
      ++summary_.classes_unchanged;
      return Ok{};
    }
    ++summary_.classes_rewritten;
    summary_.class_bytes_before += out.bytes_before;
    summary_.class_bytes_after +=
        out.deflated ? out.deflated->size : static_cast<uint64_t>(out.bytes.size());
    summary_.class_bytes_after +=
        out.twin_deflated ? out.twin_deflated->size : out.twin_class.size();
    summary_.twin_classes += out.twin_deflated || !out.twin_class.empty();
    return Ok{};
  }

  void record_methods(const ClassRewrite& r) {
    summary_.twins_moved += r.twins_moved;
    summary_.serial_versions_declared += r.serial_version_declared;
    for (const auto& [why, n] : r.twins_kept) summary_.twins_kept_by_reason[why] += n;
    for (const MethodReport& m : r.methods) {
      ++summary_.methods_by_transform[transform_name(m.applied)];
      bool fell_back = m.applied != m.requested && options_.rewrite.mode != Mode::kAuto;
      if (fell_back && !m.reason.empty()) ++summary_.fallbacks_by_reason[reason_category(m.reason)];
    }
  }

  void report_progress() {
    if (options_.progress) options_.progress(summary_.classes_seen, total_);
  }

  Status rewrite_class_file(const std::string& input, const std::string& output) {
    auto bytes = read_file(input);
    if (!bytes) return bytes.error();
    // The file the user named must be a class file. (Inside a jar or a directory, an entry
    // that is not one is copied as it is: the JVM meets it there just the same.)
    if (bytes->empty()) return Error::plain(input + ": empty file, not a class file");
    if (auto parsed = ClassFile::parse(*bytes); !parsed)
      return Error::plain(input + ": " + parsed.error().message());
    total_ = 1;
    auto out = rewrite_one(input, fs::path(input).filename().string(), std::move(bytes.value()),
                           false, nullptr);
    if (!out) return out.error();
    return write_class_files(output, out.value());
  }

  Status rewrite_directory(const std::string& input, const std::string& output) {
    std::error_code ec;
    if (fs::exists(output, ec) && !fs::is_empty(output, ec)) {
      return Error::plain(output + ": the output directory exists and is not empty");
    }
    auto files = list_files(input);
    if (!files) return files.error();
    for (const std::string& f : files.value()) total_ += is_class_entry(f);
    // Build next to the destination, then rename, so a failure leaves nothing behind.
    std::string staging = output + ".duplex-tmp";
    fs::remove_all(staging, ec);
    Status s = rewrite_tree(input, staging, files.value());
    if (s) {
      fs::remove(output, ec);  // an empty directory, if any
      fs::rename(staging, output, ec);
      if (ec) s = Error::plain(output + ": cannot move the output into place: " + ec.message());
    }
    if (!s) fs::remove_all(staging, ec);
    return s;
  }

  Status rewrite_tree(const std::string& input, const std::string& staging,
                      const std::vector<std::string>& files) {
    EntryNames names;
    for (const std::string& f : files) names.insert(f);
    for (const std::string& rel : files) {
      std::string from = (fs::path(input) / rel).string();
      std::string to = (fs::path(staging) / rel).string();
      Status s = Ok{};
      if (is_class_entry(rel)) {
        auto bytes = read_file(from);
        if (!bytes) return bytes.error();
        auto out = rewrite_one(from, rel, std::move(bytes.value()), true, &names);
        if (!out) return out.error();
        s = write_class_files(to, out.value());
      } else if (is_jar_name(rel)) {
        fs::create_directories(fs::path(to).parent_path());
        s = rewrite_jar(from, to);
      } else {
        auto bytes = read_file(from);
        if (!bytes) return bytes.error();
        s = write_file_atomic(to, bytes.value());
      }
      if (!s) return s;
    }
    return Ok{};
  }

  // Entries whose name a later entry of the archive repeats. The JVM reads the last entry of a
  // name (java.util.zip looks names up from the end), and libzip cannot write two entries of
  // one name: the earlier ones are left out (Debian's kotlin-compiler.jar repeats ten
  // directory entries).
  static std::vector<bool> superseded_entries(const std::vector<JarEntry>& entries) {
    std::vector<bool> superseded(entries.size(), false);
    std::unordered_map<std::string_view, size_t> last;
    for (size_t i = 0; i < entries.size(); ++i) {
      auto [it, fresh] = last.try_emplace(entries[i].name, i);
      if (!fresh) superseded[it->second] = true, it->second = i;
    }
    return superseded;
  }

  Status rewrite_jar(const std::string& input, const std::string& output) {
    auto reader = JarReader::open(input);
    if (!reader) return reader.error();
    bool signed_jar = false;
    std::vector<size_t> classes;  // the class entries, rewritten ahead on the pool's threads
    const std::vector<JarEntry>& entries = reader->entries();
    const std::vector<bool> superseded = superseded_entries(entries);
    for (size_t i = 0; i < entries.size(); ++i) {
      const JarEntry& e = entries[i];
      if (superseded[i]) continue;
      total_ += is_class_entry(e.name);
      signed_jar = signed_jar || is_signature_file(e.name);
      if (!e.is_directory && is_class_entry(e.name)) classes.push_back(i);
    }
    EntryNames names;
    for (const JarEntry& e : entries) names.insert(e.name);
    auto writer = JarWriter::create(output);
    if (!writer) return writer.error();
    if (reader->prefix_size() > 0) {  // a launcher script before the jar: the output keeps it
      auto prefix = reader->read_prefix();
      if (!prefix) return prefix.error();
      writer->set_prefix(std::move(prefix.value()));
      writer->set_permissions_of(input);  // an executable jar stays one
      ++summary_.launcher_prefixes_kept;
    }
    // One job: everything on this thread, entry by entry (the same outcomes, in the same order).
    std::optional<ClassPool> pool;
    if (jobs_ > 1 && classes.size() > 1) {
      pool.emplace(reader->path(), entries, names, classes, options_, jobs_);
    }
    size_t next_class = 0;
    for (size_t i = 0; i < entries.size(); ++i) {
      const JarEntry& e = entries[i];
      if (superseded[i]) {
        ++summary_.duplicate_entries_dropped;
        continue;
      }
      std::optional<ClassOutcome> outcome;
      if (!e.is_directory && is_class_entry(e.name)) {
        if (pool) {
          outcome = pool->take(next_class);
        } else if (auto bytes = reader->read(e); !bytes) {
          outcome.emplace().fatal = bytes.error();
        } else {
          outcome = compute_class(e.name, std::move(bytes.value()), options_,
                                  e.method == kZipDeflated, true, &names);
        }
        ++next_class;
      }
      if (auto s = rewrite_entry(reader.value(), writer.value(), e, signed_jar, outcome); !s) {
        writer->abort();
        return s;
      }
    }
    return writer->commit();
  }

  Status rewrite_entry(const JarReader& reader, JarWriter& writer, const JarEntry& e,
                       bool signed_jar, std::optional<ClassOutcome>& outcome) {
    std::string where = reader.path() + "!/" + e.name;
    if (e.is_directory) return writer.copy(reader, e);
    if (signed_jar && is_signature_file(e.name)) {
      ++summary_.signature_files_removed;
      return Ok{};
    }
    if (signed_jar && e.name == "META-INF/MANIFEST.MF") {
      auto bytes = reader.read(e);
      if (!bytes) return bytes.error();
      std::string text(bytes->begin(), bytes->end());
      std::string stripped = strip_manifest_digests(text);
      return writer.replace(
          reader, e,
          std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(stripped.data()),
                                   stripped.size()));
    }
    if (outcome) {
      if (auto s = apply(where, *outcome); !s) return s;
      if (!outcome->changed) return writer.copy(reader, e);
      Status s = outcome->deflated
                     ? writer.replace_deflated(reader, e, std::move(*outcome->deflated))
                     : writer.replace(reader, e, outcome->bytes);
      if (!s) return s;
      if (outcome->twin_deflated)
        return writer.put_deflated(twin_entry_of(e.name), std::move(*outcome->twin_deflated),
                                   e.mtime);
      if (outcome->twin_class.empty()) return Ok{};
      return writer.put(twin_entry_of(e.name), outcome->twin_class, e.mtime);
    }
    if (is_jar_name(e.name)) return rewrite_nested_jar(reader, writer, e);
    return writer.copy(reader, e);
  }

  Status rewrite_nested_jar(const JarReader& reader, JarWriter& writer, const JarEntry& e) {
    auto bytes = reader.read(e);
    if (!bytes) return bytes.error();
    TempFile in, out;
    if (in.path().empty() || out.path().empty()) return Error::plain("cannot create a temp file");
    if (auto s = write_file_atomic(in.path(), bytes.value()); !s) return s;
    ++summary_.nested_jars;
    Status s = rewrite_jar(in.path(), out.path());
    if (!s) return Error::plain(reader.path() + "!/" + e.name + ": " + s.error().message());
    auto rewritten = read_file(out.path());
    if (!rewritten) return rewritten.error();
    return writer.replace(reader, e, rewritten.value());
  }

  InstrumentOptions options_;  // a copy: build_class_index sets rewrite.class_index
  std::unique_ptr<ClassIndex> index_;
  const unsigned jobs_;
  InstrumentSummary summary_;
  size_t total_ = 0;
};

}  // namespace

bool glob_match(std::string_view pattern, std::string_view text) {
  size_t p = 0, t = 0, star = std::string_view::npos, mark = 0;
  while (t < text.size()) {
    if (p < pattern.size() && (pattern[p] == '?' || pattern[p] == text[t])) {
      ++p;
      ++t;
    } else if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      mark = t;
    } else if (star != std::string_view::npos) {
      p = star + 1;
      t = ++mark;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

bool class_selected(std::string_view dotted_name, const InstrumentOptions& options) {
  for (const std::string& g : options.exclude) {
    if (glob_match(g, dotted_name)) return false;
  }
  if (options.include.empty()) return true;
  for (const std::string& g : options.include) {
    if (glob_match(g, dotted_name)) return true;
  }
  return false;
}

Result<InstrumentSummary> instrument_path(const std::string& input, const std::string& output,
                                          const InstrumentOptions& options) {
  return PathInstrumenter(options).run(input, output);
}

}  // namespace duplex
