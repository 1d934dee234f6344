// The HTML report: one self-contained page (inline CSS, JS and SVG; nothing fetched) with the
// run metadata, the accuracy against a reference, a chart per kind in the style of Arnold &
// Ryder's Figure 7 (reference share as a bar, sampled share as a dot) and sortable tables.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>

#include "duplex/report_rows.h"

namespace duplex::report {

namespace {

// A chart with more bars than this is unreadable; tables still honour --top.
constexpr size_t kMaxBars = 200;

std::string esc(std::string_view text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string num(double v, int decimals = 1) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

constexpr const char* kStyle = R"(<style>
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Helvetica, Arial, sans-serif;
       margin: 24px 32px; color: #1d2430; background: #fff; }
h1 { font-size: 22px; margin: 0 0 12px; }
h2 { font-size: 17px; margin: 28px 0 8px; border-bottom: 1px solid #d8dee8; padding-bottom: 4px; }
code { font: 12.5px/1.3 ui-monospace, "DejaVu Sans Mono", Menlo, monospace; }
table { border-collapse: collapse; margin: 8px 0 4px; }
td, th { padding: 3px 10px; text-align: left; vertical-align: top; }
table.meta th { color: #5a6475; font-weight: 600; padding-left: 0; }
table.sortable { font-size: 13px; }
table.sortable th { background: #eef3fb; border-bottom: 2px solid #b8c7df; cursor: pointer;
                    user-select: none; white-space: nowrap; }
table.sortable th:hover { background: #dfe8f6; }
table.sortable th[aria-sort=ascending]::after { content: " \25B2"; font-size: 10px; }
table.sortable th[aria-sort=descending]::after { content: " \25BC"; font-size: 10px; }
table.sortable td { border-bottom: 1px solid #edf0f5; }
table.sortable td code { overflow-wrap: anywhere; }
table.sortable tbody tr:hover { background: #f6f8fc; }
td.n, th.n { text-align: right; font-variant-numeric: tabular-nums; }
.note { color: #5a6475; }
figure { margin: 8px 0 12px; }
svg.chart { width: 100%; max-width: 1100px; height: auto; display: block; }
svg.chart .bar { fill: #8fb3de; }
svg.chart .bar:hover { fill: #5f8fcb; }
svg.chart .dot { fill: #d1495b; stroke: #fff; stroke-width: 1.5; }
svg.chart .grid { stroke: #e3e7ee; }
svg.chart .axis { stroke: #6b7485; }
svg.chart text { font: 11px system-ui, Helvetica, Arial, sans-serif; fill: #3b4454; }
.big { font-size: 15px; font-weight: 600; }
</style>
)";

// Clicking a header sorts its table by that column (numbers by data-v), again to reverse.
constexpr const char* kScript = R"(<script>
document.querySelectorAll('table.sortable').forEach(function (table) {
  var heads = table.tHead.rows[0].cells;
  Array.prototype.forEach.call(heads, function (th, col) {
    th.title = 'click to sort';
    th.addEventListener('click', function () {
      var asc = th.getAttribute('aria-sort') !== 'ascending';
      Array.prototype.forEach.call(heads, function (h) { h.removeAttribute('aria-sort'); });
      th.setAttribute('aria-sort', asc ? 'ascending' : 'descending');
      var numeric = th.classList.contains('n');
      var body = table.tBodies[0];
      var rows = Array.prototype.slice.call(body.rows);
      function value(row) {
        var cell = row.cells[col];
        return cell.hasAttribute('data-v') ? cell.getAttribute('data-v') : cell.textContent;
      }
      rows.sort(function (a, b) {
        var x = value(a), y = value(b);
        var c = numeric ? parseFloat(x) - parseFloat(y) : x.localeCompare(y);
        return asc ? c : -c;
      });
      rows.forEach(function (r) { body.appendChild(r); });
    });
  });
});
</script>
)";

// A y-axis step of 1, 2 or 5 x 10^k percent giving at most about six gridlines.
double nice_step(double max_percent) {
  double raw = std::max(max_percent, 0.01) / 5;
  double base = std::pow(10, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    if (m * base >= raw) return m * base;
  }
  return 10 * base;
}

// Figure 7: one slot per key, hottest in the reference first. The bar is the reference share
// (the profile's own share without a reference); the dot is the sampled share.
std::string chart(const KindRows& kr, const ReportOptions& o) {
  bool ref = o.reference != nullptr;
  size_t n = o.top ? std::min(o.top, kMaxBars) : kMaxBars;
  std::vector<Row> rows = top_rows(kr, n, ref);
  if (rows.empty()) return {};
  const double left = 58, right = 16, top = 34, plot_h = 250, bottom = 46;
  const double width = 1000, plot_w = width - left - right, height = top + plot_h + bottom;
  double max_share = 0;
  for (const Row& r : rows) max_share = std::max({max_share, r.share, ref ? r.ref_share : 0});
  double step = nice_step(max_share * 100);
  double y_max = std::max(step, std::ceil(max_share * 100 / step - 1e-9) * step);
  auto y = [&](double share) { return top + plot_h - share * 100 / y_max * plot_h; };
  double slot = plot_w / static_cast<double>(rows.size());
  std::string id = std::string(kind_name(kr.kind));

  std::string s = "<svg class=\"chart\" id=\"chart-" + id +
                  "\" xmlns=\"http://www.w3.org/2000/svg\"" + " viewBox=\"0 0 " + num(width, 0) +
                  " " + num(height, 0) + "\" role=\"img\">\n";
  s += "<title>" + esc(std::string(section_title(kr.kind))) + ": share of counts per key</title>\n";
  int decimals = step < 1 ? (step < 0.1 ? 2 : 1) : 0;
  for (double t = 0; t <= y_max + step / 2; t += step) {
    s += "<line class=\"grid\" x1=\"" + num(left) + "\" x2=\"" + num(width - right) + "\" y1=\"" +
         num(y(t / 100)) + "\" y2=\"" + num(y(t / 100)) + "\"/>";
    s += "<text x=\"" + num(left - 6) + "\" y=\"" + num(y(t / 100) + 4) +
         "\" text-anchor=\"end\">" + num(t, decimals) + "%</text>\n";
  }
  for (size_t i = 0; i < rows.size(); ++i) {
    const Row& r = rows[i];
    double bar_share = ref ? r.ref_share : r.share;
    double cx = left + slot * (static_cast<double>(i) + 0.5);
    double bw = std::max(1.0, slot * 0.62);
    std::string tip =
        "#" + std::to_string(i + 1) + " " + row_label(r) + "\n" +
        (ref ? "reference " + percent(r.ref_share) + " (" + std::to_string(r.ref_count) +
                   "), sampled " + percent(r.share) + " (" + std::to_string(r.count) + ")"
             : "share " + percent(r.share) + " (" + std::to_string(r.count) + ")");
    s += "<rect class=\"bar\" x=\"" + num(cx - bw / 2) + "\" y=\"" + num(y(bar_share)) +
         "\" width=\"" + num(bw) + "\" height=\"" + num(y(0) - y(bar_share)) + "\"><title>" +
         esc(tip) + "</title></rect>";
    if (ref) {
      s += "<circle class=\"dot\" cx=\"" + num(cx) + "\" cy=\"" + num(y(r.share)) + "\" r=\"" +
           num(std::clamp(slot * 0.22, 2.5, 6.0)) + "\"><title>" + esc(tip) + "</title></circle>";
    }
    if (rows.size() <= 60 || (i + 1) % 5 == 0) {
      s += "<text x=\"" + num(cx) + "\" y=\"" + num(top + plot_h + 15) +
           "\" text-anchor=\"middle\">" + std::to_string(i + 1) + "</text>";
    }
    s += "\n";
  }
  s += "<line class=\"axis\" x1=\"" + num(left) + "\" x2=\"" + num(width - right) + "\" y1=\"" +
       num(y(0)) + "\" y2=\"" + num(y(0)) + "\"/>";
  s += "<line class=\"axis\" x1=\"" + num(left) + "\" x2=\"" + num(left) + "\" y1=\"" + num(top) +
       "\" y2=\"" + num(y(0)) + "\"/>\n";
  s += "<text x=\"" + num(left + plot_w / 2) + "\" y=\"" + num(height - 8) +
       "\" text-anchor=\"middle\">" + esc(std::string(section_title(kr.kind))) +
       (ref ? ", hottest in the reference first" : ", hottest first") +
       " (hover for names)</text>\n";
  s += "<text transform=\"translate(14 " + num(top + plot_h / 2) +
       ") rotate(-90)\" text-anchor=\"middle\">share of counts</text>\n";
  // Legend, top right.
  double lx = width - right - (ref ? 330 : 150);
  s += "<rect class=\"bar\" x=\"" + num(lx) + "\" y=\"10\" width=\"14\" height=\"12\"/>";
  s += "<text x=\"" + num(lx + 20) + "\" y=\"20\">" +
       std::string(ref ? "reference share" : "share of counts") + "</text>";
  if (ref) {
    s += "<circle class=\"dot\" cx=\"" + num(lx + 167) + "\" cy=\"16\" r=\"5\"/>";
    s += "<text x=\"" + num(lx + 178) + "\" y=\"20\">sampled share</text>";
  }
  s += "\n</svg>\n";
  return s;
}

std::string th(std::string_view label, bool numeric) {
  return std::string("<th") + (numeric ? " class=\"n\"" : "") + ">" + esc(label) + "</th>";
}

std::string td_num(uint64_t v) {
  return "<td class=\"n\">" + std::to_string(v) + "</td>";
}

std::string td_share(double share) {
  return "<td class=\"n\" data-v=\"" + num(share * 100, 6) + "\">" + percent(share) + "</td>";
}

std::string td(std::string_view text, bool code = true) {
  return code ? "<td><code>" + esc(text) + "</code></td>" : "<td>" + esc(text) + "</td>";
}

std::string table(const KindRows& kr, const ReportOptions& o) {
  bool ref = o.reference != nullptr;
  std::vector<Row> rows = top_rows(kr, o.top, false);
  std::string s = "<table class=\"sortable\" id=\"table-" + std::string(kind_name(kr.kind)) +
                  "\">\n<thead><tr>" + th("#", true);
  if (kr.kind == ProfileKind::kFieldAccess) s += th("access", false);
  s += th("count", true) + th("share", true);
  if (ref) s += th("reference count", true) + th("reference share", true);
  switch (kr.kind) {
    case ProfileKind::kCallEdge:
      s += th("call site", false) + th("offset", true) + th("callee", false);
      break;
    case ProfileKind::kFieldAccess:
      s += th("field", false);
      break;
    case ProfileKind::kEvent:
      s += th("event", false);
      break;
  }
  s += "</tr></thead>\n<tbody>\n";
  size_t rank = 0;
  for (const Row& r : rows) {
    s += "<tr>" + td_num(++rank);
    if (r.field) s += td(r.access, false);
    s += td_num(r.count) + td_share(r.share);
    if (ref) s += td_num(r.ref_count) + td_share(r.ref_share);
    if (r.edge) {
      s += td(call_site_text(*r.edge));
      s += r.edge->offset < 0 ? "<td class=\"n\" data-v=\"-1\">?</td>" : td_num(r.edge->offset);
      s += td(callee_text(r.edge->callee));
    } else if (r.field) {
      s += td(field_text(*r.field));
    } else {
      s += td(r.event);
    }
    s += "</tr>\n";
  }
  s += "</tbody></table>\n";
  if (rows.size() < kr.rows.size()) {
    s += "<p class=\"note\">The " + std::to_string(rows.size()) + " hottest of " +
         std::to_string(kr.rows.size()) + " keys (<code>--top</code>).</p>\n";
  }
  return s;
}

std::string section(const Profile& p, const ReportOptions& o, ProfileKind kind) {
  KindRows kr = rows_for(p, o.reference, kind);
  if (kind == ProfileKind::kEvent && kr.rows.empty()) return {};
  std::string title(section_title(kind));
  title[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(title[0])));
  std::string s =
      "<section id=\"" + std::string(kind_name(kind)) + "\">\n<h2>" + esc(title) + "</h2>\n";
  size_t in_profile = 0;
  for (const Row& r : kr.rows) in_profile += r.count != 0;
  s += "<p>" + std::to_string(in_profile) + " keys, " + std::to_string(kr.total) +
       " counted in this profile";
  if (o.reference) s += "; " + std::to_string(kr.ref_total) + " in the reference";
  s += ".</p>\n";
  if (kr.rows.empty()) return s + "<p class=\"note\">Nothing recorded.</p>\n</section>\n";
  s += "<figure>\n" + chart(kr, o) + "</figure>\n" + table(kr, o) + "</section>\n";
  return s;
}

std::string comparison(const Profile& p, const ReportOptions& o) {
  Comparison c = compare_profiles(*o.reference, p, o.hot_threshold);
  std::string s = "<section id=\"accuracy\">\n<h2>Accuracy against the reference</h2>\n";
  s += "<p class=\"big\">Overlap " + percent_or_na(c.overall.overlap) + ", hot-cover " +
       percent_or_na(c.overall.hot_cover) + "</p>\n";
  s +=
      "<p class=\"note\">Overlap: the sum over keys of the smaller of the two shares (Arnold &amp; "
      "Ryder, section 4.4). Hot-cover: the fraction of the reference's hot keys (count at least " +
      num(o.hot_threshold, 2) + " &times; its hottest) that are hot in this profile too.</p>\n";
  s += "<table class=\"sortable\" id=\"table-accuracy\">\n<thead><tr>" + th("kind", false) +
       th("overlap", true) + th("hot-cover", true) + th("hot keys found", true) +
       th("keys (reference)", true) + th("keys (sampled)", true) + th("total (reference)", true) +
       th("total (sampled)", true) + "</tr></thead>\n<tbody>\n";
  std::vector<KindComparison> rows = c.kinds;
  rows.push_back(c.overall);
  for (const KindComparison& k : rows) {
    if (!k.present() && k.name == "event") continue;
    auto cell = [&](const std::optional<double>& v) {
      return "<td class=\"n\" data-v=\"" + (v ? num(*v * 100, 6) : std::string("-1")) + "\">" +
             percent_or_na(v) + "</td>";
    };
    s += "<tr>" + td(k.name, false) + cell(k.overlap) + cell(k.hot_cover) + "<td class=\"n\">" +
         std::to_string(k.covered_hot) + " of " + std::to_string(k.reference_hot) + "</td>" +
         td_num(k.reference_keys) + td_num(k.sampled_keys) + td_num(k.reference_total) +
         td_num(k.sampled_total) + "</tr>\n";
  }
  return s + "</tbody></table>\n</section>\n";
}

}  // namespace

std::string render_html(const Profile& profile, const ReportOptions& options) {
  std::string name = options.profile_name.empty() ? "(unnamed)" : options.profile_name;
  std::string s = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  s += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  s += "<title>duplex profile " + esc(name) + "</title>\n";
  s += kStyle;
  s += "</head>\n<body>\n<h1>duplex profile <code>" + esc(name) + "</code></h1>\n";
  s += "<table class=\"meta\">\n";
  for (const auto& [label, value] : run_lines(profile.run)) {
    s += "<tr><th>" + esc(label) + "</th><td>" + esc(value) + "</td></tr>\n";
  }
  if (options.reference) {
    s += "<tr><th>reference</th><td><code>" + esc(options.reference_name) + "</code></td></tr>\n";
  }
  s += "</table>\n";
  if (options.reference) s += comparison(profile, options);
  for (ProfileKind kind : kAllProfileKinds) s += section(profile, options, kind);
  s += kScript;
  s += "</body>\n</html>\n";
  return s;
}

}  // namespace duplex::report
