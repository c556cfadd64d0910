// Bounded local search that lowers the costliest group of an assignment,
// written once for every balancer and planner (docs/algorithms.md,
// "Refinement"). Each step takes the costliest group H (ties: the highest
// index) and tries the lightest groups L in (load, index) order, up to a
// number of candidates the neighbourhood chooses, stopping at the first L
// whose load is not below the best new maximum found so far. For each L the
// neighbourhood proposes the best move or swap between H and L, judged by
// max(load H, load L) after it; the step applies the best one found if that
// is below load(H) · (1 − min_gain). Neighbourhoods may have levels (cheap
// moves first, costlier ones only when a whole level finds nothing). The
// search stops when no step helps, the heaviest load is at or below
// `stop_at`, or after max_steps steps.
//
// Two neighbourhoods use it:
// - Refine (refine.cc, the balancer and the bucket sampler): items in flat
//   groups under GroupLimits (token caps, equal counts); moves of one item
//   and 1-1 swaps, the best step over all candidates.
// - RefineSlots (refine_slots.cc, the step planner): groups of M slots
//   (ranks of microbatches), each slot under a token cap; level 0 tries
//   1-0 moves and 1-1 swaps, level 1 swaps of one item for two (1-2, 2-1)
//   within a pair of slots; the first candidate with an improving step wins.
//
// Complexity per step: a candidate scan (Candidates(H) groups) plus the
// neighbourhood's search per candidate (see each function), plus
// O(log k) to reorder the two groups a step touches.
// Guarantee: every applied step lowers max(load H, load L) below load(H),
// so the costliest group never gets costlier, and every step lowers it or
// reduces the number of groups at the top load (the sum of squared loads
// strictly decreases): the result is never worse than the input and the
// search terminates. This is the "move/exchange" neighbourhood of
// scheduling local search (G. Finn and E. Horowitz, "A linear time
// approximation algorithm for multiprocessor scheduling", BIT 19, 1979).
//
// A new objective or problem structure reuses the search by writing a
// Neighbourhood (see LocalSearch below) and calling LocalSearch; its
// groups need only a load to order by and a Search/Apply pair.
#ifndef FLOPSPACK_PACK_PRIMITIVES_REFINE_H_
#define FLOPSPACK_PACK_PRIMITIVES_REFINE_H_

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <utility>
#include <vector>

#include "absl/types/span.h"
#include "pack/primitives/group_limits.h"
#include "util/scratch_arena.h"

namespace flopspack::pack {

inline constexpr size_t kRefineCandidates = 16;
// Item visits a step aims at: fewer candidate groups when groups are large.
inline constexpr size_t kRefineWork = 4096;

struct RefineStats {
  int64_t steps = 0;  // moves + swaps applied
  int64_t moves = 0;
  int64_t swaps = 0;
};

// Improves group (the group of each item, in [0, k)) in place. Precondition:
// the input assignment already respects limits.
// Per step: O(T·m·log m) for T candidate groups of m items (member lists
// stay sorted by cost, so the best swap partner of each item is a binary
// search), with T·m kept near kRefineWork.
RefineStats Refine(absl::Span<const double> costs, int32_t k, const GroupLimits& limits,
                   absl::Span<int32_t> group, int64_t max_steps);

// Groups of slots: group g owns slots g·M .. g·M + M − 1, each slot holds
// at most `cap` tokens.
struct SlotRefineOptions {
  int32_t num_groups = 1;
  int32_t slots_per_group = 1;
  int64_t cap = 1;
  int64_t max_steps = 0;
  // Stop once the heaviest group's cost is at or below this.
  double stop_at = -std::numeric_limits<double>::infinity();
  // Lightest groups tried as partners of the heaviest per step.
  int candidates = 8;
  // Costs are non-decreasing in length: a 1-0 or 1-1 step that sends cost
  // to L sends tokens too, so an L without room is skipped. The caller
  // checks it (it is not assumed).
  bool monotone = false;
};

// Improves slot (the slot of each item, or −1 for unplaced items, which stay
// so) in place. group_cost[g] is group g's cost on entry (the sum of its
// items' costs, in whatever order the caller summed them) and on exit;
// slot_tokens[s] the tokens in slot s, kept up to date. Precondition: no
// slot above the cap. A group's cost is recomputed from its items after
// each step that touches it, so rounding does not drift over many steps.
// Per step: O(K·s·m²) for K candidates, s items per group, m per slot
// (pairs only in slots of up to 48 items).
RefineStats RefineSlots(absl::Span<const int64_t> lengths, absl::Span<const double> costs,
                        const SlotRefineOptions& options, absl::Span<double> group_cost,
                        absl::Span<int64_t> slot_tokens, absl::Span<int32_t> slot);

// ---------------------------------------------------------------------------
// The search itself, for neighbourhoods. A Neighbourhood provides:
//
//   struct Step {                 // one candidate move or swap
//     double new_max;             // max(load H, load L) after it
//     int32_t light;              // the group L it exchanges with
//     bool IsMove() const;        // an item moves without one coming back
//   };
//   static constexpr int kLevels; // neighbourhood levels, cheapest first
//   int32_t num_groups() const;
//   double Load(int32_t g) const; // what the search minimises the max of
//   size_t Candidates(int32_t heavy) const;  // light groups to try per step
//   // Improves best (strictly lower new_max) with a step between heavy and
//   // light at this level; true if it did.
//   bool Search(int32_t heavy, int32_t light, int level, Step& best);
//   void Apply(int32_t heavy, const Step& step);  // Load() reflects it after
//
// The loads may be anything the objective needs (rank cost, a slot's cost
// in a per-slot objective); the search only orders groups by them.

struct LocalSearchOptions {
  int64_t max_steps = 0;
  // Stop once the heaviest load is at or below this.
  double stop_at = -std::numeric_limits<double>::infinity();
  // A step must bring max(load H, load L) below load(H) · (1 − min_gain).
  double min_gain = 0;
  // Apply the first candidate's improving step (true) or the best step over
  // all candidates (false).
  bool first_improving = false;
};

// Groups ordered by (load, index): the heaviest, and the lightest few in
// order. Update after a group's load changes. A tournament tree over the
// groups whose every node holds the least and the greatest (load, index)
// below it, in flat arrays (carved from a scratch arena): O(k) to
// build, O(log k) per update along a path fixed by the group, where an
// ordered set made k allocations per call. Lightest takes the minimum out
// count times and puts it back, so it lists exactly what an ordered set's
// iteration would.
class LoadOrder {
 public:
  // Its nodes are carved from `scratch` (64-byte aligned, as the 128-bit
  // keys want at least 16).
  LoadOrder(absl::Span<const double> loads, util::ScratchArena& scratch) {
    while (leaves_ < loads.size()) leaves_ *= 2;
    // Four words per node: (min, max) of node i at [4i, 4i + 4).
    nodes_ = scratch.Array<uint64_t>(8 * leaves_).data();
    for (size_t g = 0; g < leaves_; ++g) {
      const Key key = g < loads.size() ? Make(loads[g], g) : kGone;
      Store(leaves_ + g, key, g < loads.size() ? key : Key{0});
    }
    for (size_t i = leaves_ - 1; i >= 1; --i) {
      Store(i, std::min(Min(2 * i), Min(2 * i + 1)), std::max(Max(2 * i), Max(2 * i + 1)));
    }
  }
  LoadOrder(const LoadOrder&) = delete;
  LoadOrder& operator=(const LoadOrder&) = delete;

  int32_t Heaviest() const { return Index(Max(1)); }
  // The `count` lightest groups other than `skip`, lightest first.
  void Lightest(size_t count, int32_t skip, std::vector<int32_t>& out) {
    out.clear();
    taken_.clear();
    while (out.size() < count && Min(1) != kGone) {
      const Key top = Min(1);
      const int32_t g = Index(top);
      if (g != skip) out.push_back(g);
      taken_.push_back(top);
      SetMin(g, kGone);
    }
    for (const Key key : taken_) SetMin(Index(key), key);
  }
  void Update(int32_t g, double /*old_load*/, double new_load) {
    const Key key = Make(new_load, static_cast<size_t>(g));
    size_t i = leaves_ + static_cast<size_t>(g);
    Key low = key, high = key;
    Store(i, low, high);
    while (i > 1) {
      low = std::min(low, Min(i ^ 1));
      high = std::max(high, Max(i ^ 1));
      i >>= 1;
      Store(i, low, high);
    }
  }

 private:
  __extension__ typedef unsigned __int128 Key;
  static constexpr Key kGone = ~Key{0};  // above every group
  // (load, index) as one integer that orders as the pair does: the load's
  // bits made monotone (negative loads flipped; -0.0 taken as +0.0, as
  // comparisons of doubles do), then the index.
  static Key Make(double load, size_t g) {
    const double normal = load + 0.0;
    uint64_t bits;
    std::memcpy(&bits, &normal, sizeof bits);
    bits = (bits >> 63) != 0 ? ~bits : bits | (uint64_t{1} << 63);
    return (static_cast<Key>(bits) << 32) | static_cast<uint32_t>(g);
  }
  static int32_t Index(Key key) { return static_cast<int32_t>(static_cast<uint32_t>(key)); }
  Key Min(size_t i) const { return Load(4 * i); }
  Key Max(size_t i) const { return Load(4 * i + 2); }
  Key Load(size_t word) const {
    Key k;
    std::memcpy(&k, nodes_ + word, sizeof k);
    return k;
  }
  void Store(size_t i, Key low, Key high) {
    std::memcpy(nodes_ + 4 * i, &low, sizeof low);
    std::memcpy(nodes_ + 4 * i + 2, &high, sizeof high);
  }
  // Replays the minima only (Lightest's temporary removals).
  void SetMin(int32_t g, Key key) {
    size_t i = leaves_ + static_cast<size_t>(g);
    std::memcpy(nodes_ + 4 * i, &key, sizeof key);
    while (i > 1) {
      key = std::min(key, Min(i ^ 1));
      i >>= 1;
      std::memcpy(nodes_ + 4 * i, &key, sizeof key);
    }
  }

  uint64_t* nodes_ = nullptr;
  size_t leaves_ = 1;
  std::vector<Key> taken_;
};

template <class Neighbourhood>
RefineStats LocalSearch(Neighbourhood& n, const LocalSearchOptions& options) {
  RefineStats stats;
  const int32_t k = n.num_groups();
  if (k <= 1 || options.max_steps <= 0) return stats;
  util::ScratchArena scratch;
  absl::Span<double> loads = scratch.Array<double>(static_cast<size_t>(k));
  for (int32_t g = 0; g < k; ++g) loads[g] = n.Load(g);
  LoadOrder order(loads, scratch);
  std::vector<int32_t> light;
  while (stats.steps < options.max_steps) {
    const int32_t heavy = order.Heaviest();
    const double top = n.Load(heavy);
    if (top <= options.stop_at) break;
    order.Lightest(n.Candidates(heavy), heavy, light);
    typename Neighbourhood::Step best{};
    bool found = false;
    for (int level = 0; level < Neighbourhood::kLevels && !found; ++level) {
      best.new_max = top * (1 - options.min_gain);
      for (const int32_t l : light) {
        if (!(n.Load(l) < best.new_max)) break;  // nothing with it can help
        if (n.Search(heavy, l, level, best)) {
          found = true;
          if (options.first_improving) break;
        }
      }
    }
    if (!found) break;
    const double light_before = n.Load(best.light);
    n.Apply(heavy, best);
    order.Update(heavy, top, n.Load(heavy));
    order.Update(best.light, light_before, n.Load(best.light));
    ++stats.steps;
    ++(best.IsMove() ? stats.moves : stats.swaps);
  }
  return stats;
}

}  // namespace flopspack::pack

#endif  // FLOPSPACK_PACK_PRIMITIVES_REFINE_H_
