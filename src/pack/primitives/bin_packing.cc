#include "pack/primitives/bin_packing.h"

#include <algorithm>
#include <limits>
#include <set>
#include <tuple>

#include "pack/primitives/bit_tree.h"
#include "util/random.h"

namespace flopspack::pack {
namespace {

// Counting sorts and capacity-indexed buckets are used only when their
// O(capacity) arrays stay within a constant factor of the input.
bool CapacityIsSmall(int64_t capacity, size_t n) {
  return capacity <= 4 * static_cast<int64_t>(n) + (int64_t{1} << 16);
}

// Upper bound on the bins first fit opens: no two of its bins are both at
// most half full, so bins <= 2·total/C + 1 (and never more than items).
size_t FirstFitBinBound(absl::Span<const int64_t> sizes, int64_t capacity) {
  double total = 0;
  for (int64_t s : sizes) total += static_cast<double>(s);
  const double bound = 2.0 * total / static_cast<double>(capacity) + 2.0;
  return std::max<size_t>(1, std::min(sizes.size(), static_cast<size_t>(bound)));
}

// Max segment tree over bins, every leaf starting at `capacity` (an unopened
// bin), so "leftmost leaf with room" is first fit and opens bins in order.
template <typename V>
BinAssignment FirstFitWithTree(absl::Span<const int64_t> sizes, std::vector<int32_t> order,
                               int64_t capacity) {
  size_t leaves = 1;
  const size_t bound = FirstFitBinBound(sizes, capacity);
  while (leaves < bound) leaves <<= 1;
  std::vector<V> tree(2 * leaves, static_cast<V>(capacity));
  BinAssignment out;
  out.bin.resize(sizes.size());
  for (int32_t item : order) {
    const V size = static_cast<V>(sizes[item]);
    size_t node = 1;
    while (node < leaves) {
      node <<= 1;
      if (tree[node] < size) ++node;
    }
    const int32_t bin = static_cast<int32_t>(node - leaves);
    out.bin[item] = bin;
    out.num_bins = std::max(out.num_bins, bin + 1);
    tree[node] -= size;
    for (node >>= 1; node >= 1; node >>= 1) {
      const V m = std::max(tree[2 * node], tree[2 * node + 1]);
      if (tree[node] == m) break;
      tree[node] = m;
    }
  }
  out.order = std::move(order);
  return out;
}

// Best fit with bins bucketed by remaining capacity: a LIFO stack of bins
// per remaining value and a BitTree of the non-empty stacks. Full bins are
// dropped since no item has size 0.
BinAssignment BestFitBuckets(absl::Span<const int64_t> sizes, std::vector<int32_t> order,
                             int64_t capacity) {
  BinAssignment out;
  out.bin.resize(sizes.size());
  std::vector<int32_t> head(static_cast<size_t>(capacity) + 1, -1);
  std::vector<int32_t> next;  // next bin in the same stack, by bin
  BitTree nonempty(static_cast<size_t>(capacity) + 1);
  auto push = [&](int64_t remaining, int32_t bin) {
    if (remaining == 0) return;
    if (head[remaining] < 0) nonempty.Insert(static_cast<size_t>(remaining));
    next[bin] = head[remaining];
    head[remaining] = bin;
  };
  for (int32_t item : order) {
    const int64_t size = sizes[item];
    const int64_t remaining = nonempty.NextAtLeast(static_cast<size_t>(size));
    int32_t bin;
    int64_t left;
    if (remaining < 0) {
      bin = out.num_bins++;
      next.push_back(-1);
      left = capacity - size;
    } else {
      bin = head[remaining];
      head[remaining] = next[bin];
      if (head[remaining] < 0) nonempty.Erase(static_cast<size_t>(remaining));
      left = remaining - size;
    }
    out.bin[item] = bin;
    push(left, bin);
  }
  out.order = std::move(order);
  return out;
}

// Best fit for capacities too large to index: an ordered set of
// (remaining, -stamp, bin), so the most recently updated bin wins ties as in
// BestFitBuckets.
BinAssignment BestFitOrderedSet(absl::Span<const int64_t> sizes, std::vector<int32_t> order,
                                int64_t capacity) {
  BinAssignment out;
  out.bin.resize(sizes.size());
  std::set<std::tuple<int64_t, int64_t, int32_t>> open;
  int64_t stamp = 0;
  for (int32_t item : order) {
    const int64_t size = sizes[item];
    auto it = open.lower_bound({size, std::numeric_limits<int64_t>::min(), 0});
    int32_t bin;
    int64_t left;
    if (it == open.end()) {
      bin = out.num_bins++;
      left = capacity - size;
    } else {
      bin = std::get<2>(*it);
      left = std::get<0>(*it) - size;
      open.erase(it);
    }
    out.bin[item] = bin;
    if (left > 0) open.emplace(left, -(++stamp), bin);
  }
  out.order = std::move(order);
  return out;
}

}  // namespace

std::vector<int32_t> DecreasingOrder(absl::Span<const int64_t> sizes, int64_t capacity) {
  const size_t n = sizes.size();
  std::vector<int32_t> order(n);
  if (CapacityIsSmall(capacity, n)) {
    // Stable counting sort on capacity - size.
    std::vector<int32_t> start(static_cast<size_t>(capacity) + 2, 0);
    for (int64_t s : sizes) ++start[static_cast<size_t>(capacity - s) + 1];
    for (size_t k = 1; k < start.size(); ++k) start[k] += start[k - 1];
    for (size_t i = 0; i < n; ++i) {
      order[start[static_cast<size_t>(capacity - sizes[i])]++] = static_cast<int32_t>(i);
    }
    return order;
  }
  for (size_t i = 0; i < n; ++i) order[i] = static_cast<int32_t>(i);
  std::sort(order.begin(), order.end(), [&](int32_t a, int32_t b) {
    return sizes[a] != sizes[b] ? sizes[a] > sizes[b] : a < b;
  });
  return order;
}

BinAssignment NextFit(absl::Span<const int64_t> sizes, int64_t capacity) {
  BinAssignment out;
  out.bin.resize(sizes.size());
  out.order.resize(sizes.size());
  int64_t left = 0;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (out.num_bins == 0 || sizes[i] > left) {
      ++out.num_bins;
      left = capacity;
    }
    left -= sizes[i];
    out.bin[i] = out.num_bins - 1;
    out.order[i] = static_cast<int32_t>(i);
  }
  return out;
}

BinAssignment FirstFit(absl::Span<const int64_t> sizes, std::vector<int32_t> order,
                       int64_t capacity) {
  if (capacity <= std::numeric_limits<int32_t>::max()) {
    return FirstFitWithTree<int32_t>(sizes, std::move(order), capacity);
  }
  return FirstFitWithTree<int64_t>(sizes, std::move(order), capacity);
}

BinAssignment FirstFitDecreasing(absl::Span<const int64_t> sizes, int64_t capacity) {
  return FirstFit(sizes, DecreasingOrder(sizes, capacity), capacity);
}

BinAssignment BestFitDecreasing(absl::Span<const int64_t> sizes, int64_t capacity) {
  std::vector<int32_t> order = DecreasingOrder(sizes, capacity);
  if (CapacityIsSmall(capacity, sizes.size())) {
    return BestFitBuckets(sizes, std::move(order), capacity);
  }
  return BestFitOrderedSet(sizes, std::move(order), capacity);
}

BinAssignment ShuffledFirstFit(absl::Span<const int64_t> sizes, int64_t capacity, uint64_t seed) {
  std::vector<int32_t> order(sizes.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int32_t>(i);
  util::Rng rng(util::DeriveSeed(seed, 0));
  rng.Shuffle(absl::MakeSpan(order));
  return FirstFit(sizes, std::move(order), capacity);
}

}  // namespace flopspack::pack
