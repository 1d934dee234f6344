// Shared helpers for the unit tests: reading files, real classes from the JDK and from
// Debian jars, fixture classes compiled at build time, and temporary directories.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "classfile/class_file.h"
#include "classfile/disassembler.h"

namespace duplex::test {

inline const char* kJmods = "/usr/lib/jvm/java-17-openjdk-amd64/jmods";

inline std::vector<uint8_t> read_file(const std::filesystem::path& p) {
  std::ifstream f(p, std::ios::binary);
  return std::vector<uint8_t>((std::istreambuf_iterator<char>(f)), {});
}

inline void write_file(const std::filesystem::path& p, const std::vector<uint8_t>& bytes) {
  std::filesystem::create_directories(p.parent_path());
  std::ofstream f(p, std::ios::binary);
  f.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

// Runs a shell command and returns its standard output as bytes.
inline std::vector<uint8_t> run_capture(const std::string& command) {
  std::vector<uint8_t> out;
  FILE* p = popen(command.c_str(), "r");
  if (!p) return out;
  char buf[65536];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.insert(out.end(), buf, buf + n);
  pclose(p);
  return out;
}

// One entry of a zip file (a jar, or a jmod: unzip skips its 4-byte header).
inline std::vector<uint8_t> zip_entry(const std::string& zip, const std::string& entry) {
  return run_capture("unzip -p '" + zip + "' '" + entry + "' 2>/dev/null");
}

// A class of java.base, e.g. jdk_class("java/lang/String").
inline std::vector<uint8_t> jdk_class(const std::string& internal_name,
                                      const std::string& module = "java.base") {
  return zip_entry(std::string(kJmods) + "/" + module + ".jmod",
                   "classes/" + internal_name + ".class");
}

// A fixture class compiled at build time from tests/java/fixtures.
inline std::vector<uint8_t> fixture_class(const std::string& internal_name) {
  return read_file(std::filesystem::path(DUPLEX_FIXTURES_DIR) / (internal_name + ".class"));
}

// A fresh empty directory under the system temp dir, removed by the destructor.
class TempDir {
 public:
  TempDir() {
    std::string templ = (std::filesystem::temp_directory_path() / "duplex-test-XXXXXX").string();
    if (mkdtemp(templ.data())) path_ = templ;
  }
  ~TempDir() {
    std::error_code ec;
    if (!path_.empty()) std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

// Extracts every class of a module's jmod into dir/classes/... (once per TempDir).
inline bool extract_jmod(const std::string& module, const std::filesystem::path& dir) {
  std::string cmd = "cd '" + dir.string() + "' && unzip -q -o '" + kJmods + "/" + module +
                    ".jmod' 'classes/*' >/dev/null 2>&1";
  return std::system(cmd.c_str()) == 0 || std::filesystem::exists(dir / "classes");
}

// The disassembly of one method of a class (from its "  method NAME(" line to the next
// method), "<no method NAME>" if it has none, or "<reason>" if the class does not parse.
inline std::string method_listing(const std::vector<uint8_t>& bytes, const std::string& name) {
  auto cf = ClassFile::parse(bytes);
  if (!cf) return std::string("<").append(cf.error().message()).append(">");
  std::string all = disassemble(cf.value());
  size_t start = all.find("method " + name + "(");
  if (start == std::string::npos) return std::string("<no method ").append(name).append(">");
  start = all.rfind('\n', start) + 1;
  size_t end = all.find("\n  method ", start + 1);
  return all.substr(start, end == std::string::npos ? std::string::npos : end - start + 1);
}

}  // namespace duplex::test
