#include "pack/planner/pipeline_schedule.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "gtest/gtest.h"
#include "util/random.h"

namespace flopspack::pack {
namespace {

// A discrete-event simulation of 1F1B, written independently of the
// recurrence: a global clock advances from one op completion to the next;
// at each instant every idle stage starts its next op if that op's input
// has completed by then. Dependencies are looked up in full P x M tables.
double SimulateOneFOneB(const std::vector<double>& f, const std::vector<double>& b, int p) {
  const int m = static_cast<int>(f.size());
  if (m == 0) return 0;
  constexpr double kNever = std::numeric_limits<double>::infinity();
  std::vector<std::vector<double>> f_end(p, std::vector<double>(m, kNever));
  std::vector<std::vector<double>> b_end(p, std::vector<double>(m, kNever));
  // Each stage's op list: (forward?, microbatch).
  std::vector<std::vector<std::pair<bool, int>>> ops(p);
  for (int s = 0; s < p; ++s) {
    const int w = std::min(p - 1 - s, m);
    int nf = 0, nb = 0;
    for (int k = 0; k < w; ++k) ops[s].push_back({true, nf++});
    while (nf < m) {
      ops[s].push_back({true, nf++});
      ops[s].push_back({false, nb++});
    }
    while (nb < m) ops[s].push_back({false, nb++});
  }
  std::vector<size_t> next(p, 0);
  std::vector<double> busy_until(p, 0);
  std::vector<char> running(p, 0);
  double now = 0;
  int remaining = 2 * p * m;
  while (remaining > 0) {
    // Complete ops ending now; start every op whose input is ready.
    for (int s = 0; s < p; ++s) {
      if (running[s] && busy_until[s] <= now) running[s] = 0;
    }
    for (int s = 0; s < p; ++s) {
      if (running[s] || next[s] == ops[s].size()) continue;
      const auto [fwd, i] = ops[s][next[s]];
      const double input =
          fwd ? (s == 0 ? 0 : f_end[s - 1][i]) : (s == p - 1 ? f_end[s][i] : b_end[s + 1][i]);
      if (input > now) continue;
      const double end = now + (fwd ? f[i] : b[i]);
      (fwd ? f_end : b_end)[s][i] = end;
      busy_until[s] = end;
      running[s] = 1;
      ++next[s];
      --remaining;
    }
    // Advance to the next completion (zero-length ops complete at once).
    double soonest = kNever;
    for (int s = 0; s < p; ++s) {
      if (running[s]) soonest = std::min(soonest, busy_until[s]);
    }
    if (soonest == kNever) break;
    now = soonest;
  }
  double makespan = 0;
  for (int s = 0; s < p; ++s) {
    for (int i = 0; i < m; ++i) makespan = std::max({makespan, f_end[s][i], b_end[s][i]});
  }
  return makespan;
}

TEST(PipelineScheduleTest, EqualMicrobatchesHaveTheTextbookBubble) {
  // Equal ops: (M + P - 1) x (f + b) (Narayanan et al., SC 2021, eq. 1).
  for (int p : {1, 2, 3, 4, 8}) {
    for (int m : {1, 2, 3, 4, 7, 16}) {
      const std::vector<double> costs(m, 3.0 * p);  // f = 1, b = 2 per stage
      EXPECT_DOUBLE_EQ(OneFOneBMakespan(costs, p), 3.0 * (m + p - 1)) << p << " " << m;
    }
  }
}

TEST(PipelineScheduleTest, OneStageIsTheSum) {
  const std::vector<double> costs = {1.5, 7, 0, 2.25};
  EXPECT_DOUBLE_EQ(OneFOneBMakespan(costs, 1), 10.75);
  EXPECT_EQ(OneFOneBMakespan(std::vector<double>{}, 4), 0);
}

TEST(PipelineScheduleTest, RecurrenceMatchesEventSimulation) {
  util::Rng rng(15);
  for (int trial = 0; trial < 400; ++trial) {
    const int p = 1 + static_cast<int>(rng.Below(9));
    const int m = 1 + static_cast<int>(rng.Below(12));
    std::vector<double> f(m), b(m);
    for (int i = 0; i < m; ++i) {
      // Some zero-cost (empty) microbatches, and a heavy tail.
      const double c = rng.Below(6) == 0 ? 0 : std::exp(3 * rng.Uniform());
      f[i] = c / 3;
      b[i] = trial % 2 == 0 ? 2 * c / 3 : c * rng.Uniform();  // any backward
    }
    const double want = SimulateOneFOneB(f, b, p);
    EXPECT_NEAR(OneFOneBMakespan(f, b, p), want, 1e-9 * want) << "p " << p << " m " << m;
  }
}

TEST(PipelineScheduleTest, LowerBoundHoldsForEveryOrder) {
  util::Rng rng(16);
  for (int trial = 0; trial < 200; ++trial) {
    const int p = 1 + static_cast<int>(rng.Below(6));
    const int m = 1 + static_cast<int>(rng.Below(6));
    std::vector<double> costs(m);
    for (double& c : costs) c = rng.Below(5) == 0 ? 0 : std::exp(2 * rng.Uniform());
    const double bound = PipelineLowerBound(costs, p);
    std::sort(costs.begin(), costs.end());
    double best = std::numeric_limits<double>::infinity();
    do {
      best = std::min(best, OneFOneBMakespan(costs, p));
    } while (std::next_permutation(costs.begin(), costs.end()));
    EXPECT_LE(bound, best * (1 + 1e-12)) << "p " << p << " m " << m;
  }
  // Tight for equal costs on one microbatch and on one stage.
  EXPECT_DOUBLE_EQ(PipelineLowerBound(std::vector<double>{6}, 4), 6);
  EXPECT_DOUBLE_EQ(PipelineLowerBound(std::vector<double>{1, 2, 3}, 1), 6);
}

}  // namespace
}  // namespace flopspack::pack
