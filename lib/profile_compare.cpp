// The accuracy metrics: overlap percentage (Arnold & Ryder, PLDI 2001, section 4.4) and
// hot-cover, the share of the reference's hot keys a sampled profile also finds hot.
#include <algorithm>
#include <set>

#include "duplex/profile.h"

namespace duplex {

namespace {

uint64_t total_of(std::span<const KeyCount> d) {
  uint64_t sum = 0;
  for (const KeyCount& k : d) sum += k.count;
  return sum;
}

// Keys whose count reaches threshold x the largest count. Sorted, like the input.
std::vector<std::string_view> hot_keys(std::span<const KeyCount> d, double threshold) {
  uint64_t top = 0;
  for (const KeyCount& k : d) top = std::max(top, k.count);
  std::vector<std::string_view> out;
  if (top == 0) return out;
  for (const KeyCount& k : d) {
    if (k.count > 0 && static_cast<double>(k.count) >= threshold * static_cast<double>(top)) {
      out.push_back(k.key);
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

KindComparison compare(std::string name, std::span<const KeyCount> reference,
                       std::span<const KeyCount> sampled, double threshold) {
  KindComparison c;
  c.name = std::move(name);
  c.overlap = overlap(reference, sampled);
  c.hot_cover = hot_cover(sampled, reference, threshold);
  auto ref_hot = hot_keys(reference, threshold);
  auto sam_hot = hot_keys(sampled, threshold);
  std::vector<std::string_view> both;
  std::set_intersection(ref_hot.begin(), ref_hot.end(), sam_hot.begin(), sam_hot.end(),
                        std::back_inserter(both));
  c.reference_hot = ref_hot.size();
  c.covered_hot = both.size();
  c.reference_keys = reference.size();
  c.sampled_keys = sampled.size();
  c.reference_total = total_of(reference);
  c.sampled_total = total_of(sampled);
  return c;
}

// All kinds as one distribution, each key prefixed by its kind so kinds cannot collide.
std::vector<KeyCount> pooled(const Profile& p) {
  std::vector<KeyCount> out;
  for (ProfileKind kind : kAllProfileKinds) {
    for (KeyCount& k : key_counts(p, kind)) {
      out.push_back({std::string(kind_name(kind)) + " " + k.key, k.count});
    }
  }
  std::sort(out.begin(), out.end(),
            [](const KeyCount& a, const KeyCount& b) { return a.key < b.key; });
  return out;
}

// Walks two key-sorted distributions in step, calling f(count in a, count in b) per key.
template <class F>
void for_each_key(std::span<const KeyCount> a, std::span<const KeyCount> b, F f) {
  std::vector<KeyCount> sa(a.begin(), a.end()), sb(b.begin(), b.end());
  auto by_key = [](const KeyCount& x, const KeyCount& y) { return x.key < y.key; };
  std::sort(sa.begin(), sa.end(), by_key);
  std::sort(sb.begin(), sb.end(), by_key);
  size_t i = 0, j = 0;
  while (i < sa.size() || j < sb.size()) {
    if (j == sb.size() || (i < sa.size() && sa[i].key < sb[j].key)) {
      f(sa[i++].count, 0);
    } else if (i == sa.size() || sb[j].key < sa[i].key) {
      f(0, sb[j++].count);
    } else {
      f(sa[i++].count, sb[j++].count);
    }
  }
}

}  // namespace

std::optional<double> overlap(std::span<const KeyCount> a, std::span<const KeyCount> b) {
  double ta = static_cast<double>(total_of(a)), tb = static_cast<double>(total_of(b));
  if (ta == 0 && tb == 0) return std::nullopt;
  if (ta == 0 || tb == 0) return 0.0;
  double sum = 0;
  for_each_key(a, b, [&](uint64_t x, uint64_t y) {
    sum += std::min(static_cast<double>(x) / ta, static_cast<double>(y) / tb);
  });
  return std::min(sum, 1.0);  // rounding must not show 100.0000001%
}

std::optional<double> hot_cover(std::span<const KeyCount> a, std::span<const KeyCount> b,
                                double threshold) {
  auto hot_b = hot_keys(b, threshold);
  if (hot_b.empty()) return std::nullopt;
  auto hot_a = hot_keys(a, threshold);
  std::vector<std::string_view> both;
  std::set_intersection(hot_b.begin(), hot_b.end(), hot_a.begin(), hot_a.end(),
                        std::back_inserter(both));
  return static_cast<double>(both.size()) / static_cast<double>(hot_b.size());
}

Comparison compare_profiles(const Profile& reference, const Profile& sampled,
                            double hot_threshold) {
  Comparison out;
  for (ProfileKind kind : kAllProfileKinds) {
    auto r = key_counts(reference, kind);
    auto s = key_counts(sampled, kind);
    out.kinds.push_back(compare(std::string(kind_name(kind)), r, s, hot_threshold));
  }
  auto r = pooled(reference);
  auto s = pooled(sampled);
  out.overall = compare("overall", r, s, hot_threshold);
  return out;
}

}  // namespace duplex
