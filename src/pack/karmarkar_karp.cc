#include "pack/karmarkar_karp.h"

#include <algorithm>
#include <queue>
#include <utility>

#include "absl/strings/str_format.h"
#include "pack/lpt.h"

namespace flopspack::pack {
namespace {

struct Subset {
  double sum;
  int32_t head;  // first item of the linked list; unique, so it breaks ties
  int32_t tail;
};

// Partitions are vectors of their non-empty subsets, largest sum first.
using Partition = std::vector<Subset>;

bool Heavier(const Subset& a, const Subset& b) {
  return a.sum != b.sum ? a.sum > b.sum : a.head < b.head;
}

class Differencer {
 public:
  Differencer(size_t num_items, int32_t k) : k_(static_cast<size_t>(k)), next_(num_items, -1) {}

  void Add(Partition p) {
    partitions_.push_back(std::move(p));
    const int32_t id = static_cast<int32_t>(partitions_.size() - 1);
    heap_.emplace(Spread(partitions_.back()), id);
  }

  // Combines until one partition remains and returns it.
  Partition Run() {
    while (heap_.size() > 1) {
      const int32_t a = heap_.top().second;
      heap_.pop();
      const int32_t b = heap_.top().second;
      heap_.pop();
      Add(Combine(partitions_[a], partitions_[b]));
      Partition().swap(partitions_[a]);
      Partition().swap(partitions_[b]);
    }
    if (heap_.empty()) return {};
    return std::move(partitions_[heap_.top().second]);
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
    if (p.empty()) return 0;
    return p.front().sum - (p.size() == k_ ? p.back().sum : 0.0);
  }

  // Joins subset i of a (largest first, empty ones implied at the end) with
  // subset k-1-i of b.
  Partition Combine(const Partition& a, const Partition& b) {
    const size_t p = a.size(), q = b.size();
    Partition out;
    out.reserve(std::min(k_, p + q));
    for (size_t i = 0; i < k_; ++i) {
      const size_t j = k_ - 1 - i;
      const bool has_a = i < p, has_b = j < q;
      if (!has_a && !has_b) {
        i = k_ - q - 1;  // skip the empty middle; the loop's ++i lands on k - q
        continue;
      }
      if (has_a && has_b) {
        Subset s = a[i];
        s.sum += b[j].sum;
        next_[s.tail] = b[j].head;
        s.tail = b[j].tail;
        out.push_back(s);
      } else {
        out.push_back(has_a ? a[i] : b[j]);
      }
    }
    std::sort(out.begin(), out.end(), Heavier);
    return out;
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

std::vector<int32_t> Label(const Differencer& d, const Partition& final_partition, size_t n) {
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
  for (int32_t item : CostDescendingOrder(costs)) d.Add(Partition{{costs[item], item, item}});
  const Partition final_partition = d.Run();
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
    tuple.reserve(kk);
    for (size_t j = start; j < start + kk; ++j) {
      // Dummies (indices >= n) cost 0 and sort after every real item.
      const int32_t item = j < n ? order[j] : static_cast<int32_t>(j);
      tuple.push_back(Subset{j < n ? costs[item] : 0.0, item, item});
    }
    d.Add(std::move(tuple));
  }
  const Partition final_partition = d.Run();
  return Label(d, final_partition, n);
}

}  // namespace flopspack::pack
