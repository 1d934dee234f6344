// `duplex report PROFILE [--format F] [--top N] [--reference PERFECT] [-o OUT]`
#include <cstdint>
#include <string>

#include "duplex/profile.h"
#include "duplex/report.h"
#include "tools/cli.h"

namespace duplex::cli {

const char* const kReportHelp =
    "usage: duplex report PROFILE [options]\n"
    "\n"
    "Shows a profile written by the duplex runtime: the run's settings and the hottest call\n"
    "edges, fields and events, with counts, shares and source lines.\n"
    "\n"
    "options:\n"
    "  --format F          text (default), csv (one row per key), xml (the normalized\n"
    "                      profile), html (one self-contained page: sortable tables and a\n"
    "                      chart of shares) or dot (a Graphviz call graph)\n"
    "  --top N             rows per table, bars per chart, edges in the graph (default 20;\n"
    "                      0 = all); csv and xml always hold every key\n"
    "  --reference PERFECT compare with a reference profile (normally interval 1): its\n"
    "                      shares, overlap and hot-cover\n"
    "  -o, --output OUT    write OUT (atomically) instead of standard output\n";

namespace {

struct ReportArgs {
  std::string input, output, reference;
  ReportOptions options;
};

std::string parse_args(std::span<const std::string> args, ReportArgs& a) {
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    auto value = [&](std::string& into) -> bool {
      if (i + 1 >= args.size()) return false;
      into = args[++i];
      return true;
    };
    std::string v;
    if (arg == "-o" || arg == "--output") {
      if (!value(a.output) || a.output.empty()) return "option " + arg + " needs a value";
    } else if (arg == "--format") {
      if (!value(v)) return "option --format needs a value";
      auto format = parse_report_format(v);
      if (!format) return "unknown format '" + v + "' (expected text, csv, xml, html or dot)";
      a.options.format = *format;
    } else if (arg == "--top") {
      if (!value(v)) return "option --top needs a value";
      auto n = parse_number(v, 0, SIZE_MAX);
      if (!n) return "option --top needs a number of rows, not '" + v + "'";
      a.options.top = static_cast<size_t>(*n);
    } else if (arg == "--reference") {
      if (!value(a.reference) || a.reference.empty()) return "option --reference needs a value";
    } else if (arg.size() > 1 && arg[0] == '-') {
      return "unknown option '" + arg + "'";
    } else if (a.input.empty()) {
      a.input = arg;
    } else {
      return "unexpected argument '" + arg + "' (one PROFILE only)";
    }
  }
  if (a.input.empty()) return "missing PROFILE";
  return {};
}

}  // namespace

int run_report(std::span<const std::string> args) {
  for (const std::string& arg : args) {
    if (arg == "--help" || arg == "-h") {
      write_stdout(kReportHelp);
      return kExitOk;
    }
  }
  ReportArgs a;
  if (std::string err = parse_args(args, a); !err.empty()) return usage_error("report", err);
  auto profile = read_profile(a.input);
  if (!profile) return input_error(profile.error().message());
  std::optional<Profile> reference;
  if (!a.reference.empty()) {
    auto ref = read_profile(a.reference);
    if (!ref) return input_error(ref.error().message());
    reference = std::move(ref.value());
    a.options.reference = &*reference;
    a.options.reference_name = a.reference;
  }
  a.options.profile_name = a.input;
  std::string text = render_report(*profile, a.options);
  if (a.output.empty()) {
    if (!write_stdout(text)) return input_error("cannot write to standard output");
    return kExitOk;
  }
  if (auto s = write_file_atomically(a.output, text); !s) return input_error(s.error().message());
  return kExitOk;
}

}  // namespace duplex::cli
