// Test-only helpers for src/pack: exact solvers for small instances (the
// optima the heuristics are measured against), random inputs, and the
// invariant checks every plan must pass.
#ifndef FLOPSPACK_PACK_PRIMITIVES_PACK_TEST_UTIL_H_
#define FLOPSPACK_PACK_PRIMITIVES_PACK_TEST_UTIL_H_

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <vector>

#include "absl/types/span.h"
#include "pack/primitives/group_limits.h"
#include "util/random.h"

namespace flopspack::pack::test_util {

// Fewest bins of the capacity that hold the sizes (exhaustive, n <= ~14).
inline int OptimalBins(absl::Span<const int64_t> sizes, int64_t capacity) {
  std::vector<int64_t> s(sizes.begin(), sizes.end());
  std::sort(s.rbegin(), s.rend());
  int best = static_cast<int>(s.size());
  std::vector<int64_t> load;
  std::function<void(size_t)> visit = [&](size_t i) {
    if (static_cast<int>(load.size()) >= best) return;
    if (i == s.size()) {
      best = static_cast<int>(load.size());
      return;
    }
    for (size_t b = 0; b < load.size(); ++b) {
      if (load[b] + s[i] > capacity) continue;
      bool same = false;  // bins with equal load are interchangeable
      for (size_t c = 0; c < b; ++c) same |= load[c] == load[b];
      if (same) continue;
      load[b] += s[i];
      visit(i + 1);
      load[b] -= s[i];
    }
    load.push_back(s[i]);
    visit(i + 1);
    load.pop_back();
  };
  visit(0);
  return best;
}

// Smallest possible cost of the costliest group under the limits, or
// nullopt when no assignment respects them (exhaustive, n <= ~12, k <= 4).
inline std::optional<double> OptimalMaxCost(absl::Span<const double> costs, int k,
                                            const GroupLimits& limits) {
  const size_t n = costs.size();
  const size_t low = n / static_cast<size_t>(k), high_slots = n % static_cast<size_t>(k);
  std::vector<double> load(static_cast<size_t>(k), 0);
  std::vector<int64_t> tokens(static_cast<size_t>(k), 0);
  std::vector<size_t> count(static_cast<size_t>(k), 0);
  double best = std::numeric_limits<double>::infinity();
  std::function<void(size_t, double)> visit = [&](size_t i, double current) {
    if (current >= best) return;
    if (i == n) {
      if (limits.equal_count) {
        size_t high = 0;
        for (size_t c : count) {
          if (c != low && c != low + 1) return;
          high += c == low + 1;
        }
        if (high != high_slots) return;
      }
      best = current;
      return;
    }
    bool opened_empty = false;
    for (size_t g = 0; g < load.size(); ++g) {
      if (count[g] == 0) {
        if (opened_empty) continue;  // empty groups are interchangeable
        opened_empty = true;
      }
      if (limits.equal_count && count[g] >= low + (high_slots > 0 ? 1 : 0)) continue;
      const int64_t t = limits.item_tokens(i);
      if (limits.has_token_cap() && tokens[g] + t > limits.max_tokens) continue;
      load[g] += costs[i];
      tokens[g] += t;
      ++count[g];
      visit(i + 1, std::max(current, load[g]));
      load[g] -= costs[i];
      tokens[g] -= t;
      --count[g];
    }
  };
  visit(0, 0);
  if (std::isinf(best)) return std::nullopt;
  return best;
}

// Max over groups of the summed costs.
inline double MaxGroupCost(absl::Span<const double> costs, absl::Span<const int32_t> group, int k) {
  std::vector<double> load(static_cast<size_t>(k), 0);
  for (size_t i = 0; i < costs.size(); ++i) load[group[i]] += costs[i];
  return *std::max_element(load.begin(), load.end());
}

// Lognormal integer lengths (median `median`, sigma 1) clipped to [1, clip].
inline std::vector<int64_t> LognormalLengths(size_t n, double median, int64_t clip, uint64_t seed) {
  util::Rng rng(seed);
  std::vector<int64_t> lengths(n);
  for (int64_t& l : lengths) {
    const double u1 = 1 - rng.Uniform(), u2 = rng.Uniform();
    const double z = std::sqrt(-2 * std::log(u1)) * std::cos(2 * M_PI * u2);
    l = std::min<int64_t>(clip, std::max<int64_t>(1, std::llround(median * std::exp(z))));
  }
  return lengths;
}

}  // namespace flopspack::pack::test_util

#endif  // FLOPSPACK_PACK_PRIMITIVES_PACK_TEST_UTIL_H_
