// The makespan of one pipeline-parallel replica under the 1F1B schedule
// (PipeDream-Flush, Megatron-LM's non-interleaved schedule): M microbatches
// flow through P stages; stage s runs min(P - 1 - s, M) forwards (warm-up),
// then alternates one forward and one backward, then the backwards left
// (cool-down). Forward i on stage s needs forward i on stage s - 1;
// backward i on stage s needs backward i on stage s + 1 (on the last stage,
// its own forward i, which the order puts just before it). Every op starts
// when its stage is free and its input has arrived; communication is free.
//
// Convention (docs/planner.md, Synchronization): a microbatch of cost c
// costs c / P on each stage (the layers are split evenly), a third of it
// forward and two thirds backward (backward = 2 x forward, the matmul
// FLOPs of training).
//
// Complexity: O(P M) time, O(P + M) memory, reused per thread across calls
// (planners evaluate many orders) (the queues between adjacent
// stages hold the ops in flight). Exact: the longest path of the schedule's
// dependency graph, computed in a topological order (each op once, when its
// stage predecessor and its input are done).
// Reference: Narayanan et al., "Memory-Efficient Pipeline-Parallel DNN
// Training" (PipeDream-2BW / Flush, ICML 2021); Narayanan et al.,
// "Efficient Large-Scale Language Model Training on GPU Clusters Using
// Megatron-LM" (SC 2021), section 2.2.
#ifndef FLOPSPACK_PACK_PLANNER_PIPELINE_SCHEDULE_H_
#define FLOPSPACK_PACK_PLANNER_PIPELINE_SCHEDULE_H_

#include <cstdint>

#include "absl/types/span.h"

namespace flopspack::pack {

// The most pipeline stages a step plan accepts (the makespan costs
// O(stages) per microbatch of the step).
inline constexpr int64_t kMaxPipelineStages = 1024;

// The share of a microbatch's cost that is its forward pass.
inline constexpr double kForwardShare = 1.0 / 3.0;

// The 1F1B makespan of one replica whose microbatches run in the order
// given, microbatch i taking forward[i] on every stage forward and
// backward[i] on every stage backward. Preconditions: stages >= 1, equal
// sizes, every time finite and >= 0. 0 for no microbatches.
double OneFOneBMakespan(absl::Span<const double> forward, absl::Span<const double> backward,
                        int64_t stages);

// The same with the cost convention above: microbatch i costs costs[i] in
// all (costs[i] / stages per stage, a third forward).
double OneFOneBMakespan(absl::Span<const double> costs, int64_t stages);

// A lower bound on the makespan of any schedule of these microbatches on
// this many stages (any order, any interleaving): max of
//   (sum of costs + (stages - 1) x min cost) / stages
// (the last stage cannot start before one forward crossed the others, nor
// end sooner than one backward needs to cross them back) and the largest
// cost (one microbatch's chain of 2 x stages ops). docs/planner.md proves it.
double PipelineLowerBound(absl::Span<const double> costs, int64_t stages);

}  // namespace flopspack::pack

#endif  // FLOPSPACK_PACK_PLANNER_PIPELINE_SCHEDULE_H_
