// Report dispatch and the row model every format shares.
#include <algorithm>
#include <cstdio>
#include <map>

#include "duplex/report.h"
#include "duplex/report_rows.h"

namespace duplex {

std::optional<ReportFormat> parse_report_format(std::string_view name) {
  if (name == "text") return ReportFormat::kText;
  if (name == "csv") return ReportFormat::kCsv;
  if (name == "xml") return ReportFormat::kXml;
  if (name == "html") return ReportFormat::kHtml;
  if (name == "dot") return ReportFormat::kDot;
  return std::nullopt;
}

std::string render_report(const Profile& profile, const ReportOptions& options) {
  // The renderers rely on one row per key.
  Profile p = profile;
  normalize_profile(p);
  std::optional<Profile> ref;
  ReportOptions o = options;
  if (options.reference) {
    ref = *options.reference;
    normalize_profile(*ref);
    o.reference = &*ref;
  }
  switch (o.format) {
    case ReportFormat::kText:
      return report::render_text(p, o);
    case ReportFormat::kCsv:
      return report::render_csv(p, o);
    case ReportFormat::kXml:
      return profile_to_xml(p);
    case ReportFormat::kHtml:
      return report::render_html(p, o);
    case ReportFormat::kDot:
      return report::render_dot(p, o);
  }
  return {};
}

namespace report {

namespace {

// Adds the keys of one profile to `rows`; `reference` says which counts they are.
void collect(const Profile& p, ProfileKind kind, bool reference, std::map<std::string, Row>& rows) {
  auto add = [&](const std::string& key, uint64_t n, auto fill) {
    if (n == 0) return;
    auto [it, fresh] = rows.try_emplace(key);
    Row& row = it->second;
    if (fresh) {
      row.kind = kind;
      row.key = key;
      fill(row);
    }
    (reference ? row.ref_count : row.count) += n;
  };
  switch (kind) {
    case ProfileKind::kCallEdge:
      for (const CallEdge& e : p.call_edges) {
        add(call_edge_key(e), e.count, [&](Row& r) { r.edge = &e; });
      }
      break;
    case ProfileKind::kFieldAccess:
      for (const FieldAccess& f : p.fields) {
        add("read " + f.key, f.reads, [&](Row& r) { r.field = &f, r.access = "read"; });
        add("write " + f.key, f.writes, [&](Row& r) { r.field = &f, r.access = "write"; });
      }
      break;
    case ProfileKind::kEvent:
      for (const EventCount& e : p.events) {
        add(e.key, e.count, [&](Row& r) { r.event = e.key; });
      }
      break;
  }
}

}  // namespace

KindRows rows_for(const Profile& profile, const Profile* reference, ProfileKind kind) {
  std::map<std::string, Row> by_key;
  collect(profile, kind, false, by_key);
  if (reference) collect(*reference, kind, true, by_key);
  KindRows out;
  out.kind = kind;
  for (auto& [key, row] : by_key) {
    out.total += row.count;
    out.ref_total += row.ref_count;
  }
  for (auto& [key, row] : by_key) {
    if (out.total) row.share = static_cast<double>(row.count) / static_cast<double>(out.total);
    if (out.ref_total) {
      row.ref_share = static_cast<double>(row.ref_count) / static_cast<double>(out.ref_total);
    }
    out.rows.push_back(std::move(row));
  }
  std::stable_sort(out.rows.begin(), out.rows.end(), [](const Row& a, const Row& b) {
    if (a.count != b.count) return a.count > b.count;
    return a.ref_count > b.ref_count;
  });
  return out;
}

std::vector<Row> top_rows(const KindRows& rows, size_t n, bool by_reference) {
  std::vector<Row> out = rows.rows;
  if (by_reference) {
    std::stable_sort(out.begin(), out.end(), [](const Row& a, const Row& b) {
      if (a.ref_count != b.ref_count) return a.ref_count > b.ref_count;
      return a.count > b.count;
    });
  }
  if (n && out.size() > n) out.resize(n);
  return out;
}

std::string dotted(std::string_view internal_name) {
  std::string out(internal_name);
  std::replace(out.begin(), out.end(), '/', '.');
  return out;
}

std::string caller_method_text(const CallEdge& edge) {
  return dotted(edge.caller_class) + "." + edge.caller_method;
}

std::string call_site_text(const CallEdge& edge) {
  std::string out = caller_method_text(edge);
  if (edge.line >= 0) return out + ":" + std::to_string(edge.line);
  if (edge.offset >= 0) return out + "@" + std::to_string(edge.offset);
  return out;
}

// owner.name(desc) with the owner dotted: it ends at the first '.' (class names hold none;
// a method name may hold '(').
std::string callee_text(std::string_view callee) {
  size_t dot = callee.find('.');
  if (dot == std::string_view::npos) return dotted(callee);
  return dotted(callee.substr(0, dot)) + std::string(callee.substr(dot));
}

std::string field_text(const FieldAccess& field) {
  if (field.owner.empty()) return field.key;
  return dotted(field.owner) + "." + field.name + ":" + field.descriptor;
}

std::string row_label(const Row& row) {
  if (row.edge) return call_site_text(*row.edge) + " \u2192 " + callee_text(row.edge->callee);
  if (row.field) return row.access + " " + field_text(*row.field);
  return row.event;
}

std::string percent(double fraction, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f%%", decimals, fraction * 100);
  return buf;
}

std::string percent_or_na(const std::optional<double>& fraction, int decimals) {
  return fraction ? percent(*fraction, decimals) : "n/a";
}

std::string_view section_title(ProfileKind kind) {
  switch (kind) {
    case ProfileKind::kCallEdge:
      return "call edges";
    case ProfileKind::kFieldAccess:
      return "field accesses";
    case ProfileKind::kEvent:
      return "events";
  }
  return "?";
}

}  // namespace report

}  // namespace duplex
