#include "pack/balance/karmarkar_karp.h"

#include <algorithm>
#include <queue>
#include <utility>

#include "absl/strings/str_format.h"
#include "pack/primitives/lpt.h"

namespace flopspack::pack {
namespace {

struct Subset {
  double sum;
  int32_t head;  // first item of the linked list; unique, so it breaks ties
  int32_t tail;
};

bool Heavier(const Subset& a, const Subset& b) {
  return a.sum != b.sum ? a.sum > b.sum : a.head < b.head;
}

// A partition: its non-empty subsets as a heap whose top is the lightest
// (std heap functions with Heavier as "less"), and the largest sum. The
// other k - size() subsets are empty.
struct Partition {
  std::vector<Subset> heap;
  double max = 0;
};

class Differencer {
 public:
  Differencer(size_t num_items, int32_t k) : k_(static_cast<size_t>(k)), next_(num_items, -1) {}

  void Add(Partition p) {
    partitions_.push_back(std::move(p));
    const int32_t id = static_cast<int32_t>(partitions_.size() - 1);
    heap_.emplace(Spread(partitions_.back()), id);
  }

  // Combines until one partition remains; returns its subsets, heaviest
  // first.
  std::vector<Subset> Run() {
    while (heap_.size() > 1) {
      const int32_t a = heap_.top().second;
      heap_.pop();
      const int32_t b = heap_.top().second;
      heap_.pop();
      Add(Combine(std::move(partitions_[a]), std::move(partitions_[b])));
    }
    if (heap_.empty()) return {};
    std::vector<Subset> out = std::move(partitions_[heap_.top().second].heap);
    std::sort(out.begin(), out.end(), Heavier);
    return out;
  }

  // Visits the items of a subset.
  template <typename Fn>
  void ForEachItem(const Subset& s, Fn&& fn) const {
    for (int32_t i = s.head; i >= 0; i = next_[i]) fn(i);
  }

 private:
  // Larger spread first; among equal spreads the older partition.
  struct Order {
    bool operator()(const std::pair<double, int32_t>& x,
                    const std::pair<double, int32_t>& y) const {
      return x.first != y.first ? x.first < y.first : x.second > y.second;
    }
  };

  double Spread(const Partition& p) const {
    if (p.heap.empty()) return 0;
    return p.max - (p.heap.size() == k_ ? p.heap.front().sum : 0.0);
  }

  Subset Join(Subset x, const Subset& y) {
    x.sum += y.sum;
    next_[x.tail] = y.head;
    x.tail = y.tail;
    return x;
  }

  // Pairs the i-th heaviest subset of one partition with the i-th lightest
  // of the other (empty subsets count as the lightest). The pairing is
  // symmetric, so the partition with fewer non-empty subsets is walked and
  // the larger one is updated in place: O(q log k) for q = the smaller
  // count, which makes the total work O(n log n log k) (small into large).
  Partition Combine(Partition a, Partition b) {
    Partition& large = a.heap.size() >= b.heap.size() ? a : b;
    Partition& small = a.heap.size() >= b.heap.size() ? b : a;
    std::sort(small.heap.begin(), small.heap.end(), Heavier);  // heaviest first
    const size_t p = large.heap.size(), q = small.heap.size();
    const size_t empties = k_ - p;  // large's empty subsets take small's heaviest
    const size_t onto_empty = std::min(q, empties);
    // Pop large's lightest q - onto_empty subsets, lightest first.
    std::vector<Subset> lightest;
    lightest.reserve(q - onto_empty);
    for (size_t i = onto_empty; i < q; ++i) {
      std::pop_heap(large.heap.begin(), large.heap.end(), Heavier);
      lightest.push_back(large.heap.back());
      large.heap.pop_back();
    }
    auto push = [&](const Subset& s) {
      large.heap.push_back(s);
      std::push_heap(large.heap.begin(), large.heap.end(), Heavier);
      large.max = std::max(large.max, s.sum);
    };
    for (size_t i = 0; i < onto_empty; ++i) push(small.heap[i]);
    for (size_t i = onto_empty; i < q; ++i) push(Join(lightest[i - onto_empty], small.heap[i]));
    return std::move(large);
  }

  size_t k_;
  std::vector<int32_t> next_;
  std::vector<Partition> partitions_;
  std::priority_queue<std::pair<double, int32_t>, std::vector<std::pair<double, int32_t>>, Order>
      heap_;
};

absl::Status CheckK(int32_t k) {
  if (k < 1) {
    return absl::InvalidArgumentError(
        absl::StrFormat("num_groups = %d: there must be at least one group", k));
  }
  return absl::OkStatus();
}

std::vector<int32_t> Label(const Differencer& d, const std::vector<Subset>& final_partition,
                           size_t n) {
  std::vector<int32_t> group(n, -1);
  for (size_t g = 0; g < final_partition.size(); ++g) {
    d.ForEachItem(final_partition[g], [&](int32_t item) {
      if (static_cast<size_t>(item) < n) group[item] = static_cast<int32_t>(g);
    });
  }
  return group;
}

}  // namespace

absl::StatusOr<std::vector<int32_t>> AssignKarmarkarKarp(absl::Span<const double> costs,
                                                         int32_t k) {
  if (absl::Status s = CheckK(k); !s.ok()) return s;
  Differencer d(costs.size(), k);
  for (int32_t item : CostDescendingOrder(costs)) {
    d.Add(Partition{{Subset{costs[item], item, item}}, costs[item]});
  }
  const std::vector<Subset> final_partition = d.Run();
  return Label(d, final_partition, costs.size());
}

absl::StatusOr<std::vector<int32_t>> AssignBalancedKarmarkarKarp(absl::Span<const double> costs,
                                                                 int32_t k) {
  if (absl::Status s = CheckK(k); !s.ok()) return s;
  const size_t n = costs.size();
  const size_t kk = static_cast<size_t>(k);
  const size_t padded = (n + kk - 1) / kk * kk;
  Differencer d(padded, k);
  const std::vector<int32_t> order = CostDescendingOrder(costs);
  for (size_t start = 0; start < padded; start += kk) {
    Partition tuple;
    tuple.heap.reserve(kk);
    for (size_t j = start; j < start + kk; ++j) {
      // Dummies (indices >= n) cost 0 and sort after every real item.
      const int32_t item = j < n ? order[j] : static_cast<int32_t>(j);
      tuple.heap.push_back(Subset{j < n ? costs[item] : 0.0, item, item});
      tuple.max = std::max(tuple.max, tuple.heap.back().sum);
    }
    std::make_heap(tuple.heap.begin(), tuple.heap.end(), Heavier);
    d.Add(std::move(tuple));
  }
  const std::vector<Subset> final_partition = d.Run();
  return Label(d, final_partition, n);
}

}  // namespace flopspack::pack
