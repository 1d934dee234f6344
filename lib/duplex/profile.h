// Profiles written by the duplex runtime (docs/profile-format.md): read one, write one, merge
// several runs, and compare two with the overlap metric of Arnold & Ryder (PLDI 2001, 4.4).
//
//   auto perfect = duplex::read_profile("perfect.xml");   // run with duplex.interval=1
//   auto sampled = duplex::read_profile("sampled.xml");
//   if (!perfect || !sampled) ...                          // Error::message() names the file
//   duplex::Comparison c = duplex::compare_profiles(*perfect, *sampled);
//   // c.overall.overlap == 0.938 means 93.8%
//
// Errors are values: a missing, unreadable or malformed file gives an Error whose message
// starts with the file name and says what is wrong; nothing throws or aborts.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "classfile/error.h"

namespace duplex {

// The <duplex-profile version="..."> this library reads and writes.
inline constexpr int kProfileFormatVersion = 1;

// The <run> element: every attribute as text, in file order. Numbers that merging sums
// (samples, checks, entries, backedges, duration-ms, merged-runs) are checked to be unsigned
// integers when read; the rest is informational and kept as written.
struct RunInfo {
  std::vector<std::pair<std::string, std::string>> attributes;

  // The attribute's value, or "" when absent.
  std::string get(std::string_view name) const;
  bool has(std::string_view name) const;
  // Replaces the attribute's value, or appends it.
  void set(std::string_view name, std::string value);
  void erase(std::string_view name);
  // "merged-runs", or 1 for a profile written by one run.
  uint64_t runs() const;
};

struct CallEdge {
  std::string caller_class;       // internal name: a/b/Main
  std::string caller_method;      // run
  std::string caller_descriptor;  // (I)V; empty when the JVM could not tell (before Java 10)
  int32_t offset = -1;            // original bytecode offset of the call; -1 unknown
  int32_t line = -1;              // source line of the call; -1 unknown
  std::string callee;             // owner.name(desc), as the rewriter names it
  uint64_t count = 0;
};

struct FieldAccess {
  std::string key;  // owner.name:desc
  std::string owner, name, descriptor;
  uint64_t reads = 0;
  uint64_t writes = 0;
};

struct EventCount {
  std::string key;
  uint64_t count = 0;
};

struct Profile {
  int version = kProfileFormatVersion;
  RunInfo run;
  std::vector<CallEdge> call_edges;
  std::vector<FieldAccess> fields;
  std::vector<EventCount> events;
};

// --- reading and writing ---------------------------------------------------------------

// Reads and checks a profile file. `path` starts every error message.
Result<Profile> read_profile(const std::string& path);
// The same for text already in memory; `name` stands for the file in error messages.
Result<Profile> parse_profile(std::string_view xml, std::string_view name);

// Sums rows with equal keys (call edges: caller class, method, descriptor, offset and callee;
// the first known line is kept; sums stop at 2^64-1 rather than wrap), drops rows with a zero
// count and sorts the rows as the runtime does (count descending, then key), so equal profiles
// give identical files.
void normalize_profile(Profile& profile);

// The normalized profile as XML in the runtime's format (version 1), section totals included.
std::string profile_to_xml(const Profile& profile);
// Writes profile_to_xml() to `path` atomically.
Status write_profile(const Profile& profile, const std::string& path);
// Writes `contents` to a temporary file next to `path`, then renames it over `path`: readers
// see the old file or the new one, and a failure leaves nothing behind.
Status write_file_atomically(const std::string& path, std::string_view contents);

// --- merging ---------------------------------------------------------------------------

// Ok if `a` and `b` can be summed: the same format version and, when both name them, the same
// instrumentation kinds (the run's "profile" attribute, as a set). Otherwise the reason.
Status check_mergeable(const Profile& a, const Profile& b);
// Sums the counts of `profiles` (at least one, pairwise mergeable; the error names the
// position of the first that is not). Run metadata: mode and profile and the other
// informational attributes are kept when all runs agree and dropped otherwise; samples, checks,
// entries, backedges and duration-ms are summed (dropped unless every run has them); start and
// counts-since are the earliest, end the latest; merged-runs is the number of runs summed and
// reason is "merge".
Result<Profile> merge_profiles(std::span<const Profile> profiles);

// --- comparing -------------------------------------------------------------------------

enum class ProfileKind { kCallEdge, kFieldAccess, kEvent };
inline constexpr ProfileKind kAllProfileKinds[] = {ProfileKind::kCallEdge,
                                                   ProfileKind::kFieldAccess, ProfileKind::kEvent};
// "call-edge", "field-access", "event"
std::string_view kind_name(ProfileKind kind);

// One instrumentation kind of a profile as a distribution: a count per key. Call edges are
// keyed by caller class, method, descriptor, original offset and callee (not the line, which
// the offset determines); fields by "read owner.name:desc" and "write owner.name:desc"
// (separate keys); events by their key.
struct KeyCount {
  std::string key;
  uint64_t count = 0;
};
std::vector<KeyCount> key_counts(const Profile& profile, ProfileKind kind);  // sorted by key
std::string call_edge_key(const CallEdge& edge);

// Overlap of two distributions: the sum over keys of min(share in a, share in b), where
// share = count / total of its distribution; 1 for identical shares, 0 for disjoint keys.
// nullopt when both are empty (nothing to compare); 0 when only one is.
std::optional<double> overlap(std::span<const KeyCount> a, std::span<const KeyCount> b);
// The fraction of b's hot keys (count >= threshold x b's largest count) that are hot in a
// (by the same rule in a). nullopt when b is empty.
std::optional<double> hot_cover(std::span<const KeyCount> a, std::span<const KeyCount> b,
                                double threshold = 0.1);

struct KindComparison {
  std::string name;                 // kind_name(), or "overall"
  std::optional<double> overlap;    // see overlap()
  std::optional<double> hot_cover;  // hot keys of the reference that are hot in the sample
  size_t reference_hot = 0;         // hot keys of the reference
  size_t covered_hot = 0;           // ... that are hot in the sample
  size_t reference_keys = 0, sampled_keys = 0;
  uint64_t reference_total = 0, sampled_total = 0;
  bool present() const { return reference_total != 0 || sampled_total != 0; }
};

struct Comparison {
  std::vector<KindComparison> kinds;  // one per ProfileKind, in kAllProfileKinds order
  // All kinds as one distribution (keys prefixed by their kind), so each kind weighs by its
  // counts.
  KindComparison overall;
};

// Compares a sampled profile against a reference (normally a perfect profile, interval 1).
Comparison compare_profiles(const Profile& reference, const Profile& sampled,
                            double hot_threshold = 0.1);

}  // namespace duplex
