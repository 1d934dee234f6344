// `duplex instrument IN -o OUT [--mode M] [--profile P] [--include G] [--exclude G] [--jobs N]`
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <sstream>
#include <string>

#include "duplex/instrument.h"
#include "tools/cli.h"

namespace duplex::cli {

const char* const kInstrumentHelp =
    "usage: duplex instrument IN -o OUT [options]\n"
    "\n"
    "Rewrites IN (a jar, a directory of classes, or a .class file) for sampled\n"
    "instrumentation and writes OUT (of the same kind). Jars inside jars are rewritten,\n"
    "multi-release entries too; jar signatures are removed (the classes change); every\n"
    "other entry is copied byte for byte, but for entries whose name a later entry\n"
    "repeats (the JVM reads only the last). IN is never modified; OUT appears only when\n"
    "complete.\n"
    "\n"
    "options:\n"
    "  -o, --output OUT      where to write (required)\n"
    "  --mode M              full (default), partial, nodup, exhaustive, checks or auto\n"
    "  --profile P[,P...]    instrumentations: call-edge, call-edge-stack, field-access\n"
    "                        (default: call-edge,field-access)\n"
    "  --include GLOB        only classes matching (dotted names, '*' and '?'); repeatable\n"
    "  --exclude GLOB        never classes matching; repeatable; wins over --include\n"
    "  --allow-huge          let methods grow past HotSpot's 8000-byte HugeMethodLimit\n"
    "  --layout L            where duplicated code goes: outline (default: a synthetic twin\n"
    "                        method `NAME$duplex` that a check leaves for, and which runs\n"
    "                        the rest of that activation), handback (the twin hands loops\n"
    "                        back to the method at the end of each sample) or inline (in\n"
    "                        the method, as in the paper)\n"
    "  --check C             the check's form: call (the default: the runtime decrements\n"
    "                        the counter), inline (the decrement in place) or local. In the\n"
    "                        outline layout a check calls Duplex.tick() and leaves for the\n"
    "                        twin, or with local counts a loop budget kept in a local; the\n"
    "                        three forms apply to the inline and handback layouts, and to\n"
    "                        the methods the outline layout keeps whole (constructors,\n"
    "                        initializers, interface methods, synchronized blocks, class\n"
    "                        files before version 50)\n"
    "  --flag-check-bytes N  loop-free methods of at most N bytes check the `sampling`\n"
    "                        flag a sampled caller sets instead of counting; 0: off;\n"
    "                        default 325 (HotSpot's FreqInlineSize)\n"
    "  --caller-sampled-bytes N\n"
    "                        loop-free methods of at most N bytes carry no check at all:\n"
    "                        they are sampled when a sampled caller calls them (its\n"
    "                        invokedynamic runs their `NAME$sampled` twin); outline layout,\n"
    "                        class files of version 51 or later (older ones get the flag\n"
    "                        checks above); 0: off (the default); 325 (HotSpot's\n"
    "                        FreqInlineSize) is the size measured\n"
    "  --stripe-in-local     back edges count on the thread's counter stripe kept in a\n"
    "                        local set at the method's start, instead of finding it at\n"
    "                        each check (Duplex.tick()); the same counts and samples\n"
    "  --method-counters     each counting method counts down a counter of its own (a\n"
    "                        static field of its class, a cell per thread) instead of the\n"
    "                        shared one: every method is sampled at its own rate, closer\n"
    "                        profiles from fewer samples; outline layout without --check\n"
    "                        local\n"
    "  Lazy twins (the default for a jar or a directory in the outline and handback\n"
    "  layouts): the twins of a class of version 50 (Java 6) or later go into a class\n"
    "  `CLASS$DuplexTwins` written beside it, which the JVM loads only when the class first\n"
    "  samples: less to load and verify in runs that sample few classes. From version 55 on\n"
    "  it is the class's nestmate; before, the class keeps its version and the twin class\n"
    "  reaches the class's private members through small bridge methods. A class index of\n"
    "  the input, --classpath and the JDK tells which members are protected in a superclass\n"
    "  of another package (only the class itself may reach those); a class whose\n"
    "  superclasses are not all there keeps its twins.\n"
    "  --lazy-twins          lazy twins for every input, a single class file included, and\n"
    "                        classes of version 50-54 raised to 55 (nestmates, no bridges\n"
    "                        for private members), so the output needs Java 11 or later\n"
    "  --eager-twins         no lazy twins: every class keeps its twins\n"
    "  --classpath PATHS     jars, jmods and class directories (':' between them) where the\n"
    "                        input's superclasses may be, for the class index\n"
    "  --java-home DIR       the JDK whose jmods hold the JDK's classes, for the class index\n"
    "                        (default: $JAVA_HOME, else the java on PATH)\n"
    "  --jobs N              threads that rewrite and compress the classes of a jar\n"
    "                        (default: one per hardware thread); the output is the same\n"
    "                        for every N\n"
    "  --deflate-level N     zlib level 0-9 of the rewritten classes in a jar (default 0:\n"
    "                        not compressed, the fastest to write and to load; 1 writes\n"
    "                        2.5-3x fewer bytes, 6 about 10% fewer again)\n"
    "  --quiet               no progress bar and no summary\n"
    "  --methods             list what was done to every method\n"
    "  --named-module        every class makes its module read the runtime's first, as\n"
    "                        classes beside a module-info.class do by themselves: for a\n"
    "                        single class file of a named module, or classes whose\n"
    "                        module-info.class is not in IN (classes before version 49\n"
    "                        are then left as they are)\n"
    "  --runtime-class NAME  the runtime class to call (default duplex.runtime.Duplex),\n"
    "                        for a shaded copy of the runtime\n"
    "  --count-edges         (testing) also count method entries and back edges executed,\n"
    "                        to check that checks <= entries + back edges (Property 1)\n";

namespace {

struct InstrumentArgs {
  std::string input, output;
  enum class Twins { kDefault, kLazy, kEager } twins = Twins::kDefault;
  std::string profile = "call-edge,field-access";
  bool quiet = false;
  bool list_methods = false;
};

// Splits "a,b+c" on ',' and '+'.
std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : text) {
    if (c == ',' || c == '+') {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

// Lazy twins: --lazy-twins everywhere (raising versions 50-54 to 55); by default, for a jar or
// a directory in a layout with twins, each class keeping its version; --eager-twins never.
std::string place_twins(const InstrumentArgs& a, InstrumentOptions& options) {
  using Twins = InstrumentArgs::Twins;
  if (a.twins == Twins::kLazy && !options.rewrite.outline)
    return "--lazy-twins needs twins: the outline or handback layout, not inline";
  bool single_class = a.input.ends_with(".class");
  options.rewrite.lazy_twins =
      a.twins == Twins::kLazy ||
      (a.twins == Twins::kDefault && makes_twins(options.rewrite) && !single_class);
  options.rewrite.lazy_twins_raise_version = a.twins == Twins::kLazy;
  if (!options.rewrite.lazy_twins && (!options.class_path.empty() || !options.java_home.empty()))
    return "--classpath and --java-home only serve lazy twins (not with --eager-twins, the "
           "inline layout, No-Duplication, Exhaustive or a single class file)";
  return {};
}

// Parses the command line into `a` and `options`; returns a usage message on error.
std::string parse_args(std::span<const std::string> args, InstrumentArgs& a,
                       InstrumentOptions& options) {
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    auto value = [&](std::string& into) -> bool {
      if (i + 1 >= args.size()) return false;
      into = args[++i];
      return true;
    };
    std::string v;
    if (arg == "-o" || arg == "--output") {
      if (!value(a.output)) return "option " + arg + " needs a value";
    } else if (arg == "--mode") {
      if (!value(v)) return "option --mode needs a value";
      auto mode = parse_mode(v);
      if (!mode) return mode.error().reason;
      options.rewrite.mode = *mode;
    } else if (arg == "--profile") {
      if (!value(a.profile)) return "option --profile needs a value";
    } else if (arg == "--include" || arg == "--exclude") {
      if (!value(v) || v.empty()) return "option " + arg + " needs a glob";
      (arg == "--include" ? options.include : options.exclude).push_back(v);
    } else if (arg == "--layout") {
      if (!value(v)) return "option --layout needs a value";
      if (v != "inline" && v != "outline" && v != "handback")
        return "unknown layout '" + v + "' (expected inline, outline or handback)";
      options.rewrite.outline = v != "inline";
      options.rewrite.hand_back = v == "handback";
    } else if (arg == "--check") {
      if (!value(v)) return "option --check needs a value";
      auto form = parse_check_form(v);
      if (!form) return form.error().reason;
      options.rewrite.check = *form;
    } else if (arg == "--flag-check-bytes") {
      if (!value(v)) return "option --flag-check-bytes needs a value";
      auto n = parse_number(v, 0, 65535);
      if (!n) return "option --flag-check-bytes needs a byte count (0 to 65535), not '" + v + "'";
      options.rewrite.flag_check_max_bytes = static_cast<uint32_t>(*n);
    } else if (arg == "--caller-sampled-bytes") {
      if (!value(v)) return "option --caller-sampled-bytes needs a value";
      auto n = parse_number(v, 0, 65535);
      if (!n)
        return "option --caller-sampled-bytes needs a byte count (0 to 65535), not '" + v + "'";
      options.rewrite.caller_sampled_max_bytes = static_cast<uint32_t>(*n);
    } else if (arg == "--jobs" || arg == "-j") {
      if (!value(v)) return "option --jobs needs a value";
      auto n = parse_number(v, 1, 1024);
      if (!n) return "option --jobs needs a thread count (1 to 1024), not '" + v + "'";
      options.jobs = static_cast<unsigned>(*n);
    } else if (arg == "--deflate-level") {
      if (!value(v)) return "option --deflate-level needs a value";
      auto n = parse_number(v, 0, 9);
      if (!n) return "option --deflate-level needs a zlib level (0 to 9), not '" + v + "'";
      options.deflate_level = static_cast<int>(*n);
    } else if (arg == "--allow-huge") {
      options.rewrite.respect_huge_method_limit = false;
    } else if (arg == "--runtime-class") {
      if (!value(v) || v.empty()) return "option --runtime-class needs a class name";
      options.rewrite.runtime_class = v;
      for (char& c : options.rewrite.runtime_class) c = c == '.' ? '/' : c;
    } else if (arg == "--named-module") {
      options.rewrite.in_named_module = [](std::string_view) { return true; };
    } else if (arg == "--stripe-in-local") {
      options.rewrite.stripe_in_local = true;
    } else if (arg == "--method-counters") {
      options.rewrite.method_counters = true;
    } else if (arg == "--lazy-twins" || arg == "--eager-twins") {
      auto twins =
          arg == "--lazy-twins" ? InstrumentArgs::Twins::kLazy : InstrumentArgs::Twins::kEager;
      if (a.twins != InstrumentArgs::Twins::kDefault && a.twins != twins)
        return "--lazy-twins and --eager-twins exclude each other";
      a.twins = twins;
    } else if (arg == "--classpath") {
      if (!value(v) || v.empty()) return "option --classpath needs paths";
      for (size_t start = 0; start <= v.size();) {
        size_t colon = std::min(v.find(':', start), v.size());
        if (colon > start) options.class_path.push_back(v.substr(start, colon - start));
        start = colon + 1;
      }
    } else if (arg == "--java-home") {
      if (!value(v) || v.empty()) return "option --java-home needs a directory";
      options.java_home = v;
    } else if (arg == "--count-edges") {
      options.rewrite.count_edges = true;
    } else if (arg == "--methods") {
      a.list_methods = true;
    } else if (arg == "--quiet" || arg == "-q") {
      a.quiet = true;
    } else if (!arg.empty() && arg[0] == '-') {
      return "unknown option '" + arg + "'";
    } else if (a.input.empty()) {
      a.input = arg;
    } else {
      return "unexpected argument '" + arg + "'";
    }
  }
  if (auto why = method_counters_unsupported(options.rewrite)) return "--method-counters: " + *why;
  if (auto why = stripe_in_local_unsupported(options.rewrite)) return "--stripe-in-local: " + *why;
  if (a.input.empty()) return "missing input (a jar, a directory or a .class file)";
  if (auto why = place_twins(a, options); !why.empty()) return why;
  if (a.output.empty()) return "missing -o OUT";
  for (const std::string& name : split_list(a.profile)) {
    auto inst = make_builtin_instrumentation(name);
    if (!inst)
      return "unknown profile '" + name + "' (expected call-edge, call-edge-stack or field-access)";
    options.rewrite.instrumentations.push_back(inst);
  }
  return {};
}

void draw_progress(size_t done, size_t total) {
  if (total == 0) return;
  constexpr int kWidth = 30;
  int filled = static_cast<int>(kWidth * done / total);
  std::fprintf(stderr, "\r[%s%s] %zu/%zu classes", std::string(filled, '#').c_str(),
               std::string(kWidth - filled, '.').c_str(), done, total);
  if (done == total) std::fputc('\n', stderr);
}

// Whether some twins stayed in their classes: all of them without lazy twins, else those the
// placement kept.
bool twins_stay(const InstrumentOptions& options, const InstrumentSummary& s) {
  if (!options.rewrite.lazy_twins) {
    return makes_twins(options.rewrite) &&
           (s.methods_by_transform.contains("full") || s.methods_by_transform.contains("partial") ||
            s.methods_by_transform.contains("checks"));
  }
  return !s.twins_kept_by_reason.empty();
}

std::string summary_text(const InstrumentArgs& a, const InstrumentOptions& options,
                         const InstrumentSummary& s) {
  std::ostringstream out;
  out << "duplex: rewrote " << s.classes_rewritten << " of " << s.classes_seen << " classes in "
      << a.input << " -> " << a.output << " (" << s.seconds << " s)\n";
  out << "  methods:";
  for (const auto& [transform, n] : s.methods_by_transform) out << " " << transform << " " << n;
  out << "\n";
  if (s.class_bytes_before) {
    double growth = 100.0 * (static_cast<double>(s.class_bytes_after) / s.class_bytes_before - 1);
    out << "  size of rewritten classes: " << s.class_bytes_before << " -> " << s.class_bytes_after
        << " bytes (+" << static_cast<int>(growth + 0.5) << "%)\n";
  }
  for (const auto& [reason, n] : s.fallbacks_by_reason) {
    out << "  fallback: " << n << " method(s): " << reason << "\n";
  }
  if (s.classes_excluded)
    out << "  excluded by --include/--exclude: " << s.classes_excluded << "\n";
  if (s.twin_classes || !s.twins_kept_by_reason.empty()) {
    out << "  twin classes (lazy twins): " << s.twin_classes << ", holding " << s.twins_moved
        << " twins\n";
  }
  for (const auto& [reason, n] : s.twins_kept_by_reason) {
    out << "  twins kept in their class: " << n << ": " << reason << "\n";
  }
  if (twins_stay(options, s)) {
    // Only twin classes can name the class that keeps C2 from inlining twins (section 15).
    out << "  twins kept in their class may be inlined into their callers' sample paths; run with "
           "-XX:CompileCommand=quiet '-XX:CompileCommand=dontinline,*::*$duplex' to prevent it "
           "(docs/design/hotspot-costs.md, section 16)\n";
  }
  if (s.serial_versions_declared) {
    out << "  serialVersionUID declared: " << s.serial_versions_declared
        << " class(es), the value serialization computed for the original (the members the "
           "rewrite added would have changed it)\n";
  }
  if (s.index_classes) out << "  class index: " << s.index_classes << " classes\n";
  for (const std::string& note : s.index_notes) out << "  class index: " << note << "\n";
  if (s.nested_jars) out << "  nested jars rewritten: " << s.nested_jars << "\n";
  if (s.duplicate_entries_dropped) {
    out << "  duplicate entries left out: " << s.duplicate_entries_dropped
        << " (a later entry has the same name; the JVM reads only the last)\n";
  }
  if (s.signature_files_removed) {
    out << "  jar signature removed (" << s.signature_files_removed
        << " file(s)): the rewritten classes no longer match it\n";
  }
  if (s.launcher_prefixes_kept) {
    out << "  launcher script kept before the jar (an executable jar): " << s.launcher_prefixes_kept
        << "\n";
  }
  for (const ClassFailure& f : s.failures) {
    out << "  left unchanged: " << f.entry << ": " << f.reason << "\n";
  }
  return out.str();
}

// One line per method: class, method, transform, sizes, checks and why.
void print_methods(const std::string&, const ClassRewrite& r) {
  std::string text;
  for (const MethodReport& m : r.methods) {
    text += r.class_name + "." + m.method + "\t" + transform_name(m.applied) + "\t" +
            std::to_string(m.original_code_size) + "->" + std::to_string(m.new_code_size) +
            " bytes\t" + std::to_string(m.sites) + " sites\t" + std::to_string(m.checks) +
            " checks";
    if (!m.reason.empty()) text += "\t" + m.reason;
    text += "\n";
  }
  write_stdout(text);
}

}  // namespace

int run_instrument(std::span<const std::string> args) {
  for (const std::string& arg : args) {
    if (arg == "--help" || arg == "-h") {
      write_stdout(kInstrumentHelp);
      return kExitOk;
    }
  }
  InstrumentArgs a;
  InstrumentOptions options;
  options.rewrite.list_sites = false;  // --methods prints the reports, not the site list
  if (std::string err = parse_args(args, a, options); !err.empty()) {
    return usage_error("instrument", err);
  }
  if (!a.quiet && isatty(STDERR_FILENO)) options.progress = draw_progress;
  if (a.list_methods) options.on_class = print_methods;
  auto summary = instrument_path(a.input, a.output, options);
  if (!summary) return input_error(summary.error().message());
  if (!a.quiet) std::fputs(summary_text(a, options, summary.value()).c_str(), stderr);
  return kExitOk;
}

}  // namespace duplex::cli
