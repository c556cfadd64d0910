// The step planner: the document lengths of one global batch -> a plan of
// R ranks x M microbatches under a hard token cap per microbatch, balanced by
// cost. See docs/planner.md for the algorithms, the policies and the
// measured quality.
//
// Algorithms (all share the cap, the overflow policy and the slot order):
//   kDocuments  document-level LPT + refinement under the cap
//               (planner_documents.h), the default;
//   kRandom     concatenate-and-cut, sequences dealt at random
//               (planner_baselines.h);
//   kTokens     the document-level planner balancing token counts;
//   kSequences  first-fit-decreasing pre-packed sequences + LPT.
// Overflow: a document longer than the cap, or documents that do not fit in
// R x M microbatches, are split (cut into the room that is left), rejected
// (an error naming the document), or deferred (listed in the plan's
// deferred list, not placed). M = 0 asks for the fewest microbatches per
// rank that hold the whole batch.
// Split for balance (the default algorithm, overflow split): a document
// whose cap-sized pieces would cost more than a rank's share is cut into
// more, near-equal pieces (balanced_split.h); where documents had to be cut,
// the cut to the share (cut_to_share.h) and the token-balanced planner
// replace the plan when their rank balance is higher (StepStats records
// which). The lower bound of such a plan treats cut documents as divisible
// (balanced_split.h, DivisibleLowerBound).
//
// Complexity: O(n log n) for the document-level planner plus its bounded
// refinement; O(R M) to build the plan. Deterministic: same inputs, options
// and seed give the same plan bit for bit.
#ifndef FLOPSPACK_PACK_PLANNER_STEP_PLANNER_H_
#define FLOPSPACK_PACK_PLANNER_STEP_PLANNER_H_

#include <cstdint>
#include <limits>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "cost/cost_model.h"
#include "pack/context_parallel/context_parallel.h"
#include "pack/planner/pipeline_schedule.h"
#include "pack/planner/planner_order.h"
#include "pack/primitives/extra_costs.h"  // CheckExtraCosts, for the callers of PlanStepWithExtraCosts
#include "pack/primitives/overflow.h"
#include "pack/primitives/plan.h"

namespace flopspack::pack {

enum class StepAlgorithm { kDocuments = 0, kRandom = 1, kTokens = 2, kSequences = 3 };
// How the trainer synchronizes, i.e. what the planner balances: kStep the
// rank totals (DDP with no_sync, ZeRO-1/2: one meeting per step),
// kMicrobatch every slot across ranks (FSDP / ZeRO-3: ranks meet in every
// layer of every microbatch, the step lasts the sum over slots of the
// slowest rank in the slot).
enum class StepSync { kStep = 0, kMicrobatch = 1 };
// The pipeline schedule each rank's replica runs (pipeline_schedule.h).
enum class PipelineSchedule { k1F1B = 0 };
// The step planner takes Overflow::kError, kSplit and kDefer
// (primitives/overflow.h); kTruncate is not offered.

struct StepOptions {
  int64_t num_ranks = 0;                  // must be set, >= 1
  int64_t microbatches_per_rank = 0;      // 0 = the fewest that fit
  int64_t max_tokens_per_microbatch = 0;  // must be set, >= 1
  StepAlgorithm algorithm = StepAlgorithm::kDocuments;
  uint64_t seed = 0;
  SlotOrder ordering = SlotOrder::kDescending;
  Overflow overflow = Overflow::kSplit;
  // Phase 2 of the document-level planner (off = plain LPT, for comparison).
  bool refine = true;
  // The refinement stops once the heaviest rank is within this fraction of
  // the lower bound (see planner_documents.h): 5e-4 = balance efficiency
  // 99.95% wherever the cap allows it.
  double tolerance = 5e-4;
  StepSync sync = StepSync::kStep;
  // Pipeline stages of each replica: 0 or 1 = no pipeline; 2 ..
  // kMaxPipelineStages = the plan's metrics carry the 1F1B makespan.
  int64_t pipeline_stages = 0;
  PipelineSchedule pipeline_schedule = PipelineSchedule::k1F1B;
  // Context parallelism: every microbatch is shared by a CP group of this
  // many GPUs (0 or 1 = none, at most kMaxContextParallelSize), cut with
  // context_parallel_layout (context_parallel.h). max_tokens_per_microbatch
  // stays the tokens of one GPU: a microbatch holds up to C x that cap, a
  // document up to C x cap stays whole (sharded over the CP group, keeping
  // full attention), and a microbatch costs its slowest CP rank. See
  // docs/context-parallel.md, "Planning with CP".
  int64_t context_parallel_size = 0;
  CpLayout context_parallel_layout = CpLayout::kDocumentHeadTail;
};

// The CP size in effect (1 for 0 = none).
inline int64_t ContextParallelSize(const StepOptions& o) {
  return o.context_parallel_size > 1 ? o.context_parallel_size : 1;
}

// The tokens one microbatch (one CP group) holds: max_tokens_per_microbatch
// x the CP size. Valid once ValidateStepOptions accepted the options.
inline int64_t GroupCap(const StepOptions& o) {
  return o.max_tokens_per_microbatch * ContextParallelSize(o);
}

// Internal figures for the quality benchmark.
struct StepStats {
  int64_t refine_moves = 0;
  double max_rank_cost_after_lpt = 0;
  // Which algorithm made the plan when the document-level planner fell
  // back (only where documents had to be cut); the plan's metrics carry it
  // as PublicPlannedBy.
  enum class PlannedBy { kDocuments, kCutToShare, kTokens };
  PlannedBy planned_by = PlannedBy::kDocuments;
  // The document-level plan's rank balance before the fallbacks were tried
  // (0 when they were not).
  double documents_balance = 0;
};

// PlanMetrics::planned_by (the public flopspack_planned_by): 0 for an
// algorithm without fallbacks, else 1 + the PlannedBy value (documents 1,
// cut to the share 2, token-balanced 3; step_planner_capi.cc checks it).
constexpr int32_t PublicPlannedBy(StepAlgorithm algorithm, StepStats::PlannedBy by) {
  return algorithm == StepAlgorithm::kDocuments ? 1 + static_cast<int32_t>(by) : 0;
}

// The most microbatches one step has: num_ranks x microbatches_per_rank,
// or the count M = 0 arrives at. Building a plan costs a few hundred bytes
// per microbatch, so a larger step is rejected at once (OutOfRange) instead
// of allocating gigabytes first (docs/errors.md, Limits).
inline constexpr int64_t kMaxStepMicrobatches = int64_t{1} << 24;

// The most items (whole documents plus the pieces of split ones) one step
// places.
inline constexpr int64_t kMaxStepItems = std::numeric_limits<int32_t>::max();

// Items a document of `length` tokens becomes under the cap when split.
inline int64_t StepPieces(int64_t length, int64_t cap) {
  return length <= cap ? 1 : length / cap + (length % cap != 0 ? 1 : 0);
}

// Items that PlanStep with these options always accepts and places without
// exceeding kMaxStepMicrobatches: with M = 0 the search for M ends by one
// item per microbatch, so at most (2^24 / num_ranks) x num_ranks items;
// with M > 0, kMaxStepItems. The stateful planner never selects more.
int64_t StepItemBudget(const StepOptions& options);

// Range checks of every option, with messages naming the field and value.
absl::Status ValidateStepOptions(const StepOptions& options);

// Plans one step. ids, when not empty, has one entry per length and gives
// the item index written into the plan (and its deferred list) for each
// document; empty = the position in lengths. Errors: InvalidArgument for bad
// options or lengths, or a document over the cap under kReject;
// FailedPrecondition when the batch cannot fit under kReject or kSplit;
// whatever the cost model returns (Aborted for a failing callback).
absl::StatusOr<Plan> PlanStep(const StepOptions& options, const cost::CostModel& model,
                              absl::Span<const int64_t> lengths, absl::Span<const int64_t> ids = {},
                              StepStats* stats = nullptr);

// PlanStep where document i costs the model's cost of its tokens plus
// extra_costs[i] (empty = none: the same plan as PlanStep, bit for bit).
// A split document's pieces share its extra cost in proportion to their
// tokens; items, group costs and metrics all include it. The number of
// pieces a heavy document is cut into for balance (balanced_split.h) and
// the lower bound's divisible part are still computed from the model's
// cost alone (the extra cost of a cut document counts in neither), so the
// bound stays a valid, if weaker, bound. Errors: PlanStep's, plus
// InvalidArgument for a size mismatch or a negative, NaN or infinite extra
// cost (naming its index), OutOfRange for a sum that overflows a double.
absl::StatusOr<Plan> PlanStepWithExtraCosts(const StepOptions& options,
                                            const cost::CostModel& model,
                                            absl::Span<const int64_t> lengths,
                                            absl::Span<const double> extra_costs,
                                            absl::Span<const int64_t> ids = {},
                                            StepStats* stats = nullptr);

// Lengths of a representative step of `documents` documents under these
// options, for sizing a step context's storage (flopspack_step_context_
// reserve): assorted lengths in [1, cap] (deterministic, exponentially
// distributed) whose total fills about 97% of R x M x cap, or a quarter of the cap
// each on average when M = 0.
std::vector<int64_t> RepresentativeStepLengths(const StepOptions& options, int64_t documents);

}  // namespace flopspack::pack

#endif  // FLOPSPACK_PACK_PLANNER_STEP_PLANNER_H_
