// The CSV report: one row per key (as the metrics count them), the same columns in the same
// order whatever the profile holds, so scripts can rely on them.
#include <cstdio>

#include "duplex/report_rows.h"

namespace duplex::report {

namespace {

constexpr const char* kHeader =
    "kind,key,count,share,reference_count,reference_share,caller_class,caller_method,"
    "caller_descriptor,offset,line,callee,owner,name,descriptor\n";

// RFC 4180: quote a field holding a comma, quote, or line break; double the quotes inside.
std::string csv_field(std::string_view text) {
  if (text.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(text);
  std::string out = "\"";
  for (char c : text) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::string fraction(double f) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6f", f);
  return buf;
}

std::string kind_column(const Row& r) {
  if (r.kind == ProfileKind::kFieldAccess) return "field-" + r.access;
  return std::string(kind_name(r.kind));
}

std::string csv_row(const Row& r, bool with_reference) {
  std::vector<std::string> cols = {kind_column(r), r.key, std::to_string(r.count),
                                   fraction(r.share)};
  cols.push_back(with_reference ? std::to_string(r.ref_count) : "");
  cols.push_back(with_reference ? fraction(r.ref_share) : "");
  if (r.edge) {
    cols.insert(cols.end(),
                {r.edge->caller_class, r.edge->caller_method, r.edge->caller_descriptor,
                 std::to_string(r.edge->offset), std::to_string(r.edge->line), r.edge->callee});
  } else {
    cols.insert(cols.end(), 6, "");
  }
  if (r.field) {
    cols.insert(cols.end(), {r.field->owner, r.field->name, r.field->descriptor});
  } else {
    cols.insert(cols.end(), 3, "");
  }
  std::string line;
  for (size_t i = 0; i < cols.size(); ++i) {
    if (i) line += ',';
    line += csv_field(cols[i]);
  }
  return line + "\n";
}

}  // namespace

std::string render_csv(const Profile& profile, const ReportOptions& options) {
  std::string out = kHeader;
  for (ProfileKind kind : kAllProfileKinds) {
    for (const Row& r : rows_for(profile, options.reference, kind).rows) {
      out += csv_row(r, options.reference != nullptr);
    }
  }
  return out;
}

}  // namespace duplex::report
