// `duplex merge A B ... -o OUT`
#include <string>
#include <vector>

#include "duplex/profile.h"
#include "tools/cli.h"

namespace duplex::cli {

const char* const kMergeHelp =
    "usage: duplex merge PROFILE... -o OUT\n"
    "\n"
    "Sums the counts of profiles from several runs into OUT (written atomically; nothing is\n"
    "written if any input is unreadable). The profiles must have the same format version and,\n"
    "where recorded, the same instrumentation kinds; others are refused with the reason.\n"
    "OUT's <run> keeps the settings all runs agree on, sums samples (and checks, entries,\n"
    "backedges, duration-ms), spans the earliest start to the latest end, and records the\n"
    "number of runs as merged-runs.\n"
    "\n"
    "options:\n"
    "  -o, --output OUT    the merged profile (required)\n";

int run_merge(std::span<const std::string> args) {
  std::vector<std::string> inputs;
  std::string output;
  for (const std::string& arg : args) {
    if (arg == "--help" || arg == "-h") {
      write_stdout(kMergeHelp);
      return kExitOk;
    }
  }
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "-o" || arg == "--output") {
      if (i + 1 >= args.size() || args[i + 1].empty()) {
        return usage_error("merge", "option " + arg + " needs a value");
      }
      output = args[++i];
    } else if (arg.size() > 1 && arg[0] == '-') {
      return usage_error("merge", "unknown option '" + arg + "'");
    } else {
      inputs.push_back(arg);
    }
  }
  if (inputs.empty()) return usage_error("merge", "missing PROFILE to merge");
  if (output.empty()) return usage_error("merge", "missing -o OUT");

  std::vector<Profile> profiles;
  for (const std::string& path : inputs) {
    auto p = read_profile(path);
    if (!p) return input_error(p.error().message());
    profiles.push_back(std::move(p.value()));
  }
  // Checked here, not only in merge_profiles, so the message can name the files.
  for (size_t i = 1; i < profiles.size(); ++i) {
    for (size_t j = 0; j < i; ++j) {
      if (auto s = check_mergeable(profiles[j], profiles[i]); !s) {
        return input_error("cannot merge " + inputs[i] + " with " + inputs[j] + ": " +
                           s.error().reason);
      }
    }
  }
  auto merged = merge_profiles(profiles);
  if (!merged) return input_error(merged.error().message());
  if (auto s = write_profile(*merged, output); !s) return input_error(s.error().message());
  return kExitOk;
}

}  // namespace duplex::cli
