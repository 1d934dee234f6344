// Internal to the report renderers (lib/report*.cpp): one row per key of one instrumentation
// kind, with its share in the profile and in the reference, plus display helpers. Not part of
// the public API; include duplex/report.h instead.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "duplex/profile.h"
#include "duplex/report.h"

namespace duplex::report {

struct Row {
  ProfileKind kind = ProfileKind::kCallEdge;
  std::string key;     // as key_counts() names it
  std::string access;  // "read" or "write" for fields, else empty
  // Where the key came from: the profile, or the reference when only it has the key.
  const CallEdge* edge = nullptr;
  const FieldAccess* field = nullptr;
  std::string event;  // the event key
  uint64_t count = 0;
  double share = 0;  // count / total of this kind in the profile, 0..1
  uint64_t ref_count = 0;
  double ref_share = 0;
};

struct KindRows {
  ProfileKind kind = ProfileKind::kCallEdge;
  uint64_t total = 0, ref_total = 0;
  std::vector<Row> rows;  // every key of either profile: count desc, then reference count, key
};

// Both profiles must be normalized (one row per key).
KindRows rows_for(const Profile& profile, const Profile* reference, ProfileKind kind);
// The first `n` rows (all if n == 0), ordered by reference share when `by_reference`.
std::vector<Row> top_rows(const KindRows& rows, size_t n, bool by_reference);

// a/b/C -> a.b.C
std::string dotted(std::string_view internal_name);
// fixtures.Switches.main
std::string caller_method_text(const CallEdge& edge);
// fixtures.Switches.main:93, or ...main@18 when the line is unknown
std::string call_site_text(const CallEdge& edge);
// fixtures/Switches.dense(I)I -> fixtures.Switches.dense(I)I (the descriptor stays as it is)
std::string callee_text(std::string_view callee);
// a/b/C.f:La/b/D; -> a.b.C.f:La/b/D;
std::string field_text(const FieldAccess& field);
// One line naming the key for people: "site -> callee", "read a.b.C.f:I", the event key.
std::string row_label(const Row& row);
// "12.34%"
std::string percent(double fraction, int decimals = 2);
// "93.8%" or "n/a"
std::string percent_or_na(const std::optional<double>& fraction, int decimals = 1);
// Human names of the sections: "call edges", "field accesses", "events".
std::string_view section_title(ProfileKind kind);

// The run metadata as (label, value) lines for report headers; absent values are left out.
std::vector<std::pair<std::string, std::string>> run_lines(const RunInfo& run);

std::string render_text(const Profile& profile, const ReportOptions& options);
std::string render_csv(const Profile& profile, const ReportOptions& options);
std::string render_html(const Profile& profile, const ReportOptions& options);
std::string render_dot(const Profile& profile, const ReportOptions& options);

}  // namespace duplex::report
