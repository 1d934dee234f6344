// The agent's rewriting ahead of class loading (ahead=true, runtime/agent/ahead.h) and the class
// path it reads (runtime/agent/class_path.h): which bytes it finds for a name, which classes
// the background thread rewrites, and that a hook only ever takes a rewrite of its own bytes.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "classfile/archive.h"
#include "classfile/class_file.h"
#include "runtime/agent/ahead.h"
#include "runtime/agent/class_path.h"
#include "test_support.h"

using namespace duplex;
using namespace duplex::agent;
using duplex::test::TempDir;

namespace {

std::vector<uint8_t> bytes_of(std::string_view text) {
  return std::vector<uint8_t>(text.begin(), text.end());
}

std::string text_of(const std::optional<std::vector<uint8_t>>& bytes) {
  return bytes ? std::string(bytes->begin(), bytes->end()) : std::string("<none>");
}

std::string in(const TempDir& tmp, const char* name) {
  return (tmp.path() / name).string();
}

void make_jar(const std::string& path,
              const std::vector<std::pair<std::string, std::string>>& entries) {
  auto w = JarWriter::create(path);
  REQUIRE(w);
  for (const auto& [name, data] : entries) REQUIRE(w->put(name, bytes_of(data)));
  REQUIRE(w->commit());
}

}  // namespace

TEST_CASE("manifest attributes: main section only, continuation lines, any case", "[ahead]") {
  std::string m =
      "Manifest-Version: 1.0\r\n"
      "main-class: org.example.Ma\r\n"
      " in\r\n"
      "Class-Path: a.jar b.jar\r\n"
      "\r\n"
      "Name: org/example/Other.class\r\n"
      "Multi-Release: true\r\n";
  CHECK(manifest_attribute(m, "Main-Class") == "org.example.Main");
  CHECK(manifest_attribute(m, "Class-Path") == "a.jar b.jar");
  CHECK(manifest_attribute(m, "Multi-Release").empty());  // in a per-entry section
  CHECK(manifest_attribute("", "Main-Class").empty());
  CHECK(manifest_attribute("Main-Class:NoSpace\n", "Main-Class").empty());
}

TEST_CASE("the class path index finds what the application loader would", "[ahead]") {
  TempDir tmp;
  std::string dir = in(tmp, "classes");
  test::write_file(std::filesystem::path(dir) / "p/InDir.class", bytes_of("dir InDir"));
  test::write_file(std::filesystem::path(dir) / "p/Both.class", bytes_of("dir Both"));
  test::write_file(std::filesystem::path(dir) / "module-info.class", bytes_of("module"));
  make_jar(in(tmp, "lib.jar"), {{"p/FromManifest.class", "lib FromManifest"}});
  make_jar(in(tmp, "app.jar"), {{"META-INF/MANIFEST.MF",
                                 "Manifest-Version: 1.0\nMain-Class: p.Main\nMulti-Release: true\n"
                                 "Class-Path: lib.jar missing.jar\n\n"},
                                {"p/Both.class", "jar Both"},
                                {"p/Main.class", "jar Main"},
                                {"META-INF/versions/11/p/Main.class", "jar Main 11"},
                                {"META-INF/versions/21/p/Main.class", "jar Main 21"},
                                {"META-INF/versions/11/p/Both.class", "jar Both 11"},
                                {"p/package-info.class", "info"}});
  std::string path = dir + ":" + (in(tmp, "nowhere")) + ":" + (in(tmp, "app.jar"));

  ClassPath cp = ClassPath::index(path, 17);
  CHECK(text_of(cp.read("p/InDir")) == "dir InDir");
  CHECK(text_of(cp.read("p/Both")) == "dir Both");     // the first element wins, versions too
  CHECK(text_of(cp.read("p/Main")) == "jar Main 11");  // the highest version up to 17
  CHECK(text_of(cp.read("p/FromManifest")) == "lib FromManifest");
  CHECK_FALSE(cp.contains("module-info"));
  CHECK_FALSE(cp.contains("p/package-info"));
  CHECK_FALSE(cp.read("p/Nowhere"));
  CHECK(cp.size() == 4);

  CHECK(text_of(ClassPath::index(path, 9).read("p/Main")) == "jar Main");
  CHECK(text_of(ClassPath::index(path, 25).read("p/Main")) == "jar Main 21");
  // Without Multi-Release: true, versioned entries are not classes of the jar.
  make_jar(in(tmp, "plain.jar"), {{"p/Main.class", "plain Main"},
                                  {"META-INF/versions/11/p/Main.class", "plain Main 11"}});
  CHECK(text_of(ClassPath::index(in(tmp, "plain.jar"), 17).read("p/Main")) == "plain Main");
  CHECK(ClassPath::index(in(tmp, "app.jar/inside"), 17).size() == 0);  // not a file: left out
}

TEST_CASE("the launcher's main class, from a class name or a jar's manifest", "[ahead]") {
  TempDir tmp;
  make_jar(in(tmp, "app.jar"), {{"META-INF/MANIFEST.MF", "Main-Class: org.example.App\n"}});
  CHECK(ClassPath::main_class("org.example.Tool --flag x") == "org/example/Tool");
  CHECK(ClassPath::main_class(in(tmp, "app.jar") + " arg") == "org/example/App");
  CHECK(ClassPath::main_class("some.module/org.example.Main").empty());
  CHECK(ClassPath::main_class("").empty());
  CHECK(ClassPath::main_class(in(tmp, "missing.jar")).empty());  // no jar there, and not a class
}

namespace {

// A stand-in for the rewriter: the "rewrite" is the class's name, remembered per call.
struct FakeRewriter {
  std::mutex mu;
  std::vector<std::string> made;

  AheadRewriter::Produce produce() {
    return [this](std::span<const uint8_t> bytes) -> std::optional<CachedRewrite> {
      auto cf = ClassFile::parse(bytes);
      if (!cf) return std::nullopt;
      std::lock_guard<std::mutex> lock(mu);
      made.push_back(cf->name());
      CachedRewrite r;
      r.changed = true;
      r.class_name = cf->name();
      r.bytes = bytes_of("rewritten " + cf->name());
      return r;
    };
  }
  std::set<std::string> names() {
    std::lock_guard<std::mutex> lock(mu);
    return std::set<std::string>(made.begin(), made.end());
  }
};

ClassPath fixtures_path() {
  return ClassPath::index(DUPLEX_FIXTURES_DIR, 17);
}

AheadRewriter::FirstClass first(std::string name) {
  return [name] { return name; };
}

bool in_fixtures(const std::string& name) {
  return name.rfind("fixtures/", 0) == 0;
}

}  // namespace

TEST_CASE("the background thread rewrites what the main class reaches, once each", "[ahead]") {
  FakeRewriter fake;
  AheadRewriter ahead(fixtures_path, first("fixtures/Dispatch"), in_fixtures, fake.produce(), 1000);
  ahead.start();
  REQUIRE(ahead.wait_idle(60000));
  std::set<std::string> made = fake.names();
  CHECK(made.size() == fake.made.size());  // none twice
  // Dispatch names its nested classes (arrays of Shape too).
  for (const char* name : {"fixtures/Dispatch", "fixtures/Dispatch$Dog", "fixtures/Dispatch$Shape",
                           "fixtures/Dispatch$Square", "fixtures/Dispatch$Polygon"}) {
    CHECK(made.count(name) == 1);
  }
  CHECK(made.count("fixtures/Loops") == 0);  // nothing Dispatch reaches names it
  AheadStats st = ahead.stats();
  CHECK(st.class_path_classes == fixtures_path().size());
  CHECK(st.rewritten == made.size());
  CHECK(st.held == made.size());

  std::vector<uint8_t> original = test::fixture_class("fixtures/Dispatch$Dog");
  std::vector<uint8_t> other = original;
  other[5] ^= 1;  // the minor version: the same name, other bytes
  CHECK_FALSE(ahead.take("fixtures/Dispatch$Dog", other));
  auto taken = ahead.take("fixtures/Dispatch$Dog", original);
  REQUIRE(taken);
  CHECK(taken->class_name == "fixtures/Dispatch$Dog");
  CHECK(taken->bytes == bytes_of("rewritten fixtures/Dispatch$Dog"));
  CHECK_FALSE(ahead.take("fixtures/Dispatch$Dog", original));  // taken once
  st = ahead.stats();
  CHECK(st.hits == 1);
  CHECK(st.held == made.size() - 1);
  ahead.stop();
  CHECK_FALSE(
      ahead.take("fixtures/Dispatch$Square", test::fixture_class("fixtures/Dispatch$Square")));
}

TEST_CASE("a class that loads pulls the classes it names into the queue", "[ahead]") {
  FakeRewriter fake;
  AheadRewriter ahead(fixtures_path, first(""), in_fixtures, fake.produce(), 1000);
  ahead.start();  // no main class: only what loads drives it
  REQUIRE(ahead.wait_idle(60000));
  CHECK(fake.names().empty());
  // The hook saw Interfaces load (and rewrote it itself: nothing was made ahead).
  CHECK_FALSE(ahead.take("fixtures/Interfaces", test::fixture_class("fixtures/Interfaces")));
  REQUIRE(ahead.wait_idle(60000));
  std::set<std::string> made = fake.names();
  CHECK(made.count("fixtures/Interfaces$Circle") == 1);
  CHECK(made.count("fixtures/Interfaces$Shape") == 1);
  CHECK(made.count("fixtures/Interfaces") == 0);  // it loaded already
  for (const std::string& name : made) CHECK(in_fixtures(name));
  auto circle =
      ahead.take("fixtures/Interfaces$Circle", test::fixture_class("fixtures/Interfaces$Circle"));
  REQUIRE(circle);
  CHECK(circle->class_name == "fixtures/Interfaces$Circle");
}

TEST_CASE("classes the hook would not select are never rewritten ahead", "[ahead]") {
  FakeRewriter fake;
  auto only_dispatch = [](const std::string& name) {
    return name.rfind("fixtures/Dispatch", 0) == 0 && name != "fixtures/Dispatch$Robot";
  };
  AheadRewriter ahead(fixtures_path, first("fixtures/Dispatch"), only_dispatch, fake.produce(),
                      1000);
  ahead.start();
  REQUIRE(ahead.wait_idle(60000));
  std::set<std::string> made = fake.names();
  CHECK(made.count("fixtures/Dispatch") == 1);
  CHECK(made.count("fixtures/Dispatch$Robot") == 0);
  for (const std::string& name : made) CHECK(only_dispatch(name));
}

TEST_CASE("past its lead the thread follows only the classes that load", "[ahead]") {
  FakeRewriter fake;
  AheadRewriter ahead(fixtures_path, first("fixtures/Dispatch"), in_fixtures, fake.produce(), 0);
  ahead.start();
  REQUIRE(ahead.wait_idle(60000));
  CHECK(fake.names() == std::set<std::string>{"fixtures/Dispatch"});  // its references wait
  REQUIRE(ahead.take("fixtures/Dispatch", test::fixture_class("fixtures/Dispatch")));
  REQUIRE(ahead.wait_idle(60000));  // Dispatch loaded: what it names is no guess any more
  std::set<std::string> made = fake.names();
  CHECK(made.count("fixtures/Dispatch$Square") == 1);
  CHECK(made.count("fixtures/Dispatch$Dog") == 1);
  CHECK(made.count("fixtures/Dispatch$Robot") == 1);
}

TEST_CASE("once loading stops, the rewrites not taken are dropped and guessing stops", "[ahead]") {
  FakeRewriter fake;
  // A lead of 2: Dispatch (the first class) and one guess are held, then it waits for loads.
  AheadRewriter ahead(fixtures_path, first("fixtures/Dispatch"), in_fixtures, fake.produce(), 2,
                      std::chrono::milliseconds(200));
  ahead.start();
  REQUIRE(ahead.wait_idle(60000));
  CHECK(fake.made.size() == 2);
  // Idle for longer than forget_after: what it held is forgotten...
  for (int i = 0; i < 200 && ahead.stats().forgotten == 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  AheadStats st = ahead.stats();
  CHECK(st.forgotten == 2);
  CHECK(st.held == 0);
  // ... and the room that made does not start the guessing again.
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  CHECK(fake.made.size() == 2);
  CHECK_FALSE(ahead.take("fixtures/Dispatch", test::fixture_class("fixtures/Dispatch")));
  REQUIRE(ahead.wait_idle(60000));  // a class loaded: what it names is rewritten again
  CHECK(fake.made.size() > 2);
}
