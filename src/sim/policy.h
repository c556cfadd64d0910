// The interface every emulated policy implements: given the document
// stream, form one optimizer step's microbatches and say which rank and slot
// each one runs on. The simulator (simulator.h) costs them and measures.
//
// Policies are stateful (a document cut at a step boundary continues in the
// next step, deferred pieces come first next time) and deterministic for a
// seed. New policies — the step planner's and the bucket sampler's
// algorithms — plug in by implementing Policy and adding a PolicyKind.
#ifndef FLOPSPACK_SIM_POLICY_H_
#define FLOPSPACK_SIM_POLICY_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "cost/cost_model.h"
#include "pack/planner/step_planner.h"
#include "pack/primitives/extra_costs.h"
#include "sim/document_stream.h"

namespace flopspack::sim {

// Values match flopspack_sim_policy in the public header.
enum class PolicyKind {
  kRandom = 0,         // concatenate, cut into full sequences, deal at random
  kTokenBalanced = 1,  // whole documents, LPT on tokens across microbatches
  kBuckets = 2,        // the bucket sampler: padded batches from length buckets
  // The step planner's algorithms (pack/planner/step_planner.h) on each step's
  // whole documents:
  kPlannerDocuments = 3,  // document-level FLOPs balancing (LPT + refinement)
  kPlannerRandom = 4,     // the planner's concatenate-and-cut, dealt at random
  kPlannerTokens = 5,     // the document-level planner balancing tokens
  kPlannerSequences = 6,  // FFD pre-packed sequences + LPT
};

struct StepShape {
  uint64_t num_ranks = 1;
  uint64_t microbatches_per_rank = 1;
  int64_t tokens_per_microbatch = 1;  // capacity of one microbatch (sequence)
  // The step planner's memory cap per microbatch (>= tokens_per_microbatch):
  // its steps hold microbatches() x tokens_per_microbatch tokens, and the
  // slack lets a rank with expensive documents take fewer tokens.
  int64_t max_tokens_per_microbatch = 1;
  // The trainer's synchronization, for policies that plan for it (the step
  // planner's).
  pack::StepSync sync = pack::StepSync::kStep;
  int64_t pipeline_stages = 0;
  pack::PipelineSchedule pipeline_schedule = pack::PipelineSchedule::k1F1B;
  // Context parallelism (SimOptions): the token counts above are then of a
  // whole CP group (C x the per-GPU ones); the planner policies divide by
  // C to pass the planner its per-GPU cap.
  int64_t context_parallel_size = 1;
  pack::CpLayout context_parallel_layout = pack::CpLayout::kDocumentHeadTail;
  uint64_t microbatches() const { return num_ranks * microbatches_per_rank; }
};

// One step: exactly shape.microbatches() microbatches in CSR form; pieces
// are the lengths of the document pieces in each, and extras (with extra
// costs only, else empty) the extra cost each piece carries: its
// document's extra cost in proportion to its tokens (pack::ExtraCosts::Of,
// the one rule). Position
// p = rank * microbatches_per_rank + slot runs microbatch order[p] (or
// microbatch p when order is empty).
struct StepBatch {
  std::vector<size_t> offsets{0};
  std::vector<int64_t> pieces;
  std::vector<uint32_t> order;
  std::vector<double> extras;
  // true: each piece is its own sample padded to the longest of its
  // microbatch (padded batching); false: pieces are packed into one
  // sequence (varlen attention).
  bool padded = false;

  void Clear() {
    offsets.assign(1, 0);
    pieces.clear();
    order.clear();
    extras.clear();
  }
  size_t microbatches() const { return offsets.size() - 1; }
};

class Policy {
 public:
  virtual ~Policy() = default;
  // Fills batch (cleared by the caller) with the next step.
  virtual absl::Status NextStep(DocumentStream& stream, StepBatch& batch) = 0;
  // True when ranks draw their work independently of each other, so the
  // step time is the maximum of iid rank costs and order statistics predict
  // it.
  virtual bool independent_ranks() const = 0;
  // Documents read and epochs started: the stream's, unless the policy
  // samples the dataset itself (the bucket sampler).
  virtual uint64_t documents_drawn(const DocumentStream& stream) const { return stream.drawn(); }
  virtual uint64_t epochs(const DocumentStream& stream) const { return stream.epochs(); }
};

// lengths and model: the dataset and cost model, for policies that need
// more than the stream (the bucket sampler); model must outlive the policy.
// extra: validated per-document extra costs over the same lengths (empty =
// none; must outlive the policy); every policy then fills StepBatch::extras
// and places documents exactly as without them, except the PLANNER_*
// policies, whose planner balances the full cost.
absl::StatusOr<std::unique_ptr<Policy>> MakePolicy(PolicyKind kind, const StepShape& shape,
                                                   uint64_t seed, absl::Span<const int64_t> lengths,
                                                   std::shared_ptr<const cost::CostModel> model,
                                                   const pack::ExtraCosts& extra = {});

}  // namespace flopspack::sim

#endif  // FLOPSPACK_SIM_POLICY_H_
