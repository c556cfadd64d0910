#include "pack/balance/feasible.h"

#include <algorithm>
#include <cstddef>
#include <limits>
#include <set>
#include <utility>

#include "absl/strings/str_format.h"

namespace flopspack::pack {
namespace {

std::vector<int32_t> TokenDescendingOrder(size_t n, const GroupLimits& limits) {
  std::vector<int32_t> order(n);
  for (size_t i = 0; i < n; ++i) order[i] = static_cast<int32_t>(i);
  std::sort(order.begin(), order.end(), [&](int32_t a, int32_t b) {
    const int64_t ta = limits.item_tokens(a), tb = limits.item_tokens(b);
    return ta != tb ? ta > tb : a < b;
  });
  return order;
}

// Best fit: the group with the least room that still fits the item.
bool BestFitDecreasingByTokens(absl::Span<const int32_t> order, int32_t k,
                               const GroupLimits& limits, std::vector<int32_t>& group) {
  std::set<std::pair<int64_t, int32_t>> room;  // (tokens left, group)
  for (int32_t g = 0; g < k; ++g) room.emplace(limits.max_tokens, g);
  std::vector<int64_t> left(static_cast<size_t>(k), limits.max_tokens);
  std::vector<size_t> count(static_cast<size_t>(k), 0);
  CountQuota quota(order.size(), static_cast<size_t>(k), limits.equal_count);
  for (int32_t item : order) {
    const int64_t t = limits.item_tokens(item);
    auto it = room.lower_bound({t, std::numeric_limits<int32_t>::min()});
    while (it != room.end() && !quota.CanAdd(count[it->second])) it = room.erase(it);
    if (it == room.end()) return false;
    const int32_t g = it->second;
    room.erase(it);
    group[item] = g;
    quota.Added(count[g]);
    ++count[g];
    left[g] -= t;
    room.emplace(left[g], g);
  }
  return true;
}

class Search {
 public:
  Search(absl::Span<const int32_t> order, int32_t k, const GroupLimits& limits, int64_t budget)
      : order_(order),
        limits_(limits),
        budget_(budget),
        load_(static_cast<size_t>(k), 0),
        count_(static_cast<size_t>(k), 0),
        group_(order.size(), -1),
        low_(order.size() / static_cast<size_t>(k)),
        high_slots_(order.size() % static_cast<size_t>(k)) {
    for (int32_t item : order) remaining_ += limits.item_tokens(item);
  }

  // 1 = found, 0 = proved none, -1 = budget exhausted.
  int Run() { return Visit(0); }
  const std::vector<int32_t>& group() const { return group_; }
  int64_t nodes() const { return nodes_; }

 private:
  bool CanAdd(size_t g) const {
    if (!limits_.equal_count) return true;
    return count_[g] < low_ || (count_[g] == low_ && high_used_ < high_slots_);
  }

  int Visit(size_t depth) {
    if (depth == order_.size()) return 1;
    if (++nodes_ > budget_) return -1;
    int64_t free = 0;  // room in groups that may still take items, up to remaining_
    for (size_t g = 0; g < load_.size() && free < remaining_; ++g) {
      if (!CanAdd(g)) continue;
      const int64_t room = limits_.max_tokens - load_[g];
      free = room >= remaining_ - free ? remaining_ : free + room;  // no overflow
    }
    if (free < remaining_) return 0;
    const int32_t item = order_[depth];
    const int64_t t = limits_.item_tokens(item);
    // Groups in the same state (load, count) are interchangeable: try the
    // first (lowest index) of each. The candidates of every level live on one
    // stack reused across the recursion: no allocation per node (a std::set
    // per level cost ~40% of the balance tests' time under AddressSanitizer).
    const size_t start = tries_.size();
    scratch_.clear();
    for (size_t g = 0; g < load_.size(); ++g) {
      if (!CanAdd(g) || load_[g] + t > limits_.max_tokens) continue;
      scratch_.push_back({load_[g], count_[g], g});
    }
    std::sort(scratch_.begin(), scratch_.end());
    for (size_t i = 0; i < scratch_.size(); ++i) {
      if (i > 0 && scratch_[i].load == scratch_[i - 1].load &&
          scratch_[i].count == scratch_[i - 1].count) {
        continue;
      }
      tries_.push_back(scratch_[i].group);
    }
    std::sort(tries_.begin() + static_cast<std::ptrdiff_t>(start), tries_.end());
    const size_t end = tries_.size();
    for (size_t i = start; i < end; ++i) {
      const size_t g = tries_[i];
      const bool to_high = limits_.equal_count && count_[g] == low_;
      high_used_ += to_high;
      load_[g] += t;
      ++count_[g];
      remaining_ -= t;
      group_[item] = static_cast<int32_t>(g);
      const int result = Visit(depth + 1);
      if (result != 0) return result;
      high_used_ -= to_high;
      load_[g] -= t;
      --count_[g];
      remaining_ += t;
    }
    tries_.resize(start);
    return 0;
  }

  struct Candidate {
    int64_t load;
    size_t count;
    size_t group;
    bool operator<(const Candidate& o) const {
      if (load != o.load) return load < o.load;
      if (count != o.count) return count < o.count;
      return group < o.group;
    }
  };

  absl::Span<const int32_t> order_;
  const GroupLimits& limits_;
  int64_t budget_;
  int64_t nodes_ = 0;
  int64_t remaining_ = 0;
  std::vector<int64_t> load_;
  std::vector<size_t> count_;
  std::vector<int32_t> group_;
  size_t low_, high_slots_, high_used_ = 0;
  std::vector<size_t> tries_;       // each level's groups to try, stacked
  std::vector<Candidate> scratch_;  // one level's candidates, while it sorts them
};

}  // namespace

absl::StatusOr<std::vector<int32_t>> FindCapFeasibleAssignment(size_t n, int32_t k,
                                                               const GroupLimits& limits,
                                                               int64_t node_budget) {
  const int64_t cap = limits.max_tokens;
  int64_t total = 0;
  for (size_t i = 0; i < n; ++i) {
    const int64_t t = limits.item_tokens(i);
    if (t > cap) {
      return absl::FailedPreconditionError(
          absl::StrFormat("tokens[%u] = %d exceeds max_tokens_per_group = %d: no group can hold "
                          "item %u",
                          i, t, cap, i));
    }
    total += t;  // cannot overflow: each t <= cap and the caller checked the sum
  }
  if (static_cast<double>(total) > static_cast<double>(k) * static_cast<double>(cap)) {
    return absl::FailedPreconditionError(
        absl::StrFormat("the %d tokens of all items exceed num_groups x max_tokens_per_group = "
                        "%d x %d",
                        total, k, cap));
  }
  const std::vector<int32_t> order = TokenDescendingOrder(n, limits);
  std::vector<int32_t> group(n, -1);
  if (BestFitDecreasingByTokens(order, k, limits, group)) return group;
  Search search(order, k, limits, node_budget);
  const int result = search.Run();
  if (result == 1) return search.group();
  const char* counts = limits.equal_count ? " with equal counts" : "";
  if (result == 0) {
    return absl::FailedPreconditionError(absl::StrFormat(
        "no assignment fits: exhaustive search proved that these %u items cannot go into %d "
        "groups of at most max_tokens_per_group = %d tokens%s",
        n, k, cap, counts));
  }
  return absl::FailedPreconditionError(absl::StrFormat(
      "no assignment found: best-fit decreasing by tokens failed to fit %u items into %d groups "
      "of at most max_tokens_per_group = %d tokens%s, and exhaustive search gave up after %d "
      "nodes (an assignment may still exist)",
      n, k, cap, counts, node_budget));
}

}  // namespace flopspack::pack
