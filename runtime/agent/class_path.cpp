#include "runtime/agent/class_path.h"

#include <sys/stat.h>

#include <algorithm>
#include <cstdint>

namespace duplex::agent {
namespace {

constexpr std::string_view kManifest = "META-INF/MANIFEST.MF";
constexpr std::string_view kClassSuffix = ".class";

bool is_directory(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

bool is_regular_file(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

bool equals_ignoring_case(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return (x | 0x20) == (y | 0x20);
         });
}

// "org/h2/Driver.class" -> "org/h2/Driver"; "" for module-info and package-info, which no
// loader defines as classes, and for anything else that is not a class's file.
std::string class_name_of(std::string_view path) {
  if (!path.ends_with(kClassSuffix)) return {};
  std::string_view name = path.substr(0, path.size() - kClassSuffix.size());
  if (name.empty() || name.ends_with("module-info") || name.ends_with("package-info")) return {};
  return std::string(name);
}

std::string directory_of(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? std::string(".") : path.substr(0, slash);
}

std::string manifest_of(const JarReader& jar) {
  const JarEntry* e = jar.find(kManifest);
  if (!e) return {};
  auto bytes = jar.read(*e);
  return bytes ? std::string(bytes->begin(), bytes->end()) : std::string();
}

// `text` cut at every `separator`, empty fields included ("a::b" -> "a", "", "b").
std::vector<std::string_view> split_fields(std::string_view text, char separator) {
  std::vector<std::string_view> out;
  size_t i = 0;
  for (size_t end; (end = text.find(separator, i)) != std::string_view::npos; i = end + 1) {
    out.push_back(text.substr(i, end - i));
  }
  out.push_back(text.substr(i));
  return out;
}

// The jars a manifest's Class-Path names (space-separated URLs relative to the jar's
// directory); only plain relative or absolute paths, as the application loader reads them.
std::vector<std::string> manifest_class_path(const std::string& manifest, const std::string& jar) {
  std::vector<std::string> out;
  std::string value = manifest_attribute(manifest, "Class-Path");
  for (std::string_view url : split_fields(value, ' ')) {
    if (url.empty() || url.find(':') != std::string::npos) continue;  // file: and other schemes
    out.push_back(url[0] == '/' ? std::string(url) : directory_of(jar) + "/" + std::string(url));
  }
  return out;
}

}  // namespace

std::string manifest_attribute(std::string_view manifest, std::string_view name) {
  std::string value;
  bool in_value = false;
  for (std::string_view line : split_fields(manifest, '\n')) {
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) break;  // the main section ends at the first blank line
    if (line[0] == ' ') {     // a continuation of the previous line
      if (in_value) value.append(line.substr(1));
      continue;
    }
    if (in_value) break;
    size_t colon = line.find(": ");
    if (colon != std::string_view::npos && equals_ignoring_case(line.substr(0, colon), name)) {
      value.assign(line.substr(colon + 2));
      in_value = true;
    }
  }
  return value;
}

ClassPath ClassPath::index(std::string_view class_path, int release) {
  ClassPath cp;
  std::vector<std::string> pending;
  for (std::string_view element : split_fields(class_path, ':')) {
    pending.emplace_back(element.empty() ? std::string_view(".") : element);
  }
  // In class-path order; a manifest's Class-Path comes right after its jar's turn (the
  // application loader appends them as it opens each jar, which is close enough for a guess).
  std::reverse(pending.begin(), pending.end());
  while (!pending.empty()) {
    std::string path = std::move(pending.back());
    pending.pop_back();
    cp.add_element(path, release, pending);
  }
  return cp;
}

void ClassPath::add_element(const std::string& path, int release,
                            std::vector<std::string>& pending) {
  if (std::find(seen_paths_.begin(), seen_paths_.end(), path) != seen_paths_.end()) return;
  seen_paths_.push_back(path);
  if (is_directory(path)) {
    add_directory(path);
    return;
  }
  if (!is_regular_file(path)) return;
  auto jar = JarReader::open(path);
  if (jar) add_jar(std::move(jar.value()), release, pending);
}

void ClassPath::add_jar(JarReader jar, int release, std::vector<std::string>& pending) {
  std::string manifest = manifest_of(jar);
  bool multi_release = equals_ignoring_case(manifest_attribute(manifest, "Multi-Release"), "true");
  size_t archive = jars_.size();
  jars_.push_back(std::make_unique<JarReader>(std::move(jar)));
  const JarReader& j = *jars_.back();
  std::unordered_map<std::string, int> chosen_release;  // this jar's names
  for (const JarEntry& e : j.entries()) {
    if (e.is_directory) continue;
    VersionedName v = split_versioned(e.name);
    if (v.release != 0 && (!multi_release || v.release > release)) continue;
    std::string name = class_name_of(v.path);
    if (name.empty()) continue;
    // -1: an earlier class-path element holds the name, whatever versions this jar has.
    auto [it, fresh] = chosen_release.emplace(name, where_.count(name) ? -1 : v.release);
    if (it->second < 0 || (!fresh && it->second >= v.release)) continue;
    it->second = v.release;
    where_[name] = Place{archive, &e, {}};
  }
  std::vector<std::string> more = manifest_class_path(manifest, j.path());
  pending.insert(pending.end(), more.rbegin(), more.rend());
}

void ClassPath::add_directory(const std::string& root) {
  auto files = list_files(root);
  if (!files) return;
  for (const std::string& f : *files) {
    std::string name = class_name_of(f);
    if (!name.empty() && !where_.count(name))
      where_[name] = Place{SIZE_MAX, nullptr, root + "/" + f};
  }
}

std::optional<std::vector<uint8_t>> ClassPath::read(const std::string& internal_name) const {
  auto it = where_.find(internal_name);
  if (it == where_.end()) return std::nullopt;
  const Place& p = it->second;
  auto bytes = p.archive == SIZE_MAX ? read_file(p.file) : jars_[p.archive]->read(*p.entry);
  if (!bytes) return std::nullopt;
  return std::move(bytes.value());
}

std::string ClassPath::main_class(std::string_view java_command) {
  std::string_view first = java_command.substr(0, java_command.find(' '));
  if (first.empty()) return {};
  std::string name(first);
  if (name.ends_with(".jar") && is_regular_file(name)) {
    auto jar = JarReader::open(name);
    if (!jar) return {};
    name = manifest_attribute(manifest_of(jar.value()), "Main-Class");
  } else if (name.find('/') != std::string::npos) {
    return {};  // module/class (-m): the module path is not indexed
  }
  std::replace(name.begin(), name.end(), '.', '/');
  return name;
}

}  // namespace duplex::agent
