// The default serialVersionUID (classfile/serial_version.h) against the JDK's own computation
// (java.io.ObjectStreamClass.computeDefaultSUID, called by reflection) for every Serializable
// class of java.base and of the test fixtures.
#include <catch2/catch.hpp>

#include <map>
#include <sstream>
#include <string>

#include "classfile/class_file.h"
#include "classfile/constant_pool.h"
#include "classfile/serial_version.h"
#include "test_support.h"

using namespace duplex;
namespace fs = std::filesystem;

namespace {

// Prints "NAME SUID" for each class named on stdin that is Serializable: the default, computed
// even where the class declares one (computeDefaultSUID ignores the declared field).
const char* kPrinter = R"(
import java.io.*;
import java.lang.reflect.Method;
import java.net.*;
public class PrintDefaultSuid {
  public static void main(String[] args) throws Exception {
    ClassLoader loader = args.length == 0 ? null
        : new URLClassLoader(new URL[] {new File(args[0]).toURI().toURL()}, null);
    Method compute = ObjectStreamClass.class.getDeclaredMethod("computeDefaultSUID", Class.class);
    compute.setAccessible(true);
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
    StringBuilder out = new StringBuilder();
    for (String name; (name = in.readLine()) != null; ) {
      try {
        Class<?> c = Class.forName(name, false, loader);
        if (Serializable.class.isAssignableFrom(c))
          out.append(name).append(' ').append(compute.invoke(null, c)).append('\n');
      } catch (Throwable e) {
        // not loadable here (a missing dependency): not compared
      }
    }
    System.out.print(out);
  }
}
)";

// Our default serialVersionUID of every class under `dir`, by dotted name.
std::map<std::string, int64_t> ours(const fs::path& dir) {
  std::map<std::string, int64_t> out;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    if (entry.path().extension() != ".class") continue;
    auto cf = ClassFile::parse(test::read_file(entry.path()));
    if (!cf || (cf->access_flags & access::kModule) != 0) continue;
    auto suid = default_serial_version_uid(*cf);
    REQUIRE(suid.ok());
    std::string name = cf->name();
    std::replace(name.begin(), name.end(), '/', '.');
    out[name] = *suid;
  }
  return out;
}

// The JDK's figures for the Serializable ones among `classes`, loaded from `classpath` (the
// boot loader's when empty).
std::map<std::string, int64_t> jdks(const std::map<std::string, int64_t>& classes,
                                    const std::string& classpath, const fs::path& work) {
  fs::create_directories(work / "printer");
  std::ofstream(work / "printer" / "PrintDefaultSuid.java") << kPrinter;
  std::string javac = "javac -d '" + (work / "printer").string() + "' '" +
                      (work / "printer" / "PrintDefaultSuid.java").string() + "' 2>&1";
  REQUIRE(std::system(javac.c_str()) == 0);
  std::ofstream names(work / "names.txt");
  for (const auto& [name, suid] : classes) names << name << '\n';
  names.close();
  auto text = test::run_capture("java --add-opens java.base/java.io=ALL-UNNAMED -cp '" +
                                (work / "printer").string() + "' PrintDefaultSuid " +
                                (classpath.empty() ? "" : "'" + classpath + "'") + " < '" +
                                (work / "names.txt").string() + "'");
  std::map<std::string, int64_t> out;
  std::istringstream lines(std::string(text.begin(), text.end()));
  std::string name;
  int64_t suid;
  while (lines >> name >> suid) out[name] = suid;
  return out;
}

size_t mismatches(const std::map<std::string, int64_t>& ours,
                  const std::map<std::string, int64_t>& jdks) {
  size_t bad = 0;
  for (const auto& [name, suid] : jdks) {
    // Reflection hides two of Class's fields (jdk.internal.reflect.Reflection's filters), so
    // the JDK hashes fewer than the class file holds.
    if (name == "java.lang.Class") continue;
    auto it = ours.find(name);
    if (it == ours.end() || it->second != suid) {
      if (++bad <= 10)
        UNSCOPED_INFO(name << ": JDK " << suid << ", duplex "
                           << (it == ours.end() ? 0 : it->second));
    }
  }
  return bad;
}

}  // namespace

TEST_CASE("serialVersionUID: the JDK's default for every Serializable class of java.base",
          "[classfile][serial]") {
  test::TempDir dir;
  REQUIRE(test::extract_jmod("java.base", dir.path()));
  auto computed = ours(dir.path() / "classes");
  auto reference = jdks(computed, "", dir.path());
  INFO(reference.size() << " Serializable classes compared");
  CHECK(reference.size() > 900);
  CHECK(mismatches(computed, reference) == 0);
}

TEST_CASE("serialVersionUID: the JDK's default for the fixtures (member classes, interfaces)",
          "[classfile][serial]") {
  test::TempDir dir;
  auto computed = ours(DUPLEX_FIXTURES_DIR);
  auto reference = jdks(computed, DUPLEX_FIXTURES_DIR, dir.path());
  INFO(reference.size() << " Serializable classes compared");
  CHECK(reference.size() >= 8);
  CHECK(mismatches(computed, reference) == 0);
}

TEST_CASE("serialVersionUID: only non-private members count", "[classfile][serial]") {
  auto bytes = test::jdk_class("java/util/ArrayList");
  auto cf = ClassFile::parse(bytes);
  REQUIRE(cf.ok());
  auto before = serial_version_input(*cf);
  REQUIRE(before.ok());
  CHECK(declares_serial_version_uid(*cf));
  REQUIRE(cf->append_field(access::kPrivate | access::kStatic, "duplex$x", "J").ok());
  auto private_static = serial_version_input(*cf);
  REQUIRE(private_static.ok());
  CHECK(private_static.value() == before.value());
  REQUIRE(cf->append_field(access::kStatic, "duplex$y", "J").ok());
  auto package_static = serial_version_input(*cf);
  REQUIRE(package_static.ok());
  CHECK(package_static.value() != before.value());
}

TEST_CASE("serialVersionUID: a class whose names do not resolve is an error value",
          "[classfile][serial]") {
  ClassFile empty;  // this_class 0: no Class entry
  auto suid = default_serial_version_uid(empty);
  REQUIRE_FALSE(suid.ok());
  CHECK(suid.error().message().find("this_class") != std::string::npos);

  auto cf = ClassFile::parse(test::jdk_class("java/util/ArrayList"));
  REQUIRE(cf.ok());
  cf->fields[0].name_index = 0;  // no Utf8 entry at 0
  auto broken = serial_version_input(*cf);
  REQUIRE_FALSE(broken.ok());
  CHECK(broken.error().message().find("name") != std::string::npos);
}

TEST_CASE("Java string order over modified UTF-8", "[classfile][serial]") {
  CHECK(compare_as_java_strings("abc", "abd") < 0);
  CHECK(compare_as_java_strings("ab", "abc") < 0);
  CHECK(compare_as_java_strings("abc", "abc") == 0);
  CHECK(compare_as_java_strings("Z", "a") < 0);
  CHECK(compare_as_java_strings("z", "\xC3\xA9") < 0);  // 'z' < U+00E9
  // NUL is C0 80 in modified UTF-8: after every ASCII byte, before U+0001 in Java's order.
  CHECK(compare_as_java_strings("a\xC0\x80", "a\x01") < 0);
  CHECK(compare_as_java_strings("a\x01", "a\xC0\x80") > 0);
  // A surrogate (U+D800, of a supplementary character) sorts below U+FFFF, as in UTF-16.
  CHECK(compare_as_java_strings("\xED\xA0\x80\xED\xB0\x80", "\xEF\xBF\xBF") < 0);
}
