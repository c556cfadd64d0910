#include "pack/primitives/lpt.h"

#include <algorithm>
#include <cstring>
#include <functional>
#include <queue>
#include <utility>

#include "absl/strings/str_format.h"

namespace flopspack::pack {

std::vector<int32_t> CostDescendingOrder(absl::Span<const double> costs) {
  const size_t n = costs.size();
  std::vector<int32_t> order(n);
  for (size_t i = 0; i < n; ++i) order[i] = static_cast<int32_t>(i);
  if (n < 512) {
    std::sort(order.begin(), order.end(), [&](int32_t a, int32_t b) {
      return costs[a] != costs[b] ? costs[a] > costs[b] : a < b;
    });
    return order;
  }
  // LSD radix sort on the bit patterns: for finite doubles >= 0 they order
  // like the values, and inverting them sorts descending. Stable, so equal
  // costs keep index order. 8 passes of 8 bits; passes where every key has
  // the same byte are skipped.
  std::vector<uint64_t> key(n), key_tmp(n);
  for (size_t i = 0; i < n; ++i) {
    uint64_t bits = 0;
    const double c = costs[i] == 0 ? 0.0 : costs[i];  // -0.0 sorts as 0
    std::memcpy(&bits, &c, sizeof(bits));
    key[i] = ~bits;
  }
  std::vector<int32_t> order_tmp(n);
  for (int shift = 0; shift < 64; shift += 8) {
    size_t count[257] = {0};
    for (size_t i = 0; i < n; ++i) ++count[((key[i] >> shift) & 0xff) + 1];
    if (count[((key[0] >> shift) & 0xff) + 1] == n) continue;
    for (size_t d = 1; d < 257; ++d) count[d] += count[d - 1];
    for (size_t i = 0; i < n; ++i) {
      const size_t at = count[(key[i] >> shift) & 0xff]++;
      key_tmp[at] = key[i];
      order_tmp[at] = order[i];
    }
    key.swap(key_tmp);
    order.swap(order_tmp);
  }
  return order;
}

absl::StatusOr<std::vector<int32_t>> ListSchedule(absl::Span<const double> costs,
                                                  absl::Span<const int32_t> order, int32_t k,
                                                  const GroupLimits& limits) {
  using Entry = std::pair<double, int32_t>;  // (group cost, group): smallest first
  std::vector<Entry> heap_storage;
  heap_storage.reserve(static_cast<size_t>(k));
  for (int32_t g = 0; g < k; ++g) heap_storage.emplace_back(0.0, g);
  std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> heap(std::greater<Entry>(),
                                                                           std::move(heap_storage));
  std::vector<double> load(static_cast<size_t>(k), 0.0);
  std::vector<int64_t> tokens(static_cast<size_t>(k), 0);
  std::vector<size_t> count(static_cast<size_t>(k), 0);
  CountQuota quota(costs.size(), static_cast<size_t>(k), limits.equal_count);
  std::vector<int32_t> group(costs.size(), -1);
  std::vector<Entry> skipped;
  for (int32_t item : order) {
    const int64_t t = limits.item_tokens(item);
    int32_t chosen = -1;
    while (!heap.empty()) {
      const Entry top = heap.top();
      heap.pop();
      const int32_t g = top.second;
      if (!quota.CanAdd(count[g])) continue;  // full for good
      if (limits.has_token_cap() && tokens[g] + t > limits.max_tokens) {
        skipped.push_back(top);  // may still take a smaller item later
        continue;
      }
      chosen = g;
      break;
    }
    for (const Entry& e : skipped) heap.push(e);
    skipped.clear();
    if (chosen < 0) {
      return absl::FailedPreconditionError(absl::StrFormat(
          "list scheduling found no group for item %d (cost %g, tokens %d) under "
          "max_tokens_per_group = %d%s",
          item, costs[item], t, limits.max_tokens, limits.equal_count ? " and equal counts" : ""));
    }
    group[item] = chosen;
    quota.Added(count[chosen]);
    ++count[chosen];
    load[chosen] += costs[item];
    tokens[chosen] += t;
    heap.emplace(load[chosen], chosen);
  }
  return group;
}

absl::StatusOr<std::vector<int32_t>> AssignGreedy(absl::Span<const double> costs, int32_t k,
                                                  const GroupLimits& limits) {
  std::vector<int32_t> order(costs.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int32_t>(i);
  return ListSchedule(costs, order, k, limits);
}

absl::StatusOr<std::vector<int32_t>> AssignLpt(absl::Span<const double> costs, int32_t k,
                                               const GroupLimits& limits) {
  return ListSchedule(costs, CostDescendingOrder(costs), k, limits);
}

}  // namespace flopspack::pack
