// The order in which a 1F1B pipeline replica runs its microbatches, chosen
// to shorten its makespan (pipeline_schedule.h).
//
// Under 1F1B the first microbatch's forward crosses P - 1 stages before the
// last stage starts, and the last microbatch's backward crosses them back
// after it ends: the ends of the order are exposed, the middle overlaps.
// Up to 4 microbatches every order is tried (exact). Longer orders: the
// search starts from a few orders (the caller's, heaviest first,
// lightest first, light ends, and light ends with the middle ascending),
// keeps the one with the shortest makespan, then improves it by local
// search: exchanges of two microbatches and moves of one to another
// position, first improvement, each candidate evaluated exactly by the
// recurrence, until no candidate shortens the makespan or the pass budget
// is spent.
//
// Complexity: M <= 4: at most 24 + 5 evaluations; else O(passes x M^2) evaluations of O(P M) each,
// M microbatches, P stages (M <= 16; longer orders try exchanges of neighbours and moves of the two
// ends only, O(M) candidates per pass); the shared order of several replicas costs R times that.
// Guarantee: the result's makespan is at most the starting order's (the caller's order is a
// candidate); optimal for M <= 4; on random orders of 5 and 6 microbatches on 2 to 8 stages the
// tests find it within 2% of the optimum over all M! orders (worst seen 1.2%, optimal in 99% of
// cases; pipeline_order_test.cc). Deterministic. References: Narayanan et al. (SC 2021),
// section 2.2 (1F1B); the exchange/insertion neighbourhoods of permutation flow shop local search
// (Taillard, "Some efficient heuristic methods for the flow shop sequencing
// problem", EJOR 47, 1990).
#ifndef FLOPSPACK_PACK_PLANNER_PIPELINE_ORDER_H_
#define FLOPSPACK_PACK_PLANNER_PIPELINE_ORDER_H_

#include <cstdint>
#include <vector>

#include "absl/types/span.h"

namespace flopspack::pack {

// Local-search passes over the candidate moves.
inline constexpr int kPipelineOrderPasses = 4;

// For one replica's microbatch costs (cost convention of
// pipeline_schedule.h) returns perm with perm[slot] = the microbatch that
// runs in that slot. `start` (a permutation of 0 .. M - 1, or empty) is the
// caller's order, a starting candidate; ties keep the earlier candidate.
// Preconditions: stages >= 1, costs finite and >= 0.
std::vector<int32_t> OrderForPipeline(absl::Span<const double> costs, int64_t stages,
                                      absl::Span<const int32_t> start = {});

// The orders of R independent replicas (ranks that meet only at the end of
// the step, which lasts the slowest replica's makespan): costs[rank * m +
// j], start the caller's orders (empty, or R permutations back to back).
// Every replica gets the best of its starting orders; then, slowest first,
// the full search runs on each replica whose makespan is still above the
// largest found so far, stopping once it is not (its full search would
// only go lower). The step's makespan is the same as with the full search
// on every replica (a replica skipped cannot exceed it), at the cost of the
// few slowest. Returns the R permutations back to back.
std::vector<int32_t> OrderReplicasForPipeline(absl::Span<const double> costs, int64_t num_ranks,
                                              int64_t m, int64_t stages,
                                              absl::Span<const int32_t> start = {});

// One slot order shared by R replicas (ranks whose slot j must run at the
// same time, as under microbatch synchronization): costs[rank * m + j], and
// perm minimises the largest replica makespan. Same search, each candidate
// evaluated on every replica.
std::vector<int32_t> SharedOrderForPipeline(absl::Span<const double> costs, int64_t num_ranks,
                                            int64_t m, int64_t stages,
                                            absl::Span<const int32_t> start = {});

// The largest 1F1B makespan over the R replicas running the shared order.
double SharedMakespan(absl::Span<const double> costs, int64_t num_ranks, int64_t m, int64_t stages,
                      absl::Span<const int32_t> perm);

}  // namespace flopspack::pack

#endif  // FLOPSPACK_PACK_PLANNER_PIPELINE_ORDER_H_
