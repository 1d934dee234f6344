// Reports on a profile (duplex/profile.h) for people and tools: a text table, CSV, the
// normalized XML, a self-contained HTML page with sortable tables and a chart in the style of
// Arnold & Ryder's Figure 7, and a Graphviz call graph.
//
//   duplex::ReportOptions options;
//   options.format = duplex::ReportFormat::kHtml;
//   options.reference = &perfect;          // optional: adds shares, overlap and hot-cover
//   std::string html = duplex::render_report(sampled, options);
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "duplex/profile.h"

namespace duplex {

enum class ReportFormat { kText, kCsv, kXml, kHtml, kDot };

// "text", "csv", "xml", "html", "dot"; nullopt for anything else.
std::optional<ReportFormat> parse_report_format(std::string_view name);

struct ReportOptions {
  ReportFormat format = ReportFormat::kText;
  // Rows per table, bars per chart, edges in the call graph; 0 = all. CSV and XML always
  // contain every key.
  size_t top = 20;
  // A reference profile (normally the perfect one, interval 1) to compare with, or null.
  const Profile* reference = nullptr;
  std::string profile_name;    // shown in headers, e.g. the file name
  std::string reference_name;  // likewise for the reference
  double hot_threshold = 0.1;  // for hot-cover
};

// The report as text in the chosen format (UTF-8). Never fails: every profile that reads can
// be rendered.
std::string render_report(const Profile& profile, const ReportOptions& options);

}  // namespace duplex
