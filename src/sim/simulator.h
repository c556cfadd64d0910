// The straggler emulator: sample a training run the way a data pipeline
// does (shuffle the documents every epoch, form each step's global batch,
// apply a packing/balancing policy), cost every microbatch with a cost
// model, and measure each step: every rank's cost, the step time (the
// slowest rank), balance efficiency (mean rank cost / step time), fill and
// padding efficiency.
//
// The step time follows the trainer's synchronization model
// (docs/straggler-emulator.md, Topology): STEP (DDP / ZeRO-1/2, one
// synchronization per optimizer step) = the slowest rank; MICROBATCH
// (FSDP / ZeRO-3) = Σ over slots of the slowest rank's microbatch in that
// slot; with pipeline_stages P >= 2, every rank is a pipeline replica and
// the step lasts the slowest replica's exact 1F1B makespan
// (pack/planner/sync_metrics.h computes all three, for the planner's
// metrics too). Useful work per GPU is the mean rank cost, over P with
// pipelines (each stage does 1/P of it).
//
// Complexity: O(steps x (pieces per step + ranks x microbatches x max(1, P)))
// time plus
// the policy's own; memory O(dataset + one step), independent of the number
// of steps unless the per-step series is requested (the efficiency
// quantiles come from a fixed 2^16-bin histogram over [0, 1]).
// Guarantee: deterministic for a seed (util::Rng only, costs summed in
// rank/slot order).
// The analytic prediction for policies whose ranks are independent: with a
// rank's cost distributed as G, E[step time] = E[max of R iid draws of G],
// computed exactly by order statistics (stats/order_statistics.h) on the
// empirical G of the sampled rank costs (a uniform reservoir of at most
// 2^20 of them), and the predicted balance efficiency is mean(G) / E[max].
// Extra costs (issue 16): a document may carry a cost beside the model's
// cost of its tokens (a vision encoder's work on its images). Every piece a
// policy makes of it carries a share in proportion to its tokens
// (pack::ExtraCosts::Of, the rule of flopspack_plan_step and flopspack_pack);
// a microbatch costs its model cost plus its pieces' shares (summed in
// piece order after the model cost), padded batches add no extra cost for
// padding, and under CP a microbatch's extra cost is shared evenly by its
// CP ranks (each pays 1/C of it on top of its chunks' cost), as the step
// planner costs it.
// Reference: the straggler analysis of synchronous data parallelism, e.g.
// Dean & Barroso, "The Tail at Scale", CACM 56(2), 2013.
#ifndef FLOPSPACK_SIM_SIMULATOR_H_
#define FLOPSPACK_SIM_SIMULATOR_H_

#include <cstdint>
#include <functional>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "cost/cost_model.h"
#include "pack/planner/step_planner.h"
#include "sim/policy.h"
#include "stats/length_stats.h"

namespace flopspack::sim {

struct SimOptions {
  PolicyKind policy = PolicyKind::kRandom;
  uint64_t num_ranks = 1024;
  uint64_t microbatches_per_rank = 1;
  int64_t tokens_per_microbatch = 8192;
  // Step-planner policies only: the memory cap of a microbatch; 0 = the
  // same as tokens_per_microbatch (no slack).
  int64_t max_tokens_per_microbatch = 0;
  uint64_t num_steps = 100;
  uint64_t seed = 0;
  bool record_steps = false;
  // The trainer's synchronization (see above); the planner policies plan
  // for it too. pipeline_stages 0 or 1 = no pipeline, at most
  // pack::kMaxPipelineStages.
  pack::StepSync sync = pack::StepSync::kStep;
  int64_t pipeline_stages = 0;
  pack::PipelineSchedule pipeline_schedule = pack::PipelineSchedule::k1F1B;
  // Context parallelism: every rank is a data-parallel group of this many
  // GPUs (0 or 1 = none, at most pack::kMaxContextParallelSize) sharing each
  // microbatch, cut with context_parallel_layout (ShardSequence, the code
  // the step planner costs CP with). tokens_per_microbatch and
  // max_tokens_per_microbatch stay per GPU as in pack::StepOptions: a
  // microbatch holds C x tokens_per_microbatch tokens (every policy forms
  // microbatches of that capacity; the planner policies plan with CP) and
  // costs its slowest CP rank; its useful work is the mean CP rank's. Needs
  // an additive model, and not the bucket sampler (padded batches), when
  // C > 1. C = 1 is exactly no CP.
  int64_t context_parallel_size = 0;
  pack::CpLayout context_parallel_layout = pack::CpLayout::kDocumentHeadTail;
  // Called after every step with (steps done, steps in total); returning
  // false cancels the run (absl::CancelledError).
  std::function<bool(uint64_t, uint64_t)> progress;
};

struct StepRecord {
  double step_time = 0;           // under the synchronization model
  double mean_rank_cost = 0;      // total cost / ranks
  double balance_efficiency = 0;  // mean rank cost / the slowest rank's, whatever the model
  double fill = 0;                // real tokens / (microbatches x tokens_per_microbatch)
  double padding_efficiency = 0;  // real tokens / computed tokens
  int64_t real_tokens = 0;
};

struct SimResult {
  uint64_t num_steps = 0, num_ranks = 0, microbatches_per_rank = 0;
  uint64_t documents_drawn = 0, epochs = 0;
  double mean_balance_efficiency = 0;
  double p5_balance_efficiency = 0, p50_balance_efficiency = 0, p95_balance_efficiency = 0;
  double mean_fill = 0, mean_padding_efficiency = 0;
  // sum over steps of the useful (unpadded) mean rank cost / sum of step
  // times: throughput relative to a perfectly balanced, unpadded run.
  double relative_throughput = 0;
  double mean_step_time = 0;
  // Order-statistics prediction of the efficiency under the model (NaN when
  // the policy's ranks are not independent, or with pipelines): STEP,
  // mean / E[max of R] rank costs; MICROBATCH, the same over microbatch
  // costs (each slot waits for the largest of R).
  double predicted_balance_efficiency = 0;
  int64_t real_tokens = 0, computed_tokens = 0;
  // The model the step times follow, and the mean over steps of the useful
  // work per GPU (mean rank cost, / P with pipelines) / step time: the
  // balance efficiency under that model (= mean_balance_efficiency under
  // STEP without pipelines).
  pack::StepSync sync = pack::StepSync::kStep;
  int64_t pipeline_stages = 0;
  pack::PipelineSchedule pipeline_schedule = pack::PipelineSchedule::k1F1B;
  double mean_sync_efficiency = 0;
  std::vector<StepRecord> steps;  // only with record_steps
  stats::LengthStats pieces;      // sub-sequence (document piece) lengths
  // The reservoir behind the prediction, ascending: rank costs (STEP) or
  // microbatch costs (MICROBATCH).
  std::vector<double> rank_cost_sample;
};

// lengths non-empty, every length > 0; model required. extra_costs: empty
// (none: the same result as without, bit for bit) or one finite,
// non-negative extra cost per length; the documents drawn per step do not
// depend on them.
absl::StatusOr<SimResult> Simulate(absl::Span<const int64_t> lengths, const cost::CostModel& model,
                                   const SimOptions& options,
                                   absl::Span<const double> extra_costs = {});

struct SweepPoint {
  uint64_t num_ranks = 0;
  double sampled_efficiency = 0;    // mean efficiency under the model, simulated
  double predicted_efficiency = 0;  // order statistics on the pooled rank costs (NaN if n/a)
  double relative_throughput = 0;
};

// Simulate at each rank count (options.num_ranks ignored). For independent
// policies the prediction at every count uses the rank costs pooled from
// all counts (a rank's cost distribution does not depend on how many ranks
// there are), so it is not fitted to the point it predicts.
absl::StatusOr<std::vector<SweepPoint>> Sweep(absl::Span<const int64_t> lengths,
                                              const cost::CostModel& model,
                                              const SimOptions& options,
                                              absl::Span<const uint64_t> rank_counts,
                                              absl::Span<const double> extra_costs = {});

// The checks Simulate and Sweep run, for the C API to report before work.
absl::Status ValidateSimulation(absl::Span<const int64_t> lengths, const SimOptions& options,
                                absl::Span<const double> extra_costs = {});

}  // namespace flopspack::sim

#endif  // FLOPSPACK_SIM_SIMULATOR_H_
