#include "pack/balance/balance.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>
#include <vector>

#include "gtest/gtest.h"
#include "pack/primitives/lpt.h"
#include "pack/primitives/pack_test_util.h"
#include "support/cases.h"
#include "util/random.h"

namespace flopspack::pack {
namespace {

using test_util::MaxGroupCost;
using test_util::OptimalMaxCost;

constexpr BalanceAlgorithm kAlgorithms[] = {BalanceAlgorithm::kAuto, BalanceAlgorithm::kGreedy,
                                            BalanceAlgorithm::kLpt,
                                            BalanceAlgorithm::kKarmarkarKarp};

// Every item exactly once, tokens as given, group costs the sums of their
// items, counts equal and caps kept when asked, metrics consistent.
void ExpectValidPlan(const Plan& plan, absl::Span<const double> costs,
                     absl::Span<const int64_t> tokens, const BalanceOptions& options) {
  ASSERT_EQ(plan.group_count(), static_cast<size_t>(options.num_groups));
  std::vector<int> seen(costs.size(), 0);
  size_t lo = costs.size(), hi = 0;
  double max_cost = 0;
  for (size_t g = 0; g < plan.group_count(); ++g) {
    const auto items = plan.group_items(g);
    const auto group_tokens = plan.group_tokens(g);
    double cost = 0;
    int64_t real = 0;
    for (size_t j = 0; j < items.size(); ++j) {
      ASSERT_GE(items[j], 0);
      ASSERT_LT(items[j], static_cast<int64_t>(costs.size()));
      if (j > 0) {
        EXPECT_LT(items[j - 1], items[j]);  // by index
      }
      ++seen[items[j]];
      cost += costs[items[j]];
      EXPECT_EQ(group_tokens[j], tokens.empty() ? 0 : tokens[items[j]]);
      real += group_tokens[j];
    }
    EXPECT_EQ(plan.group_cost(g), cost);
    EXPECT_EQ(plan.group_real_tokens(g), real);
    if (options.max_tokens_per_group > 0) {
      EXPECT_LE(real, options.max_tokens_per_group);
    }
    lo = std::min(lo, items.size());
    hi = std::max(hi, items.size());
    max_cost = std::max(max_cost, cost);
  }
  for (int s : seen) ASSERT_EQ(s, 1);
  if (options.equal_count) {
    EXPECT_LE(hi - lo, 1u);
  }
  const PlanMetrics& m = plan.metrics();
  EXPECT_EQ(m.num_items, costs.size());
  EXPECT_EQ(m.max_group_cost, max_cost);
  EXPECT_LE(m.lower_bound, max_cost * (1 + 1e-12));
  EXPECT_GE(m.gap_to_lower_bound, -1e-12);
}

TEST(BalanceTest, InvariantsOverRandomCases) {
  util::Rng rng(41);
  // Under a sanitizer 1,000 (support/cases.h): 250 per algorithm, each of
  // the equal-count, refine and cap settings in dozens of them, and a plan
  // that breaks an invariant is caught by the first case that builds it.
  const int trials = test_support::CasesUnderSanitizer(4000, 1000);
  for (int trial = 0; trial < trials; ++trial) {
    const size_t n = rng.Below(60);
    std::vector<double> costs(n);
    std::vector<int64_t> tokens(n);
    for (size_t i = 0; i < n; ++i) {
      costs[i] = rng.Below(4) == 0 ? 0.0 : rng.Uniform() * 1000;
      tokens[i] = 1 + static_cast<int64_t>(rng.Below(100));
    }
    BalanceOptions options;
    options.algorithm = kAlgorithms[trial % 4];
    options.num_groups = 1 + static_cast<int64_t>(rng.Below(10));
    options.equal_count = rng.Below(2) == 1;
    options.refine = rng.Below(3) != 0;
    options.seed = rng.Next();
    const bool use_tokens = rng.Below(2) == 1;
    if (use_tokens && rng.Below(2) == 1) {
      // Caps from loose to infeasible.
      int64_t total = 0;
      for (int64_t t : tokens) total += t;
      options.max_tokens_per_group =
          std::max<int64_t>(1, static_cast<int64_t>(static_cast<double>(total) /
                                                    options.num_groups * (0.8 + rng.Uniform())));
    }
    const absl::Span<const int64_t> t =
        use_tokens ? absl::MakeConstSpan(tokens) : absl::Span<const int64_t>();
    SCOPED_TRACE(::testing::Message() << "trial " << trial);
    absl::StatusOr<Plan> plan = Balance(costs, t, options);
    if (!plan.ok()) {
      ASSERT_EQ(plan.status().code(), absl::StatusCode::kFailedPrecondition) << plan.status();
      ASSERT_GT(options.max_tokens_per_group, 0);
      continue;
    }
    ExpectValidPlan(*plan, costs, t, options);
  }
}

TEST(BalanceTest, AgainstBruteForceOnSmallInstances) {
  util::Rng rng(42);
  constexpr int kTrials = 3000;
  struct Tally {
    int optimal = 0;
    double worst = 1, sum = 0;
  };
  std::map<std::string, Tally> tally;
  for (int trial = 0; trial < kTrials; ++trial) {
    const size_t n = 1 + rng.Below(12);
    const int k = 2 + static_cast<int>(rng.Below(3));
    std::vector<double> costs(n);
    for (double& c : costs) c = static_cast<double>(1 + rng.Below(rng.Below(2) ? 20 : 1000));
    const double opt = *OptimalMaxCost(costs, k, {});
    SCOPED_TRACE(::testing::Message() << "trial " << trial << " n " << n << " k " << k);
    // Graham 1969: LPT <= (4/3 - 1/(3k)) OPT.
    const double lpt = MaxGroupCost(costs, *AssignLpt(costs, k), k);
    EXPECT_LE(lpt, (4.0 / 3 - 1.0 / (3 * k)) * opt * (1 + 1e-12));
    const double greedy = MaxGroupCost(costs, *AssignGreedy(costs, k), k);
    EXPECT_LE(greedy, (2.0 - 1.0 / k) * opt * (1 + 1e-12));
    auto record = [&](const std::string& name, double value) {
      EXPECT_GE(value, opt * (1 - 1e-12)) << name;
      Tally& t = tally[name];
      t.optimal += value <= opt * (1 + 1e-12);
      t.worst = std::max(t.worst, value / opt);
      t.sum += value / opt;
    };
    record("greedy", greedy);
    record("lpt", lpt);
    for (BalanceAlgorithm a : kAlgorithms) {
      for (bool refine : {false, true}) {
        BalanceOptions options;
        options.algorithm = a;
        options.num_groups = k;
        options.refine = refine;
        const Plan plan = *Balance(costs, {}, options);
        const char* names[] = {"auto", "greedy", "lpt", "kk"};
        record(std::string(names[static_cast<int>(a)]) + (refine ? "+refine" : "") + " (plan)",
               plan.metrics().max_group_cost);
      }
    }
  }
  std::printf("[max group cost vs brute-force optimum, %d instances, n <= 12, k <= 4]\n", kTrials);
  for (const auto& [name, t] : tally) {
    std::printf("  %-22s optimal %5.1f%%  mean ratio %.4f  worst %.4f\n", name.c_str(),
                100.0 * t.optimal / kTrials, t.sum / kTrials, t.worst);
  }
  // KK with refinement is optimal on most instances, and better than LPT.
  EXPECT_GT(tally["kk+refine (plan)"].optimal, kTrials * 85 / 100);
  EXPECT_GE(tally["kk+refine (plan)"].optimal, tally["lpt (plan)"].optimal);
}

TEST(BalanceTest, EqualCountsAndCapsAgainstBruteForce) {
  util::Rng rng(43);
  int feasible = 0, infeasible = 0, optimal = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    const size_t n = 1 + rng.Below(10);
    const int k = 2 + static_cast<int>(rng.Below(3));
    std::vector<double> costs(n);
    std::vector<int64_t> tokens(n);
    int64_t total = 0;
    for (size_t i = 0; i < n; ++i) {
      costs[i] = static_cast<double>(1 + rng.Below(100));
      tokens[i] = 1 + static_cast<int64_t>(rng.Below(30));
      total += tokens[i];
    }
    BalanceOptions options;
    options.algorithm = kAlgorithms[trial % 4];
    options.num_groups = k;
    options.equal_count = rng.Below(2) == 1;
    options.max_tokens_per_group =
        rng.Below(4) == 0
            ? 0
            : std::max<int64_t>(1, static_cast<int64_t>(static_cast<double>(total) / k *
                                                        (0.9 + 0.5 * rng.Uniform())));
    GroupLimits limits;
    limits.equal_count = options.equal_count;
    limits.max_tokens = options.max_tokens_per_group;
    limits.tokens = tokens;
    const std::optional<double> opt = OptimalMaxCost(costs, k, limits);
    absl::StatusOr<Plan> plan = Balance(costs, tokens, options);
    SCOPED_TRACE(::testing::Message() << "trial " << trial);
    // Infeasible exactly when no assignment exists (the search is exact at
    // this size).
    ASSERT_EQ(plan.ok(), opt.has_value()) << plan.status();
    if (!opt) {
      EXPECT_EQ(plan.status().code(), absl::StatusCode::kFailedPrecondition);
      ++infeasible;
      continue;
    }
    ++feasible;
    ExpectValidPlan(*plan, costs, tokens, options);
    EXPECT_GE(plan->metrics().max_group_cost, *opt);
    optimal += plan->metrics().max_group_cost == *opt;
  }
  std::printf(
      "[equal counts / token caps, n <= 10, k <= 4] %d feasible (%.1f%% solved "
      "optimally), %d infeasible, all agreeing with brute force\n",
      feasible, 100.0 * optimal / feasible, infeasible);
  EXPECT_GT(infeasible, 50);  // the generator does reach infeasible caps
}

TEST(BalanceTest, SeedRelabelsGroupsButKeepsThePartition) {
  const std::vector<int64_t> lengths = test_util::LognormalLengths(500, 100, 5000, 9);
  const std::vector<double> costs(lengths.begin(), lengths.end());
  BalanceOptions options;
  options.num_groups = 16;
  options.seed = 1;
  const std::vector<int32_t> a = *AssignBalanced(costs, {}, options);
  const std::vector<int32_t> b = *AssignBalanced(costs, {}, options);
  options.seed = 2;
  const std::vector<int32_t> c = *AssignBalanced(costs, {}, options);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  auto partition = [](const std::vector<int32_t>& group) {
    std::map<int32_t, std::set<size_t>> sets;
    for (size_t i = 0; i < group.size(); ++i) sets[group[i]].insert(i);
    std::set<std::set<size_t>> out;
    for (auto& [g, s] : sets) out.insert(s);
    return out;
  };
  EXPECT_EQ(partition(a), partition(c));
}

TEST(BalanceTest, LowerBoundWithEqualCounts) {
  // 8 items into 2 groups of 4: the 100 needs three companions, at best
  // 1 + 1 + 2.
  const std::vector<double> costs = {100, 1, 1, 2, 50, 50, 3, 3};
  EXPECT_EQ(BalanceLowerBound(costs, 2, false), 105);  // total / 2
  EXPECT_EQ(BalanceLowerBound(costs, 2, true), 105);
  const std::vector<double> skewed = {100, 1, 1, 2, 5, 5, 3, 3};
  EXPECT_EQ(BalanceLowerBound(skewed, 2, false), 100);
  EXPECT_EQ(BalanceLowerBound(skewed, 2, true), 104);
  BalanceOptions options;
  options.num_groups = 2;
  options.equal_count = true;
  const Plan plan = *Balance(skewed, {}, options);
  EXPECT_EQ(plan.metrics().lower_bound, 104);
  EXPECT_EQ(plan.metrics().max_group_cost, 104);
}

TEST(BalanceTest, ChoosesByShape) {
  util::Rng rng(44);
  std::vector<double> costs(4096);
  for (double& c : costs) c = rng.Uniform();
  BalanceOptions options;
  options.refine = false;
  options.num_groups = 16;  // 256 items per group: Karmarkar–Karp
  BalanceOptions kk = options;
  kk.algorithm = BalanceAlgorithm::kKarmarkarKarp;
  EXPECT_EQ(*AssignBalanced(costs, {}, options), *AssignBalanced(costs, {}, kk));
  options.num_groups = 2048;  // 2 per group: LPT
  BalanceOptions lpt = options;
  lpt.algorithm = BalanceAlgorithm::kLpt;
  EXPECT_EQ(*AssignBalanced(costs, {}, options), *AssignBalanced(costs, {}, lpt));
  // With equal counts balanced KK takes over only from 64 per group.
  options.equal_count = true;
  for (int64_t k : {128, 64}) {  // 32 and 64 per group
    options.num_groups = k;
    lpt = kk = options;
    lpt.algorithm = BalanceAlgorithm::kLpt;
    kk.algorithm = BalanceAlgorithm::kKarmarkarKarp;
    EXPECT_EQ(*AssignBalanced(costs, {}, options), *AssignBalanced(costs, {}, k == 128 ? lpt : kk));
    EXPECT_NE(*AssignBalanced(costs, {}, lpt), *AssignBalanced(costs, {}, kk));
  }
}

TEST(BalanceTest, BadInput) {
  const std::vector<double> costs = {1, 2, 3};
  const std::vector<int64_t> tokens = {1, 2, 3};
  BalanceOptions options;
  options.num_groups = 0;
  EXPECT_EQ(Balance(costs, {}, options).status().code(), absl::StatusCode::kInvalidArgument);
  options.num_groups = 2;
  const std::vector<double> nan = {1, std::nan(""), 3};
  EXPECT_EQ(Balance(nan, {}, options).status().message(),
            "costs[1] = nan: every cost must be finite and non-negative");
  options.max_tokens_per_group = 5;
  EXPECT_EQ(Balance(costs, {}, options).status().message(),
            "max_tokens_per_group = 5 needs tokens, but none were given");
  const std::vector<int64_t> negative = {1, -2, 3};
  EXPECT_EQ(Balance(costs, negative, options).status().message(),
            "tokens[1] = -2: token counts must be >= 0");
  options.max_tokens_per_group = 2;
  EXPECT_EQ(Balance(costs, tokens, options).status().message(),
            "tokens[2] = 3 exceeds max_tokens_per_group = 2: no group can hold item 2");
  options.max_tokens_per_group = 2;
  options.num_groups = 1;
  const std::vector<int64_t> small = {1, 1, 1};
  EXPECT_EQ(Balance(costs, small, options).status().message(),
            "the 3 tokens of all items exceed num_groups x max_tokens_per_group = 1 x 2");
}

}  // namespace
}  // namespace flopspack::pack
