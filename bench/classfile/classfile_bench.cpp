// Micro-benchmark of the class-file layer: warm, single-threaded throughput over real classes.
//
//   duplex-classfile-bench [--label NAME] [--min-passes N] [--max-seconds S] [--mode M] INPUT...
//
// INPUT: .jar, .jmod (its classes/ entries) or a directory of .class files. Every class is
// read into memory first; then each mode runs whole passes over all of them until the last
// three passes agree within 2% (or --max-seconds is spent), and reports the best pass:
//   parse        ClassFile::parse
//   parse+write  parse, write
//   ir-full      parse, build_code_ir + replace_code for every method with code, write
//   rewrite-full rewrite_class() with Full-Duplication, call-edge and field-access (only when
//                asked for with --mode: it measures the rewriter, not the class-file layer)
// Output: one "RESULT <label> <mode> <classes> <bytes> <best wall s> <classes/s> <MB/s>
// <best CPU s>" line per mode (bench/classfile/run_bench.sh turns them into a table).
// With DUPLEX_BENCH_PASSES set, every pass's CPU time goes to stderr too (the first pass is
// the cold one: what a class loaded by the agent costs is nearer to it than to the best).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "bench/classfile/rewrite_pass.h"
#include "classfile/archive.h"
#include "classfile/assembler.h"
#include "classfile/class_file.h"
#include "classfile/code_ir.h"

namespace {

using duplex::ClassFile;
using Clock = std::chrono::steady_clock;

struct Options {
  std::string label = "corpus";
  size_t min_passes = 5;
  double max_seconds = 60;
  std::string only;  // --mode: run just this mode
  std::vector<std::string> inputs;
};

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

// Appends every class of `path` to `out`; false (with a message) if it cannot be read.
bool load(const std::string& path, std::vector<std::vector<uint8_t>>& out) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    auto files = duplex::list_files(path);
    if (!files) return std::fprintf(stderr, "%s\n", files.error().message().c_str()), false;
    for (const auto& f : files.value()) {
      if (!duplex::is_class_entry(f)) continue;
      auto bytes = duplex::read_file(path + "/" + f);
      if (!bytes) return std::fprintf(stderr, "%s\n", bytes.error().message().c_str()), false;
      out.push_back(std::move(bytes.value()));
    }
    return true;
  }
  bool jmod = ends_with(path, ".jmod");
  auto jar = jmod ? duplex::JarReader::open_jmod(path) : duplex::JarReader::open(path);
  if (!jar) return std::fprintf(stderr, "%s\n", jar.error().message().c_str()), false;
  for (const auto& e : jar->entries()) {
    if (e.is_directory || !duplex::is_class_entry(e.name)) continue;
    if (jmod && e.name.rfind("classes/", 0) != 0) continue;
    auto bytes = jar->read(e);
    if (!bytes) return std::fprintf(stderr, "%s\n", bytes.error().message().c_str()), false;
    out.push_back(std::move(bytes.value()));
  }
  return true;
}

// One pass of each mode; the returned sum of sizes keeps the work from being optimised away.
size_t pass_parse(const std::vector<std::vector<uint8_t>>& classes) {
  size_t sum = 0;
  for (const auto& c : classes) {
    auto cf = ClassFile::parse(c);
    sum += cf ? cf->methods.size() : 0;
  }
  return sum;
}

size_t pass_write(const std::vector<std::vector<uint8_t>>& classes) {
  size_t sum = 0;
  for (const auto& c : classes) {
    auto cf = ClassFile::parse(c);
    if (!cf) continue;
    auto out = cf->write();
    sum += out ? out->size() : 0;
  }
  return sum;
}

size_t pass_ir(const std::vector<std::vector<uint8_t>>& classes) {
  size_t sum = 0;
  for (const auto& c : classes) {
    auto cf = ClassFile::parse(c);
    if (!cf) continue;
    for (auto& m : cf->methods) {
      if (cf->find_attribute(m.attributes, "Code") == nullptr) continue;
      auto ir = duplex::build_code_ir(cf.value(), m);
      if (!ir) continue;
      auto r = duplex::replace_code(cf.value(), m, ir.value());
      sum += r ? r->code_length : 0;
    }
    auto out = cf->write();
    sum += out ? out->size() : 0;
  }
  return sum;
}

struct Mode {
  const char* name;
  size_t (*pass)(const std::vector<std::vector<uint8_t>>&);
  bool by_default = true;
};

double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

struct Timing {
  double wall = 0;  // best pass, wall clock
  double cpu = 0;   // best pass, this thread's CPU time (less disturbed on a shared machine)
  size_t passes = 0;
};

// Whole passes until the last three agree within 2% (wall time); the best pass times.
Timing measure(const Mode& mode, const std::vector<std::vector<uint8_t>>& classes,
               const Options& opt, volatile size_t& sink) {
  std::vector<double> wall, cpu;
  auto start = Clock::now();
  for (;;) {
    auto t0 = Clock::now();
    double c0 = thread_cpu_seconds();
    sink = sink + mode.pass(classes);
    cpu.push_back(thread_cpu_seconds() - c0);
    wall.push_back(std::chrono::duration<double>(Clock::now() - t0).count());
    if (std::getenv("DUPLEX_BENCH_PASSES"))
      std::fprintf(stderr, "pass %zu: cpu %.6f s\n", cpu.size(), cpu.back());
    double spent = std::chrono::duration<double>(Clock::now() - start).count();
    if (wall.size() >= opt.min_passes) {
      auto last = std::vector<double>(wall.end() - 3, wall.end());
      auto [lo, hi] = std::minmax_element(last.begin(), last.end());
      if (*hi <= *lo * 1.02 || spent > opt.max_seconds) break;
    }
  }
  return {*std::min_element(wall.begin(), wall.end()), *std::min_element(cpu.begin(), cpu.end()),
          wall.size()};
}

bool parse_args(int argc, char** argv, Options& opt) {
  for (int i = 1; i < argc; ++i) {
    std::string_view a = argv[i];
    bool has_value = i + 1 < argc;
    if (a == "--label" && has_value) {
      opt.label = argv[++i];
    } else if (a == "--min-passes" && has_value) {
      opt.min_passes = std::max<size_t>(3, std::strtoull(argv[++i], nullptr, 10));
    } else if (a == "--max-seconds" && has_value) {
      opt.max_seconds = std::strtod(argv[++i], nullptr);
    } else if (a == "--mode" && has_value) {
      opt.only = argv[++i];
    } else if (a.rfind("--", 0) == 0) {
      return false;
    } else {
      opt.inputs.emplace_back(a);
    }
  }
  return !opt.inputs.empty();
}

}  // namespace

int main(int argc, char** argv) {
  Options opt;
  if (!parse_args(argc, argv, opt)) {
    std::fprintf(stderr,
                 "usage: duplex-classfile-bench [--label NAME] [--min-passes N] "
                 "[--max-seconds S] [--mode parse|parse+write|ir-full|rewrite-full] INPUT...\n");
    return 2;
  }
  const Mode modes[] = {{"parse", pass_parse},
                        {"parse+write", pass_write},
                        {"ir-full", pass_ir},
                        {"rewrite-full", duplex_bench::pass_rewrite_full, false}};
  if (!opt.only.empty() && std::none_of(std::begin(modes), std::end(modes),
                                        [&](const Mode& m) { return opt.only == m.name; })) {
    std::fprintf(stderr, "duplex-classfile-bench: unknown mode '%s'\n", opt.only.c_str());
    return 2;
  }
  std::vector<std::vector<uint8_t>> classes;
  for (const auto& in : opt.inputs)
    if (!load(in, classes)) return 2;
  size_t bytes = 0;
  for (const auto& c : classes) bytes += c.size();
  std::printf("# %s: %zu classes, %.1f MB\n", opt.label.c_str(), classes.size(), bytes / 1e6);

  volatile size_t sink = 0;
  for (const Mode& mode : modes) {
    if (opt.only.empty() ? !mode.by_default : opt.only != mode.name) continue;
    Timing t = measure(mode, classes, opt, sink);
    std::printf("RESULT %s %s %zu %zu %.6f %.0f %.1f %.6f  (best of %zu passes)\n",
                opt.label.c_str(), mode.name, classes.size(), bytes, t.wall,
                classes.size() / t.wall, bytes / 1e6 / t.wall, t.cpu, t.passes);
    std::fflush(stdout);
  }
  return 0;
}
