#include "pack/planner/balanced_split.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <vector>

#include "cost/polynomial.h"
#include "gtest/gtest.h"
#include "pack/planner/step_planner.h"
#include "util/random.h"

namespace flopspack::pack {
namespace {

// Linear plus attention: at 1,024 tokens attention is a third of the cost.
std::unique_ptr<cost::PolynomialModel> Attention() {
  return *cost::PolynomialModel::Create({0, 0, 1, 1.0 / 2048});
}

TEST(BalancedSplitTest, NearEqualPiecesTileTheDocument) {
  for (int64_t length : {1, 7, 100, 1000003}) {
    for (int64_t k : {int64_t{1}, int64_t{2}, int64_t{7}, std::min<int64_t>(length, 97)}) {
      if (k > length) continue;
      int64_t sum = 0, lo = length, hi = 0;
      for (int64_t p = 0; p < k; ++p) {
        const int64_t t = NearEqualPiece(length, k, p);
        sum += t;
        lo = std::min(lo, t);
        hi = std::max(hi, t);
      }
      EXPECT_EQ(sum, length);
      EXPECT_LE(hi - lo, 1);
      EXPECT_EQ(hi, CapPieces(length, k));
    }
  }
  auto model = Attention();
  // 10 = 4 + 3 + 3.
  EXPECT_DOUBLE_EQ(*NearEqualCost(*model, 10, 3),
                   *model->DocumentCost(4) + 2 * *model->DocumentCost(3));
}

// BalancedPieceCounts from the lengths alone.
std::vector<int64_t> Counts(const cost::CostModel& model, const std::vector<int64_t>& lengths,
                            int64_t r, int64_t cap) {
  std::vector<double> costs;
  for (int64_t l : lengths) costs.push_back(*NearEqualCost(model, l, CapPieces(l, cap)));
  return BalancedPieceCounts(model, lengths, costs, r, cap)->pieces;
}

TEST(BalancedSplitTest, PiecesFitTheShareWhereTheCapAllows) {
  auto model = Attention();
  // One document of 64 x 1,024 tokens, eight whole documents of 1,024,
  // 64 ranks, cap 1,280: cap-sized pieces cost more than a
  // rank's share, so the document is cut finer.
  const int64_t cap = 1280, r = 64, length = 64 * 1024;
  const double whole = 8 * *model->DocumentCost(1024);
  std::vector<int64_t> lengths(9, 1024);
  lengths[0] = length;
  std::vector<int64_t> k = Counts(*model, lengths, r, cap);
  ASSERT_EQ(k.size(), 9u);
  EXPECT_GT(k[0], CapPieces(length, cap));
  for (size_t d = 1; d < 9; ++d) EXPECT_EQ(k[d], 1);
  const double share = (whole + *NearEqualCost(*model, length, k[0])) / r;
  EXPECT_LE(*model->DocumentCost(CapPieces(length, k[0])), share);
  // Not finer than that: the pieces are not far below the share.
  EXPECT_GT(*model->DocumentCost(CapPieces(length, k[0])), 0.8 * share);
  // A light document keeps the fewest pieces.
  lengths.assign(1000, cap);
  lengths[0] = 3 * cap;
  k = Counts(*model, lengths, r, cap);
  EXPECT_EQ(k[0], 3);
  // A whole document within the cap that costs more than a rank's share (one
  // microbatch per rank, the cap 25% over the average rank's tokens) is cut
  // in two.
  lengths.assign(64, 1024);
  lengths[0] = cap;
  k = Counts(*model, lengths, r, cap);
  EXPECT_EQ(k[0], 2);
  EXPECT_EQ(k[1], 1);
}

// --- Brute force: the optimum over every cut (each long document into at
// most its allowed pieces, each <= cap) and every assignment to R x M
// microbatches under the cap.

void Compositions(int64_t length, int64_t most, int64_t cap, std::vector<int64_t>& cur,
                  std::vector<std::vector<int64_t>>& out) {
  if (length == 0) {
    out.push_back(cur);
    return;
  }
  if (static_cast<int64_t>(cur.size()) == most) return;
  for (int64_t t = 1; t <= std::min(length, cap); ++t) {
    cur.push_back(t);
    Compositions(length - t, most, cap, cur, out);
    cur.pop_back();
  }
}

double BruteForce(const cost::CostModel& model, const std::vector<int64_t>& lengths,
                  const std::vector<int64_t>& most, int64_t r, int64_t m, int64_t cap) {
  std::vector<std::vector<std::vector<int64_t>>> cuts(lengths.size());
  for (size_t d = 0; d < lengths.size(); ++d) {
    std::vector<int64_t> cur;
    Compositions(lengths[d], most[d], cap, cur, cuts[d]);
  }
  double best = std::numeric_limits<double>::infinity();
  std::vector<int64_t> pieces;
  std::function<void(size_t)> choose = [&](size_t d) {
    if (d == lengths.size()) {
      std::vector<std::vector<int64_t>> mb(r * m);
      std::vector<int64_t> used(r * m, 0);
      std::function<void(size_t)> place = [&](size_t p) {
        if (p == pieces.size()) {
          double worst = 0;
          for (int64_t rank = 0; rank < r; ++rank) {
            double c = 0;
            for (int64_t j = 0; j < m; ++j) c += *model.SequenceCost(mb[rank * m + j]);
            worst = std::max(worst, c);
          }
          best = std::min(best, worst);
          return;
        }
        for (int64_t g = 0; g < r * m; ++g) {
          if (used[g] + pieces[p] > cap) continue;
          used[g] += pieces[p];
          mb[g].push_back(pieces[p]);
          place(p + 1);
          mb[g].pop_back();
          used[g] -= pieces[p];
        }
      };
      place(0);
      return;
    }
    for (const std::vector<int64_t>& cut : cuts[d]) {
      pieces.insert(pieces.end(), cut.begin(), cut.end());
      choose(d + 1);
      pieces.resize(pieces.size() - cut.size());
    }
  };
  choose(0);
  return best;
}

TEST(BalancedSplitTest, BoundIsBelowTheBruteForceOptimum) {
  // A sequence overhead and a per-document cost too (more pieces then cost
  // more), so those terms of the bound are checked.
  auto model = *cost::PolynomialModel::Create({3, 2, 1, 1.0 / 4});
  util::Rng rng(13);
  int cases = 0;
  for (int trial = 0; trial < 200; ++trial) {
    const int64_t cap = 2 + static_cast<int64_t>(rng.Next() % 4);  // 2..5
    const int64_t r = 1 + static_cast<int64_t>(rng.Next() % 3);
    const int64_t m = 1 + static_cast<int64_t>(rng.Next() % 2);
    const int64_t n = 1 + static_cast<int64_t>(rng.Next() % 3);
    std::vector<int64_t> lengths(n);
    int64_t tokens = 0;
    for (int64_t& l : lengths) {
      l = 1 + static_cast<int64_t>(rng.Next() % (2 * cap + 2));
      tokens += l;
    }
    if (tokens > r * m * cap || tokens > 10 || r * m > 4) continue;
    const std::vector<int64_t> k = Counts(*model, lengths, r, cap);
    std::vector<int64_t> most = k, cut_lengths, cut_pieces;
    double whole = 0, largest = 0;
    for (int64_t d = 0; d < n; ++d) {
      if (k[d] > 1) {
        cut_lengths.push_back(lengths[d]);
        cut_pieces.push_back(k[d]);
      } else {
        whole += *model->DocumentCost(lengths[d]);
        largest = std::max(largest, *model->DocumentCost(lengths[d]));
      }
    }
    const double bound =
        *DivisibleLowerBound(*model, cut_lengths, cut_pieces, whole, largest, tokens, cap, r);
    EXPECT_LE(bound, BruteForce(*model, lengths, most, r, m, cap) * (1 + 1e-12))
        << "case " << trial;
    // The planner's reported bound holds for every plan that cuts each
    // document into no more pieces than balance needs or than the plan did
    // (the fallbacks may cut more); the brute force enumerates them all,
    // the plan among them.
    StepOptions o;
    o.num_ranks = r;
    o.microbatches_per_rank = m;
    o.max_tokens_per_microbatch = cap;
    absl::StatusOr<Plan> plan = PlanStep(o, *model, lengths);
    ASSERT_TRUE(plan.ok()) << plan.status();
    std::vector<int64_t> in_plan(n, 0);
    for (size_t g = 0; g < plan->group_count(); ++g) {
      for (int64_t item : plan->group_items(g)) ++in_plan[item];
    }
    int64_t all = 0;
    for (int64_t d = 0; d < n; ++d) {
      most[d] = std::max(most[d], in_plan[d]);
      all += most[d];
    }
    if (all > 7) continue;  // keep the enumeration small
    const double opt = BruteForce(*model, lengths, most, r, m, cap);
    EXPECT_LE(opt, plan->metrics().max_rank_cost * (1 + 1e-12)) << "case " << trial;
    EXPECT_LE(plan->metrics().rank_lower_bound, opt * (1 + 1e-12)) << "case " << trial;
    ++cases;
  }
  EXPECT_GE(cases, 20);
}

// --- The issue-13 grid: R x M x slack on a heavy tail far past the cap.

// One step of exactly r x m x capacity tokens: a Pareto tail (alpha 1.1)
// from capacity / 8 up to 1,000 x the cap, plus one document of a million
// tokens (half the step where the step is smaller).
std::vector<int64_t> HeavyStep(int64_t r, int64_t m, int64_t capacity, int64_t cap, uint64_t seed) {
  const int64_t step = r * m * capacity;
  std::vector<int64_t> lengths{std::min<int64_t>(1000000, step / 2)};
  int64_t left = step - lengths[0];
  util::Rng rng(seed);
  while (left > 0) {
    const double u = (static_cast<double>(rng.Next() >> 11) + 1) * 0x1p-53;
    const double x = static_cast<double>(capacity) / 8 * std::pow(u, -1 / 1.1);
    const int64_t l = std::min<int64_t>({static_cast<int64_t>(x), 1000 * cap, left});
    lengths.push_back(std::max<int64_t>(l, 1));
    left -= lengths.back();
  }
  return lengths;
}

struct GridResult {
  double balance;
  double max_rank_cost;
  double bound;
  double sync_efficiency = 0;
  double pipeline_efficiency = 0;
  int32_t planned_by = 0;  // PlanMetrics::planned_by
};

GridResult PlanAndCheck(const StepOptions& o, const cost::CostModel& model,
                        const std::vector<int64_t>& lengths) {
  absl::StatusOr<Plan> plan = PlanStep(o, model, lengths);
  EXPECT_TRUE(plan.ok()) << plan.status();
  if (!plan.ok()) return {0, 0, 0};
  std::vector<int64_t> seen(lengths.size(), 0);
  for (size_t g = 0; g < plan->group_count(); ++g) {
    EXPECT_LE(plan->group_real_tokens(g), o.max_tokens_per_microbatch);
    for (size_t k = 0; k < plan->group_items(g).size(); ++k) {
      seen[plan->group_items(g)[k]] += plan->group_tokens(g)[k];
    }
  }
  // The pieces of each document add up to it: they tile [0, length).
  for (size_t i = 0; i < lengths.size(); ++i) EXPECT_EQ(seen[i], lengths[i]) << "document " << i;
  // M microbatches per rank, each (rank, slot) once.
  EXPECT_EQ(plan->group_count(), static_cast<size_t>(o.num_ranks * o.microbatches_per_rank));
  std::vector<int> cell(plan->group_count(), 0);
  for (size_t g = 0; g < plan->group_count(); ++g) {
    const int64_t rank = plan->group_rank(g), slot = plan->group_slot(g);
    EXPECT_TRUE(rank >= 0 && rank < o.num_ranks && slot >= 0 && slot < o.microbatches_per_rank);
    if (rank >= 0 && rank < o.num_ranks && slot >= 0 && slot < o.microbatches_per_rank) {
      ++cell[rank * o.microbatches_per_rank + slot];
    }
  }
  EXPECT_EQ(std::count(cell.begin(), cell.end(), 1), static_cast<int64_t>(cell.size()));
  const PlanMetrics& m = plan->metrics();
  EXPECT_LE(m.rank_lower_bound, m.max_rank_cost);
  EXPECT_LE(m.microbatch_sync_lower_bound, m.microbatch_sync_cost * (1 + 1e-12));
  if (o.pipeline_stages >= 2) {
    EXPECT_GT(m.pipeline_lower_bound, 0);
    EXPECT_LE(m.pipeline_lower_bound, m.pipeline_makespan * (1 + 1e-12));
  }
  EXPECT_LE(m.lower_bound, m.max_group_cost);
  // An honest bound sits near the mean rank cost, whatever the plan's
  // balance: the gap is the imbalance, not 0% beside 75% balance (the
  // bound of issue 13 was the largest cap-sized piece).
  EXPECT_GE(m.mean_rank_cost / m.rank_lower_bound, 0.97) << "balance " << m.rank_balance_efficiency;
  return {m.rank_balance_efficiency,    m.max_rank_cost,       m.rank_lower_bound,
          m.microbatch_sync_efficiency, m.pipeline_efficiency, m.planned_by};
}

TEST(BalancedSplitTest, NeverWorseThanTheBaselinesOnAHeavyTail) {
  auto model = Attention();
  for (int64_t r : {8, 64, 1024}) {
    for (int64_t m : {1, 2, 4, 8}) {
      // Keep the step small for CI: the largest has 8 x 2^20 tokens.
      const int64_t capacity = r == 1024 ? 1024 : 2048;
      for (double slack : {1.0, 1.25, 1.5}) {
        const int64_t cap = static_cast<int64_t>(slack * static_cast<double>(capacity));
        const std::vector<int64_t> lengths = HeavyStep(r, m, capacity, cap, 7 * r + m);
        StepOptions o;
        o.num_ranks = r;
        o.microbatches_per_rank = m;
        o.max_tokens_per_microbatch = cap;
        const GridResult planner = PlanAndCheck(o, *model, lengths);
        o.algorithm = StepAlgorithm::kTokens;
        const GridResult tokens = PlanAndCheck(o, *model, lengths);
        o.algorithm = StepAlgorithm::kRandom;
        const GridResult random = PlanAndCheck(o, *model, lengths);
        // Random dealing as pipelines run it: full sequences of the capacity.
        o.max_tokens_per_microbatch = capacity;
        const GridResult dealt = PlanAndCheck(o, *model, lengths);
        SCOPED_TRACE(testing::Message()
                     << "R " << r << " M " << m << " slack " << slack << ": planner "
                     << planner.balance << " tokens " << tokens.balance << " random "
                     << random.balance << " random at capacity " << dealt.balance);
        EXPECT_GE(planner.balance, tokens.balance);
        EXPECT_GE(planner.balance, random.balance);
        EXPECT_GE(planner.balance, dealt.balance);
      }
    }
  }
}

// The same tail for a trainer that synchronizes every microbatch (FSDP /
// ZeRO-3), each rank a 1F1B pipeline of 4 stages: pieces tile every
// document, caps hold, M microbatches per rank, the bounds hold, and the
// planner's microbatch-synchronous efficiency is at least every baseline's.
TEST(BalancedSplitTest, MicrobatchSyncWithPipelinesOnAHeavyTail) {
  auto model = Attention();
  int by_fallback = 0;
  for (int64_t r : {8, 64, 1024}) {
    for (int64_t m : {2, 4, 8}) {
      const int64_t capacity = r == 1024 ? 1024 : 2048;
      for (double slack : {1.0, 1.5}) {
        const int64_t cap = static_cast<int64_t>(slack * static_cast<double>(capacity));
        const std::vector<int64_t> lengths = HeavyStep(r, m, capacity, cap, 7 * r + m);
        StepOptions o;
        o.num_ranks = r;
        o.microbatches_per_rank = m;
        o.max_tokens_per_microbatch = cap;
        o.sync = StepSync::kMicrobatch;
        o.pipeline_stages = 4;
        const GridResult planner = PlanAndCheck(o, *model, lengths);
        o.algorithm = StepAlgorithm::kTokens;
        const GridResult tokens = PlanAndCheck(o, *model, lengths);
        o.algorithm = StepAlgorithm::kRandom;
        const GridResult random = PlanAndCheck(o, *model, lengths);
        o.algorithm = StepAlgorithm::kSequences;
        const GridResult sequences = PlanAndCheck(o, *model, lengths);
        SCOPED_TRACE(testing::Message()
                     << "R " << r << " M " << m << " slack " << slack << ": planner "
                     << planner.sync_efficiency << " tokens " << tokens.sync_efficiency
                     << " random " << random.sync_efficiency << " sequences "
                     << sequences.sync_efficiency);
        // Where documents are cut the planner also tries the token-balanced
        // plan (banded for the slots) and the cut to the share, and keeps
        // the best by this figure, so it is never below those baselines
        // (issue 15). The sequence packer's plan is not among its fallbacks
        // (planned_by has no value for it): at full fill its first-fit
        // sequences sometimes sync better by a few hundredths of a point
        // (R 1024 M 2: 96.719% vs 96.700%), measured, not closed.
        EXPECT_GE(planner.sync_efficiency, tokens.sync_efficiency);
        EXPECT_GE(planner.sync_efficiency, random.sync_efficiency);
        EXPECT_GE(planner.sync_efficiency, sequences.sync_efficiency - 5e-4);
        if (planner.planned_by !=
            PublicPlannedBy(StepAlgorithm::kDocuments, StepStats::PlannedBy::kDocuments)) {
          ++by_fallback;
        }
        EXPECT_GT(planner.pipeline_efficiency, 0);
      }
    }
  }
  // The fallbacks are what closes the gap (before them the token-balanced
  // plan won 7 of these 18 steps): some of these plans must come from them.
  EXPECT_GT(by_fallback, 0);
}

// Whole documents (none over the cap, the rest deferred), a long tail at
// 97% fill: on these small steps the MICROBATCH planner also bands the
// token-balanced plan's microbatches and keeps the best, so it syncs at
// least as well as the token-balanced baseline, places as many tokens, and
// says which plan it kept.
TEST(BalancedSplitTest, MicrobatchSyncOfWholeDocumentsAtLeastTheTokenBaseline) {
  auto model = Attention();
  int by_tokens = 0;
  for (int64_t r : {8, 64, 512}) {
    for (int64_t m : {2, 4, 8}) {
      const int64_t cap = 2048;
      std::vector<int64_t> lengths;
      util::Rng rng(11 * r + m);
      for (int64_t left = r * m * cap * 97 / 100; left > 0;) {
        const double u = (static_cast<double>(rng.Next() >> 11) + 1) * 0x1p-53;
        const double x = static_cast<double>(cap) / 16 * std::pow(u, -1 / 1.1);
        const int64_t l =
            std::max<int64_t>(1, std::min<int64_t>({static_cast<int64_t>(x), cap, left}));
        lengths.push_back(l);
        left -= l;
      }
      StepOptions o;
      o.num_ranks = r;
      o.microbatches_per_rank = m;
      o.max_tokens_per_microbatch = cap;
      o.overflow = Overflow::kDefer;
      o.sync = StepSync::kMicrobatch;
      absl::StatusOr<Plan> planner = PlanStep(o, *model, lengths);
      o.algorithm = StepAlgorithm::kTokens;
      absl::StatusOr<Plan> tokens = PlanStep(o, *model, lengths);
      ASSERT_TRUE(planner.ok()) << planner.status();
      ASSERT_TRUE(tokens.ok()) << tokens.status();
      const PlanMetrics& a = planner->metrics();
      const PlanMetrics& b = tokens->metrics();
      SCOPED_TRACE(testing::Message()
                   << "R " << r << " M " << m << ": planner " << a.microbatch_sync_efficiency
                   << " tokens " << b.microbatch_sync_efficiency);
      EXPECT_EQ(a.split_items, 0u);
      EXPECT_LE(a.deferred_tokens, b.deferred_tokens);
      if (a.deferred_tokens == b.deferred_tokens) {
        EXPECT_GE(a.microbatch_sync_efficiency, b.microbatch_sync_efficiency);
      }
      const int32_t tokens_won =
          PublicPlannedBy(StepAlgorithm::kDocuments, StepStats::PlannedBy::kTokens);
      if (a.planned_by == tokens_won) ++by_tokens;
    }
  }
  // The token-balanced plan is kept on some of these steps: the comparison
  // is exercised, not only the slot planner.
  EXPECT_GT(by_tokens, 0);
}

}  // namespace
}  // namespace flopspack::pack
