// The text report: run metadata, the comparison with a reference, and the hottest keys of each
// kind as aligned tables.
#include <algorithm>
#include <cstdio>
#include <map>

#include "duplex/report_rows.h"

namespace duplex::report {

namespace {

std::string pad_left(std::string s, size_t width) {
  if (s.size() < width) s.insert(0, width - s.size(), ' ');
  return s;
}

void line(std::string& out, std::string_view label, const std::string& value) {
  if (value.empty()) return;
  out += "  ";
  out += label;
  out += std::string(label.size() < 11 ? 11 - label.size() : 1, ' ');
  out += value + "\n";
}

// "a, b, c" of the non-empty parts.
std::string joined(std::initializer_list<std::string> parts) {
  std::string out;
  for (const std::string& p : parts) {
    if (p.empty()) continue;
    if (!out.empty()) out += ", ";
    out += p;
  }
  return out;
}

std::string named(const RunInfo& run, const char* name, const char* label = nullptr) {
  std::string v = run.get(name);
  return v.empty() ? "" : std::string(label ? label : name) + " " + v;
}

}  // namespace

std::vector<std::pair<std::string, std::string>> run_lines(const RunInfo& run) {
  std::vector<std::pair<std::string, std::string>> out;
  auto add = [&](std::string label, std::string value) {
    if (!value.empty()) out.emplace_back(std::move(label), std::move(value));
  };
  add("mode", run.get("mode"));
  add("profile", run.get("profile"));
  add("sampling", joined({named(run, "interval"), named(run, "jitter"), named(run, "burst"),
                          named(run, "trigger"), named(run, "timer-ms"), named(run, "counter"),
                          named(run, "seed")}));
  // The runtime's warm-up (docs/profile-format.md): its counts were scaled to the interval.
  if (run.has("warmup-ms"))
    add("warm-up", run.get("warmup-ms") + " ms at interval " + run.get("warmup-interval") +
                       ", its counts scaled to the interval");
  add("samples", joined({run.get("samples"), named(run, "checks"), named(run, "entries"),
                         named(run, "backedges")}));
  std::string jvm = run.get("jvm-name");
  if (!run.get("jvm-version").empty()) jvm += (jvm.empty() ? "" : " ") + run.get("jvm-version");
  add("jvm", jvm);
  std::string time;
  if (run.has("start") || run.has("end")) time = run.get("start") + " .. " + run.get("end");
  if (run.has("duration-ms")) time += " (" + run.get("duration-ms") + " ms)";
  add("time", joined({time, named(run, "reason", "written at")}));
  if (run.runs() > 1) add("runs", std::to_string(run.runs()) + " merged");
  return out;
}

namespace {

void header(std::string& out, const Profile& p, const ReportOptions& o) {
  out += "duplex profile " + (o.profile_name.empty() ? std::string("(unnamed)") : o.profile_name) +
         " (format " + std::to_string(p.version) + ")\n";
  for (const auto& [label, value] : run_lines(p.run)) line(out, label + ":", value);
  out += "\n";
}

void comparison(std::string& out, const Profile& p, const ReportOptions& o) {
  Comparison c = compare_profiles(*o.reference, p, o.hot_threshold);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%g", o.hot_threshold);
  out += "compared with reference " + o.reference_name + " (hot = at least " + buf +
         " x the hottest key)\n";
  out += "  kind          overlap  hot-cover\n";
  std::vector<KindComparison> rows = c.kinds;
  rows.push_back(c.overall);
  for (const KindComparison& k : rows) {
    if (!k.present() && k.name == "event") continue;
    std::string name = k.name;
    name.resize(12, ' ');
    out += "  " + name + pad_left(percent_or_na(k.overlap), 9) +
           pad_left(percent_or_na(k.hot_cover), 11);
    if (k.hot_cover) {
      out += " (" + std::to_string(k.covered_hot) + " of " + std::to_string(k.reference_hot) +
             " hot keys)";
    }
    out += "\n";
  }
  out += "\n";
}

std::string top_note(size_t shown, size_t all) {
  return shown < all ? " (top " + std::to_string(shown) + ")" : "";
}

void edge_table(std::string& out, const Profile& p, const ReportOptions& o) {
  KindRows kr = rows_for(p, o.reference, ProfileKind::kCallEdge);
  std::vector<Row> rows = top_rows(kr, o.top, false);
  out += "call edges: " + std::to_string(p.call_edges.size()) + " distinct, " +
         std::to_string(kr.total) + " calls" + top_note(rows.size(), kr.rows.size()) + "\n";
  if (rows.empty()) {
    out += "  (none)\n\n";
    return;
  }
  size_t w = std::max<size_t>(5, std::to_string(rows.front().count).size());
  for (const Row& r : rows) w = std::max(w, std::to_string(r.count).size());
  out += "  " + pad_left("#", 4) + "  " + pad_left("count", w) + "  " + pad_left("share", 7);
  if (o.reference) out += "  " + pad_left("ref", 7);
  out += "  call site \u2192 callee\n";
  size_t rank = 0;
  for (const Row& r : rows) {
    out += "  " + pad_left(std::to_string(++rank), 4) + "  " +
           pad_left(std::to_string(r.count), w) + "  " + pad_left(percent(r.share), 7);
    if (o.reference) out += "  " + pad_left(percent(r.ref_share), 7);
    out += "  " + row_label(r) + "\n";
  }
  out += "\n";
}

// Fields are listed one row per field (reads and writes side by side), which reads better
// than the separate read and write keys the metrics use.
struct FieldLine {
  const FieldAccess* field = nullptr;
  uint64_t reads = 0, writes = 0, ref_accesses = 0;
};

void field_table(std::string& out, const Profile& p, const ReportOptions& o) {
  std::map<std::string, FieldLine> by_key;
  uint64_t reads = 0, writes = 0, ref_total = 0;
  for (const FieldAccess& f : p.fields) {
    by_key[f.key] = {&f, f.reads, f.writes, 0};
    reads += f.reads, writes += f.writes;
  }
  if (o.reference) {
    for (const FieldAccess& f : o.reference->fields) {
      FieldLine& l = by_key[f.key];
      if (!l.field) l.field = &f;
      l.ref_accesses += f.reads + f.writes;
      ref_total += f.reads + f.writes;
    }
  }
  std::vector<FieldLine> rows;
  for (auto& [key, l] : by_key) rows.push_back(l);
  std::stable_sort(rows.begin(), rows.end(), [](const FieldLine& a, const FieldLine& b) {
    if (a.reads + a.writes != b.reads + b.writes) return a.reads + a.writes > b.reads + b.writes;
    return a.ref_accesses > b.ref_accesses;
  });
  size_t all = rows.size();
  if (o.top && rows.size() > o.top) rows.resize(o.top);
  out += "field accesses: " + std::to_string(p.fields.size()) + " fields, " +
         std::to_string(reads) + " reads, " + std::to_string(writes) + " writes" +
         top_note(rows.size(), all) + "\n";
  if (rows.empty()) {
    out += "  (none)\n\n";
    return;
  }
  size_t w = 6;
  for (const FieldLine& r : rows) {
    w = std::max({w, std::to_string(r.reads).size(), std::to_string(r.writes).size()});
  }
  out += "  " + pad_left("#", 4) + "  " + pad_left("reads", w) + "  " + pad_left("writes", w) +
         "  " + pad_left("share", 7);
  if (o.reference) out += "  " + pad_left("ref", 7);
  out += "  field\n";
  double total = static_cast<double>(reads + writes);
  size_t rank = 0;
  for (const FieldLine& r : rows) {
    double share = total ? static_cast<double>(r.reads + r.writes) / total : 0;
    out += "  " + pad_left(std::to_string(++rank), 4) + "  " +
           pad_left(std::to_string(r.reads), w) + "  " + pad_left(std::to_string(r.writes), w) +
           "  " + pad_left(percent(share), 7);
    if (o.reference) {
      double ref = ref_total ? static_cast<double>(r.ref_accesses) / ref_total : 0;
      out += "  " + pad_left(percent(ref), 7);
    }
    out += "  " + field_text(*r.field) + "\n";
  }
  out += "\n";
}

void event_table(std::string& out, const Profile& p, const ReportOptions& o) {
  KindRows kr = rows_for(p, o.reference, ProfileKind::kEvent);
  if (kr.rows.empty()) return;  // most profiles have no events: no empty section for them
  std::vector<Row> rows = top_rows(kr, o.top, false);
  out += "events: " + std::to_string(p.events.size()) + " distinct, " + std::to_string(kr.total) +
         " in all" + top_note(rows.size(), kr.rows.size()) + "\n";
  size_t w = 5;
  for (const Row& r : rows) w = std::max(w, std::to_string(r.count).size());
  out += "  " + pad_left("#", 4) + "  " + pad_left("count", w) + "  " + pad_left("share", 7);
  if (o.reference) out += "  " + pad_left("ref", 7);
  out += "  event\n";
  size_t rank = 0;
  for (const Row& r : rows) {
    out += "  " + pad_left(std::to_string(++rank), 4) + "  " +
           pad_left(std::to_string(r.count), w) + "  " + pad_left(percent(r.share), 7);
    if (o.reference) out += "  " + pad_left(percent(r.ref_share), 7);
    out += "  " + r.event + "\n";
  }
  out += "\n";
}

}  // namespace

std::string render_text(const Profile& profile, const ReportOptions& options) {
  std::string out;
  header(out, profile, options);
  if (options.reference) comparison(out, profile, options);
  edge_table(out, profile, options);
  field_table(out, profile, options);
  event_table(out, profile, options);
  out.pop_back();  // one blank line between sections, none at the end
  return out;
}

}  // namespace duplex::report
