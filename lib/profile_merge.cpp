// Merging runs: counts are summed key by key; the <run> metadata says what the runs had in
// common and how many there were.
#include <algorithm>
#include <charconv>
#include <set>

#include "duplex/profile.h"

namespace duplex {

namespace {

// The run's "profile" attribute as a set of kinds: "field-access,call-edge" and
// "call-edge+field-access" name the same instrumentation.
std::set<std::string> kind_set(const std::string& text) {
  std::set<std::string> out;
  std::string cur;
  for (char c : text + ",") {
    if (c == ',' || c == '+' || c == ' ') {
      if (!cur.empty()) out.insert(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  return out;
}

uint64_t as_count(const std::string& text) {
  uint64_t n = 0;
  std::from_chars(text.data(), text.data() + text.size(), n);
  return n;
}

// Attributes summed over runs, kept only when every run has them.
constexpr std::string_view kSummed[] = {"samples", "checks", "entries", "backedges", "duration-ms"};

bool is_summed(std::string_view name) {
  return std::find(std::begin(kSummed), std::end(kSummed), name) != std::end(kSummed);
}

// ISO-8601 times in the runtime's one format compare as text.
bool is_earliest(std::string_view name) {
  return name == "start" || name == "counts-since";
}

RunInfo merge_runs(std::span<const Profile> profiles) {
  RunInfo out;
  // Attribute names in order of first appearance.
  std::vector<std::string> names;
  for (const Profile& p : profiles) {
    for (const auto& [name, value] : p.run.attributes) {
      if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
    }
  }
  uint64_t runs = 0;
  for (const Profile& p : profiles) runs += p.run.runs();
  for (const std::string& name : names) {
    if (name == "merged-runs" || name == "reason") continue;
    bool everywhere = std::all_of(profiles.begin(), profiles.end(),
                                  [&](const Profile& p) { return p.run.has(name); });
    if (is_summed(name)) {
      if (!everywhere) continue;
      uint64_t sum = 0;
      for (const Profile& p : profiles) sum += as_count(p.run.get(name));
      out.set(name, std::to_string(sum));
    } else if (is_earliest(name) || name == "end") {
      std::string best;
      for (const Profile& p : profiles) {
        std::string v = p.run.get(name);
        if (v.empty()) continue;
        if (best.empty() || (is_earliest(name) ? v < best : v > best)) best = v;
      }
      if (!best.empty()) out.set(name, best);
    } else {
      std::string first = profiles[0].run.get(name);
      bool same =
          everywhere && std::all_of(profiles.begin(), profiles.end(),
                                    [&](const Profile& p) { return p.run.get(name) == first; });
      // mode and profile stay as empty values so the <run> still has every documented name.
      if (same) {
        out.set(name, first);
      } else if (name == "mode" || name == "profile") {
        out.set(name, "");
      }
    }
  }
  out.set("reason", "merge");
  out.set("merged-runs", std::to_string(runs));
  return out;
}

}  // namespace

Status check_mergeable(const Profile& a, const Profile& b) {
  if (a.version != b.version) {
    return Error::plain("profile format versions differ (" + std::to_string(a.version) + " and " +
                        std::to_string(b.version) + ")");
  }
  std::string pa = a.run.get("profile"), pb = b.run.get("profile");
  if (!pa.empty() && !pb.empty() && kind_set(pa) != kind_set(pb)) {
    return Error::plain("instrumentation kinds differ (profile=\"" + pa + "\" and profile=\"" + pb +
                        "\")");
  }
  return Ok{};
}

Result<Profile> merge_profiles(std::span<const Profile> profiles) {
  if (profiles.empty()) return Error::plain("no profiles to merge");
  for (size_t i = 1; i < profiles.size(); ++i) {
    // Every pair must agree; comparing with each earlier one also catches a named set that
    // differs from an earlier named one with unnamed ones in between.
    for (size_t j = 0; j < i; ++j) {
      if (auto s = check_mergeable(profiles[j], profiles[i]); !s) {
        return Error::plain("profile " + std::to_string(i + 1) + " cannot be merged with profile " +
                            std::to_string(j + 1) + ": " + s.error().reason);
      }
    }
  }
  Profile out;
  out.version = profiles[0].version;
  out.run = merge_runs(profiles);
  for (const Profile& p : profiles) {
    out.call_edges.insert(out.call_edges.end(), p.call_edges.begin(), p.call_edges.end());
    out.fields.insert(out.fields.end(), p.fields.begin(), p.fields.end());
    out.events.insert(out.events.end(), p.events.begin(), p.events.end());
  }
  normalize_profile(out);
  return out;
}

}  // namespace duplex
