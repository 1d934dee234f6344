// The profile model: run attributes, keys, and the normal form shared by writing, merging and
// reporting.
#include <algorithm>
#include <charconv>
#include <map>
#include <tuple>

#include "duplex/profile.h"

namespace duplex {

std::string RunInfo::get(std::string_view name) const {
  for (const auto& [n, v] : attributes) {
    if (n == name) return v;
  }
  return {};
}

bool RunInfo::has(std::string_view name) const {
  return std::any_of(attributes.begin(), attributes.end(),
                     [&](const auto& a) { return a.first == name; });
}

void RunInfo::set(std::string_view name, std::string value) {
  for (auto& [n, v] : attributes) {
    if (n == name) {
      v = std::move(value);
      return;
    }
  }
  attributes.emplace_back(std::string(name), std::move(value));
}

void RunInfo::erase(std::string_view name) {
  std::erase_if(attributes, [&](const auto& a) { return a.first == name; });
}

uint64_t RunInfo::runs() const {
  std::string text = get("merged-runs");
  uint64_t n = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  return ec == std::errc() && ptr == text.data() + text.size() && n > 0 ? n : 1;
}

std::string call_edge_key(const CallEdge& e) {
  return e.caller_class + "." + e.caller_method + e.caller_descriptor + "@" +
         std::to_string(e.offset) + "->" + e.callee;
}

std::string_view kind_name(ProfileKind kind) {
  switch (kind) {
    case ProfileKind::kCallEdge:
      return "call-edge";
    case ProfileKind::kFieldAccess:
      return "field-access";
    case ProfileKind::kEvent:
      return "event";
  }
  return "?";
}

namespace {

auto edge_identity(const CallEdge& e) {
  return std::tie(e.caller_class, e.caller_method, e.caller_descriptor, e.offset, e.callee);
}

// Counts add up without wrapping: a merged count that no longer fits stays at the maximum.
uint64_t saturating_add(uint64_t a, uint64_t b) {
  return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

void normalize_edges(std::vector<CallEdge>& edges) {
  std::vector<CallEdge> out;
  std::map<std::tuple<std::string, std::string, std::string, int32_t, std::string>, size_t> index;
  for (CallEdge& e : edges) {
    if (e.count == 0) continue;
    auto [it, fresh] = index.try_emplace(edge_identity(e), out.size());
    if (fresh) {
      out.push_back(std::move(e));
      continue;
    }
    CallEdge& kept = out[it->second];
    kept.count = saturating_add(kept.count, e.count);
    if (kept.line < 0) kept.line = e.line;
  }
  std::sort(out.begin(), out.end(), [](const CallEdge& a, const CallEdge& b) {
    if (a.count != b.count) return a.count > b.count;
    return std::tie(a.caller_class, a.caller_method, a.caller_descriptor, a.offset, a.line,
                    a.callee) < std::tie(b.caller_class, b.caller_method, b.caller_descriptor,
                                         b.offset, b.line, b.callee);
  });
  edges = std::move(out);
}

void normalize_fields(std::vector<FieldAccess>& fields) {
  std::map<std::string, FieldAccess> by_key;
  for (FieldAccess& f : fields) {
    if (f.reads == 0 && f.writes == 0) continue;
    auto [it, fresh] = by_key.try_emplace(f.key, f);
    if (fresh) continue;
    it->second.reads = saturating_add(it->second.reads, f.reads);
    it->second.writes = saturating_add(it->second.writes, f.writes);
  }
  fields.clear();
  for (auto& [key, f] : by_key) fields.push_back(std::move(f));
  std::stable_sort(fields.begin(), fields.end(), [](const FieldAccess& a, const FieldAccess& b) {
    return saturating_add(a.reads, a.writes) > saturating_add(b.reads, b.writes);
  });
}

void normalize_events(std::vector<EventCount>& events) {
  std::map<std::string, uint64_t> by_key;
  for (const EventCount& e : events) {
    if (e.count) by_key[e.key] = saturating_add(by_key[e.key], e.count);
  }
  events.clear();
  for (auto& [key, n] : by_key) events.push_back({key, n});
  std::stable_sort(events.begin(), events.end(),
                   [](const EventCount& a, const EventCount& b) { return a.count > b.count; });
}

}  // namespace

void normalize_profile(Profile& profile) {
  normalize_edges(profile.call_edges);
  normalize_fields(profile.fields);
  normalize_events(profile.events);
}

std::vector<KeyCount> key_counts(const Profile& profile, ProfileKind kind) {
  std::map<std::string, uint64_t> counts;
  auto add = [&](const std::string& key, uint64_t n) {
    if (n == 0) return;
    uint64_t& slot = counts[key];
    slot = saturating_add(slot, n);
  };
  switch (kind) {
    case ProfileKind::kCallEdge:
      for (const CallEdge& e : profile.call_edges) add(call_edge_key(e), e.count);
      break;
    case ProfileKind::kFieldAccess:
      for (const FieldAccess& f : profile.fields) {
        add("read " + f.key, f.reads);
        add("write " + f.key, f.writes);
      }
      break;
    case ProfileKind::kEvent:
      for (const EventCount& e : profile.events) add(e.key, e.count);
      break;
  }
  std::vector<KeyCount> out;
  out.reserve(counts.size());
  for (auto& [key, n] : counts) out.push_back({key, n});
  return out;
}

}  // namespace duplex
