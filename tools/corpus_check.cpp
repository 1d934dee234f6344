// duplex-corpus-check: runs the class-file layer over whole corpora (jars, jmods, directories)
// and reports how much of it survives.
//
// For every class: (a) parse + write must give the input back byte for byte; (b) every method
// with code is forced through build_code_ir + replace_code, and the class is written to
// OUT/<input name>/<package path> so HotSpot can verify it (tests/scripts/verify_dir.sh; a jmod
// becomes OUT/<module>/..., the layout of `verify_dir.sh --jdk OUT`).
//
//   duplex-corpus-check [--out DIR] [--sample N] [--max-failures N] [--quiet] [--show-changed]
//                       INPUT...
//
// INPUT: a .jar/.zip, a .jmod (only its classes/ entries), a directory, or a .class file.
// --sample N checks N classes spread evenly over all inputs (for quick CI slices).
// --show-changed lists the methods whose reassembled Code attribute is not byte-identical to
// the original (informational: relaxation, frame re-encoding; not a failure).
// Exit status: 0 when everything passed, 1 on any failure, 2 on usage or input errors.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "classfile/archive.h"
#include "classfile/assembler.h"
#include "classfile/class_file.h"
#include "classfile/code_ir.h"

namespace {

namespace fs = std::filesystem;
using duplex::ClassFile;
using duplex::Result;

struct Options {
  std::string out;  // empty: write nothing
  size_t sample = 0;
  size_t max_failures = 50;
  bool quiet = false;
  bool show_changed = false;  // list methods whose reassembled Code attribute differs
  std::vector<std::string> inputs;
};

// One input: where its classes come from and where they go.
struct Input {
  std::string path;
  std::string stem;  // output subdirectory: file name without .jar/.jmod/.zip
  enum Kind { kZip, kJmod, kDir, kClass } kind = kZip;
  std::optional<duplex::JarReader> jar;
  std::vector<const duplex::JarEntry*> entries;  // kZip, kJmod: the class entries
  std::vector<std::string> files;                // kDir: relative paths of the class files
  size_t count() const { return kind == kDir ? files.size() : kind == kClass ? 1 : entries.size(); }
};

struct Counts {
  size_t classes = 0;
  size_t parse_failures = 0;
  size_t identical = 0;
  size_t not_identical = 0;
  size_t methods = 0;  // with code
  size_t reassembled = 0;
  size_t code_identical = 0;  // reassembled Code attribute equal to the original one
  size_t ir_failures = 0;
  size_t assembly_failures = 0;
  size_t write_failures = 0;
  uint64_t bytes = 0;
  size_t failures() const {
    return parse_failures + not_identical + ir_failures + assembly_failures + write_failures;
  }
};

struct Checker {
  Options opt;
  Counts n;

  void failure(const std::string& where, std::string_view stage, const std::string& message) {
    if (n.failures() <= opt.max_failures && !opt.quiet)
      std::printf("FAIL %s: %s: %s\n", where.c_str(), std::string(stage).c_str(), message.c_str());
  }

  void check(const std::string& where, const std::string& out_rel,
             const std::vector<uint8_t>& bytes);
  bool reassemble(ClassFile& cf, const std::string& where);
};

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

std::string strip_suffix(std::string name) {
  for (const char* suffix : {".jar", ".jmod", ".zip", ".class"})
    if (ends_with(name, suffix)) return name.substr(0, name.size() - std::strlen(suffix));
  return name;
}

// Forces every method with code through the IR and the assembler; false if any failed.
bool Checker::reassemble(ClassFile& cf, const std::string& where) {
  bool ok = true;
  for (auto& m : cf.methods) {
    const duplex::Attribute* code = cf.find_attribute(m.attributes, "Code");
    if (code == nullptr) continue;
    ++n.methods;
    std::vector<uint8_t> before(code->data.begin(), code->data.end());
    auto ir = duplex::build_code_ir(cf, m);
    if (!ir) {
      ++n.ir_failures;
      failure(where, "build_code_ir", ir.error().message());
      ok = false;
      continue;
    }
    auto r = duplex::replace_code(cf, m, ir.value());
    if (!r) {
      ++n.assembly_failures;
      failure(where, "replace_code", r.error().message());
      ok = false;
      continue;
    }
    ++n.reassembled;
    std::span<const uint8_t> after = cf.find_attribute(m.attributes, "Code")->data;
    bool same = std::equal(after.begin(), after.end(), before.begin(), before.end());
    n.code_identical += same;
    if (!same && opt.show_changed)
      std::printf("CHANGED %s: %s%s (%zu -> %zu bytes)\n", where.c_str(),
                  std::string(cf.member_name(m)).c_str(),
                  std::string(cf.member_descriptor(m)).c_str(), before.size(), after.size());
  }
  return ok;
}

void Checker::check(const std::string& where, const std::string& out_rel,
                    const std::vector<uint8_t>& bytes) {
  ++n.classes;
  n.bytes += bytes.size();
  auto cf = ClassFile::parse(bytes);
  if (!cf) {
    ++n.parse_failures;
    failure(where, "parse", cf.error().message());
    return;
  }
  auto same = cf->write();
  if (same && same.value() == bytes) {
    ++n.identical;
  } else {
    ++n.not_identical;
    failure(where, "write", same ? "output differs from the input" : same.error().message());
  }
  reassemble(cf.value(), where);
  auto out = cf->write();
  if (!out) {
    ++n.write_failures;
    failure(where, "write after reassembly", out.error().message());
    return;
  }
  if (opt.out.empty()) return;
  // A plain write: the output is scratch for the verifier, and write_file_atomic's temp file
  // and rename per class would dominate the run time.
  fs::path dest = fs::path(opt.out) / out_rel;
  std::error_code ec;
  fs::create_directories(dest.parent_path(), ec);
  std::ofstream f(dest, std::ios::binary | std::ios::trunc);
  f.write(reinterpret_cast<const char*>(out->data()), static_cast<std::streamsize>(out->size()));
  if (!f.flush()) {
    std::fprintf(stderr, "duplex-corpus-check: cannot write %s\n", dest.c_str());
    std::exit(2);
  }
}

// Opens an input and lists its classes; false (with a message) if it cannot be read.
bool open_input(Input& in) {
  fs::path p(in.path);
  in.stem = strip_suffix(p.filename().string());
  std::error_code ec;
  if (fs::is_directory(p, ec)) {
    in.kind = Input::kDir;
    in.stem = p.filename().empty() ? p.parent_path().filename().string() : p.filename().string();
    auto files = duplex::list_files(in.path);
    if (!files) {
      std::fprintf(stderr, "duplex-corpus-check: %s\n", files.error().message().c_str());
      return false;
    }
    for (auto& f : files.value())
      if (duplex::is_class_entry(f)) in.files.push_back(f);
    return true;
  }
  if (ends_with(in.path, ".class")) {
    in.kind = Input::kClass;
    return true;
  }
  in.kind = ends_with(in.path, ".jmod") ? Input::kJmod : Input::kZip;
  auto jar = in.kind == Input::kJmod ? duplex::JarReader::open_jmod(in.path)
                                     : duplex::JarReader::open(in.path);
  if (!jar) {
    std::fprintf(stderr, "duplex-corpus-check: %s\n", jar.error().message().c_str());
    return false;
  }
  in.jar = std::move(jar.value());
  for (const auto& e : in.jar->entries()) {
    if (e.is_directory || !duplex::is_class_entry(e.name)) continue;
    // A jmod also holds native libraries, headers and legal files: only classes/ is code.
    if (in.kind == Input::kJmod && e.name.rfind("classes/", 0) != 0) continue;
    in.entries.push_back(&e);
  }
  return true;
}

// Reads class `i` of `in`; sets `where` (for messages) and `out_rel` (output path).
Result<std::vector<uint8_t>> load(const Input& in, size_t i, std::string& where,
                                  std::string& out_rel) {
  std::string rel;
  Result<std::vector<uint8_t>> bytes = duplex::Error::plain("unreachable");
  switch (in.kind) {
    case Input::kDir:
      rel = in.files[i];
      bytes = duplex::read_file(in.path + "/" + rel);
      break;
    case Input::kClass:
      rel = fs::path(in.path).filename().string();
      bytes = duplex::read_file(in.path);
      break;
    case Input::kZip:
    case Input::kJmod:
      rel = in.entries[i]->name;
      bytes = in.jar->read(*in.entries[i]);
      if (in.kind == Input::kJmod) rel = rel.substr(std::strlen("classes/"));
      break;
  }
  where = in.path + "!" + rel;
  out_rel = in.stem + "/" + rel;
  return bytes;
}

int usage() {
  std::fprintf(stderr,
               "usage: duplex-corpus-check [--out DIR] [--sample N] [--max-failures N] [--quiet] "
               "[--show-changed] "
               "INPUT...\n  INPUT: .jar, .jmod, directory or .class\n");
  return 2;
}

bool parse_args(int argc, char** argv, Options& opt) {
  for (int i = 1; i < argc; ++i) {
    std::string_view a = argv[i];
    bool has_value = i + 1 < argc;
    if (a == "--out" && has_value) {
      opt.out = argv[++i];
    } else if (a == "--sample" && has_value) {
      opt.sample = std::strtoull(argv[++i], nullptr, 10);
    } else if (a == "--max-failures" && has_value) {
      opt.max_failures = std::strtoull(argv[++i], nullptr, 10);
    } else if (a == "--show-changed") {
      opt.show_changed = true;
    } else if (a == "--quiet") {
      opt.quiet = true;
    } else if (a.rfind("--", 0) == 0) {
      return false;
    } else {
      opt.inputs.emplace_back(a);
    }
  }
  return !opt.inputs.empty();
}

void report(const Counts& n, double seconds) {
  std::printf("classes: %zu (%.1f MB), parse failures: %zu\n", n.classes, n.bytes / 1e6,
              n.parse_failures);
  std::printf("parse+write byte-identical: %zu/%zu\n", n.identical, n.classes - n.parse_failures);
  std::printf(
      "methods with code: %zu, reassembled: %zu (Code attribute unchanged: %zu), "
      "IR failures: %zu, assembly failures: %zu\n",
      n.methods, n.reassembled, n.code_identical, n.ir_failures, n.assembly_failures);
  std::printf("write failures after reassembly: %zu\n", n.write_failures);
  std::printf("failures: %zu, time: %.1f s\n", n.failures(), seconds);
}

}  // namespace

int main(int argc, char** argv) {
  Checker c;
  if (!parse_args(argc, argv, c.opt)) return usage();
  std::vector<Input> inputs(c.opt.inputs.size());
  size_t total = 0;
  for (size_t i = 0; i < inputs.size(); ++i) {
    inputs[i].path = c.opt.inputs[i];
    if (!open_input(inputs[i])) return 2;
    total += inputs[i].count();
  }
  size_t want = c.opt.sample == 0 || c.opt.sample > total ? total : c.opt.sample;
  auto start = std::chrono::steady_clock::now();
  // Class k of the concatenated inputs is checked when it is the next of `want` evenly
  // spaced picks.
  size_t k = 0, picked = 0;
  for (const Input& in : inputs) {
    for (size_t i = 0; i < in.count(); ++i, ++k) {
      if (picked >= want || k != picked * total / want) continue;
      ++picked;
      std::string where, out_rel;
      auto bytes = load(in, i, where, out_rel);
      if (!bytes) {
        std::fprintf(stderr, "duplex-corpus-check: %s\n", bytes.error().message().c_str());
        return 2;
      }
      c.check(where, out_rel, bytes.value());
    }
  }
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  report(c.n, secs);
  return c.n.failures() == 0 ? 0 : 1;
}
