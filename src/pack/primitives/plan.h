// The result every packer, balancer, step planner and bucket sampler returns:
// groups of input items in CSR form, the tokens each item contributes to its
// group (a split document appears in several groups) and where in the item
// that piece starts, per-group totals, the
// (rank, slot) of each group for step plans, the items that were deferred or
// dropped, and the metrics of the public flopspack_plan_metrics (docs/algorithms.md).
#ifndef FLOPSPACK_PACK_PRIMITIVES_PLAN_H_
#define FLOPSPACK_PACK_PRIMITIVES_PLAN_H_

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"

namespace flopspack::util {
class VectorPool;  // util/vector_pool.h
}  // namespace flopspack::util

namespace flopspack::pack {

// Mirrors flopspack_plan_metrics field by field (see the public header for
// the meaning of each).
struct PlanMetrics {
  uint64_t num_groups = 0;
  uint64_t num_items = 0;
  double max_group_cost = 0, mean_group_cost = 0, min_group_cost = 0, total_cost = 0;
  double balance_efficiency = 0;
  double lower_bound = 0, gap_to_lower_bound = 0;
  int64_t real_tokens = 0;
  int64_t computed_tokens = 0;
  int64_t capacity = 0;
  double fill = 0;
  double padding_efficiency = 0;
  uint64_t num_ranks = 0, microbatches_per_rank = 0;
  double max_rank_cost = 0, mean_rank_cost = 0, rank_balance_efficiency = 0;
  double rank_lower_bound = 0, rank_gap_to_lower_bound = 0;
  double worst_slot_balance = 0;
  uint64_t split_items = 0, truncated_items = 0, deferred_items = 0, dropped_items = 0;
  int64_t truncated_tokens = 0, deferred_tokens = 0, dropped_tokens = 0;
  uint64_t num_steps = 0;
  double diversity_distance = 0, diversity_distance_samples = 0;
  int32_t planned_by = 0;  // a flopspack_planned_by
  // Synchronization figures of step plans (planner/sync_metrics.h).
  double microbatch_sync_efficiency = 0;
  double mean_slot_balance = 0;
  double microbatch_sync_cost = 0;
  double microbatch_sync_lower_bound = 0, microbatch_sync_gap_to_lower_bound = 0;
  double pipeline_makespan = 0, pipeline_efficiency = 0;
  double pipeline_lower_bound = 0, pipeline_gap_to_lower_bound = 0;
};

class Plan {
 public:
  Plan() : offsets_{0} {}

  // Appends a group. items and tokens have equal sizes; computed_tokens is
  // the tokens the group costs to run (>= the sum of tokens when padded).
  void AddGroup(absl::Span<const int64_t> items, absl::Span<const int64_t> tokens,
                int64_t computed_tokens, double cost);
  // Replaces all groups at once from CSR arrays (moved in, no copy):
  // offsets has groups + 1 entries from 0 to items.size(); tokens matches
  // items; computed_tokens and costs have one entry per group.
  void SetGroups(std::vector<int64_t> offsets, std::vector<int64_t> items,
                 std::vector<int64_t> tokens, std::vector<int64_t> computed_tokens,
                 std::vector<double> costs);
  // Replaces all groups at once, as SetGroups, for groups without padding:
  // each computes its real tokens, so no per-group array is stored for the
  // computed tokens.
  void SetUnpaddedGroups(std::vector<int64_t> offsets, std::vector<int64_t> items,
                         std::vector<int64_t> tokens, std::vector<double> costs);
  // Assigns (rank, slot) to every group; sizes equal group_count().
  void SetSlots(std::vector<int64_t> ranks, std::vector<int64_t> slots);
  // Assigns the step planner's grid: group g is slot g % slots_per_rank of
  // rank g / slots_per_rank (no per-group arrays). slots_per_rank >= 1.
  void SetSlotGrid(int64_t slots_per_rank);
  void Reserve(size_t groups, size_t entries);
  // For a plan about to be destroyed: moves every array's storage into
  // `pool` for reuse, allocating nothing (so a destructor may call it). Only
  // destruction is valid afterwards.
  void GiveStorage(util::VectorPool& pool);

  size_t group_count() const { return offsets_.size() - 1; }
  absl::Span<const int64_t> group_items(size_t g) const {
    return absl::MakeConstSpan(items_).subspan(offsets_[g], offsets_[g + 1] - offsets_[g]);
  }
  absl::Span<const int64_t> group_tokens(size_t g) const {
    return absl::MakeConstSpan(tokens_).subspan(offsets_[g], offsets_[g + 1] - offsets_[g]);
  }

  // Piece offsets: entry k is the piece of items[k] that starts at token
  // piece_offsets[k] of the item and is tokens[k] long; the pieces of one
  // item tile [0, its kept length). An algorithm whose pieces of one item
  // can span several plans (the stream packer) sets them after its last
  // AddGroup / SetGroups; every other plan gets them from FillPieceOffsets.
  void SetPieceOffsets(std::vector<int64_t> piece_offsets);
  // For a plan whose every entry is a whole item appearing once: each
  // piece starts its item, so every offset is 0 (what FillPieceOffsets
  // would find, without its pass and its item-indexed array). Call after
  // the groups are set. Every group's offsets are then a view of one
  // array of zeros as long as the largest group (from the thread's vector
  // pool), not an entry-sized array: a first call zeroes no fresh pages
  // for them.
  void SetWholeItemOffsets();
  // Derives the offsets, unless set, by the plan-order convention: the
  // pieces of one item are numbered group-major (group 0 first), entry order
  // within a group; the first starts at 0 and each next one where the
  // previous ended. Every algorithm that places all pieces of an item in one
  // plan follows it (pieces attend only within themselves, so which tokens a
  // piece holds does not change any cost). The C layer calls it on every
  // plan it hands out. O(entries + item range) (a sort of the entries when
  // item ids are sparse).
  void FillPieceOffsets();
  bool has_piece_offsets() const { return whole_items_ || piece_offsets_.size() == items_.size(); }
  // Needs has_piece_offsets().
  absl::Span<const int64_t> group_piece_offsets(size_t g) const {
    const size_t size = static_cast<size_t>(offsets_[g + 1] - offsets_[g]);
    if (whole_items_) return absl::MakeConstSpan(piece_offsets_).first(size);
    return absl::MakeConstSpan(piece_offsets_).subspan(offsets_[g], size);
  }
  // A group's tokens summed, when asked: O(its entries). (No per-group
  // array: a step plan's would be 256 KB of fresh pages on a first call at
  // 8,192 x 4, and every caller reads each group once.)
  int64_t group_real_tokens(size_t g) const {
    int64_t real = 0;
    for (int64_t t : group_tokens(g)) real += t;
    return real;
  }
  int64_t group_computed_tokens(size_t g) const {
    return computed_tokens_.empty() ? group_real_tokens(g) : computed_tokens_[g];
  }
  // Whether groups carry computed tokens of their own (else each computes
  // its real tokens: SetUnpaddedGroups).
  bool has_computed_tokens() const { return !computed_tokens_.empty(); }
  double group_cost(size_t g) const { return costs_[g]; }
  bool has_slots() const { return slots_per_rank_ > 0 || !ranks_.empty(); }
  // The grid's ranks are consecutive runs of slots_per_rank groups.
  bool has_slot_grid() const { return slots_per_rank_ > 0; }
  int64_t slots_per_rank() const { return slots_per_rank_; }
  int64_t group_rank(size_t g) const {
    return slots_per_rank_ > 0 ? static_cast<int64_t>(g) / slots_per_rank_ : ranks_[g];
  }
  int64_t group_slot(size_t g) const {
    return slots_per_rank_ > 0 ? static_cast<int64_t>(g) % slots_per_rank_ : slots_[g];
  }
  absl::Span<const double> group_costs() const { return costs_; }

  std::vector<int64_t>& deferred() { return deferred_; }
  const std::vector<int64_t>& deferred() const { return deferred_; }
  std::vector<int64_t>& dropped() { return dropped_; }
  const std::vector<int64_t>& dropped() const { return dropped_; }

  PlanMetrics& metrics() { return metrics_; }
  const PlanMetrics& metrics() const { return metrics_; }

 private:
  std::vector<int64_t> offsets_;
  std::vector<int64_t> items_;
  std::vector<int64_t> tokens_;
  // Empty until set or filled; with whole_items_, zeros as long as the
  // largest group, shared by every group.
  std::vector<int64_t> piece_offsets_;
  bool whole_items_ = false;
  std::vector<int64_t> computed_tokens_;  // empty: each group's real tokens
  std::vector<double> costs_;
  std::vector<int64_t> ranks_;
  std::vector<int64_t> slots_;
  int64_t slots_per_rank_ = 0;  // > 0: the slot grid, ranks_ and slots_ empty
  std::vector<int64_t> deferred_;
  std::vector<int64_t> dropped_;
  PlanMetrics metrics_;
};

// Fills the group-level metrics from the plan's groups: cost statistics,
// balance efficiency, lower bound max(total / groups, largest_item_cost) and
// the gap to it, real and computed tokens, fill (when capacity > 0) and
// padding efficiency. Leaves rank-, step- and loss-related fields alone.
void ComputeGroupMetrics(Plan& plan, uint64_t num_items, double largest_item_cost,
                         int64_t capacity);

// For a plan whose groups carry (rank, slot): rank costs, rank balance,
// rank lower bound max(total / ranks, largest_item_cost), worst per-slot
// balance.
void ComputeRankMetrics(Plan& plan, uint64_t num_ranks, uint64_t slots_per_rank,
                        double largest_item_cost);

// OutOfRange naming `what` when the plan's group costs (each finite) sum
// past what a double holds: its metrics would be inf or NaN. Call before
// ComputeGroupMetrics wherever group costs come from a cost model.
absl::Status CheckGroupCostSum(const Plan& plan, absl::string_view what);

// mean / max of values (1 for empty or all-zero input).
double BalanceEfficiency(absl::Span<const double> values);

}  // namespace flopspack::pack

#endif  // FLOPSPACK_PACK_PRIMITIVES_PLAN_H_
