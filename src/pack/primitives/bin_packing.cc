#include "pack/primitives/bin_packing.h"

#include <algorithm>
#include <limits>
#include <set>
#include <tuple>
#include <utility>

#include "pack/primitives/bit_tree.h"
#include "util/large_buffer.h"
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

// Items in a visiting order. After a counting sort, run[c] items of size
// capacity - c follow each other, so visitors get each size from its run
// instead of reading sizes[item].
struct Visiting {
  std::vector<int32_t> order;
  std::vector<int32_t> run;  // empty: read sizes[item]
};

// Calls fn(item, size) for the items in order.
template <typename Fn>
void Visit(const Visiting& v, absl::Span<const int64_t> sizes, int64_t capacity, Fn&& fn) {
  if (v.run.empty()) {
    for (int32_t item : v.order) fn(item, sizes[item]);
    return;
  }
  const int32_t* item = v.order.data();
  for (size_t c = 0; c < v.run.size(); ++c) {
    const int64_t size = capacity - static_cast<int64_t>(c);
    for (int32_t j = 0; j < v.run[c]; ++j) fn(*item++, size);
  }
}

Visiting Decreasing(absl::Span<const int64_t> sizes, int64_t capacity) {
  const size_t n = sizes.size();
  Visiting v;
  util::ResizeLarge(v.order, n);
  if (CapacityIsSmall(capacity, n)) {
    // Stable counting sort on capacity - size.
    v.run.assign(static_cast<size_t>(capacity), 0);
    for (int64_t s : sizes) ++v.run[static_cast<size_t>(capacity - s)];
    std::vector<int32_t> start(v.run.size());
    int32_t sum = 0;
    for (size_t c = 0; c < v.run.size(); ++c) {
      start[c] = sum;
      sum += v.run[c];
    }
    for (size_t i = 0; i < n; ++i) {
      v.order[start[static_cast<size_t>(capacity - sizes[i])]++] = static_cast<int32_t>(i);
    }
    return v;
  }
  for (size_t i = 0; i < n; ++i) v.order[i] = static_cast<int32_t>(i);
  std::sort(v.order.begin(), v.order.end(), [&](int32_t a, int32_t b) {
    return sizes[a] != sizes[b] ? sizes[a] > sizes[b] : a < b;
  });
  return v;
}

// Fills out.bin from the placements when the caller wants it.
void FinishAssignment(BinAssignment& out, bool item_bins) {
  if (!item_bins) return;
  out.bin.resize(out.order.size());
  for (size_t k = 0; k < out.order.size(); ++k) out.bin[out.order[k]] = out.placed_bin[k];
}

// Max segment tree over bins, every leaf starting at `capacity` (an unopened
// bin), so "leftmost leaf with room" is first fit and opens bins in order.
template <typename V>
BinAssignment FirstFitWithTree(absl::Span<const int64_t> sizes, Visiting visiting, int64_t capacity,
                               bool item_bins) {
  size_t leaves = 1;
  const size_t bound = FirstFitBinBound(sizes, capacity);
  while (leaves < bound) leaves <<= 1;
  std::vector<V> tree(2 * leaves, static_cast<V>(capacity));
  BinAssignment out;
  util::ResizeLarge(out.placed_bin, sizes.size());
  int32_t* placed = out.placed_bin.data();
  Visit(visiting, sizes, capacity, [&](int32_t, int64_t s) {
    const V size = static_cast<V>(s);
    size_t node = 1;
    while (node < leaves) {
      node <<= 1;
      if (tree[node] < size) ++node;
    }
    const int32_t bin = static_cast<int32_t>(node - leaves);
    *placed++ = bin;
    out.num_bins = std::max(out.num_bins, bin + 1);
    tree[node] -= size;
    for (node >>= 1; node >= 1; node >>= 1) {
      const V m = std::max(tree[2 * node], tree[2 * node + 1]);
      if (tree[node] == m) break;
      tree[node] = m;
    }
  });
  out.order = std::move(visiting.order);
  FinishAssignment(out, item_bins);
  return out;
}

BinAssignment FirstFitVisiting(absl::Span<const int64_t> sizes, Visiting visiting, int64_t capacity,
                               bool item_bins) {
  if (capacity <= std::numeric_limits<int32_t>::max()) {
    return FirstFitWithTree<int32_t>(sizes, std::move(visiting), capacity, item_bins);
  }
  return FirstFitWithTree<int64_t>(sizes, std::move(visiting), capacity, item_bins);
}

// Best fit with bins bucketed by remaining capacity: a LIFO stack of bins
// per remaining value and a BitTree of the non-empty stacks. Full bins are
// dropped since no item has size 0.
BinAssignment BestFitBuckets(absl::Span<const int64_t> sizes, Visiting visiting, int64_t capacity,
                             bool item_bins) {
  BinAssignment out;
  util::ResizeLarge(out.placed_bin, sizes.size());
  int32_t* placed = out.placed_bin.data();
  std::vector<int32_t> head(static_cast<size_t>(capacity) + 1, -1);
  std::vector<int32_t> next;  // next bin in the same stack, by bin
  next.reserve(FirstFitBinBound(sizes, capacity));
  BitTree nonempty(static_cast<size_t>(capacity) + 1);
  auto push = [&](int64_t remaining, int32_t bin) {
    if (remaining == 0) return;
    if (head[remaining] < 0) nonempty.Insert(static_cast<size_t>(remaining));
    next[bin] = head[remaining];
    head[remaining] = bin;
  };
  Visit(visiting, sizes, capacity, [&](int32_t, int64_t size) {
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
    *placed++ = bin;
    push(left, bin);
  });
  out.order = std::move(visiting.order);
  FinishAssignment(out, item_bins);
  return out;
}

// Best fit for capacities too large to index: an ordered set of
// (remaining, -stamp, bin), so the most recently updated bin wins ties as in
// BestFitBuckets.
BinAssignment BestFitOrderedSet(absl::Span<const int64_t> sizes, Visiting visiting,
                                int64_t capacity, bool item_bins) {
  BinAssignment out;
  util::ResizeLarge(out.placed_bin, sizes.size());
  int32_t* placed = out.placed_bin.data();
  std::set<std::tuple<int64_t, int64_t, int32_t>> open;
  int64_t stamp = 0;
  Visit(visiting, sizes, capacity, [&](int32_t, int64_t size) {
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
    *placed++ = bin;
    if (left > 0) open.emplace(left, -(++stamp), bin);
  });
  out.order = std::move(visiting.order);
  FinishAssignment(out, item_bins);
  return out;
}

}  // namespace

std::vector<int32_t> DecreasingOrder(absl::Span<const int64_t> sizes, int64_t capacity) {
  return Decreasing(sizes, capacity).order;
}

BinAssignment NextFit(absl::Span<const int64_t> sizes, int64_t capacity, bool item_bins) {
  BinAssignment out;
  util::ResizeLarge(out.placed_bin, sizes.size());
  util::ResizeLarge(out.order, sizes.size());
  int64_t left = 0;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (out.num_bins == 0 || sizes[i] > left) {
      ++out.num_bins;
      left = capacity;
    }
    left -= sizes[i];
    out.placed_bin[i] = out.num_bins - 1;
    out.order[i] = static_cast<int32_t>(i);
  }
  if (item_bins) out.bin = out.placed_bin;  // the order is the identity
  return out;
}

BinAssignment FirstFit(absl::Span<const int64_t> sizes, std::vector<int32_t> order,
                       int64_t capacity, bool item_bins) {
  return FirstFitVisiting(sizes, Visiting{std::move(order), {}}, capacity, item_bins);
}

BinAssignment FirstFitDecreasing(absl::Span<const int64_t> sizes, int64_t capacity,
                                 bool item_bins) {
  return FirstFitVisiting(sizes, Decreasing(sizes, capacity), capacity, item_bins);
}

BinAssignment BestFitDecreasing(absl::Span<const int64_t> sizes, int64_t capacity, bool item_bins) {
  Visiting visiting = Decreasing(sizes, capacity);
  if (CapacityIsSmall(capacity, sizes.size())) {
    return BestFitBuckets(sizes, std::move(visiting), capacity, item_bins);
  }
  return BestFitOrderedSet(sizes, std::move(visiting), capacity, item_bins);
}

BinAssignment ShuffledFirstFit(absl::Span<const int64_t> sizes, int64_t capacity, uint64_t seed,
                               bool item_bins) {
  std::vector<int32_t> order;
  util::ResizeLarge(order, sizes.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int32_t>(i);
  util::Rng rng(util::DeriveSeed(seed, 0));
  rng.Shuffle(absl::MakeSpan(order));
  return FirstFit(sizes, std::move(order), capacity, item_bins);
}

}  // namespace flopspack::pack
