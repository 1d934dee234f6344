// Jar, directory and file I/O. Test jars are built at test time with Info-ZIP `zip` (the repo
// holds no jars); `unzip -Z -v` is the independent judge of what a written jar contains.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "classfile/archive.h"
#include "test_support.h"

namespace fs = std::filesystem;
using duplex::DosTime;
using duplex::JarEntry;
using duplex::JarReader;
using duplex::JarWriter;

namespace {

// A fresh directory removed at scope exit.
struct TempDir {
  fs::path path;
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "duplex-archive-XXXXXX").string();
    REQUIRE(::mkdtemp(tmpl.data()) != nullptr);
    path = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  std::string operator/(const std::string& name) const { return (path / name).string(); }
};

void run(const std::string& cmd) {
  INFO(cmd);
  REQUIRE(std::system(cmd.c_str()) == 0);
}

std::string quote(const std::string& s) {
  return "'" + s + "'";
}

std::vector<uint8_t> to_bytes(std::string_view s) {
  return {s.begin(), s.end()};
}

// Compressible, deterministic content that differs per seed.
std::string text_content(int seed, int lines) {
  std::string out;
  for (int i = 0; i < lines; ++i)
    out += "line " + std::to_string(i * 31 + seed) + " of " + std::to_string(seed) + "\n";
  return out;
}

void write_text(const fs::path& file, const std::string& content) {
  fs::create_directories(file.parent_path());
  std::ofstream(file, std::ios::binary) << content;
}

std::vector<uint8_t> slurp(const std::string& path) {
  auto bytes = duplex::read_file(path);
  REQUIRE(bytes.ok());
  return bytes.value();
}

void spit(const std::string& path, const std::vector<uint8_t>& bytes) {
  REQUIRE(duplex::write_file_atomic(path, bytes).ok());
}

// Renames entries in a built zip by rewriting every occurrence of `from` (same length) —
// how we get names Info-ZIP refuses to store ("./x", "/x", duplicates).
void patch_name(const std::string& zip, std::string_view from, std::string_view to) {
  REQUIRE(from.size() == to.size());
  std::vector<uint8_t> b = slurp(zip);
  int hits = 0;
  for (size_t i = 0; i + from.size() <= b.size(); ++i) {
    if (std::equal(from.begin(), from.end(), b.begin() + static_cast<long>(i))) {
      std::copy(to.begin(), to.end(), b.begin() + static_cast<long>(i));
      ++hits;
    }
  }
  REQUIRE(hits == 2);  // local header and central directory
  spit(zip, b);
}

const std::string kLongName = [] {
  std::string name;
  for (int i = 0; i < 3; ++i) name += std::string(120, static_cast<char>('a' + i)) + "/";
  return name + "Long.class";
}();

// The test jar: stored and deflated entries, a directory entry, odd names, a nested jar, a
// multi-release layout and signature-looking files, in a known central-directory order.
std::string build_test_jar(const TempDir& tmp) {
  fs::path src = tmp.path / "src";
  write_text(src / "META-INF/MANIFEST.MF", "Manifest-Version: 1.0\r\nMulti-Release: true\r\n\r\n");
  write_text(src / "META-INF/FOO.SF", "Signature-Version: 1.0\r\n\r\n");
  write_text(src / "META-INF/FOO.RSA", std::string(300, '\x01'));
  write_text(src / "a/Hello.class", text_content(1, 400));
  write_text(src / "a/Stored.bin", text_content(2, 50));
  write_text(src / "META-INF/versions/11/a/Hello.class", text_content(3, 300));
  write_text(src / "module-info.class", text_content(4, 10));
  write_text(src / "dir with space/file name.txt", text_content(5, 20));
  write_text(src / "ünïcödé/Жук.class", text_content(6, 20));
  write_text(src / kLongName, text_content(7, 20));
  write_text(src / "empty.txt", "");
  write_text(src / "XXlead.txt", "leading dot slash\n");
  write_text(src / "Xroot.txt", "leading slash\n");
  write_text(src / "inner/Inner.class", text_content(8, 100));
  fs::create_directories(src / "emptydir");
  run("cd " + quote(src) + " && find . -exec touch -d '2021-03-04 05:06:08' {} + && " +
      "touch -d '2019-12-31 23:59:58' a/Stored.bin && " +
      "zip -q ../inner.jar inner/Inner.class && mv ../inner.jar nested.jar");
  std::string jar = tmp / "test.jar";
  std::string files = "META-INF/MANIFEST.MF META-INF/FOO.SF META-INF/FOO.RSA a/Hello.class " +
                      quote("META-INF/versions/11/a/Hello.class") + " module-info.class " +
                      quote("dir with space/file name.txt") + " " + quote("ünïcödé/Жук.class") +
                      " " + quote(kLongName) + " empty.txt XXlead.txt Xroot.txt emptydir";
  run("cd " + quote(src) + " && zip -q " + quote(jar) + " " + files + " && zip -q -0 " +
      quote(jar) + " a/Stored.bin nested.jar");
  patch_name(jar, "XXlead.txt", "./lead.txt");
  patch_name(jar, "Xroot.txt", "/root.txt");
  return jar;
}

const std::vector<std::string> kTestJarNames = {"META-INF/MANIFEST.MF",
                                                "META-INF/FOO.SF",
                                                "META-INF/FOO.RSA",
                                                "a/Hello.class",
                                                "META-INF/versions/11/a/Hello.class",
                                                "module-info.class",
                                                "dir with space/file name.txt",
                                                "ünïcödé/Жук.class",
                                                kLongName,
                                                "empty.txt",
                                                "./lead.txt",
                                                "/root.txt",
                                                "emptydir/",
                                                "a/Stored.bin",
                                                "nested.jar"};

JarReader open_jar(const std::string& path) {
  auto r = JarReader::open(path);
  INFO((r.ok() ? "" : r.error().message()));
  REQUIRE(r.ok());
  return std::move(r).value();
}

// Per-entry `unzip -Z -v` blocks without the lines a faithful copy may change: offsets, the
// writing tool's version and whether sizes went into a data descriptor (libzip writes none).
std::vector<std::string> zipinfo_entries(const TempDir& tmp, const std::string& jar) {
  std::string out = tmp / "zipinfo.txt";
  run("unzip -Z -v " + quote(jar) + " > " + quote(out));
  std::ifstream in(out);
  std::vector<std::string> blocks;
  std::string line;
  const char* ignored[] = {"offset of local header", "version of encoding software",
                           "minimum software version required", "extended local header",
                           "preceding this file"};
  while (std::getline(in, line)) {
    if (line.rfind("Central directory entry #", 0) == 0) {
      blocks.emplace_back();
      continue;
    }
    if (blocks.empty()) continue;
    bool skip = line.find_first_not_of(' ') == std::string::npos ||
                line.find("(00000000") != std::string::npos;  // the hex offset line
    for (const char* ig : ignored) skip = skip || line.find(ig) != std::string::npos;
    if (!skip) blocks.back() += line + "\n";
  }
  return blocks;
}

// Everything a byte-identical copy must keep, checked through our reader and through unzip.
void require_same_entries(const TempDir& tmp, const std::string& in_path,
                          const std::string& out_path, const std::set<std::string>& changed = {}) {
  JarReader in = open_jar(in_path), out = open_jar(out_path);
  REQUIRE(in.entries().size() == out.entries().size());
  for (size_t i = 0; i < in.entries().size(); ++i) {
    const JarEntry &a = in.entries()[i], &b = out.entries()[i];
    INFO("entry " << i << ": " << a.name);
    REQUIRE(a.name == b.name);
    CHECK(a.method == b.method);
    CHECK(a.mtime == b.mtime);
    CHECK(a.is_directory == b.is_directory);
    if (changed.count(a.name)) continue;
    CHECK(a.size == b.size);
    CHECK(a.compressed_size == b.compressed_size);
    CHECK(a.crc == b.crc);
    CHECK(in.read(a).value() == out.read(b).value());
    CHECK(in.read_raw(a).value() == out.read_raw(b).value());
  }
  if (!changed.empty()) return;
  CHECK(zipinfo_entries(tmp, in_path) == zipinfo_entries(tmp, out_path));
}

void copy_all(const JarReader& in, const std::string& dest) {
  auto w = JarWriter::create(dest);
  REQUIRE(w.ok());
  for (const JarEntry& e : in.entries()) {
    auto st = w->copy(in, e);
    INFO((st.ok() ? "" : st.error().message()));
    REQUIRE(st.ok());
  }
  REQUIRE(w->commit().ok());
}

std::vector<std::string> dir_names(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace

TEST_CASE("jar entries are listed in central-directory order with their metadata", "[archive]") {
  TempDir tmp;
  JarReader jar = open_jar(build_test_jar(tmp));
  std::vector<std::string> names;
  for (const JarEntry& e : jar.entries()) names.push_back(e.name);
  CHECK(names == kTestJarNames);

  const JarEntry* hello = jar.find("a/Hello.class");
  REQUIRE(hello != nullptr);
  CHECK(hello->method == duplex::kZipDeflated);
  CHECK(hello->size == text_content(1, 400).size());
  CHECK(hello->compressed_size < hello->size);
  CHECK(hello->mtime == DosTime{5 << 11 | 6 << 5 | 4, (2021 - 1980) << 9 | 3 << 5 | 4});
  CHECK(jar.read(*hello).value() == to_bytes(text_content(1, 400)));

  const JarEntry* stored = jar.find("a/Stored.bin");
  REQUIRE(stored != nullptr);
  CHECK(stored->method == duplex::kZipStored);
  CHECK(stored->compressed_size == stored->size);
  CHECK(stored->mtime == DosTime{23 << 11 | 59 << 5 | 29, (2019 - 1980) << 9 | 12 << 5 | 31});

  CHECK(jar.find("emptydir/")->is_directory);
  CHECK(jar.read(*jar.find("emptydir/")).value().empty());
  CHECK(jar.read(*jar.find("empty.txt")).value().empty());
  CHECK(jar.read(*jar.find("./lead.txt")).value() == to_bytes("leading dot slash\n"));
  CHECK(jar.read(*jar.find("/root.txt")).value() == to_bytes("leading slash\n"));
  CHECK(jar.read(*jar.find("ünïcödé/Жук.class")).value() == to_bytes(text_content(6, 20)));
  CHECK(jar.read(*jar.find(kLongName)).value() == to_bytes(text_content(7, 20)));
  CHECK(jar.find("missing") == nullptr);
}

TEST_CASE("a jar nested in a jar can be read after extracting it", "[archive]") {
  TempDir tmp;
  JarReader jar = open_jar(build_test_jar(tmp));
  auto nested = jar.read(*jar.find("nested.jar"));
  REQUIRE(nested.ok());
  spit(tmp / "nested.jar", nested.value());
  JarReader inner = open_jar(tmp / "nested.jar");
  REQUIRE(inner.entries().size() == 1);
  CHECK(inner.read(inner.entries()[0]).value() == to_bytes(text_content(8, 100)));
}

TEST_CASE("copying every entry keeps the jar byte-for-byte equivalent", "[archive]") {
  TempDir tmp;
  std::string in_path = build_test_jar(tmp);
  JarReader in = open_jar(in_path);
  copy_all(in, tmp / "copy.jar");
  require_same_entries(tmp, in_path, tmp / "copy.jar");
  // And the input was left alone.
  CHECK(open_jar(in_path).entries().size() == kTestJarNames.size());
}

TEST_CASE("copying keeps entry comments, the archive comment and odd DOS times", "[archive]") {
  TempDir tmp;
  std::string src = tmp / "src.jar";
  {
    auto w = JarWriter::create(src);
    REQUIRE(w.ok());
    // A zero DOS date/time is not representable as a time_t round trip in libzip.
    REQUIRE(w->put("zero.txt", to_bytes("zero"), DosTime{0, 0}).ok());
    REQUIRE(w->put("later.txt", to_bytes("later"), DosTime{0x1234, 0x5678}).ok());
    REQUIRE(w->set_archive_comment("built by a test").ok());
    REQUIRE(w->commit().ok());
  }
  run("printf '@ zero.txt\\nentry comment\\n@ (comment above this line)\\n@ later.txt\\n"
      "@ (comment above this line)\\n@ (zip file comment below this line)\\nbuilt by a test\\n' | "
      "zipnote -w " +
      quote(src));
  JarReader in = open_jar(src);
  CHECK(in.entries()[0].mtime == DosTime{0, 0});
  CHECK(in.entries()[1].mtime == DosTime{0x1234, 0x5678});
  CHECK(in.archive_comment() == "built by a test");
  {
    auto w = JarWriter::create(tmp / "copy.jar");
    REQUIRE(w.ok());
    for (const JarEntry& e : in.entries()) REQUIRE(w->copy(in, e).ok());
    REQUIRE(w->set_archive_comment(in.archive_comment()).ok());
    REQUIRE(w->commit().ok());
  }
  require_same_entries(tmp, src, tmp / "copy.jar");
  CHECK(open_jar(tmp / "copy.jar").archive_comment() == "built by a test");
}

TEST_CASE("replacing one entry leaves the others byte-identical", "[archive]") {
  TempDir tmp;
  std::string in_path = build_test_jar(tmp);
  JarReader in = open_jar(in_path);
  const auto new_class = to_bytes(text_content(99, 200));
  const auto new_stored = to_bytes("now different\n");
  auto w = JarWriter::create(tmp / "out.jar");
  REQUIRE(w.ok());
  for (const JarEntry& e : in.entries()) {
    if (e.name == "a/Hello.class") {
      REQUIRE(w->replace(in, e, new_class).ok());
    } else if (e.name == "a/Stored.bin") {
      REQUIRE(w->replace(in, e, new_stored).ok());
    } else {
      REQUIRE(w->copy(in, e).ok());
    }
  }
  REQUIRE(w->commit().ok());

  require_same_entries(tmp, in_path, tmp / "out.jar", {"a/Hello.class", "a/Stored.bin"});
  JarReader out = open_jar(tmp / "out.jar");
  CHECK(out.read(*out.find("a/Hello.class")).value() == new_class);
  CHECK(out.find("a/Hello.class")->method == duplex::kZipDeflated);
  CHECK(out.read(*out.find("a/Stored.bin")).value() == new_stored);
  CHECK(out.find("a/Stored.bin")->method == duplex::kZipStored);
}

TEST_CASE("pre-deflated data is stored as given and reads back", "[archive]") {
  TempDir tmp;
  std::string in_path = build_test_jar(tmp);
  JarReader in = open_jar(in_path);
  const auto new_class = to_bytes(text_content(42, 5000));
  duplex::DeflatedData d = duplex::deflate_data(new_class);
  CHECK(d.size == new_class.size());
  CHECK(d.compressed.size() < new_class.size());
  // The same input gives the same output (what makes `instrument --jobs N` deterministic).
  CHECK(duplex::deflate_data(new_class).compressed == d.compressed);
  const std::vector<uint8_t> raw = d.compressed;
  auto w = JarWriter::create(tmp / "out.jar");
  REQUIRE(w.ok());
  for (const JarEntry& e : in.entries()) {
    if (e.name == "a/Hello.class") {
      REQUIRE(w->replace_deflated(in, e, duplex::deflate_data(new_class)).ok());
    } else if (e.name == "a/Stored.bin") {
      auto refused = w->replace_deflated(in, e, duplex::deflate_data(new_class));
      REQUIRE_FALSE(refused.ok());
      CHECK_THAT(refused.error().message(), Catch::Contains("stored entry"));
      REQUIRE(w->copy(in, e).ok());
    } else {
      REQUIRE(w->copy(in, e).ok());
    }
  }
  REQUIRE(w->commit().ok());

  require_same_entries(tmp, in_path, tmp / "out.jar", {"a/Hello.class"});
  JarReader out = open_jar(tmp / "out.jar");
  const JarEntry* e = out.find("a/Hello.class");
  REQUIRE(e != nullptr);
  CHECK(e->method == duplex::kZipDeflated);
  CHECK(e->mtime == in.find("a/Hello.class")->mtime);
  CHECK(out.read(*e).value() == new_class);  // CRC-checked
  CHECK(out.read_raw(*e).value() == raw);
}

TEST_CASE("put adds deflated entries and replaces an earlier one in place", "[archive]") {
  TempDir tmp;
  JarReader in = open_jar(build_test_jar(tmp));
  auto w = JarWriter::create(tmp / "out.jar");
  REQUIRE(w.ok());
  REQUIRE(w->copy(in, *in.find("a/Stored.bin")).ok());
  REQUIRE(w->copy(in, *in.find("a/Hello.class")).ok());
  REQUIRE(w->put("new/Added.class", to_bytes(text_content(5, 100))).ok());
  REQUIRE(w->put("a/Stored.bin", to_bytes("replaced in place")).ok());
  REQUIRE(w->put("new/", {}).ok());
  auto dup = w->copy(in, *in.find("a/Hello.class"));
  REQUIRE_FALSE(dup.ok());
  CHECK_THAT(dup.error().message(),
             Catch::Contains("entry a/Hello.class") && Catch::Contains("duplicate entry name"));
  REQUIRE(w->commit().ok());

  JarReader out = open_jar(tmp / "out.jar");
  std::vector<std::string> names;
  for (const JarEntry& e : out.entries()) names.push_back(e.name);
  CHECK(names ==
        std::vector<std::string>{"a/Stored.bin", "a/Hello.class", "new/Added.class", "new/"});
  CHECK(out.entries()[0].method == duplex::kZipStored);
  CHECK(out.entries()[0].mtime == in.find("a/Stored.bin")->mtime);
  CHECK(out.read(out.entries()[0]).value() == to_bytes("replaced in place"));
  CHECK(out.entries()[2].method == duplex::kZipDeflated);
  CHECK(out.entries()[3].is_directory);
  CHECK(out.read_raw(out.entries()[1]).value() == in.read_raw(*in.find("a/Hello.class")).value());
}

TEST_CASE("put_deflated adds a new entry stored as deflated ahead of time", "[archive]") {
  TempDir tmp;
  auto w = JarWriter::create(tmp / "out.jar");
  REQUIRE(w.ok());
  auto data = to_bytes(text_content(7, 200));
  DosTime when{12 << 11 | 30 << 5 | 10, (2024 - 1980) << 9 | 6 << 5 | 15};
  auto deflated = duplex::deflate_data(data, 1);
  auto raw = deflated.compressed;
  REQUIRE(w->put_deflated("a/B$DuplexTwins.class", std::move(deflated), when).ok());
  auto dup = w->put_deflated("a/B$DuplexTwins.class", duplex::deflate_data(data, 1), when);
  REQUIRE_FALSE(dup.ok());
  CHECK_THAT(dup.error().message(), Catch::Contains("duplicate entry name"));
  REQUIRE(w->commit().ok());

  JarReader out = open_jar(tmp / "out.jar");
  REQUIRE(out.entries().size() == 1);
  const JarEntry& e = out.entries()[0];
  CHECK(e.name == "a/B$DuplexTwins.class");
  CHECK(e.method == duplex::kZipDeflated);
  CHECK(e.mtime == when);
  CHECK(out.read(e).value() == data);     // CRC-checked
  CHECK(out.read_raw(e).value() == raw);  // stored as given, not compressed again
}

TEST_CASE("commit is atomic and abort leaves nothing behind", "[archive]") {
  TempDir tmp;
  JarReader in = open_jar(build_test_jar(tmp));
  const auto before = dir_names(tmp.path);
  std::string dest = tmp / "out.jar";

  SECTION("commit renames into place and leaves no temporary file") {
    auto w = JarWriter::create(dest);
    REQUIRE(w.ok());
    std::string temp = w->temp_path();
    CHECK(fs::path(temp).parent_path() == tmp.path);
    for (const JarEntry& e : in.entries()) REQUIRE(w->copy(in, e).ok());
    CHECK_FALSE(fs::exists(dest));
    REQUIRE(w->commit().ok());
    CHECK(fs::exists(dest));
    CHECK_FALSE(fs::exists(temp));
    auto after = before;
    after.push_back("out.jar");
    std::sort(after.begin(), after.end());
    CHECK(dir_names(tmp.path) == after);
    CHECK_FALSE(w->commit().ok());  // a finished writer says so
  }
  SECTION("an existing destination is untouched until commit") {
    write_text(dest, "old contents");
    auto w = JarWriter::create(dest);
    REQUIRE(w.ok());
    REQUIRE(w->copy(in, in.entries()[0]).ok());
    CHECK(slurp(dest) == to_bytes("old contents"));
    REQUIRE(w->commit().ok());
    CHECK(open_jar(dest).entries().size() == 1);
  }
  SECTION("abort and destruction remove everything") {
    {
      auto w = JarWriter::create(dest);
      REQUIRE(w.ok());
      for (const JarEntry& e : in.entries()) REQUIRE(w->copy(in, e).ok());
      w->abort();
      CHECK_FALSE(w->commit().ok());
    }
    {
      auto w = JarWriter::create(dest);
      REQUIRE(w.ok());
      REQUIRE(w->put("x.txt", to_bytes("x")).ok());
    }
    CHECK(dir_names(tmp.path) == before);
  }
  SECTION("a writer with no entries writes an empty jar") {
    auto w = JarWriter::create(dest);
    REQUIRE(w.ok());
    REQUIRE(w->commit().ok());
    CHECK(open_jar(dest).entries().empty());
  }
}

TEST_CASE("a jar writer names what is wrong with its destination", "[archive]") {
  TempDir tmp;
  auto message_of = [](const std::string& dest) {
    auto w = JarWriter::create(dest);
    REQUIRE_FALSE(w.ok());
    return w.error().message();
  };
  CHECK(message_of(tmp / "nope/out.jar") ==
        tmp / "nope/out.jar" + ": directory " + tmp / "nope" + " does not exist");
  write_text(tmp / "plain", "a file, not a directory");
  CHECK(message_of(tmp / "plain/out.jar") ==
        tmp / "plain/out.jar" + ": " + tmp / "plain" + " is not a directory");
  fs::create_directory(tmp.path / "dir.jar");
  CHECK(message_of(tmp / "dir.jar") == tmp / "dir.jar" + ": is a directory");
}

TEST_CASE("the writer may outlive the reader it copies from", "[archive]") {
  TempDir tmp;
  std::string in_path = build_test_jar(tmp);
  auto w = JarWriter::create(tmp / "out.jar");
  REQUIRE(w.ok());
  {
    JarReader in = open_jar(in_path);
    for (const JarEntry& e : in.entries()) REQUIRE(w->copy(in, e).ok());
  }
  REQUIRE(w->commit().ok());
  require_same_entries(tmp, in_path, tmp / "out.jar");
}

TEST_CASE("jars with more than 65535 entries use zip64 end records", "[archive]") {
  TempDir tmp;
  const int kEntries = 70000;
  {
    auto w = JarWriter::create(tmp / "big.jar");
    REQUIRE(w.ok());
    for (int i = 0; i < kEntries; ++i) {
      std::string name = "p/C" + std::to_string(i) + ".class";
      REQUIRE(w->put(name, to_bytes(name), DosTime{static_cast<uint16_t>(i), 0x21}).ok());
    }
    REQUIRE(w->put("last.txt", to_bytes("last"), DosTime{0, 0}).ok());
    REQUIRE(w->commit().ok());
  }
  JarReader in = open_jar(tmp / "big.jar");
  REQUIRE(in.entries().size() == kEntries + 1);
  CHECK(in.entries()[12345].mtime == DosTime{12345, 0x21});
  CHECK(in.entries().back().mtime == DosTime{0, 0});  // read and patched through zip64
  CHECK(in.read(in.entries()[69999]).value() == to_bytes("p/C69999.class"));
  copy_all(in, tmp / "copy.jar");
  JarReader out = open_jar(tmp / "copy.jar");
  REQUIRE(out.entries().size() == kEntries + 1);
  CHECK(out.entries().back().mtime == DosTime{0, 0});
  CHECK(out.read_raw(out.entries()[4242]).value() == in.read_raw(in.entries()[4242]).value());
}

TEST_CASE("bad jars give clear errors", "[archive]") {
  TempDir tmp;
  std::string good = build_test_jar(tmp);
  auto message_of = [](const std::string& path) {
    auto r = JarReader::open(path);
    REQUIRE_FALSE(r.ok());
    return r.error().message();
  };

  SECTION("not a zip") {
    write_text(tmp.path / "text.jar", "this is not a zip file at all\n");
    std::string m = message_of(tmp / "text.jar");
    CHECK_THAT(m, Catch::StartsWith(tmp / "text.jar") && Catch::Contains("not a zip file"));
  }
  SECTION("truncated") {
    auto b = slurp(good);
    b.resize(b.size() / 2);
    spit(tmp / "half.jar", b);
    CHECK_THAT(message_of(tmp / "half.jar"), Catch::Contains("half.jar: not a zip file"));
  }
  SECTION("data prepended to a truncated jar") {  // a whole jar with a prefix opens: see below
    auto b = to_bytes("#!/bin/sh\nexec java -jar \"$0\"\n");
    auto jar = slurp(good);
    b.insert(b.end(), jar.begin(), jar.begin() + static_cast<long>(jar.size() / 2));
    spit(tmp / "prefixed.jar", b);
    CHECK_THAT(message_of(tmp / "prefixed.jar"), Catch::Contains("prefixed.jar: not a zip file"));
  }
  SECTION("empty file") {
    write_text(tmp.path / "empty.jar", "");
    CHECK_THAT(message_of(tmp / "empty.jar"), Catch::Contains("empty.jar: "));
  }
  SECTION("missing") {
    CHECK_THAT(message_of(tmp / "nope.jar"),
               Catch::Contains("nope.jar: No such file or directory"));
  }
  SECTION("a directory") {
    CHECK_THAT(message_of(tmp / "src"), Catch::Contains("src: is a directory"));
  }
  SECTION("corrupt data in one entry") {
    JarReader jar = open_jar(good);
    const JarEntry* hello = jar.find("a/Hello.class");
    const JarEntry* stored = jar.find("a/Stored.bin");
    auto raw_hello = jar.read_raw(*hello).value();
    auto raw_stored = jar.read_raw(*stored).value();
    auto b = slurp(good);
    // Flip a byte in the middle of each entry's data, found by its stored bytes.
    for (const auto* raw : {&raw_hello, &raw_stored}) {
      auto at = std::search(b.begin(), b.end(), raw->begin(), raw->end());
      REQUIRE(at != b.end());
      at[static_cast<long>(raw->size() / 2)] ^= 0x55;
    }
    spit(tmp / "bad.jar", b);
    JarReader bad = open_jar(tmp / "bad.jar");
    auto r1 = bad.read(*bad.find("a/Stored.bin"));
    REQUIRE_FALSE(r1.ok());
    CHECK(r1.error().message() == tmp / "bad.jar" + ": entry a/Stored.bin: CRC error");
    auto r2 = bad.read(*bad.find("a/Hello.class"));
    REQUIRE_FALSE(r2.ok());
    CHECK_THAT(r2.error().message(),
               Catch::StartsWith(tmp / "bad.jar" + ": entry a/Hello.class: "));
    CHECK(bad.read(*bad.find("module-info.class")).ok());  // the rest still reads
  }
}

TEST_CASE("a jar with duplicate names reads both; the writer refuses the second", "[archive]") {
  TempDir tmp;
  write_text(tmp.path / "d/dup1.txt", "first\n");
  write_text(tmp.path / "d/dup2.txt", "second\n");
  std::string jar = tmp / "dup.jar";
  run("cd " + quote(tmp / "d") + " && zip -q " + quote(jar) + " dup1.txt dup2.txt");
  patch_name(jar, "dup2.txt", "dup1.txt");
  JarReader in = open_jar(jar);
  REQUIRE(in.entries().size() == 2);
  CHECK(in.entries()[0].name == in.entries()[1].name);
  CHECK(in.read(in.entries()[0]).value() == to_bytes("first\n"));
  CHECK(in.read(in.entries()[1]).value() == to_bytes("second\n"));
  auto w = JarWriter::create(tmp / "out.jar");
  REQUIRE(w.ok());
  REQUIRE(w->copy(in, in.entries()[0]).ok());
  auto st = w->copy(in, in.entries()[1]);
  REQUIRE_FALSE(st.ok());
  CHECK_THAT(st.error().message(), Catch::Contains("out.jar: entry dup1.txt: duplicate"));
  REQUIRE(w->commit().ok());  // the writer is still usable
  CHECK(open_jar(tmp / "out.jar").entries().size() == 1);
}

TEST_CASE("every entry of h2.jar copies identically", "[archive]") {
  const std::string h2 = "/usr/share/java/h2.jar";
  if (!fs::exists(h2)) {
    WARN("skipped: " << h2 << " not installed");
    return;
  }
  TempDir tmp;
  JarReader in = open_jar(h2);
  REQUIRE(in.entries().size() > 100);
  copy_all(in, tmp / "h2.jar");
  require_same_entries(tmp, h2, tmp / "h2.jar");
}

TEST_CASE("entry name classification", "[archive]") {
  using duplex::is_class_entry;
  using duplex::is_signature_file;
  using duplex::split_versioned;
  CHECK(is_class_entry("a/B.class"));
  CHECK(is_class_entry("module-info.class"));
  CHECK(is_class_entry("META-INF/versions/9/module-info.class"));
  CHECK_FALSE(is_class_entry("a/B.class/"));
  CHECK_FALSE(is_class_entry("a/B.CLASS.txt"));

  CHECK(split_versioned("META-INF/versions/11/a/B.class").release == 11);
  CHECK(split_versioned("META-INF/versions/11/a/B.class").path == "a/B.class");
  CHECK(split_versioned("META-INF/versions/9/module-info.class").release == 9);
  CHECK(split_versioned("a/B.class").release == 0);
  CHECK(split_versioned("a/B.class").path == "a/B.class");
  CHECK(split_versioned("META-INF/versions/x/a/B.class").release == 0);
  CHECK(split_versioned("META-INF/versions/0/a/B.class").release == 0);
  CHECK(split_versioned("META-INF/versions/11/").release == 0);
  CHECK(split_versioned("META-INF/versions//a.class").release == 0);

  for (const char* sig : {"META-INF/FOO.SF", "META-INF/FOO.RSA", "META-INF/foo.dsa",
                          "META-INF/KEY.EC", "META-INF/SIG-FOO", "meta-inf/x.sf"}) {
    INFO(sig);
    CHECK(is_signature_file(sig));
  }
  for (const char* not_sig : {"META-INF/MANIFEST.MF", "META-INF/sub/FOO.SF", "FOO.SF",
                              "META-INF/.SF", "META-INF/FOO.SFX", "a/META-INF/FOO.SF"}) {
    INFO(not_sig);
    CHECK_FALSE(is_signature_file(not_sig));
  }
}

TEST_CASE("signature digests are stripped from manifest entry sections", "[archive]") {
  const std::string manifest =
      "Manifest-Version: 1.0\r\n"
      "Created-By: test\r\n"
      "SHA-256-Digest-Manifest: kept-in-main\r\n"
      "\r\n"
      "Name: a/B.class\r\n"
      "SHA-256-Digest: abc=\r\n"
      "\r\n"
      "Name: a/very/long/name/that/continues/onto/the/next/line/because/manifests/wr\r\n"
      " ap/At72.class\r\n"
      "SHA1-Digest: def\r\n"
      " continued=\r\n"
      "Sealed: true\r\n"
      "\r\n"
      "Name: c/D.class\r\n"
      "sha-256-digest: lowercase\r\n"
      "\r\n";
  const std::string expected =
      "Manifest-Version: 1.0\r\n"
      "Created-By: test\r\n"
      "SHA-256-Digest-Manifest: kept-in-main\r\n"
      "\r\n"
      "Name: a/very/long/name/that/continues/onto/the/next/line/because/manifests/wr\r\n"
      " ap/At72.class\r\n"
      "Sealed: true\r\n"
      "\r\n";
  CHECK(duplex::strip_manifest_digests(manifest) == expected);
  // LF-only manifests, a main section alone, and no trailing blank line.
  CHECK(duplex::strip_manifest_digests("A: 1\n\nName: x\nMD5-Digest: y\n") == "A: 1\n\n");
  CHECK(duplex::strip_manifest_digests("Main: only\n") == "Main: only\n");
  CHECK(duplex::strip_manifest_digests("") == "");
}

TEST_CASE("plain files: read, atomic write, errors", "[archive]") {
  TempDir tmp;
  std::string path = tmp / "deep/er/Foo.class";
  const auto bytes = to_bytes(std::string("\xCA\xFE\xBA\xBE\0\0", 6));
  REQUIRE(duplex::write_file_atomic(path, bytes).ok());
  CHECK(duplex::read_file(path).value() == bytes);
  REQUIRE(duplex::write_file_atomic(path, to_bytes("second")).ok());
  CHECK(duplex::read_file(path).value() == to_bytes("second"));
  CHECK(dir_names(tmp.path / "deep/er") == std::vector<std::string>{"Foo.class"});

  auto missing = duplex::read_file(tmp / "nope.class");
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().message() == tmp / "nope.class" + ": No such file or directory");
  auto dir = duplex::read_file(tmp / "deep");
  REQUIRE_FALSE(dir.ok());
  CHECK_THAT(dir.error().message(), Catch::Contains("deep: is a directory"));
  if (::geteuid() != 0) {  // root reads anything
    fs::permissions(path, fs::perms::none);
    auto unreadable = duplex::read_file(path);
    REQUIRE_FALSE(unreadable.ok());
    CHECK_THAT(unreadable.error().message(), Catch::Contains("Permission denied"));
  }
  // A file where a parent directory should be.
  auto blocked = duplex::write_file_atomic(path + "/x.class", bytes);
  REQUIRE_FALSE(blocked.ok());
  CHECK_THAT(blocked.error().message(), Catch::Contains("x.class: cannot create directory"));
}

TEST_CASE("directory trees are listed sorted and relative to the root", "[archive]") {
  TempDir tmp;
  for (const char* f : {"b/Z.class", "a/B.class", "a/A.class", "top.txt", "a/sub/C.class"}) {
    write_text(tmp.path / "root" / f, f);
  }
  fs::create_directories(tmp.path / "root/emptydir");
  auto files = duplex::list_files(tmp / "root");
  REQUIRE(files.ok());
  CHECK(files.value() == std::vector<std::string>{"a/A.class", "a/B.class", "a/sub/C.class",
                                                  "b/Z.class", "top.txt"});
  auto bad = duplex::list_files(tmp / "missing");
  REQUIRE_FALSE(bad.ok());
  CHECK_THAT(bad.error().message(), Catch::StartsWith(tmp / "missing"));
  auto file = duplex::list_files(tmp / "root/top.txt");
  REQUIRE_FALSE(file.ok());
  CHECK_THAT(file.error().message(), Catch::Contains("top.txt: not a directory"));
}

TEST_CASE("a jar with a launcher script before it opens past the script, which a copy keeps",
          "[archive]") {
  TempDir tmp;
  const std::string plain = build_test_jar(tmp);
  const std::string script = "#!/bin/sh\nexec java -jar \"$0\" \"$@\"\n";
  std::vector<uint8_t> bytes = to_bytes(script);
  std::vector<uint8_t> zip = slurp(plain);
  bytes.insert(bytes.end(), zip.begin(), zip.end());
  const std::string prefixed = (tmp.path / "exec.jar").string();
  spit(prefixed, bytes);

  JarReader jar = open_jar(prefixed);
  CHECK(jar.prefix_size() == script.size());
  CHECK(jar.read_prefix().value() == to_bytes(script));
  JarReader original = open_jar(plain);
  CHECK(original.prefix_size() == 0);
  REQUIRE(jar.entries().size() == original.entries().size());
  for (size_t i = 0; i < jar.entries().size(); ++i) {
    const JarEntry& e = jar.entries()[i];
    INFO(e.name);
    CHECK(e.name == original.entries()[i].name);
    CHECK(e.mtime == original.entries()[i].mtime);
    if (!e.is_directory) CHECK(jar.read(e).value() == original.read(original.entries()[i]).value());
  }

  // The same with the zip's offsets adjusted to count from the file's start (`zip -A`), which
  // libzip reads as a whole: the script is still found.
  const std::string adjusted = (tmp.path / "adjusted.jar").string();
  spit(adjusted, bytes);
  run("zip -q -A " + quote(adjusted));
  JarReader whole = open_jar(adjusted);
  CHECK(whole.prefix_size() == script.size());
  CHECK(whole.read_prefix().value() == to_bytes(script));
  REQUIRE(whole.entries().size() == original.entries().size());
  for (const JarEntry& e : whole.entries()) {
    if (!e.is_directory)
      CHECK(whole.read(e).value() == original.read(*original.find(e.name)).value());
  }

  // A copy with the prefix set starts with the script and reads as the input does.
  const std::string out = (tmp.path / "out.jar").string();
  auto w = JarWriter::create(out);
  REQUIRE(w.ok());
  w->set_prefix(jar.read_prefix().value());
  for (const JarEntry& e : jar.entries()) REQUIRE(w->copy(jar, e).ok());
  REQUIRE(w->commit().ok());
  std::vector<uint8_t> written = slurp(out);
  REQUIRE(written.size() > script.size());
  CHECK(std::vector<uint8_t>(written.begin(), written.begin() + static_cast<long>(script.size())) ==
        to_bytes(script));
  JarReader again = open_jar(out);
  CHECK(again.prefix_size() == script.size());
  for (const JarEntry& e : again.entries()) {
    if (!e.is_directory) CHECK(again.read(e).value() == jar.read(*jar.find(e.name)).value());
  }
  // Nothing but the jars is left beside them (the prefix went in through a temp file too).
  for (const std::string& name : dir_names(tmp.path)) CHECK(name.find(".tmp") == std::string::npos);
}

TEST_CASE("a jmod opens past its JM header; other files are refused clearly", "[archive]") {
  const std::string base = std::string(duplex::test::kJmods) + "/java.base.jmod";
  auto jmod = JarReader::open_jmod(base);
  REQUIRE(jmod.ok());
  const JarEntry* object = jmod->find("classes/java/lang/Object.class");
  REQUIRE(object != nullptr);
  auto bytes = jmod->read(*object);
  REQUIRE(bytes.ok());
  REQUIRE(bytes->size() > 4);
  CHECK((*bytes)[0] == 0xCA);
  CHECK((*bytes)[1] == 0xFE);

  duplex::test::TempDir dir;
  const std::string plain = (dir.path() / "plain.jmod").string();
  duplex::test::write_file(plain, {'P', 'K', 3, 4, 0, 0});
  auto refused = JarReader::open_jmod(plain);
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().message().find("not a jmod (no JM header)") != std::string::npos);
  const std::string headless = (dir.path() / "headless.jmod").string();
  duplex::test::write_file(headless, {'J', 'M', 1, 0, 'x', 'y'});
  auto broken = JarReader::open_jmod(headless);
  REQUIRE_FALSE(broken.ok());
  CHECK(broken.error().message().find("not a readable jmod") != std::string::npos);
  CHECK_FALSE(JarReader::open_jmod((dir.path() / "missing.jmod").string()).ok());
}
