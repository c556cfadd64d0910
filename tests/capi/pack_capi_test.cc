// Packing and balancing through the shared library: results, metrics,
// determinism, and the bad-input rows of docs/algorithms.md.
#include <cmath>
#include <cstddef>
#include <cstring>
#include <vector>

#include "capi_test_util.h"

namespace {

std::vector<std::vector<int64_t>> Groups(const flopspack_plan* plan,
                                         std::vector<std::vector<int64_t>>* tokens = nullptr) {
  std::vector<std::vector<int64_t>> out;
  for (size_t g = 0; g < flopspack_plan_group_count(plan); ++g) {
    const int64_t* items = nullptr;
    const int64_t* toks = nullptr;
    size_t n = 0;
    EXPECT_EQ(flopspack_plan_group(plan, g, &items, &toks, &n), FLOPSPACK_OK);
    out.emplace_back(items, items + n);
    if (tokens != nullptr) tokens->emplace_back(toks, toks + n);
  }
  return out;
}

struct flopspack_plan_metrics Metrics(const flopspack_plan* plan) {
  struct flopspack_plan_metrics m;
  std::memset(&m, 0, sizeof(m));
  m.struct_size = sizeof(m);
  EXPECT_EQ(flopspack_plan_metrics(plan, &m), FLOPSPACK_OK);
  return m;
}

flopspack_pack_options PackOptions(int64_t capacity) {
  flopspack_pack_options o;
  flopspack_pack_options_init(&o);
  o.capacity = capacity;
  return o;
}

flopspack_balance_options BalanceOptions(int64_t k) {
  flopspack_balance_options o;
  flopspack_balance_options_init(&o);
  o.num_groups = k;
  return o;
}

TEST(PackCapiTest, DefaultsAreBestFitDecreasingWithErrorOnOverflow) {
  flopspack_pack_options o;
  std::memset(&o, 0xff, sizeof(o));
  flopspack_pack_options_init(&o);
  EXPECT_EQ(o.struct_size, sizeof(o));
  EXPECT_EQ(o.algorithm, FLOPSPACK_PACK_BEST_FIT_DECREASING);
  EXPECT_EQ(o.overflow, FLOPSPACK_OVERFLOW_ERROR);
  EXPECT_EQ(o.capacity, 0);
  EXPECT_EQ(o.seed, 0u);
  EXPECT_EQ(o.cost_model, nullptr);
  flopspack_balance_options b;
  std::memset(&b, 0xff, sizeof(b));
  flopspack_balance_options_init(&b);
  EXPECT_EQ(b.algorithm, FLOPSPACK_BALANCE_AUTO);
  EXPECT_EQ(b.refine, 1);
  EXPECT_EQ(b.equal_count, 0);
  EXPECT_EQ(b.max_tokens_per_group, 0);
  EXPECT_EQ(b.max_refine_steps, 0);
}

TEST(PackCapiTest, BestFitDecreasingPacksAndReportsMetrics) {
  // Capacity 10: BFD places 7, 6, 4 (beside the 6), 3 (beside the 7), 2.
  const std::vector<int64_t> lengths = {4, 7, 2, 6, 3};
  const flopspack_pack_options o = PackOptions(10);
  flopspack_plan* plan = nullptr;
  ASSERT_EQ(flopspack_pack(&o, lengths.data(), lengths.size(), &plan), FLOPSPACK_OK)
      << flopspack_last_error_message();
  std::vector<std::vector<int64_t>> tokens;
  EXPECT_EQ(Groups(plan, &tokens), (std::vector<std::vector<int64_t>>{{1, 4}, {3, 0}, {2}}));
  EXPECT_EQ(tokens, (std::vector<std::vector<int64_t>>{{7, 3}, {6, 4}, {2}}));
  const struct flopspack_plan_metrics m = Metrics(plan);
  EXPECT_EQ(m.num_groups, 3u);
  EXPECT_EQ(m.num_items, 5u);
  EXPECT_EQ(m.real_tokens, 22);
  EXPECT_EQ(m.capacity, 10);
  EXPECT_DOUBLE_EQ(m.fill, 22.0 / 30);
  EXPECT_DOUBLE_EQ(m.max_group_cost, 10);
  EXPECT_DOUBLE_EQ(m.min_group_cost, 2);
  flopspack_plan_destroy(plan);
}

TEST(PackCapiTest, CostModelPricesEachSequence) {
  flopspack_cost_model* model = nullptr;
  ASSERT_EQ(flopspack_cost_model_polynomial(100, 0, 1, 1, &model), FLOPSPACK_OK);
  const std::vector<int64_t> lengths = {5, 5, 8};
  flopspack_pack_options o = PackOptions(10);
  o.cost_model = model;
  flopspack_plan* plan = nullptr;
  ASSERT_EQ(flopspack_pack(&o, lengths.data(), lengths.size(), &plan), FLOPSPACK_OK);
  ASSERT_EQ(flopspack_plan_group_count(plan), 2u);  // {8}, {5, 5}
  double cost = 0;
  ASSERT_EQ(flopspack_plan_group_info(plan, 0, nullptr, nullptr, &cost), FLOPSPACK_OK);
  EXPECT_DOUBLE_EQ(cost, 100 + 8 + 64);
  ASSERT_EQ(flopspack_plan_group_info(plan, 1, nullptr, nullptr, &cost), FLOPSPACK_OK);
  EXPECT_DOUBLE_EQ(cost, 100 + 2 * (5 + 25));
  flopspack_plan_destroy(plan);
  flopspack_cost_model_destroy(model);
}

TEST(PackCapiTest, SplitAndTruncateAreCounted) {
  const std::vector<int64_t> lengths = {25, 3};
  flopspack_pack_options o = PackOptions(10);
  o.overflow = FLOPSPACK_OVERFLOW_SPLIT;
  flopspack_plan* plan = nullptr;
  ASSERT_EQ(flopspack_pack(&o, lengths.data(), lengths.size(), &plan), FLOPSPACK_OK);
  struct flopspack_plan_metrics m = Metrics(plan);
  EXPECT_EQ(m.split_items, 1u);
  EXPECT_EQ(m.real_tokens, 28);
  EXPECT_EQ(m.num_groups, 3u);  // 10 | 10 | 5 + 3
  flopspack_plan_destroy(plan);
  o.overflow = FLOPSPACK_OVERFLOW_TRUNCATE;
  ASSERT_EQ(flopspack_pack(&o, lengths.data(), lengths.size(), &plan), FLOPSPACK_OK);
  m = Metrics(plan);
  EXPECT_EQ(m.truncated_items, 1u);
  EXPECT_EQ(m.truncated_tokens, 15);
  EXPECT_EQ(m.real_tokens, 13);
  flopspack_plan_destroy(plan);
}

TEST(PackCapiTest, ShuffledFirstFitIsSeeded) {
  std::vector<int64_t> lengths;
  for (int i = 0; i < 500; ++i) lengths.push_back(1 + (i * 7919) % 900);
  flopspack_pack_options o = PackOptions(1000);
  o.algorithm = FLOPSPACK_PACK_SHUFFLED_FIRST_FIT;
  o.seed = 3;
  flopspack_plan *a = nullptr, *b = nullptr, *c = nullptr;
  ASSERT_EQ(flopspack_pack(&o, lengths.data(), lengths.size(), &a), FLOPSPACK_OK);
  ASSERT_EQ(flopspack_pack(&o, lengths.data(), lengths.size(), &b), FLOPSPACK_OK);
  o.seed = 4;
  ASSERT_EQ(flopspack_pack(&o, lengths.data(), lengths.size(), &c), FLOPSPACK_OK);
  EXPECT_EQ(Groups(a), Groups(b));
  EXPECT_NE(Groups(a), Groups(c));
  flopspack_plan_destroy(a);
  flopspack_plan_destroy(b);
  flopspack_plan_destroy(c);
}

TEST(BalanceCapiTest, KarmarkarKarpBeatsLptOnTheClassicInstance) {
  // {10, 6, 5, 4, 3, 2} into 2: LPT ends at 16, Karmarkar-Karp at the
  // optimum 15 ({10, 5} / {6, 4, 3, 2}).
  const std::vector<double> costs = {10, 6, 5, 4, 3, 2};
  flopspack_balance_options o = BalanceOptions(2);
  o.refine = 0;
  o.algorithm = FLOPSPACK_BALANCE_LPT;
  flopspack_plan* plan = nullptr;
  ASSERT_EQ(flopspack_balance(&o, costs.data(), nullptr, costs.size(), &plan), FLOPSPACK_OK);
  EXPECT_DOUBLE_EQ(Metrics(plan).max_group_cost, 16);
  flopspack_plan_destroy(plan);
  o.algorithm = FLOPSPACK_BALANCE_KARMARKAR_KARP;
  ASSERT_EQ(flopspack_balance(&o, costs.data(), nullptr, costs.size(), &plan), FLOPSPACK_OK);
  const struct flopspack_plan_metrics m = Metrics(plan);
  EXPECT_DOUBLE_EQ(m.max_group_cost, 15);
  EXPECT_DOUBLE_EQ(m.lower_bound, 15);
  EXPECT_DOUBLE_EQ(m.gap_to_lower_bound, 0);
  EXPECT_DOUBLE_EQ(m.balance_efficiency, 1);
  flopspack_plan_destroy(plan);
  // LPT with refinement reaches it too.
  o.algorithm = FLOPSPACK_BALANCE_LPT;
  o.refine = 1;
  ASSERT_EQ(flopspack_balance(&o, costs.data(), nullptr, costs.size(), &plan), FLOPSPACK_OK);
  EXPECT_DOUBLE_EQ(Metrics(plan).max_group_cost, 15);
  flopspack_plan_destroy(plan);
}

TEST(BalanceCapiTest, EqualCountsTokensAndCaps) {
  const std::vector<double> costs = {9, 1, 1, 1, 1, 1, 1, 1};
  const std::vector<int64_t> tokens = {90, 10, 10, 10, 10, 10, 10, 10};
  flopspack_balance_options o = BalanceOptions(2);
  o.equal_count = 1;
  o.max_tokens_per_group = 120;
  flopspack_plan* plan = nullptr;
  ASSERT_EQ(flopspack_balance(&o, costs.data(), tokens.data(), costs.size(), &plan), FLOPSPACK_OK)
      << flopspack_last_error_message();
  std::vector<std::vector<int64_t>> group_tokens;
  const std::vector<std::vector<int64_t>> groups = Groups(plan, &group_tokens);
  ASSERT_EQ(groups.size(), 2u);
  EXPECT_EQ(groups[0].size(), 4u);
  EXPECT_EQ(groups[1].size(), 4u);
  for (size_t g = 0; g < 2; ++g) {
    int64_t real = 0;
    ASSERT_EQ(flopspack_plan_group_info(plan, g, &real, nullptr, nullptr), FLOPSPACK_OK);
    EXPECT_LE(real, 120);
  }
  const struct flopspack_plan_metrics m = Metrics(plan);
  EXPECT_DOUBLE_EQ(m.max_group_cost, 12);  // 9 + three 1s: equal counts force it
  EXPECT_DOUBLE_EQ(m.lower_bound, 12);
  EXPECT_EQ(m.real_tokens, 160);
  EXPECT_EQ(m.capacity, 120);
  flopspack_plan_destroy(plan);
}

TEST(BalanceCapiTest, InfeasibleCapsSayWhy) {
  const std::vector<double> costs = {1, 1, 1};
  const std::vector<int64_t> tokens = {6, 6, 6};
  flopspack_balance_options o = BalanceOptions(2);
  o.max_tokens_per_group = 10;  // two groups of 10 cannot hold three 6s
  flopspack_plan* plan = nullptr;
  EXPECT_FLOPSPACK_ERROR(flopspack_balance(&o, costs.data(), tokens.data(), 3, &plan),
                         FLOPSPACK_INFEASIBLE, "exhaustive search proved");
  EXPECT_EQ(plan, nullptr);
  o.max_tokens_per_group = 5;
  EXPECT_FLOPSPACK_ERROR(flopspack_balance(&o, costs.data(), tokens.data(), 3, &plan),
                         FLOPSPACK_INFEASIBLE, "tokens[0] = 6 exceeds max_tokens_per_group = 5");
  EXPECT_EQ(plan, nullptr);
}

TEST(BalanceCapiTest, SameSeedSamePlan) {
  std::vector<double> costs;
  for (int i = 0; i < 300; ++i) costs.push_back(std::fmod(i * 0.618, 1.0) * 100);
  flopspack_balance_options o = BalanceOptions(8);
  o.seed = 5;
  flopspack_plan *a = nullptr, *b = nullptr, *c = nullptr;
  ASSERT_EQ(flopspack_balance(&o, costs.data(), nullptr, costs.size(), &a), FLOPSPACK_OK);
  ASSERT_EQ(flopspack_balance(&o, costs.data(), nullptr, costs.size(), &b), FLOPSPACK_OK);
  o.seed = 6;
  ASSERT_EQ(flopspack_balance(&o, costs.data(), nullptr, costs.size(), &c), FLOPSPACK_OK);
  EXPECT_EQ(Groups(a), Groups(b));
  EXPECT_NE(Groups(a), Groups(c));  // relabelled
  EXPECT_DOUBLE_EQ(Metrics(a).max_group_cost, Metrics(c).max_group_cost);
  flopspack_plan_destroy(a);
  flopspack_plan_destroy(b);
  flopspack_plan_destroy(c);
}

TEST(PackBadInputTest, Pack) {
  const std::vector<int64_t> lengths = {3, 12};
  flopspack_pack_options o = PackOptions(10);
  flopspack_plan* plan = nullptr;
  EXPECT_FLOPSPACK_ERROR(flopspack_pack(nullptr, lengths.data(), 2, &plan),
                         FLOPSPACK_INVALID_ARGUMENT, "options must not be NULL");
  EXPECT_FLOPSPACK_ERROR(flopspack_pack(&o, nullptr, 2, &plan), FLOPSPACK_INVALID_ARGUMENT,
                         "lengths");
  EXPECT_FLOPSPACK_ERROR(flopspack_pack(&o, lengths.data(), 2, nullptr), FLOPSPACK_INVALID_ARGUMENT,
                         "out must not be NULL");
  EXPECT_FLOPSPACK_ERROR(flopspack_pack(&o, lengths.data(), 2, &plan), FLOPSPACK_INVALID_ARGUMENT,
                         "lengths[1] = 12 exceeds capacity = 10");
  const std::vector<int64_t> negative = {3, -1};
  EXPECT_FLOPSPACK_ERROR(flopspack_pack(&o, negative.data(), 2, &plan), FLOPSPACK_INVALID_ARGUMENT,
                         "lengths[1] = -1");
  o.capacity = 0;
  EXPECT_FLOPSPACK_ERROR(flopspack_pack(&o, lengths.data(), 1, &plan), FLOPSPACK_INVALID_ARGUMENT,
                         "capacity = 0");
  o = PackOptions(10);
  o.algorithm = 17;
  EXPECT_FLOPSPACK_ERROR(flopspack_pack(&o, lengths.data(), 1, &plan), FLOPSPACK_INVALID_ARGUMENT,
                         "algorithm = 17");
  o = PackOptions(10);
  o.overflow = 3;
  EXPECT_FLOPSPACK_ERROR(flopspack_pack(&o, lengths.data(), 1, &plan), FLOPSPACK_INVALID_ARGUMENT,
                         "overflow = 3");
  o = PackOptions(10);
  o.struct_size = 0;
  EXPECT_FLOPSPACK_ERROR(flopspack_pack(&o, lengths.data(), 1, &plan), FLOPSPACK_INVALID_ARGUMENT,
                         "struct_size = 0");
  EXPECT_EQ(plan, nullptr);
  // Empty input: an empty plan.
  o = PackOptions(10);
  ASSERT_EQ(flopspack_pack(&o, nullptr, 0, &plan), FLOPSPACK_OK);
  EXPECT_EQ(flopspack_plan_group_count(plan), 0u);
  flopspack_plan_destroy(plan);
}

TEST(PackBadInputTest, CustomModelFailureLeavesOutUntouched) {
  flopspack_cost_model* model = nullptr;
  ASSERT_EQ(flopspack_cost_model_custom([](void*, const int64_t*, size_t, double*) { return 7; },
                                        nullptr, &model),
            FLOPSPACK_OK);
  const std::vector<int64_t> lengths = {3, 4};
  flopspack_pack_options o = PackOptions(10);
  o.cost_model = model;
  flopspack_plan* plan = nullptr;
  EXPECT_FLOPSPACK_ERROR(flopspack_pack(&o, lengths.data(), 2, &plan), FLOPSPACK_CALLBACK_FAILED,
                         "returned 7");
  EXPECT_EQ(plan, nullptr);
  flopspack_cost_model_destroy(model);
}

TEST(PackBadInputTest, Balance) {
  const std::vector<double> costs = {1, 2, 3};
  flopspack_balance_options o = BalanceOptions(2);
  flopspack_plan* plan = nullptr;
  EXPECT_FLOPSPACK_ERROR(flopspack_balance(nullptr, costs.data(), nullptr, 3, &plan),
                         FLOPSPACK_INVALID_ARGUMENT, "options must not be NULL");
  EXPECT_FLOPSPACK_ERROR(flopspack_balance(&o, nullptr, nullptr, 3, &plan),
                         FLOPSPACK_INVALID_ARGUMENT, "costs");
  EXPECT_FLOPSPACK_ERROR(flopspack_balance(&o, costs.data(), nullptr, 3, nullptr),
                         FLOPSPACK_INVALID_ARGUMENT, "out must not be NULL");
  const std::vector<double> bad = {1, -2, 3};
  EXPECT_FLOPSPACK_ERROR(flopspack_balance(&o, bad.data(), nullptr, 3, &plan),
                         FLOPSPACK_INVALID_ARGUMENT, "costs[1] = -2");
  o.num_groups = 0;
  EXPECT_FLOPSPACK_ERROR(flopspack_balance(&o, costs.data(), nullptr, 3, &plan),
                         FLOPSPACK_INVALID_ARGUMENT, "num_groups = 0");
  o = BalanceOptions(2);
  o.algorithm = -1;
  EXPECT_FLOPSPACK_ERROR(flopspack_balance(&o, costs.data(), nullptr, 3, &plan),
                         FLOPSPACK_INVALID_ARGUMENT, "algorithm = -1");
  o = BalanceOptions(2);
  o.equal_count = 2;
  EXPECT_FLOPSPACK_ERROR(flopspack_balance(&o, costs.data(), nullptr, 3, &plan),
                         FLOPSPACK_INVALID_ARGUMENT, "equal_count = 2 must be 0 or 1");
  o = BalanceOptions(2);
  o.max_tokens_per_group = 10;
  EXPECT_FLOPSPACK_ERROR(flopspack_balance(&o, costs.data(), nullptr, 3, &plan),
                         FLOPSPACK_INVALID_ARGUMENT, "needs tokens");
  o = BalanceOptions(2);
  o.max_tokens_per_group = -1;
  EXPECT_FLOPSPACK_ERROR(flopspack_balance(&o, costs.data(), nullptr, 3, &plan),
                         FLOPSPACK_INVALID_ARGUMENT, "max_tokens_per_group = -1");
  o = BalanceOptions(2);
  o.max_refine_steps = -5;
  EXPECT_FLOPSPACK_ERROR(flopspack_balance(&o, costs.data(), nullptr, 3, &plan),
                         FLOPSPACK_INVALID_ARGUMENT, "max_refine_steps = -5");
  EXPECT_EQ(plan, nullptr);
}

TEST(PackBadInputTest, StructSizeVersioning) {
  const std::vector<double> costs = {4, 3, 2, 1};
  // A newer caller's larger struct: a zero tail is fine, a non-zero one not.
  struct Newer {
    flopspack_balance_options base;
    int64_t future;
  } newer;
  std::memset(&newer, 0, sizeof(newer));
  newer.base = BalanceOptions(2);
  newer.base.struct_size = sizeof(newer);
  flopspack_plan* plan = nullptr;
  ASSERT_EQ(flopspack_balance(&newer.base, costs.data(), nullptr, 4, &plan), FLOPSPACK_OK);
  flopspack_plan_destroy(plan);
  plan = nullptr;
  newer.future = 1;
  EXPECT_FLOPSPACK_ERROR(flopspack_balance(&newer.base, costs.data(), nullptr, 4, &plan),
                         FLOPSPACK_INVALID_ARGUMENT, "unknown tail is non-zero");
  EXPECT_EQ(plan, nullptr);
  // An older caller's struct without seed gets the default for it.
  flopspack_balance_options older = BalanceOptions(2);
  older.seed = 12345;  // beyond the old size: ignored
  older.struct_size = offsetof(flopspack_balance_options, seed);
  flopspack_balance_options current = BalanceOptions(2);
  flopspack_plan* a = nullptr;
  ASSERT_EQ(flopspack_balance(&older, costs.data(), nullptr, 4, &plan), FLOPSPACK_OK);
  ASSERT_EQ(flopspack_balance(&current, costs.data(), nullptr, 4, &a), FLOPSPACK_OK);
  EXPECT_EQ(Groups(plan), Groups(a));
  flopspack_plan_destroy(plan);
  flopspack_plan_destroy(a);
  // Pack options likewise: an old struct without cost_model means tokens.
  const std::vector<int64_t> lengths = {5, 5};
  flopspack_cost_model* model = nullptr;
  ASSERT_EQ(flopspack_cost_model_polynomial(0, 0, 0, 1, &model), FLOPSPACK_OK);
  flopspack_pack_options old_pack = PackOptions(10);
  old_pack.cost_model = model;  // beyond the old size: ignored
  old_pack.struct_size = offsetof(flopspack_pack_options, cost_model);
  ASSERT_EQ(flopspack_pack(&old_pack, lengths.data(), 2, &plan), FLOPSPACK_OK);
  EXPECT_DOUBLE_EQ(Metrics(plan).total_cost, 10);
  flopspack_plan_destroy(plan);
  old_pack.struct_size = sizeof(old_pack);
  ASSERT_EQ(flopspack_pack(&old_pack, lengths.data(), 2, &plan), FLOPSPACK_OK);
  EXPECT_DOUBLE_EQ(Metrics(plan).total_cost, 50);
  flopspack_plan_destroy(plan);
  flopspack_cost_model_destroy(model);
}

}  // namespace
