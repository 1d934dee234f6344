// `duplex overlap REFERENCE SAMPLED`
#include <cstdio>
#include <string>

#include "duplex/profile.h"
#include "tools/cli.h"

namespace duplex::cli {

const char* const kOverlapHelp =
    "usage: duplex overlap REFERENCE SAMPLED\n"
    "\n"
    "Compares a sampled profile with a reference (normally a perfect profile, written with\n"
    "duplex.interval=1) for each instrumentation kind and overall:\n"
    "  overlap    the sum over keys of min(share in REFERENCE, share in SAMPLED), where a\n"
    "             key's share is its count over its kind's total (Arnold & Ryder, PLDI 2001,\n"
    "             section 4.4); 100% for identical shares, 0% for disjoint keys\n"
    "  hot-cover  the fraction of REFERENCE's hot keys (count >= 0.1 x its hottest key) that\n"
    "             are hot in SAMPLED too\n"
    "Call edges are keyed by caller class, method, descriptor, offset and callee; field reads\n"
    "and writes are separate keys; events are shown when either profile has any.\n";

namespace {

std::string pad(std::string s, size_t width, bool left = false) {
  if (s.size() < width) s.insert(left ? 0 : s.size(), width - s.size(), ' ');
  return s;
}

std::string percent(const std::optional<double>& v) {
  if (!v) return "n/a";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f%%", *v * 100);
  return buf;
}

std::string describe(const std::string& name, const Profile& p) {
  std::string out = name;
  std::string interval = p.run.get("interval"), samples = p.run.get("samples");
  if (!interval.empty() || !samples.empty()) {
    out += " (";
    if (!interval.empty()) out += "interval " + interval + (samples.empty() ? "" : ", ");
    if (!samples.empty()) out += samples + " samples";
    out += ")";
  }
  if (p.run.runs() > 1) out += ", " + std::to_string(p.run.runs()) + " runs merged";
  return out;
}

std::string table(const Comparison& c) {
  std::string out = pad("kind", 14) + pad("overlap", 9, true) + "  " +
                    pad("hot-cover (T=0.1)", 24) + pad("keys ref/sampled", 18, true) +
                    pad("total ref/sampled", 22, true) + "\n";
  std::vector<KindComparison> rows = c.kinds;
  rows.push_back(c.overall);
  for (const KindComparison& k : rows) {
    if (k.name == "event" && !k.present()) continue;
    std::string cover = percent(k.hot_cover);
    if (k.hot_cover) {
      cover +=
          " (" + std::to_string(k.covered_hot) + " of " + std::to_string(k.reference_hot) + ")";
    }
    out +=
        pad(k.name, 14) + pad(percent(k.overlap), 9, true) + "  " + pad(cover, 24) +
        pad(std::to_string(k.reference_keys) + "/" + std::to_string(k.sampled_keys), 18, true) +
        pad(std::to_string(k.reference_total) + "/" + std::to_string(k.sampled_total), 22, true) +
        "\n";
  }
  return out;
}

}  // namespace

int run_overlap(std::span<const std::string> args) {
  std::vector<std::string> files;
  for (const std::string& arg : args) {
    if (arg == "--help" || arg == "-h") {
      write_stdout(kOverlapHelp);
      return kExitOk;
    }
  }
  for (const std::string& arg : args) {
    if (arg.size() > 1 && arg[0] == '-')
      return usage_error("overlap", "unknown option '" + arg + "'");
    files.push_back(arg);
  }
  if (files.size() != 2) {
    return usage_error("overlap", files.size() < 2 ? "expected REFERENCE and SAMPLED profiles"
                                                   : "expected only REFERENCE and SAMPLED");
  }
  auto reference = read_profile(files[0]);
  if (!reference) return input_error(reference.error().message());
  auto sampled = read_profile(files[1]);
  if (!sampled) return input_error(sampled.error().message());
  Comparison c = compare_profiles(*reference, *sampled);
  std::string out = "reference: " + describe(files[0], *reference) + "\n" +
                    "sampled:   " + describe(files[1], *sampled) + "\n\n" + table(c);
  if (!write_stdout(out)) return input_error("cannot write to standard output");
  return kExitOk;
}

}  // namespace duplex::cli
