// The two IR builders agree: build_code_ir's fast route (code_ir_builder.cpp) must build
// exactly the IR the checked builder (code_ir_checked.cpp) builds, fail exactly where it
// fails (with its message), and leave the pool as it leaves it, on every method of the
// fixtures, the malformed test classes, java.base and h2.jar.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "classfile/class_file.h"
#include "classfile/code_ir.h"
#include "classfile/code_ir_checked.h"
#include "classfile/code_ir_diff.h"
#include "test_support.h"

namespace fs = std::filesystem;
using namespace duplex;

namespace {

struct Agreement {
  size_t classes = 0;
  size_t methods = 0;
  size_t refused = 0;  // methods both builders refuse
  std::vector<std::string> disagreements;
};

// Both builders on every method of one class, each on its own copy of the class.
void compare_class(const std::vector<uint8_t>& bytes, const std::string& where, Agreement& a) {
  auto fast_cf = ClassFile::parse(bytes);
  auto checked_cf = ClassFile::parse(bytes);
  if (!fast_cf || !checked_cf) return;
  ++a.classes;
  for (size_t i = 0; i < fast_cf->methods.size(); ++i) {
    const Member& m = fast_cf->methods[i];
    if (fast_cf->find_attribute(m.attributes, "Code") == nullptr) continue;
    ++a.methods;
    std::string id = where + " " + std::string(fast_cf->member_name(m)) +
                     std::string(fast_cf->member_descriptor(m));
    auto fast = build_code_ir(fast_cf.value(), m);
    auto checked = build_code_ir_checked(checked_cf.value(), checked_cf->methods[i]);
    if (fast.ok() != checked.ok()) {
      a.disagreements.push_back(id + ": only one builder accepts it");
    } else if (!fast.ok()) {
      ++a.refused;
      if (fast.error().message() != checked.error().message()) {
        a.disagreements.push_back(id + ": different errors");
      }
    } else if (std::string d = code_ir_difference(fast.value(), checked.value()); !d.empty()) {
      a.disagreements.push_back(id + ": " + d);
    }
    if (fast_cf->pool.count() != checked_cf->pool.count()) {
      a.disagreements.push_back(id + ": the pools differ after building");
      return;
    }
  }
}

void compare_dir(const fs::path& dir, Agreement& a) {
  std::vector<fs::path> files;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (e.is_regular_file() && e.path().extension() == ".class") files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  for (const auto& f : files) compare_class(test::read_file(f), f.string(), a);
}

void report(const char* what, const Agreement& a) {
  std::printf(
      "[ir_builders] %s: %zu classes, %zu methods, %zu refused by both, %zu disagreements\n", what,
      a.classes, a.methods, a.refused, a.disagreements.size());
  for (size_t i = 0; i < a.disagreements.size() && i < 20; ++i) {
    std::printf("  %s\n", a.disagreements[i].c_str());
  }
}

// A module or jar extracted once per machine into the temp directory (as test_code_ir does).
fs::path extracted(const std::string& name, const std::string& command_fmt) {
  fs::path dir = fs::temp_directory_path() / ("duplex-test-" + name);
  if (fs::exists(dir / ".done")) return dir;
  fs::path tmp = dir.string() + ".tmp";
  fs::remove_all(tmp);
  fs::create_directories(tmp);
  std::string cmd = command_fmt;
  cmd.replace(cmd.find("%s"), 2, tmp.string());
  if (std::system(cmd.c_str()) != 0) return {};
  FILE* done = std::fopen((tmp / ".done").c_str(), "w");
  if (done) std::fclose(done);
  fs::remove_all(dir);
  fs::rename(tmp, dir);
  return dir;
}

}  // namespace

TEST_CASE("the IR builders agree on the fixtures and the malformed classes", "[ir_builders]") {
  Agreement a;
  compare_dir(fs::path(DUPLEX_FIXTURES_DIR) / "fixtures", a);
  compare_dir(fs::path(DUPLEX_SOURCE_DIR) / "tests" / "data" / "malformed", a);
  report("fixtures", a);
  CHECK(a.disagreements.empty());
  CHECK(a.methods > 50);
}

TEST_CASE("the IR builders agree on java.base and h2.jar", "[ir_builders][jdk]") {
  fs::path base = extracted("java-base-17",
                            "jmod extract --dir %s "
                            "/usr/lib/jvm/java-17-openjdk-amd64/jmods/java.base.jmod "
                            ">/dev/null 2>&1");
  Agreement a;
  if (!base.empty()) compare_dir(base / "classes", a);
  if (fs::exists("/usr/share/java/h2.jar")) {
    fs::path h2 = extracted("h2", "unzip -q -o /usr/share/java/h2.jar '*.class' -d %s");
    if (!h2.empty()) compare_dir(h2, a);
  }
  report("java.base and h2.jar", a);
  CHECK(a.disagreements.empty());
}
