#include "pack/planner/sync_metrics.h"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <vector>

#include "absl/types/span.h"
#include "cost/polynomial.h"
#include "gtest/gtest.h"
#include "pack/planner/pipeline_schedule.h"
#include "pack/planner/step_planner.h"
#include "util/random.h"

namespace flopspack::pack {
namespace {

// The best microbatch-synchronous step and the best 1F1B makespan of any
// plan of these documents on r ranks x m microbatches under the cap: every
// assignment of documents to the r x m cells (so every slot order too).
struct Optimum {
  double microbatch = std::numeric_limits<double>::infinity();
  double pipeline = std::numeric_limits<double>::infinity();
  double rank = std::numeric_limits<double>::infinity();
};

Optimum BruteForce(const std::vector<int64_t>& lengths, const cost::CostModel& model, int r, int m,
                   int64_t cap, int stages) {
  const int n = static_cast<int>(lengths.size());
  const int cells = r * m;
  std::vector<int> cell(n, 0);
  Optimum best;
  // Reused across assignments, and the caps checked before any cost: no
  // allocation per assignment (the sanitizers' allocator made this search
  // most of the test's time).
  std::vector<std::vector<int64_t>> docs(cells);
  std::vector<int64_t> tokens(cells);
  std::vector<double> cost(cells);
  while (true) {
    std::fill(tokens.begin(), tokens.end(), 0);
    for (int i = 0; i < n; ++i) tokens[cell[i]] += lengths[i];
    const bool fits =
        std::all_of(tokens.begin(), tokens.end(), [&](int64_t t) { return t <= cap; });
    if (fits) {
      for (std::vector<int64_t>& d : docs) d.clear();
      for (int i = 0; i < n; ++i) docs[cell[i]].push_back(lengths[i]);
      for (int c = 0; c < cells; ++c) cost[c] = *model.SequenceCost(docs[c]);
      double step = 0, rank = 0, pipeline = 0;
      for (int j = 0; j < m; ++j) {
        double largest = 0;
        for (int k = 0; k < r; ++k) largest = std::max(largest, cost[k * m + j]);
        step += largest;
      }
      for (int k = 0; k < r; ++k) {
        const absl::Span<const double> replica(cost.data() + k * m, m);
        double total = 0;
        for (double c : replica) total += c;
        rank = std::max(rank, total);
        pipeline = std::max(pipeline, OneFOneBMakespan(replica, stages));
      }
      best.microbatch = std::min(best.microbatch, step);
      best.rank = std::min(best.rank, rank);
      best.pipeline = std::min(best.pipeline, pipeline);
    }
    int i = 0;
    while (i < n && ++cell[i] == cells) cell[i++] = 0;
    if (i == n) break;
  }
  return best;
}

// On tiny steps, the bounds the plan reports hold for every plan of its
// documents (so for the best one), whatever the objective the plan chose.
TEST(SyncMetricsTest, BoundsHoldForEveryPlanOfTheDocuments) {
  util::Rng rng(151);
  // The planner's makespan is within this factor of the best plan's on
  // these cases (documents kept whole; measured worst printed below).
  constexpr double kPipelineFactor = 1.5;
  double worst_pipeline = 1;
  int pipeline_cases = 0;
  for (double per_sequence : {0.0, 40.0}) {
    auto model = *cost::PolynomialModel::Create({per_sequence, 1, 1, 0.5});
    for (int trial = 0; trial < 60; ++trial) {
      const int r = 1 + static_cast<int>(rng.Below(3));
      const int m = 1 + static_cast<int>(rng.Below(3));
      const int n = 1 + static_cast<int>(rng.Below(r * m <= 4 ? 6 : 5));
      const int64_t cap = 12;
      const int stages = 2 + static_cast<int>(rng.Below(3));
      std::vector<int64_t> lengths(n);
      int64_t total = 0;
      for (int64_t& l : lengths) {
        l = 1 + static_cast<int64_t>(rng.Below(cap));
        total += l;
      }
      if (total > r * m * cap) continue;
      const Optimum best = BruteForce(lengths, *model, r, m, cap, stages);
      if (best.microbatch == std::numeric_limits<double>::infinity()) continue;
      for (StepSync sync : {StepSync::kStep, StepSync::kMicrobatch}) {
        StepOptions o;
        o.num_ranks = r;
        o.microbatches_per_rank = m;
        o.max_tokens_per_microbatch = cap;
        o.overflow = Overflow::kDefer;  // keep documents whole
        o.sync = sync;
        o.pipeline_stages = stages;
        absl::StatusOr<Plan> plan = PlanStep(o, *model, lengths);
        ASSERT_TRUE(plan.ok()) << plan.status();
        if (!plan->deferred().empty()) continue;  // the heuristic did not place all
        const PlanMetrics& pm = plan->metrics();
        const double eps = 1e-9;
        // The plan's rank bound counts the overhead of the microbatches
        // it uses: a bound for every plan only without overhead.
        if (per_sequence == 0) {
          EXPECT_LE(pm.rank_lower_bound, best.rank * (1 + eps)) << trial;
        }
        EXPECT_LE(pm.microbatch_sync_lower_bound, best.microbatch * (1 + eps)) << trial;
        EXPECT_LE(pm.pipeline_lower_bound, best.pipeline * (1 + eps)) << trial;
        EXPECT_GE(pm.microbatch_sync_cost, best.microbatch * (1 - eps));
        EXPECT_GE(pm.pipeline_makespan, best.pipeline * (1 - eps));
        if (sync == StepSync::kStep) {
          // The planner for pipelines (rank-balanced microbatches, each
          // rank ordered for the makespan) against the best plan.
          worst_pipeline = std::max(worst_pipeline, pm.pipeline_makespan / best.pipeline);
          EXPECT_LE(pm.pipeline_makespan, best.pipeline * kPipelineFactor) << trial;
          ++pipeline_cases;
        }
      }
    }
  }
  std::printf("pipeline planner vs the best plan: worst %.4f over %d cases\n", worst_pipeline,
              pipeline_cases);
  EXPECT_GE(pipeline_cases, 40);
}

// The figures against a direct computation on a plan written by hand.
TEST(SyncMetricsTest, FiguresOfAHandPlan) {
  // 2 ranks x 2 slots: rank 0 = {4, 1}, rank 1 = {2, 3}.
  Plan plan;
  plan.SetGroups({0, 1, 2, 3, 4}, {0, 1, 2, 3}, {4, 1, 2, 3}, {4, 1, 2, 3}, {4, 1, 2, 3});
  plan.SetSlots({0, 0, 1, 1}, {0, 1, 0, 1});
  ComputeGroupMetrics(plan, 4, 4, 8);
  ComputeRankMetrics(plan, 2, 2, 4);
  SyncBoundInputs in;
  ComputeSyncMetrics(plan, 2, in);
  const PlanMetrics& m = plan.metrics();
  // Slot 0: {4, 2}, slot 1: {1, 3}: sum of means 5, sum of maxima 7.
  EXPECT_DOUBLE_EQ(m.microbatch_sync_cost, 7);
  EXPECT_DOUBLE_EQ(m.microbatch_sync_efficiency, 5.0 / 7);
  EXPECT_DOUBLE_EQ(m.mean_slot_balance, (3.0 / 4 + 2.0 / 3) / 2);
  EXPECT_DOUBLE_EQ(m.microbatch_sync_lower_bound, 5);  // max(total / 2, largest 4)
  EXPECT_DOUBLE_EQ(m.microbatch_sync_gap_to_lower_bound, 7.0 / 5 - 1);
  const double makespan = std::max(OneFOneBMakespan(std::vector<double>{4, 1}, 2),
                                   OneFOneBMakespan(std::vector<double>{2, 3}, 2));
  EXPECT_DOUBLE_EQ(m.pipeline_makespan, makespan);
  EXPECT_DOUBLE_EQ(m.pipeline_efficiency, 5.0 / 2 / makespan);
  EXPECT_DOUBLE_EQ(m.pipeline_lower_bound, 5.0 / 2);  // rank bound / stages
  // No pipeline: its figures stay 0.
  ComputeSyncMetrics(plan, 1, in);
  EXPECT_EQ(m.pipeline_makespan, 0);
  EXPECT_EQ(m.pipeline_lower_bound, 0);
}

}  // namespace
}  // namespace flopspack::pack
