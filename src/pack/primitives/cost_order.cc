#include "pack/primitives/cost_order.h"

#include <algorithm>
#include <cstring>

#include "util/large_buffer.h"
#include "util/scratch_arena.h"
#include "util/vector_pool.h"

namespace flopspack::pack {
namespace {

// Whether the counting sort on lengths is the cheaper order: enough items,
// and lengths bounded near their count (its counters cost O(max_length)).
bool CountingSortFits(size_t n, int64_t max_length) {
  return n >= kCostOrderRadixMin && max_length <= 4 * static_cast<int64_t>(n) + (int64_t{1} << 16);
}

// The stable counting sort on max_length - length (longest first, ties by
// index): start[max_length - l] is where the run of length l begins, each
// entry a cursor its caller advances as it places the items. Carved from
// `scratch`; a raw pointer, which the per-item loops index without
// absl::Span's hardened bounds check.
int32_t* LongestFirstRunStarts(absl::Span<const int64_t> lengths, int64_t max_length,
                               util::ScratchArena& scratch) {
  int32_t* const start = scratch.Array<int32_t>(static_cast<size_t>(max_length) + 1).data();
  for (int64_t l : lengths) ++start[static_cast<size_t>(max_length - l) + 1];
  for (int64_t c = 1; c <= max_length; ++c) start[c] += start[c - 1];
  return start;
}

}  // namespace

std::vector<int32_t> CostDescendingOrder(absl::Span<const double> costs) {
  const size_t n = costs.size();
  std::vector<int32_t> order = util::PooledVector<int32_t>(n);
  for (size_t i = 0; i < n; ++i) order[i] = static_cast<int32_t>(i);
  if (n < kCostOrderRadixMin) {
    std::sort(order.begin(), order.end(), [&](int32_t a, int32_t b) {
      return costs[a] != costs[b] ? costs[a] > costs[b] : a < b;
    });
    return order;
  }
  // 16-bit digits (4 passes) for large inputs; 8-bit digits (8 passes over
  // 2 KB of counters) below 2^16 items, where clearing 4 x 2^16 counters
  // would cost more than the passes.
  const int digit_bits = n < (size_t{1} << 16) ? 8 : 16;
  const size_t buckets = size_t{1} << digit_bits;
  const uint64_t mask = buckets - 1;
  const int passes = 64 / digit_bits;
  // Scratch from an arena (util/scratch_arena.h): keys and the second
  // order written whole before read; raw pointers, which the passes index
  // without absl::Span's hardened bounds checks.
  util::ScratchArena scratch;
  uint64_t* key = scratch.Room<uint64_t>(n);
  uint64_t* key_tmp = scratch.Room<uint64_t>(n);
  uint32_t* const count = scratch.Array<uint32_t>(static_cast<size_t>(passes) * buckets).data();
  for (size_t i = 0; i < n; ++i) {
    const double c = costs[i] == 0 ? 0.0 : costs[i];  // -0.0 sorts as 0.0
    uint64_t bits;
    std::memcpy(&bits, &c, sizeof(bits));
    key[i] = ~bits;
    for (int p = 0; p < passes; ++p) ++count[p * buckets + ((key[i] >> (p * digit_bits)) & mask)];
  }
  int32_t* cur = order.data();
  int32_t* other = scratch.Room<int32_t>(n);
  for (int p = 0; p < passes; ++p) {
    const int shift = p * digit_bits;
    uint32_t* start = count + p * buckets;
    if (start[(key[0] >> shift) & mask] == n) continue;  // one digit: nothing to do
    uint32_t sum = 0;
    for (size_t d = 0; d < buckets; ++d) {
      const uint32_t here = start[d];
      start[d] = sum;
      sum += here;
    }
    for (size_t i = 0; i < n; ++i) {
      const uint32_t at = start[(key[i] >> shift) & mask]++;
      key_tmp[at] = key[i];
      other[at] = cur[i];
    }
    std::swap(key, key_tmp);
    std::swap(cur, other);
  }
  if (cur != order.data()) std::copy(cur, cur + n, order.data());
  return order;
}

std::vector<int32_t> CostDescendingOrder(absl::Span<const double> costs,
                                         absl::Span<const int64_t> lengths, int64_t max_length) {
  const size_t n = costs.size();
  if (!CountingSortFits(n, max_length)) return CostDescendingOrder(costs);
  util::ScratchArena scratch;
  int32_t* const start = LongestFirstRunStarts(lengths, max_length, scratch);
  std::vector<int32_t> order = util::PooledVector<int32_t>(n);
  for (size_t i = 0; i < n; ++i) {
    order[start[static_cast<size_t>(max_length - lengths[i])]++] = static_cast<int32_t>(i);
  }
  // It is the cost order exactly when every neighbouring pair is in it.
  for (size_t k = 1; k < n; ++k) {
    const double a = costs[order[k - 1]] == 0 ? 0.0 : costs[order[k - 1]];
    const double b = costs[order[k]] == 0 ? 0.0 : costs[order[k]];
    if (a < b || (a == b && order[k - 1] > order[k])) {
      util::Recycle(order);
      return CostDescendingOrder(costs);
    }
  }
  return order;
}

SortedItems CostDescendingItems(absl::Span<const double> costs, absl::Span<const int64_t> lengths,
                                int64_t max_length) {
  const size_t n = costs.size();
  SortedItems out;
  out.lengths = util::LargeVector<int64_t>(n);
  out.costs = util::LargeVector<double>(n);
  auto gather = [&] {
    for (size_t k = 0; k < n; ++k) {
      out.lengths[k] = lengths[out.order[k]];
      out.costs[k] = costs[out.order[k]];
    }
  };
  if (!CountingSortFits(n, max_length)) {
    out.order = CostDescendingOrder(costs);
    gather();
    return out;
  }
  // As the overload above, gathering lengths and costs as it places.
  util::ScratchArena scratch;
  int32_t* const start = LongestFirstRunStarts(lengths, max_length, scratch);
  out.order = util::PooledVector<int32_t>(n);
  for (size_t i = 0; i < n; ++i) {
    const int32_t at = start[static_cast<size_t>(max_length - lengths[i])]++;
    out.order[at] = static_cast<int32_t>(i);
    out.lengths[at] = lengths[i];
    out.costs[at] = costs[i];
  }
  for (size_t k = 1; k < n; ++k) {
    const double a = out.costs[k - 1] == 0 ? 0.0 : out.costs[k - 1];
    const double b = out.costs[k] == 0 ? 0.0 : out.costs[k];
    if (a < b || (a == b && out.order[k - 1] > out.order[k])) {
      util::Recycle(out.order);
      out.order = CostDescendingOrder(costs);
      gather();
      return out;
    }
  }
  return out;
}

}  // namespace flopspack::pack
