#include "pack/planner/planner_baselines.h"

#include <algorithm>
#include <numeric>

namespace flopspack::pack {

Sequences ConcatenateAndCut(absl::Span<const int64_t> lengths, absl::Span<const int64_t> docs,
                            int64_t cap) {
  Sequences out;
  int64_t room = cap;
  for (size_t i = 0; i < lengths.size(); ++i) {
    int64_t left = lengths[i];
    while (left > 0) {
      const int64_t take = std::min(left, room);
      out.pieces.push_back({docs[i], take});
      left -= take;
      room -= take;
      if (room == 0) {
        out.offsets.push_back(static_cast<int64_t>(out.pieces.size()));
        room = cap;
      }
    }
  }
  if (room < cap) out.offsets.push_back(static_cast<int64_t>(out.pieces.size()));
  return out;
}

std::vector<int32_t> PackSequencesFirstFit(absl::Span<const int64_t> lengths, int64_t cap,
                                           int32_t* num_sequences) {
  const size_t n = lengths.size();
  std::vector<int32_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](int32_t a, int32_t b) {
    return lengths[a] != lengths[b] ? lengths[a] > lengths[b] : a < b;
  });
  // A max-tree over bin slots (at most n bins): leaf b holds the room of bin
  // b (cap for bins not yet opened), so the leftmost bin with room >= l is
  // found by one descent.
  size_t leaves = 1;
  while (leaves < std::max<size_t>(n, 1)) leaves *= 2;
  std::vector<int64_t> tree(2 * leaves, cap);
  std::vector<int32_t> bin_of(n, -1);
  int32_t used = 0;
  for (int32_t i : order) {
    const int64_t l = lengths[i];
    size_t node = 1;
    while (node < leaves) node = tree[2 * node] >= l ? 2 * node : 2 * node + 1;
    const int32_t bin = static_cast<int32_t>(node - leaves);
    bin_of[i] = bin;
    used = std::max(used, bin + 1);
    tree[node] -= l;
    for (node /= 2; node >= 1; node /= 2) tree[node] = std::max(tree[2 * node], tree[2 * node + 1]);
  }
  *num_sequences = used;
  return bin_of;
}

std::vector<int32_t> AssignSequencesLpt(absl::Span<const double> sequence_costs, int64_t num_ranks,
                                        int64_t slots) {
  const size_t s = sequence_costs.size();
  std::vector<int32_t> order(s);
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](int32_t a, int32_t b) {
    return sequence_costs[a] != sequence_costs[b] ? sequence_costs[a] > sequence_costs[b] : a < b;
  });
  std::vector<double> cost(num_ranks, 0.0);
  std::vector<int64_t> taken(num_ranks, 0);
  auto heavier = [&](int32_t a, int32_t b) {  // std heap is a max-heap: invert
    return cost[a] > cost[b] || (cost[a] == cost[b] && a > b);
  };
  std::vector<int32_t> heap(num_ranks);
  std::iota(heap.begin(), heap.end(), 0);
  std::make_heap(heap.begin(), heap.end(), heavier);
  std::vector<int32_t> slot_of(s, -1);
  for (int32_t q : order) {
    if (heap.empty()) break;
    std::pop_heap(heap.begin(), heap.end(), heavier);
    const int32_t r = heap.back();
    slot_of[q] = static_cast<int32_t>(r * slots + taken[r]);
    cost[r] += sequence_costs[q];
    if (++taken[r] < slots) {
      std::push_heap(heap.begin(), heap.end(), heavier);
    } else {
      heap.pop_back();
    }
  }
  return slot_of;
}

}  // namespace flopspack::pack
