#include "pack/primitives/lpt.h"

#include <algorithm>
#include <functional>
#include <queue>
#include <utility>

#include "absl/strings/str_format.h"

namespace flopspack::pack {

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
  CountQuota quota(order.size(), static_cast<size_t>(k), limits.equal_count,
                   static_cast<size_t>(limits.max_items));
  std::vector<int32_t> group(costs.size(), -1);
  std::vector<Entry> skipped;
  // Under a token cap, rooms only shrink: a max-heap of (room, group) whose
  // stale entries are dropped when they surface says in O(1) amortized
  // whether any group has room for t, so an item that fits nowhere is
  // settled without visiting every group (the simulator's token balancing
  // defers thousands of such pieces per step).
  using Room = std::pair<int64_t, int32_t>;
  std::vector<Room> rooms;
  if (limits.has_token_cap()) {
    for (int32_t g = 0; g < k; ++g) rooms.emplace_back(limits.max_tokens, g);
  }
  auto largest_room = [&]() {
    while (rooms.front().first != limits.max_tokens - tokens[rooms.front().second]) {
      std::pop_heap(rooms.begin(), rooms.end());
      rooms.pop_back();
    }
    return rooms.front().first;
  };
  for (int32_t item : order) {
    const int64_t t = limits.item_tokens(item);
    int32_t chosen = -1;
    const bool fits_somewhere = !limits.has_token_cap() || largest_room() >= t;
    while (fits_somewhere && !heap.empty()) {
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
      if (limits.allow_unplaced) continue;
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
    if (limits.has_token_cap()) {
      rooms.emplace_back(limits.max_tokens - tokens[chosen], chosen);
      std::push_heap(rooms.begin(), rooms.end());
    }
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

std::vector<int32_t> AssignLptSlots(absl::Span<const double> costs, int32_t k, int64_t slots) {
  const std::vector<int32_t> order = CostDescendingOrder(costs);
  GroupLimits limits;
  limits.max_items = slots;
  limits.allow_unplaced = true;
  // Cannot fail: allow_unplaced.
  std::vector<int32_t> slot = *ListSchedule(costs, order, k, limits);
  std::vector<int64_t> taken(static_cast<size_t>(k), 0);
  for (int32_t item : order) {
    const int32_t g = slot[item];
    if (g >= 0) slot[item] = static_cast<int32_t>(g * slots + taken[g]++);
  }
  return slot;
}

}  // namespace flopspack::pack
