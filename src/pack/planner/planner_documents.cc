#include "pack/planner/planner_documents.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>

#include "pack/primitives/cost_order.h"
#include "pack/primitives/refine.h"
#include "util/large_buffer.h"
#include "util/vector_pool.h"

namespace flopspack::pack {
namespace {

// Min-heap of ranks keyed by (cost, rank) with the keys inline: the lightest
// rank on top, ties to the lower rank index so the plan is deterministic.
// Four children per node: half the levels of a binary heap, and a node's
// children share a cache line (the array is placed so that every group of
// four siblings starts on a 64-byte boundary), which is what LPT over
// thousands of ranks spends its time on. Slots past the last node hold a
// sentinel heavier than any rank, so every node's four children can be
// compared without a bounds check, and the lightest of four is picked with
// conditional moves instead of branches the processor cannot predict. The
// top is the unique minimum of a total order, so neither the arity nor the
// layout changes the plan.
class RankHeap {
 public:
  struct Node {
    double cost;
    int32_t rank;
  };
  explicit RankHeap(int32_t num_ranks) : size_(static_cast<size_t>(num_ranks)) {
    // Room for a full group of children after the last node, and for
    // shifting the array onto a cache-line boundary.
    storage_.assign(size_ + 2 * kArity + kAlign, kSentinel);
    const uintptr_t address = reinterpret_cast<uintptr_t>(storage_.data());
    // Node i lives at heap_[i]; its children 4i+1..4i+4 start at a multiple
    // of four nodes (64 bytes) from an aligned base when heap_ = base + 3.
    const size_t skip = ((kLineBytes - address % kLineBytes) % kLineBytes) / sizeof(Node);
    heap_ = storage_.data() + skip + (kArity - 1);
    // All costs start at 0, so rank order is already a valid heap.
    for (int32_t r = 0; r < num_ranks; ++r) heap_[r] = {0.0, r};
  }
  bool empty() const { return size_ == 0; }
  const Node& Top() const { return heap_[0]; }
  void Push(Node node) {
    // Pops left sentinels behind, so there is room up to the initial size.
    size_t i = size_++;
    while (i > 0) {
      const size_t parent = (i - 1) / kArity;
      if (!Less(node, heap_[parent])) break;
      heap_[i] = heap_[parent];
      i = parent;
    }
    heap_[i] = node;
  }
  void Pop() {
    --size_;
    heap_[0] = heap_[size_];
    heap_[size_] = kSentinel;
    if (size_ > 0) SiftDown();
  }
  // The top's cost grew to `cost`: restore the heap order.
  void RaiseTop(double cost) {
    heap_[0].cost = cost;
    SiftDown();
  }

 private:
  static constexpr size_t kArity = 4;
  static constexpr size_t kLineBytes = 64;
  static constexpr size_t kAlign = kLineBytes / sizeof(Node);
  static constexpr Node kSentinel = {std::numeric_limits<double>::infinity(),
                                     std::numeric_limits<int32_t>::max()};
  static bool Less(const Node& a, const Node& b) {
    // Rank costs are sums of costs >= 0 starting at +0.0, so never -0.0 or
    // NaN: their bit patterns order as the numbers do, and integer compares
    // combined bitwise compile to flag operations, not branches.
    const uint64_t x = Bits(a.cost), y = Bits(b.cost);
    return (x < y) | ((x == y) & (a.rank < b.rank));
  }
  static uint64_t Bits(double cost) {
    uint64_t bits;
    std::memcpy(&bits, &cost, sizeof bits);
    return bits;
  }
  void SiftDown() {
    const Node node = heap_[0];
    size_t i = 0;
    while (true) {
      const size_t first = kArity * i + 1;
      if (first >= size_) break;
      // The lighter of each pair, then of the two (arithmetic selection:
      // the compiler keeps it free of branches).
      const size_t a = first + Less(heap_[first + 1], heap_[first]);
      const size_t b = first + 2 + Less(heap_[first + 3], heap_[first + 2]);
      const size_t child = a ^ ((a ^ b) & (size_t{0} - Less(heap_[b], heap_[a])));
      if (!Less(heap_[child], node)) break;
      heap_[i] = heap_[child];
      i = child;
    }
    heap_[i] = node;
  }
  std::vector<Node> storage_;
  Node* heap_;
  size_t size_;
};

// Back from LPT positions to input indices.
std::vector<int32_t> Unsorted(const std::vector<int32_t>& order,
                              const std::vector<int32_t>& where) {
  std::vector<int32_t> result = util::PooledVector<int32_t>(where.size());
  for (size_t k = 0; k < where.size(); ++k) result[order[k]] = where[k];
  return result;
}

}  // namespace

std::vector<int32_t> PlanDocuments(absl::Span<const int64_t> lengths,
                                   absl::Span<const double> costs,
                                   const DocumentPlanOptions& options, DocumentPlanStats* stats) {
  const int32_t n = static_cast<int32_t>(lengths.size());
  const int32_t num_ranks = static_cast<int32_t>(options.num_ranks);
  const int32_t m = static_cast<int32_t>(options.microbatches_per_rank);
  const int64_t cap = options.cap;
  const size_t microbatches = static_cast<size_t>(num_ranks) * m;

  // Work on items renumbered by their position in LPT order, so every pass
  // below reads memory sequentially.
  // Costs usually follow lengths, which are bounded by the cap: then a
  // counting sort gives the same order (checked, not assumed).
  std::vector<int32_t> order = CostDescendingOrder(costs, lengths, cap);
  std::vector<int64_t> len = util::LargeVector<int64_t>(n);
  std::vector<double> cost = util::LargeVector<double>(n);
  for (int32_t k = 0; k < n; ++k) {
    len[k] = lengths[order[k]];
    cost[k] = costs[order[k]];
  }
  // suffix_min[k] = shortest item among k..: a rank whose roomiest
  // microbatch is below it can never take another item.
  std::vector<int64_t> suffix_min =
      util::PooledVector<int64_t>(n + 1, std::numeric_limits<int64_t>::max());
  for (int32_t k = n - 1; k >= 0; --k) suffix_min[k] = std::min(suffix_min[k + 1], len[k]);

  std::vector<int64_t> tokens = util::PooledVector<int64_t>(microbatches, 0);
  std::vector<int32_t> where = util::PooledVector<int32_t>(n, -1);
  std::vector<double> rank_cost = util::PooledVector<double>(num_ranks, 0.0);

  // Phase 1: LPT under the cap. `heap` holds the ranks whose roomiest
  // microbatch fits the current item, lightest on top; the others wait in
  // `parked`, roomiest on top, and return when the items get short enough.
  // For monotone cost models items come longest first, so each rank moves
  // between the two O(1) times per placement: O(n log R) in all.
  std::vector<int64_t> max_free = util::PooledVector<int64_t>(num_ranks, cap);
  // Scratch back to the caller's vector pool, if any (util/vector_pool.h).
  util::GiveBackOnExit give_back(order, len, cost, suffix_min, tokens, where, rank_cost, max_free);
  RankHeap heap(num_ranks);
  auto roomier = [&](int32_t a, int32_t b) {  // std max-heap on (room, -rank)
    return max_free[a] < max_free[b] || (max_free[a] == max_free[b] && a > b);
  };
  std::vector<int32_t> parked;
  for (int32_t k = 0; k < n; ++k) {
    const int64_t l = len[k];
    while (!parked.empty() && max_free[parked.front()] >= l) {
      std::pop_heap(parked.begin(), parked.end(), roomier);
      const int32_t r = parked.back();
      parked.pop_back();
      heap.Push({rank_cost[r], r});
    }
    while (!heap.empty() && max_free[heap.Top().rank] < l) {
      parked.push_back(heap.Top().rank);
      std::push_heap(parked.begin(), parked.end(), roomier);
      heap.Pop();
    }
    if (heap.empty()) continue;  // fits nowhere: unplaced
    const int32_t r = heap.Top().rank;
    int64_t* mb_tokens = tokens.data() + static_cast<size_t>(r) * m;
    // Best fit: the microbatch with the least room that still fits. The
    // first fitting one seeds the search (a sentinel of INT64_MAX would
    // never be beaten by an empty microbatch under cap = INT64_MAX); one
    // fits, since max_free[r] >= l.
    int32_t best = -1;
    int64_t best_free = 0;
    for (int32_t j = 0; j < m; ++j) {
      const int64_t free = cap - mb_tokens[j];
      if (free >= l && (best < 0 || free < best_free)) {
        best = j;
        best_free = free;
      }
    }
    mb_tokens[best] += l;
    where[k] = r * m + best;
    rank_cost[r] += cost[k];
    int64_t room = 0;
    for (int32_t j = 0; j < m; ++j) room = std::max(room, cap - mb_tokens[j]);
    max_free[r] = room;
    if (room < suffix_min[k + 1]) {
      heap.Pop();  // full for good: no later item fits
    } else {
      heap.RaiseTop(rank_cost[r]);
    }
  }
  if (stats != nullptr) {
    stats->max_rank_cost_after_lpt = *std::max_element(rank_cost.begin(), rank_cost.end());
  }

  // Phase 2: refinement between the heaviest and the lightest ranks.
  if (options.refine && num_ranks > 1) {
    double total = 0, largest = 0, heaviest = 0;
    for (int32_t r = 0; r < num_ranks; ++r) {
      total += rank_cost[r];
      heaviest = std::max(heaviest, rank_cost[r]);
    }
    for (int32_t k = 0; k < n; ++k) {
      if (where[k] >= 0) largest = std::max(largest, cost[k]);
    }
    const double lower_bound = std::max(total / num_ranks, largest);
    const double target = lower_bound * (1 + options.tolerance);
    const int64_t max_moves =
        options.max_moves >= 0 ? options.max_moves : 2 * options.num_ranks + 1024;
    if (heaviest <= target) return Unsorted(order, where);
    // Costs non-decreasing in length (true of every built-in model) let the
    // search skip light ranks without room; checked, not assumed.
    bool monotone = true;
    for (int32_t k = 1; k < n && monotone; ++k) monotone = len[k] <= len[k - 1];
    SlotRefineOptions refine;
    refine.num_groups = num_ranks;
    refine.slots_per_group = m;
    refine.cap = cap;
    refine.max_steps = max_moves;
    refine.stop_at = target;
    refine.candidates = options.light_candidates;
    refine.monotone = monotone;
    const int64_t moves = RefineSlots(len, cost, refine, absl::MakeSpan(rank_cost),
                                      absl::MakeSpan(tokens), absl::MakeSpan(where))
                              .steps;
    if (stats != nullptr) stats->moves = moves;
  }
  return Unsorted(order, where);
}

}  // namespace flopspack::pack
