// The Graphviz report: a call graph whose nodes are methods and whose edges carry the call
// counts summed over call sites, drawn thicker for hotter edges.
#include <algorithm>
#include <cstdio>
#include <map>

#include "classfile/descriptors.h"
#include "duplex/report_rows.h"

namespace duplex::report {

namespace {

// A DOT quoted string: backslash and quote escaped, line breaks as \n.
std::string quoted(std::string_view text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else if (c != '\r') {
      out += c;
    }
  }
  return out + "\"";
}

// Method ids in the rewriter's callee form, so a caller and a callee meet in one node.
std::string caller_id(const CallEdge& e) {
  return e.caller_class + "." + e.caller_method + e.caller_descriptor;
}

// fixtures.Switches.dense from fixtures/Switches.dense(I)I
// The descriptor starts at the first '(' from which a whole method descriptor follows (a
// method name may hold '('), else at the first '('.
std::string node_label(std::string_view id) {
  std::string text = callee_text(id);
  size_t start = method_descriptor_start(text);
  return text.substr(0, start != std::string::npos ? start : text.find('('));
}

struct Arc {
  std::string from, to;
  uint64_t count = 0;
};

std::vector<Arc> arcs(const Profile& p) {
  std::map<std::pair<std::string, std::string>, uint64_t> sum;
  for (const CallEdge& e : p.call_edges) sum[{caller_id(e), e.callee}] += e.count;
  std::vector<Arc> out;
  for (auto& [ends, n] : sum) out.push_back({ends.first, ends.second, n});
  std::stable_sort(out.begin(), out.end(),
                   [](const Arc& a, const Arc& b) { return a.count > b.count; });
  return out;
}

}  // namespace

std::string render_dot(const Profile& profile, const ReportOptions& options) {
  std::vector<Arc> all = arcs(profile);
  std::vector<Arc> shown = all;
  if (options.top && shown.size() > options.top) shown.resize(options.top);
  uint64_t max = shown.empty() ? 1 : std::max<uint64_t>(shown.front().count, 1);
  uint64_t total = 0;
  for (const Arc& a : all) total += a.count;

  std::string title = "duplex call graph";
  if (!options.profile_name.empty()) title += ": " + options.profile_name;
  title += " (" + std::to_string(shown.size()) + " of " + std::to_string(all.size()) + " edges, " +
           std::to_string(total) + " calls)";
  std::string out = "digraph duplex_call_graph {\n";
  out += "  graph [label=" + quoted(title) + ", labelloc=t, rankdir=LR, fontname=Helvetica];\n";
  out +=
      "  node [shape=box, style=\"rounded,filled\", fillcolor=\"#eef3fb\", color=\"#4a6fa5\","
      " fontname=Helvetica, fontsize=10];\n";
  out += "  edge [color=\"#4a6fa5\", fontname=Helvetica, fontsize=9];\n";

  std::map<std::string, std::string> node_names;  // method id -> n0, n1, ...
  auto node = [&](const std::string& id) -> const std::string& {
    auto [it, fresh] =
        node_names.try_emplace(id, std::string("n").append(std::to_string(node_names.size())));
    if (fresh) {
      out += "  " + it->second + " [label=" + quoted(node_label(id)) +
             ", tooltip=" + quoted(callee_text(id)) + "];\n";
    }
    return it->second;
  };
  for (const Arc& a : shown) {
    std::string from = node(a.from);
    std::string to = node(a.to);
    double scale = static_cast<double>(a.count) / static_cast<double>(max);
    char attrs[160];
    std::snprintf(attrs, sizeof attrs, "label=\"%llu\", penwidth=%.2f, weight=%d",
                  static_cast<unsigned long long>(a.count), 1 + 5 * scale,
                  1 + static_cast<int>(9 * scale));
    out += "  " + from + " -> " + to + " [" + attrs + "];\n";
  }
  out += "}\n";
  return out;
}

}  // namespace duplex::report
