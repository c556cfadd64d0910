#include "pack/planner/planner_documents.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <utility>

#include "pack/primitives/cost_order.h"
#include "pack/primitives/refine.h"
#include "util/large_buffer.h"
#include "util/scratch_arena.h"
#include "util/vector_pool.h"

namespace flopspack::pack {
namespace {

// The ranks LPT may still give an item to, lightest on top: a tournament
// (winner) tree over the ranks keyed by (cost, rank), so ties go to the
// lower rank and the plan is deterministic. Every operation sets one rank's
// key and replays the matches on its path to the root: log2(R) levels whose
// addresses are fixed by the rank, not by the comparisons, so the processor
// loads them all at once and only the comparisons chain (a 4-ary heap's
// sift-down at R = 65,536 waits for each level's loads in turn, and was a
// third of the call). A key is one 128-bit integer, (cost bits, rank):
// compared without branches. The top is the unique minimum of a total
// order, so the structure does not change the plan.
class RankTree {
 public:
  struct Node {
    double cost;
    int32_t rank;
  };
  // Its nodes are carved from `scratch` (64-byte aligned, as the 128-bit
  // loads want at least 16).
  RankTree(int32_t num_ranks, util::ScratchArena& scratch) : live_(num_ranks) {
    while (leaves_ < static_cast<size_t>(num_ranks)) leaves_ *= 2;
    // Two words per node: node i at [2i, 2i + 2), leaves at leaves_ + r.
    tree_ = scratch.Array<uint64_t>(4 * leaves_).data();
    // All costs start at 0: leaf r is (0, r); slots past the last rank are
    // heavier than any rank. Then every match, bottom up.
    for (size_t r = 0; r < leaves_; ++r) {
      Store(leaves_ + r,
            r < static_cast<size_t>(num_ranks) ? Make(0.0, static_cast<int32_t>(r)) : kGone);
    }
    for (size_t i = leaves_ - 1; i >= 1; --i) Store(i, std::min(Load(2 * i), Load(2 * i + 1)));
  }
  RankTree(const RankTree&) = delete;
  RankTree& operator=(const RankTree&) = delete;

  bool empty() const { return live_ == 0; }
  Node Top() const {
    const Key top = Load(1);
    const uint64_t bits = static_cast<uint64_t>(top >> 32);
    double cost;
    std::memcpy(&cost, &bits, sizeof cost);
    return {cost, static_cast<int32_t>(static_cast<uint32_t>(top))};
  }
  void Push(Node node) {
    ++live_;
    Set(node.rank, Make(node.cost, node.rank));
  }
  void Pop() {
    --live_;
    Set(Top().rank, kGone);
  }
  // The top's cost grew to `cost`.
  void RaiseTop(double cost) {
    const int32_t r = Top().rank;
    Set(r, Make(cost, r));
  }

 private:
  __extension__ typedef unsigned __int128 Key;
  // Heavier than any rank: a rank that left the tree.
  static constexpr Key kGone = ~Key{0};
  static Key Make(double cost, int32_t rank) {
    // Rank costs are sums of costs >= 0 starting at +0.0, so never -0.0 or
    // NaN: their bit patterns order as the numbers do.
    uint64_t bits;
    std::memcpy(&bits, &cost, sizeof bits);
    return (static_cast<Key>(bits) << 32) | static_cast<uint32_t>(rank);
  }
  Key Load(size_t i) const {
    Key k;
    std::memcpy(&k, tree_ + 2 * i, sizeof k);
    return k;
  }
  void Store(size_t i, Key k) { std::memcpy(tree_ + 2 * i, &k, sizeof k); }
  void Set(int32_t rank, Key key) {
    size_t i = leaves_ + static_cast<size_t>(rank);
    Store(i, key);
    while (i > 1) {
      key = std::min(key, Load(i ^ 1));
      i >>= 1;
      Store(i, key);
    }
  }
  uint64_t* tree_;
  size_t leaves_ = 1;
  int32_t live_;
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
  // Work on items renumbered by their position in LPT order, so every pass
  // reads memory sequentially.
  // Costs usually follow lengths, which are bounded by the cap: then a
  // counting sort gives the same order (checked, not assumed).
  return PlanSortedDocuments(CostDescendingItems(costs, lengths, options.cap), options, stats);
}

std::vector<int32_t> PlanSortedDocuments(SortedItems sorted, const DocumentPlanOptions& options,
                                         DocumentPlanStats* stats) {
  const int32_t n = static_cast<int32_t>(sorted.order.size());
  const int32_t num_ranks = static_cast<int32_t>(options.num_ranks);
  const int32_t m = static_cast<int32_t>(options.microbatches_per_rank);
  const int64_t cap = options.cap;
  const size_t microbatches = static_cast<size_t>(num_ranks) * m;

  std::vector<int32_t> order = std::move(sorted.order);
  std::vector<int64_t> len = std::move(sorted.lengths);
  std::vector<double> cost = std::move(sorted.costs);
  // The shortest item among k.. (a rank whose roomiest microbatch is below
  // it can never take another item) is a step function of k, rising: kept
  // as its steps, (last k, shortest), k falling, which for lengths that
  // fall with cost is one or two entries instead of n.
  std::vector<std::pair<int32_t, int64_t>> shortest{{n, std::numeric_limits<int64_t>::max()}};
  for (int32_t k = n - 1; k >= 0; --k) {
    if (len[k] < shortest.back().second) shortest.emplace_back(k, len[k]);
  }
  size_t step = shortest.size() - 1;  // the entry for the current k + 1

  // The per-rank and per-microbatch tables from a scratch arena (one
  // huge page for all of them: util/scratch_arena.h; raw pointers, which
  // the placement loop indexes without absl::Span's hardened bounds
  // checks), the per-item arrays from the caller's vector pool, if any
  // (util/vector_pool.h).
  util::ScratchArena scratch;
  int64_t* const tokens = scratch.Array<int64_t>(microbatches, 0).data();
  std::vector<int32_t> where = util::PooledVector<int32_t>(n, -1);
  double* const rank_cost = scratch.Array<double>(num_ranks, 0.0).data();

  // Phase 1: LPT under the cap. `heap` holds the ranks whose roomiest
  // microbatch fits the current item, lightest on top; the others wait in
  // `parked`, roomiest on top, and return when the items get short enough.
  // For monotone cost models items come longest first, so each rank moves
  // between the two O(1) times per placement: O(n log R) in all.
  int64_t* const max_free = scratch.Array<int64_t>(num_ranks, cap).data();
  // Scratch back to the caller's vector pool, if any.
  util::GiveBackOnExit give_back(order, len, cost, where);
  RankTree heap(num_ranks, scratch);
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
    int64_t* mb_tokens = tokens + static_cast<size_t>(r) * m;
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
    while (shortest[step].first < k + 1) --step;
    if (room < shortest[step].second) {
      heap.Pop();  // full for good: no later item fits
    } else {
      heap.RaiseTop(rank_cost[r]);
    }
  }
  if (stats != nullptr) {
    stats->max_rank_cost_after_lpt = *std::max_element(rank_cost, rank_cost + num_ranks);
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
    const int64_t moves = RefineSlots(len, cost, refine, absl::MakeSpan(rank_cost, num_ranks),
                                      absl::MakeSpan(tokens, microbatches), absl::MakeSpan(where))
                              .steps;
    if (stats != nullptr) stats->moves = moves;
  }
  return Unsorted(order, where);
}

}  // namespace flopspack::pack
