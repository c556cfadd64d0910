// The synchronization metrics of a step plan (docs/planner.md,
// Synchronization): what the step costs when the trainer synchronizes per
// microbatch (FSDP / ZeRO-3: every slot waits for its slowest rank) and
// when every rank is a 1F1B pipeline replica of P stages, each with a lower
// bound that holds for any plan of the same documents on the same ranks,
// microbatches and cap, and the plan's gap to it.
//
// Complexity: O(R M log M) for the slot figures, O(R M P) for the pipeline
// makespans (pipeline_schedule.h). Deterministic: sums in slot and rank
// order.
#ifndef FLOPSPACK_PACK_PLANNER_SYNC_METRICS_H_
#define FLOPSPACK_PACK_PLANNER_SYNC_METRICS_H_

#include <cstdint>
#include <vector>

#include "absl/types/span.h"
#include "pack/primitives/plan.h"

namespace flopspack::pack {

// What the bounds may assume of every plan of these documents. With
// whole_documents false (documents may be cut, or the model is not
// additive) only the rank lower bound is used.
struct SyncBoundInputs {
  // Every item is a whole document and a microbatch costs the sum of its
  // documents' costs plus `overhead` when not empty.
  bool whole_documents = false;
  double overhead = 0;
  double document_cost_total = 0;  // sum of the placed documents' costs
  double largest_document_cost = 0;
  double cheapest_cost_per_token = 0;  // min over documents of cost / tokens
  int64_t tokens = 0;                  // placed tokens
  int64_t cap = 0;                     // tokens per microbatch
};

// The step times of one step under each synchronization model, from its
// microbatch costs in slot-major order (cost[j * ranks + k] = rank k's
// microbatch in slot j; ranks >= 1, the size a multiple of ranks). The plan
// metrics below and the straggler emulator (src/sim/) both use them.
//
// Microbatch-synchronous (FSDP / ZeRO-3): Σ over slots of the slowest
// rank's microbatch in that slot, summed in slot order.
double MicrobatchSyncCost(absl::Span<const double> slot_major, int64_t ranks);

// Pipelines: each rank a replica of `stages` (>= 1) stages running its
// microbatches in slot order under 1F1B (pipeline_schedule.h); the makespan
// of the slowest replica. `replica` is scratch (resized to the slots).
double MaxReplicaMakespan(absl::Span<const double> slot_major, int64_t ranks, int64_t stages,
                          std::vector<double>& replica);

// Fills the microbatch-synchronous figures (efficiency, mean slot balance,
// step cost, bound, gap) of a plan whose rank metrics (ComputeRankMetrics,
// rank_lower_bound final) are set, and for pipeline_stages >= 2 the 1F1B
// figures (each rank one replica running its microbatches in slot order).
void ComputeSyncMetrics(Plan& plan, int64_t pipeline_stages, const SyncBoundInputs& inputs);

}  // namespace flopspack::pack

#endif  // FLOPSPACK_PACK_PLANNER_SYNC_METRICS_H_
