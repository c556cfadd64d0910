#include "pack/planner/planner_documents.h"

#include <algorithm>
#include <numeric>
#include <vector>

#include "gtest/gtest.h"
#include "util/random.h"

namespace flopspack::pack {
namespace {

struct Case {
  std::vector<int64_t> lengths;
  std::vector<double> costs;
  DocumentPlanOptions options;
};

// Random small instances; `convex` costs are l + l^2 / 64 (monotone), else
// arbitrary costs unrelated to length.
Case RandomCase(util::Rng& rng, bool convex) {
  Case c;
  c.options.num_ranks = 1 + static_cast<int64_t>(rng.Below(6));
  c.options.microbatches_per_rank = 1 + static_cast<int64_t>(rng.Below(4));
  c.options.cap = 4 + static_cast<int64_t>(rng.Below(40));
  const size_t n = rng.Below(40);
  for (size_t i = 0; i < n; ++i) {
    const int64_t l = 1 + static_cast<int64_t>(rng.Below(c.options.cap));
    c.lengths.push_back(l);
    c.costs.push_back(convex ? static_cast<double>(l) + static_cast<double>(l * l) / 64.0
                             : static_cast<double>(rng.Below(1000)));
  }
  return c;
}

std::vector<double> RankCosts(const Case& c, const std::vector<int32_t>& where) {
  std::vector<double> rank(c.options.num_ranks, 0.0);
  for (size_t i = 0; i < where.size(); ++i) {
    if (where[i] >= 0) rank[where[i] / c.options.microbatches_per_rank] += c.costs[i];
  }
  return rank;
}

double MaxOf(const std::vector<double>& v) {
  return v.empty() ? 0 : *std::max_element(v.begin(), v.end());
}

TEST(PlanDocumentsTest, InvariantsOverRandomCases) {
  util::Rng rng(42);
  for (int iter = 0; iter < 4000; ++iter) {
    Case c = RandomCase(rng, iter % 2 == 0);
    const int64_t mbs = c.options.num_ranks * c.options.microbatches_per_rank;
    DocumentPlanOptions lpt = c.options;
    lpt.refine = false;
    const std::vector<int32_t> where = PlanDocuments(c.lengths, c.costs, c.options);
    const std::vector<int32_t> where_lpt = PlanDocuments(c.lengths, c.costs, lpt);
    ASSERT_EQ(where.size(), c.lengths.size());
    // Caps hold; every item is in a real microbatch or explicitly unplaced.
    std::vector<int64_t> tokens(mbs, 0);
    int64_t total = 0, unplaced = 0, unplaced_tokens = 0;
    for (size_t i = 0; i < where.size(); ++i) {
      ASSERT_GE(where[i], -1);
      ASSERT_LT(where[i], mbs);
      total += c.lengths[i];
      if (where[i] < 0) {
        ++unplaced;
        unplaced_tokens += c.lengths[i];
        continue;
      }
      tokens[where[i]] += c.lengths[i];
    }
    for (int64_t t : tokens) ASSERT_LE(t, c.options.cap);
    // Every token is in a microbatch or in an unplaced item, once.
    EXPECT_EQ(std::accumulate(tokens.begin(), tokens.end(), int64_t{0}) + unplaced_tokens, total);
    // Refinement moves items, never drops them, and never raises the max.
    EXPECT_EQ(unplaced, std::count(where_lpt.begin(), where_lpt.end(), -1));
    EXPECT_LE(MaxOf(RankCosts(c, where)), MaxOf(RankCosts(c, where_lpt)) * (1 + 1e-12));
    // Everything fits when one item per microbatch is enough.
    if (static_cast<int64_t>(c.lengths.size()) <= mbs) {
      EXPECT_EQ(unplaced, 0);
    }
    // Determinism.
    EXPECT_EQ(where, PlanDocuments(c.lengths, c.costs, c.options));
  }
}

// Exhaustive search over all assignments of items to microbatches. The
// ranks' costs are kept as items are placed, and a branch whose heaviest rank
// already reaches the best complete assignment is cut: costs are >= 0, so
// placing more items never lowers it (the optimum is unchanged; ~10x fewer
// leaves, which matters under the sanitizers).
struct DocumentsSearch {
  const Case& c;
  const int64_t mbs = c.options.num_ranks * c.options.microbatches_per_rank;
  std::vector<int64_t> tokens = std::vector<int64_t>(mbs, 0);
  std::vector<double> rank = std::vector<double>(c.options.num_ranks, 0.0);
  double best = 1e300;
  bool feasible = false;

  void Place(size_t i, double heaviest) {
    if (heaviest >= best) return;
    if (i == c.lengths.size()) {
      feasible = true;
      best = heaviest;
      return;
    }
    for (int64_t mb = 0; mb < mbs; ++mb) {
      if (tokens[mb] + c.lengths[i] > c.options.cap) continue;
      const int64_t r = mb / c.options.microbatches_per_rank;
      tokens[mb] += c.lengths[i];
      rank[r] += c.costs[i];
      Place(i + 1, std::max(heaviest, rank[r]));
      rank[r] -= c.costs[i];
      tokens[mb] -= c.lengths[i];
    }
  }
};

double BruteForceOptimum(const Case& c, bool* feasible) {
  DocumentsSearch search{c};
  search.Place(0, 0.0);
  *feasible = search.feasible;
  return search.best;
}

TEST(PlanDocumentsTest, MatchesBruteForceOnTinyCases) {
  util::Rng rng(7);
  int compared = 0, optimal = 0;
  for (int iter = 0; iter < 1500; ++iter) {
    Case c;
    c.options.num_ranks = 2 + static_cast<int64_t>(rng.Below(2));
    c.options.microbatches_per_rank = 1 + static_cast<int64_t>(rng.Below(2));
    c.options.cap = 10 + static_cast<int64_t>(rng.Below(20));
    c.options.tolerance = 0;
    const size_t n = 3 + rng.Below(5);
    for (size_t i = 0; i < n; ++i) {
      const int64_t l = 1 + static_cast<int64_t>(rng.Below(c.options.cap));
      c.lengths.push_back(l);
      // Half the cases quadratic in length, half unrelated to it (a
      // measured or custom model), where LPT alone is often suboptimal.
      c.costs.push_back(iter % 2 == 0 ? static_cast<double>(l * l)
                                      : static_cast<double>(1 + rng.Below(100)));
    }
    bool feasible = false;
    const double opt = BruteForceOptimum(c, &feasible);
    const std::vector<int32_t> where = PlanDocuments(c.lengths, c.costs, c.options);
    if (!feasible || std::count(where.begin(), where.end(), -1) > 0) continue;
    ++compared;
    const double got = MaxOf(RankCosts(c, where));
    EXPECT_GE(got, opt * (1 - 1e-12)) << "better than the exhaustive optimum: a cap is broken";
    if (c.options.cap * c.options.microbatches_per_rank >= 30 * static_cast<int64_t>(n)) {
      // Caps that never bind: P||Cmax, where LPT alone is within
      // 4/3 - 1/(3R) of the optimum (Graham 1969) and refinement only helps.
      const double r = static_cast<double>(c.options.num_ranks);
      EXPECT_LE(got, opt * (4.0 / 3 - 1 / (3 * r)) * (1 + 1e-12));
    }
    if (got <= opt * (1 + 1e-12)) ++optimal;
  }
  ASSERT_GT(compared, 900);
  // Measured: LPT + refinement reaches the exhaustive optimum in 966 of
  // these 988 cases, plain LPT in 922 (93%): a refinement that does not
  // work fails this.
  EXPECT_GE(optimal, compared * 96 / 100) << optimal << " of " << compared;
}

// After refinement with tolerance 0 and every rank a candidate, no 1-0 move
// or 1-1 swap between the heaviest rank and another rank lowers the larger
// of the two below the current maximum (checked exhaustively).
TEST(PlanDocumentsTest, RefinementEndsInALocalOptimum) {
  util::Rng rng(11);
  for (int iter = 0; iter < 1000; ++iter) {
    Case c = RandomCase(rng, true);
    c.options.tolerance = 0;
    c.options.light_candidates = 1000;
    c.options.max_moves = 1 << 20;
    const std::vector<int32_t> where = PlanDocuments(c.lengths, c.costs, c.options);
    const std::vector<double> rank = RankCosts(c, where);
    const int64_t m = c.options.microbatches_per_rank;
    std::vector<int64_t> tokens(c.options.num_ranks * m, 0);
    for (size_t i = 0; i < where.size(); ++i) {
      if (where[i] >= 0) tokens[where[i]] += c.lengths[i];
    }
    const double top = MaxOf(rank);
    int32_t h = static_cast<int32_t>(std::max_element(rank.begin(), rank.end()) - rank.begin());
    double lower = 0, largest = 0;
    for (double x : rank) lower += x;
    lower /= static_cast<double>(rank.size());
    for (size_t i = 0; i < where.size(); ++i) {
      if (where[i] >= 0) largest = std::max(largest, c.costs[i]);
    }
    if (top <= std::max(lower, largest)) continue;  // optimal already
    for (size_t a = 0; a < where.size(); ++a) {
      if (where[a] < 0 || where[a] / m != h) continue;
      for (int32_t mb = 0; mb < static_cast<int32_t>(tokens.size()); ++mb) {
        const int32_t l = mb / static_cast<int32_t>(m);
        if (l == h) continue;
        // 1-0
        if (tokens[mb] + c.lengths[a] <= c.options.cap) {
          EXPECT_GE(std::max(rank[h] - c.costs[a], rank[l] + c.costs[a]), top * (1 - 1e-12));
        }
        // 1-1
        for (size_t b = 0; b < where.size(); ++b) {
          if (where[b] != mb) continue;
          const int64_t moved = c.lengths[a] - c.lengths[b];
          if (tokens[mb] + moved > c.options.cap || tokens[where[a]] - moved > c.options.cap) {
            continue;
          }
          const double d = c.costs[a] - c.costs[b];
          EXPECT_GE(std::max(rank[h] - d, rank[l] + d), top * (1 - 1e-12));
        }
      }
    }
  }
}

TEST(PlanDocumentsTest, SpreadsEqualItemsEvenly) {
  // 12 equal items on 4 ranks of 3 microbatches of room 1 item each.
  std::vector<int64_t> lengths(12, 5);
  std::vector<double> costs(12, 2.0);
  DocumentPlanOptions o;
  o.num_ranks = 4;
  o.microbatches_per_rank = 3;
  o.cap = 5;
  const std::vector<int32_t> where = PlanDocuments(lengths, costs, o);
  std::vector<int> per_mb(12, 0);
  for (int32_t w : where) {
    ASSERT_GE(w, 0);
    ++per_mb[w];
  }
  for (int count : per_mb) EXPECT_EQ(count, 1);
}

TEST(PlanDocumentsTest, ReportsItemsThatFitNowhere) {
  // Room for two items of 6 in total; the third cannot be placed.
  const std::vector<int64_t> lengths = {6, 6, 6};
  const std::vector<double> costs = {1, 1, 1};
  DocumentPlanOptions o;
  o.num_ranks = 2;
  o.microbatches_per_rank = 1;
  o.cap = 10;
  const std::vector<int32_t> where = PlanDocuments(lengths, costs, o);
  EXPECT_EQ(std::count(where.begin(), where.end(), -1), 1);
  EXPECT_EQ(where[2], -1);  // ties go by index: the last item waits
}

}  // namespace
}  // namespace flopspack::pack
