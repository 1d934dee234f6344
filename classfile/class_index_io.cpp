// Where a class index's classes come from: jars, jmods, directories and the JDK's jmods
// (classfile/class_index.h). Kept apart from the index itself, which needs no libzip.
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <system_error>
#include <thread>

#include "classfile/archive.h"
#include "classfile/class_index.h"

namespace duplex {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kJmodClasses = "classes/";
constexpr std::string_view kClassSuffix = ".class";

// Adds the class entries of an open jar or jmod (`prefix`: where classes start in it) whose
// position among them is `part` modulo `parts`.
Status add_archive_part(ClassIndex& index, const JarReader& archive, std::string_view prefix,
                        unsigned part, unsigned parts) {
  size_t k = 0;
  for (const JarEntry& e : archive.entries()) {
    if (e.is_directory || !is_class_entry(e.name) || e.name.rfind(prefix, 0) != 0) continue;
    if (k++ % parts != part) continue;
    auto bytes = archive.read(e);
    if (!bytes) return bytes.error();
    index.add(*bytes);
  }
  return Ok{};
}

// Every class entry of the jar or jmod at `path`, inflated and parsed on up to `threads`
// threads (one per 256 classes at most), each with its own reader (libzip handles are not
// thread-safe).
Status add_archive(ClassIndex& index, const std::string& path, bool jmod, unsigned threads) {
  auto open = [&] { return jmod ? JarReader::open_jmod(path) : JarReader::open(path); };
  std::string_view prefix = jmod ? kJmodClasses : "";
  auto first = open();
  if (!first) return first.error();
  size_t classes = std::count_if(first->entries().begin(), first->entries().end(),
                                 [](const JarEntry& e) { return is_class_entry(e.name); });
  threads = static_cast<unsigned>(std::clamp<size_t>(classes / 256, 1, std::max(1u, threads)));
  std::vector<ClassIndex> parts(threads);
  std::vector<Status> status(threads, Ok{});
  auto work = [&](unsigned t) {
    if (t == 0) return void(status[0] = add_archive_part(parts[0], *first, prefix, 0, threads));
    auto archive = open();
    status[t] = archive ? add_archive_part(parts[t], *archive, prefix, t, threads)
                        : Status(archive.error());
  };
  std::vector<std::thread> workers;
  for (unsigned t = 1; t < threads; ++t) workers.emplace_back(work, t);
  work(0);
  for (std::thread& w : workers) w.join();
  for (unsigned t = 0; t < threads; ++t) {
    if (!status[t]) return status[t];
    index.merge(std::move(parts[t]));
  }
  return Ok{};
}

}  // namespace

Status ClassIndex::add_path(const std::string& path, unsigned threads) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) {
    auto files = list_files(path);
    if (!files) return files.error();
    for (const std::string& f : *files) {
      if (!is_class_entry(f)) continue;
      auto bytes = read_file((fs::path(path) / f).string());
      if (!bytes) return bytes.error();
      add(*bytes);
    }
    return Ok{};
  }
  if (path.ends_with(".jmod")) {
    return add_archive(*this, path, /*jmod=*/true, threads);
  }
  if (path.ends_with(kClassSuffix)) {
    auto bytes = read_file(path);
    if (!bytes) return bytes.error();
    if (!add(*bytes)) return Error::plain(path + ": not a readable class file");
    return Ok{};
  }
  return add_archive(*this, path, /*jmod=*/false, threads);
}

// ---------------------------------------------------------------------------------------------

struct JdkClasses::Modules {
  std::string java_home;
  std::vector<std::string> others;  // jmods besides java.base, opened on a first miss
  JarReader base;
  mutable std::vector<JarReader> opened;
  mutable bool others_opened = false;
};

JdkClasses::JdkClasses(std::unique_ptr<Modules> modules) : modules_(std::move(modules)) {}
JdkClasses::JdkClasses(JdkClasses&&) noexcept = default;
JdkClasses& JdkClasses::operator=(JdkClasses&&) noexcept = default;
JdkClasses::~JdkClasses() = default;

Result<JdkClasses> JdkClasses::open(const std::string& java_home) {
  fs::path dir = fs::path(java_home) / "jmods";
  auto base = JarReader::open_jmod((dir / "java.base.jmod").string());
  if (!base) return base.error();
  std::vector<std::string> others;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    std::string p = e.path().string();
    if (p.ends_with(".jmod") && e.path().filename() != "java.base.jmod") others.push_back(p);
  }
  std::sort(others.begin(), others.end());
  return JdkClasses(std::unique_ptr<Modules>(
      new Modules{java_home, std::move(others), std::move(*base), {}, false}));
}

const std::string& JdkClasses::java_home() const {
  return modules_->java_home;
}

std::optional<std::vector<uint8_t>> JdkClasses::read(std::string_view internal_name) const {
  std::string entry = std::string(kJmodClasses) + std::string(internal_name) + ".class";
  auto read_from = [&](const JarReader& jmod) -> std::optional<std::vector<uint8_t>> {
    const JarEntry* e = jmod.find(entry);
    if (!e) return std::nullopt;
    auto bytes = jmod.read(*e);
    if (!bytes) return std::nullopt;
    return std::move(bytes.value());
  };
  if (auto found = read_from(modules_->base)) return found;
  if (!modules_->others_opened) {
    modules_->others_opened = true;
    for (const std::string& p : modules_->others) {
      // A jmod that cannot be read is as good as absent: its classes stay unknown.
      if (auto jmod = JarReader::open_jmod(p)) modules_->opened.push_back(std::move(*jmod));
    }
  }
  for (const JarReader& jmod : modules_->opened) {
    if (auto found = read_from(jmod)) return found;
  }
  return std::nullopt;
}

std::optional<std::string> default_java_home() {
  if (const char* home = std::getenv("JAVA_HOME"); home && *home) return std::string(home);
  const char* path = std::getenv("PATH");
  if (!path) return std::nullopt;
  std::string_view dirs(path);
  while (!dirs.empty()) {
    size_t colon = dirs.find(':');
    std::string_view dir = dirs.substr(0, colon);
    dirs = colon == std::string_view::npos ? std::string_view{} : dirs.substr(colon + 1);
    if (dir.empty()) continue;
    std::error_code ec;
    fs::path java = fs::canonical(fs::path(dir) / "java", ec);
    if (!ec) return java.parent_path().parent_path().string();  // HOME/bin/java
  }
  return std::nullopt;
}

size_t add_jdk_superclasses(ClassIndex& index, const JdkClasses& jdk) {
  // The superclass names the index lacks, until none is left (or the JDK has none of them).
  std::set<std::string> tried;
  size_t added = 0;
  for (bool progress = true; progress;) {
    progress = false;
    std::vector<std::string> missing;
    for (const auto& name : index.missing_superclasses()) {
      if (tried.insert(name).second) missing.push_back(name);
    }
    for (const std::string& name : missing) {
      auto bytes = jdk.read(name);
      if (bytes && index.add(*bytes)) ++added, progress = true;
    }
  }
  return added;
}

}  // namespace duplex
