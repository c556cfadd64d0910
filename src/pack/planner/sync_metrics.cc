#include "pack/planner/sync_metrics.h"

#include <algorithm>
#include <vector>

#include "pack/planner/pipeline_schedule.h"
#include "util/scratch_arena.h"

namespace flopspack::pack {

double MicrobatchSyncCost(absl::Span<const double> slot_major, int64_t ranks) {
  const size_t r = static_cast<size_t>(ranks);
  double sum_max = 0;
  for (size_t j = 0; j * r < slot_major.size(); ++j) {
    double largest = 0;
    for (size_t k = 0; k < r; ++k) largest = std::max(largest, slot_major[j * r + k]);
    sum_max += largest;
  }
  return sum_max;
}

double MaxReplicaMakespan(absl::Span<const double> slot_major, int64_t ranks, int64_t stages,
                          std::vector<double>& replica) {
  const size_t r = static_cast<size_t>(ranks);
  const size_t mb = slot_major.size() / r;
  replica.resize(mb);
  double makespan = 0;
  for (size_t k = 0; k < r; ++k) {
    for (size_t j = 0; j < mb; ++j) replica[j] = slot_major[j * r + k];
    makespan = std::max(makespan, OneFOneBMakespan(replica, stages));
  }
  return makespan;
}

void ComputeSyncMetrics(Plan& plan, int64_t pipeline_stages, const SyncBoundInputs& in) {
  PlanMetrics& m = plan.metrics();
  const int64_t r = static_cast<int64_t>(m.num_ranks);
  const int64_t mb = static_cast<int64_t>(m.microbatches_per_rank);
  if (r < 1 || mb < 1 || !plan.has_slots()) return;
  // Slot-major costs: cost[j * r + rank] (from a scratch arena: the
  // planner's scratch pages, util/scratch_arena.h).
  util::ScratchArena scratch;
  absl::Span<double> cost = scratch.Array<double>(static_cast<size_t>(r * mb), 0.0);
  for (size_t g = 0; g < plan.group_count(); ++g) {
    cost[plan.group_slot(g) * r + plan.group_rank(g)] += plan.group_cost(g);
  }
  double sum_mean = 0, sum_balance = 0;
  for (int64_t j = 0; j < mb; ++j) {
    double total = 0, largest = 0;
    for (int64_t k = 0; k < r; ++k) {
      total += cost[j * r + k];
      largest = std::max(largest, cost[j * r + k]);
    }
    const double mean = total / static_cast<double>(r);
    sum_mean += mean;
    sum_balance += largest > 0 ? mean / largest : 1.0;
  }
  const double sum_max = MicrobatchSyncCost(cost, r);
  m.microbatch_sync_efficiency = sum_max > 0 ? sum_mean / sum_max : 1.0;
  m.mean_slot_balance = sum_balance / static_cast<double>(mb);
  m.microbatch_sync_cost = sum_max;
  // The slowest rank in each slot is at least that rank's share of the
  // slot, so the sum over slots is at least any rank's total: every lower
  // bound on the heaviest rank bounds the step (docs/planner.md). For whole
  // documents under an additive model, the document-level one: the
  // documents' costs plus the overhead of the fewest microbatches that hold
  // their tokens, over R; the microbatch of the costliest document. (The
  // plan's rank_lower_bound counts the overhead of the microbatches this
  // plan uses, so it is not one for every plan when the overhead is > 0.)
  const double rd = static_cast<double>(r);
  // ceil(tokens / cap) without tokens + cap - 1, which overflows at cap = INT64_MAX.
  const int64_t least_microbatches =
      in.tokens <= 0 ? 0 : (in.tokens - 1) / std::max<int64_t>(1, in.cap) + 1;
  const double total_lb = in.document_cost_total +
                          (in.overhead >= 0 ? in.overhead * static_cast<double>(least_microbatches)
                                            : in.overhead * static_cast<double>(r * mb));
  const double rank_bound =
      in.whole_documents
          ? std::max(total_lb / rd, in.tokens > 0 ? in.largest_document_cost + in.overhead : 0.0)
          : m.rank_lower_bound;
  m.microbatch_sync_lower_bound = std::min(rank_bound, sum_max);
  m.microbatch_sync_gap_to_lower_bound =
      m.microbatch_sync_lower_bound > 0 ? sum_max / m.microbatch_sync_lower_bound - 1 : 0;

  m.pipeline_makespan = m.pipeline_efficiency = 0;
  m.pipeline_lower_bound = m.pipeline_gap_to_lower_bound = 0;
  if (pipeline_stages < 2) return;
  const int64_t p = pipeline_stages;
  std::vector<double> replica;
  const double makespan = MaxReplicaMakespan(cost, r, p, replica);
  const double pd = static_cast<double>(p);
  m.pipeline_makespan = makespan;
  const double work_per_stage = m.mean_rank_cost / pd;
  m.pipeline_efficiency = makespan > 0 ? work_per_stage / makespan : 1.0;
  // Any plan: its heaviest rank's stages each work max rank / P; on
  // average over ranks, a replica's last stage also waits for one forward
  // to cross P - 1 stages and ends with one backward crossing them back,
  // both at least its lightest microbatch; one microbatch's chain of 2P
  // ops takes its whole cost (docs/planner.md, pipeline bound).
  double bound = rank_bound / pd;
  if (in.whole_documents) {
    // A rank's lightest microbatch holds at least what its other M - 1
    // cannot (convex in the rank's tokens, so the mean over ranks is at
    // least its value at the mean).
    const double excess =
        std::max(0.0, static_cast<double>(in.tokens) / rd - static_cast<double>((mb - 1) * in.cap));
    const double lightest =
        std::max(0.0, in.cheapest_cost_per_token * excess + std::min(0.0, in.overhead));
    bound = std::max({bound, (total_lb / rd + (pd - 1) * lightest) / pd, rank_bound / pd});
    // One microbatch's chain of 2P ops: the costliest document's microbatch.
    if (in.tokens > 0) bound = std::max(bound, in.largest_document_cost + in.overhead);
  }
  m.pipeline_lower_bound = std::min(bound, makespan);
  m.pipeline_gap_to_lower_bound =
      m.pipeline_lower_bound > 0 ? makespan / m.pipeline_lower_bound - 1 : 0;
}

}  // namespace flopspack::pack
