#include "pack/lpt.h"

#include <algorithm>
#include <functional>
#include <queue>
#include <utility>

#include "absl/strings/str_format.h"

namespace flopspack::pack {

std::vector<int32_t> CostDescendingOrder(absl::Span<const double> costs) {
  std::vector<int32_t> order(costs.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int32_t>(i);
  std::sort(order.begin(), order.end(), [&](int32_t a, int32_t b) {
    return costs[a] != costs[b] ? costs[a] > costs[b] : a < b;
  });
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
