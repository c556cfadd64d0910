// flopspack_plan_step_with_extra_costs: documents whose cost is the model's
// cost of their tokens plus their own extra cost (issue 16, part 3).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "capi_test_util.h"
#include "plan_reader.h"
#include "step_test_util.h"

namespace {

using flopspack_test::ExpectSamePlan;
using flopspack_test::ReadBack;
using flopspack_test::ReadPlan;

constexpr auto& ExtraCostsOptions = flopspack_test::StepOptions;

std::vector<int64_t> ExtraCostsLengths(size_t n) {
  return flopspack_test::SeededLengths(n, 777, 1500);
}

// What a group must cost: the model's cost of its tokens plus each item's
// share (tokens / length) of its document's extra cost.
double ExpectedGroupCost(const flopspack_cost_model* model, const std::vector<int64_t>& items,
                         const std::vector<int64_t>& tokens, const std::vector<int64_t>& lengths,
                         const std::vector<double>& extra) {
  double cost = 0;
  EXPECT_EQ(flopspack_cost_model_sequence_cost(model, tokens.data(), tokens.size(), &cost),
            FLOPSPACK_OK);
  for (size_t k = 0; k < items.size(); ++k) {
    cost +=
        extra[items[k]] * static_cast<double>(tokens[k]) / static_cast<double>(lengths[items[k]]);
  }
  return cost;
}

TEST(ExtraCostsCapiTest, NullExtraCostsIsPlanStepBitForBit) {
  flopspack_cost_model* model = nullptr;
  ASSERT_EQ(flopspack_cost_model_polynomial(0, 0, 1, 1.0 / 1024, &model), FLOPSPACK_OK);
  const std::vector<int64_t> lengths = ExtraCostsLengths(300);
  for (int algorithm : {FLOPSPACK_STEP_DOCUMENTS, FLOPSPACK_STEP_RANDOM, FLOPSPACK_STEP_TOKENS,
                        FLOPSPACK_STEP_SEQUENCES}) {
    flopspack_step_options o = ExtraCostsOptions(8, 0, 1024);  // documents over the cap are split
    o.algorithm = static_cast<decltype(o.algorithm)>(algorithm);
    flopspack_plan* a = nullptr;
    flopspack_plan* b = nullptr;
    ASSERT_EQ(flopspack_plan_step(&o, model, lengths.data(), lengths.size(), &a), FLOPSPACK_OK);
    ASSERT_EQ(flopspack_plan_step_with_extra_costs(&o, model, lengths.data(), nullptr,
                                                   lengths.size(), &b),
              FLOPSPACK_OK)
        << flopspack_last_error_message();
    ExpectSamePlan(a, b, "plain call against NULL extra costs");
    flopspack_plan_destroy(a);
    flopspack_plan_destroy(b);
  }
  flopspack_cost_model_destroy(model);
}

TEST(ExtraCostsCapiTest, ShortDocumentWithHugeExtraCostEndsAlone) {
  flopspack_cost_model* model = nullptr;
  ASSERT_EQ(flopspack_cost_model_tokens(&model), FLOPSPACK_OK);
  const std::vector<int64_t> lengths = {100, 100, 100, 100, 10, 100};
  std::vector<double> extra(lengths.size(), 0.0);
  extra[4] = 1e6;  // ten tokens, but an encoder's worth of images
  flopspack_step_options o = ExtraCostsOptions(2, 1, 4096);
  flopspack_plan* plain = nullptr;
  flopspack_plan* plan = nullptr;
  ASSERT_EQ(flopspack_plan_step(&o, model, lengths.data(), lengths.size(), &plain), FLOPSPACK_OK);
  ASSERT_EQ(flopspack_plan_step_with_extra_costs(&o, model, lengths.data(), extra.data(),
                                                 lengths.size(), &plan),
            FLOPSPACK_OK)
      << flopspack_last_error_message();
  // By tokens alone, document 4 shares a rank with others (3 x 100 vs 2 x
  // 100 + 10); with its extra cost it is alone, and the rest share the other
  // rank.
  const ReadPlan by_tokens = ReadBack(plain), full = ReadBack(plan);
  bool shared = false;
  for (const auto& items : by_tokens.items) {
    for (int64_t i : items) shared = shared || (i == 4 && items.size() > 1);
  }
  EXPECT_TRUE(shared);
  ASSERT_EQ(full.items.size(), 2u);
  bool alone = false;
  for (size_t g = 0; g < 2; ++g) {
    if (full.items[g] == std::vector<int64_t>{4}) {
      alone = true;
      EXPECT_DOUBLE_EQ(full.cost[g], 10 + 1e6);
      EXPECT_EQ(full.items[1 - g].size(), 5u);
    }
  }
  EXPECT_TRUE(alone);
  EXPECT_DOUBLE_EQ(full.metrics.max_rank_cost, 10 + 1e6);
  EXPECT_DOUBLE_EQ(full.metrics.total_cost, 510 + 1e6);
  flopspack_plan_destroy(plain);
  flopspack_plan_destroy(plan);
  flopspack_cost_model_destroy(model);
}

// Two ranks, one microbatch each, eight documents: the best split by full
// cost found by trying all 2^8 assignments. Balancing by the full cost must
// reach it; balancing by the model's cost alone must be worse by the full
// cost.
TEST(ExtraCostsCapiTest, BalancingByFullCostBeatsModelCostOnBruteForce) {
  flopspack_cost_model* model = nullptr;
  ASSERT_EQ(flopspack_cost_model_polynomial(0, 0, 1, 1.0 / 256, &model), FLOPSPACK_OK);
  const std::vector<int64_t> lengths = {300, 280, 250, 200, 120, 90, 60, 40};
  const std::vector<double> extra = {0, 0, 0, 0, 400, 350, 300, 0};
  const size_t n = lengths.size();
  std::vector<double> doc_cost(n);
  ASSERT_EQ(flopspack_cost_model_document_costs(model, lengths.data(), n, doc_cost.data()),
            FLOPSPACK_OK);
  double best = std::numeric_limits<double>::infinity();
  for (uint32_t mask = 0; mask < (1u << n); ++mask) {
    double rank[2] = {0, 0};
    for (size_t i = 0; i < n; ++i) rank[(mask >> i) & 1] += doc_cost[i] + extra[i];
    best = std::min(best, std::max(rank[0], rank[1]));
  }
  flopspack_step_options o = ExtraCostsOptions(2, 1, 1 << 20);
  flopspack_plan* full = nullptr;
  flopspack_plan* lm = nullptr;
  ASSERT_EQ(flopspack_plan_step_with_extra_costs(&o, model, lengths.data(), extra.data(), n, &full),
            FLOPSPACK_OK)
      << flopspack_last_error_message();
  ASSERT_EQ(flopspack_plan_step(&o, model, lengths.data(), n, &lm), FLOPSPACK_OK);
  const ReadPlan f = ReadBack(full), l = ReadBack(lm);
  // The plan reports the full cost of each group, and reaches the optimum.
  double full_max = 0;
  for (size_t g = 0; g < f.items.size(); ++g) {
    EXPECT_DOUBLE_EQ(f.cost[g], ExpectedGroupCost(model, f.items[g], f.tokens[g], lengths, extra));
    full_max = std::max(full_max, f.cost[g]);
  }
  EXPECT_DOUBLE_EQ(f.metrics.max_rank_cost, full_max);
  EXPECT_NEAR(full_max, best, best * 1e-12);
  // The model-cost plan judged by the full cost.
  double lm_max = 0;
  for (size_t g = 0; g < l.items.size(); ++g) {
    lm_max = std::max(lm_max, ExpectedGroupCost(model, l.items[g], l.tokens[g], lengths, extra));
  }
  EXPECT_GT(lm_max, full_max * 1.05);
  flopspack_plan_destroy(full);
  flopspack_plan_destroy(lm);
  flopspack_cost_model_destroy(model);
}

TEST(ExtraCostsCapiTest, SplitPiecesShareTheExtraCostByTokens) {
  flopspack_cost_model* model = nullptr;
  ASSERT_EQ(flopspack_cost_model_tokens(&model), FLOPSPACK_OK);
  const std::vector<int64_t> lengths = {4000, 300, 500, 200, 700};
  const std::vector<double> extra = {8000, 0, 50, 0, 1};
  for (int algorithm : {FLOPSPACK_STEP_DOCUMENTS, FLOPSPACK_STEP_RANDOM, FLOPSPACK_STEP_TOKENS,
                        FLOPSPACK_STEP_SEQUENCES}) {
    flopspack_step_options o = ExtraCostsOptions(2, 0, 1024);
    o.algorithm = static_cast<decltype(o.algorithm)>(algorithm);
    flopspack_plan* plan = nullptr;
    ASSERT_EQ(flopspack_plan_step_with_extra_costs(&o, model, lengths.data(), extra.data(),
                                                   lengths.size(), &plan),
              FLOPSPACK_OK)
        << flopspack_last_error_message();
    const ReadPlan p = ReadBack(plan);
    double total = 0;
    for (size_t g = 0; g < p.items.size(); ++g) {
      EXPECT_NEAR(p.cost[g], ExpectedGroupCost(model, p.items[g], p.tokens[g], lengths, extra),
                  1e-9 * p.cost[g]);
      total += p.cost[g];
    }
    // Tokens (5,700) plus every extra cost, once.
    EXPECT_NEAR(total, 5700 + 8051, 1e-9);
    EXPECT_NEAR(p.metrics.total_cost, 5700 + 8051, 1e-9);
    EXPECT_GT(p.metrics.split_items, 0u);
    flopspack_plan_destroy(plan);
  }
  flopspack_cost_model_destroy(model);
}

TEST(ExtraCostsCapiTest, BadExtraCostsAreRejectedAndNothingIsModified) {
  flopspack_cost_model* model = nullptr;
  ASSERT_EQ(flopspack_cost_model_tokens(&model), FLOPSPACK_OK);
  const std::vector<int64_t> lengths = {10, 20, 30};
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  struct Row {
    std::vector<double> extra;
    flopspack_status status;
    const char* fragment;
  };
  const Row rows[] = {
      {{0, -1, 0}, FLOPSPACK_INVALID_ARGUMENT, "extra_costs[1] = -1"},
      {{0, 0, nan}, FLOPSPACK_INVALID_ARGUMENT, "extra_costs[2] = nan"},
      {{inf, 0, 0}, FLOPSPACK_INVALID_ARGUMENT, "extra_costs[0] = inf"},
      {{0, -0.0, -inf}, FLOPSPACK_INVALID_ARGUMENT, "extra_costs[2] = -inf"},
      {{1e308, 1e308, 0}, FLOPSPACK_OUT_OF_RANGE, "extra_costs"},
  };
  flopspack_step_options o = ExtraCostsOptions(2, 1, 64);
  for (const Row& row : rows) {
    const std::vector<double> before = row.extra;
    const std::vector<int64_t> lengths_before = lengths;
    flopspack_plan* sentinel = reinterpret_cast<flopspack_plan*>(0x1234);
    flopspack_plan* out = sentinel;
    EXPECT_FLOPSPACK_ERROR(flopspack_plan_step_with_extra_costs(
                               &o, model, lengths.data(), row.extra.data(), lengths.size(), &out),
                           row.status, row.fragment);
    EXPECT_EQ(out, sentinel);
    EXPECT_EQ(std::memcmp(before.data(), row.extra.data(), before.size() * sizeof(double)), 0);
    EXPECT_EQ(lengths, lengths_before);
  }
  // A document's cost plus its extra cost that overflows a double.
  flopspack_cost_model* steep = nullptr;
  ASSERT_EQ(flopspack_cost_model_polynomial(0, 0, 1e304, 0, &steep), FLOPSPACK_OK);
  const std::vector<double> huge = {0, 0, std::numeric_limits<double>::max()};
  flopspack_plan* out = nullptr;
  EXPECT_FLOPSPACK_ERROR(flopspack_plan_step_with_extra_costs(&o, steep, lengths.data(),
                                                              huge.data(), lengths.size(), &out),
                         FLOPSPACK_OUT_OF_RANGE, "extra cost");
  EXPECT_EQ(out, nullptr);
  flopspack_cost_model_destroy(steep);
  // The usual NULL checks.
  EXPECT_FLOPSPACK_ERROR(
      flopspack_plan_step_with_extra_costs(&o, nullptr, lengths.data(), nullptr, 3, &out),
      FLOPSPACK_INVALID_ARGUMENT, "model");
  EXPECT_FLOPSPACK_ERROR(
      flopspack_plan_step_with_extra_costs(&o, model, lengths.data(), nullptr, 3, nullptr),
      FLOPSPACK_INVALID_ARGUMENT, "out");
  flopspack_cost_model_destroy(model);
}

// A ViT-L image of p patches costs 3 x (24 x 24 d^2 p + 24 x 4 d p^2),
// d = 1024 (docs/multimodal.md); text-only documents cost nothing extra.
TEST(ExtraCostsCapiTest, MultimodalCostsOfAVitLEncoder) {
  flopspack_transformer_config c;
  flopspack_transformer_config_init(&c);
  c.num_layers = 24;
  c.hidden_size = 1024;
  c.num_attention_heads = c.num_key_value_heads = 16;
  c.intermediate_size = 4096;
  c.causal = 0;
  flopspack_cost_model* vit = nullptr;
  ASSERT_EQ(flopspack_cost_model_transformer(&c, &vit), FLOPSPACK_OK);
  const int64_t text[] = {1500, 200, 0};
  const int64_t images[] = {0, 3, 1};
  const int64_t patches[] = {0, 576, 256};
  int64_t tokens[3] = {-1, -1, -1};
  double extra[3] = {-1, -1, -1};
  ASSERT_EQ(flopspack_multimodal_costs(vit, text, images, patches, 3, tokens, extra), FLOPSPACK_OK)
      << flopspack_last_error_message();
  const double d = 1024;
  auto image = [&](double p) { return 3 * (24 * 24 * d * d * p + 24 * 4 * d * p * p); };
  EXPECT_EQ(tokens[0], 1500);
  EXPECT_EQ(tokens[1], 200 + 3 * 576);
  EXPECT_EQ(tokens[2], 256);
  EXPECT_EQ(extra[0], 0);
  EXPECT_NEAR(extra[1], 3 * image(576), 1e-12 * extra[1]);
  EXPECT_NEAR(extra[2], image(256), 1e-12 * extra[2]);
  // Bad documents: named, outputs untouched.
  const int64_t bad_images[] = {0, 2, -1};
  int64_t t2[3] = {-7, -7, -7};
  double e2[3] = {-7, -7, -7};
  EXPECT_FLOPSPACK_ERROR(flopspack_multimodal_costs(vit, text, bad_images, patches, 3, t2, e2),
                         FLOPSPACK_INVALID_ARGUMENT, "document 2: multimodal document");
  const int64_t no_patches[] = {0, 0, 0};
  EXPECT_FLOPSPACK_ERROR(flopspack_multimodal_costs(vit, text, images, no_patches, 3, t2, e2),
                         FLOPSPACK_INVALID_ARGUMENT, "document 1: multimodal document: 3 images");
  const int64_t empty_text[] = {0, 0, 0};
  const int64_t zero_images[] = {0, 0, 0};
  EXPECT_FLOPSPACK_ERROR(
      flopspack_multimodal_costs(vit, empty_text, zero_images, patches, 3, t2, e2),
      FLOPSPACK_INVALID_ARGUMENT, "document 0: multimodal document: no text tokens");
  const int64_t huge[] = {0, int64_t{1} << 62, 1};
  EXPECT_FLOPSPACK_ERROR(flopspack_multimodal_costs(vit, text, huge, patches, 3, t2, e2),
                         FLOPSPACK_OUT_OF_RANGE, "overflows int64");
  EXPECT_FLOPSPACK_ERROR(flopspack_multimodal_costs(nullptr, text, images, patches, 3, t2, e2),
                         FLOPSPACK_INVALID_ARGUMENT, "encoder");
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(t2[i], -7);
    EXPECT_EQ(e2[i], -7);
  }
  flopspack_cost_model_destroy(vit);
}

// ---- flopspack_pack_with_extra_costs ------------------------------------

flopspack_pack_options PackOptions(int32_t algorithm, int32_t overflow, int64_t capacity,
                                   const flopspack_cost_model* model) {
  flopspack_pack_options o;
  flopspack_pack_options_init(&o);
  o.algorithm = algorithm;
  o.overflow = overflow;
  o.capacity = capacity;
  o.seed = 5;
  o.cost_model = model;
  return o;
}

TEST(PackExtraCostsCapiTest, NullAndZeroExtraCostsArePackBitForBit) {
  flopspack_cost_model* model = nullptr;
  ASSERT_EQ(flopspack_cost_model_polynomial(0, 0, 1, 1.0 / 1024, &model), FLOPSPACK_OK);
  const std::vector<int64_t> lengths = ExtraCostsLengths(300);
  const std::vector<double> zeros(lengths.size(), 0.0);
  for (const flopspack_cost_model* m : {static_cast<const flopspack_cost_model*>(nullptr),
                                        static_cast<const flopspack_cost_model*>(model)}) {
    for (int32_t algorithm :
         {FLOPSPACK_PACK_BEST_FIT_DECREASING, FLOPSPACK_PACK_FIRST_FIT_DECREASING,
          FLOPSPACK_PACK_NEXT_FIT, FLOPSPACK_PACK_SHUFFLED_FIRST_FIT}) {
      for (int32_t overflow : {FLOPSPACK_OVERFLOW_TRUNCATE, FLOPSPACK_OVERFLOW_SPLIT}) {
        const flopspack_pack_options o = PackOptions(algorithm, overflow, 1024, m);
        flopspack_plan* plain = nullptr;
        flopspack_plan* with_null = nullptr;
        flopspack_plan* with_zeros = nullptr;
        ASSERT_EQ(flopspack_pack(&o, lengths.data(), lengths.size(), &plain), FLOPSPACK_OK);
        ASSERT_EQ(flopspack_pack_with_extra_costs(&o, lengths.data(), nullptr, lengths.size(),
                                                  &with_null),
                  FLOPSPACK_OK)
            << flopspack_last_error_message();
        ASSERT_EQ(flopspack_pack_with_extra_costs(&o, lengths.data(), zeros.data(), lengths.size(),
                                                  &with_zeros),
                  FLOPSPACK_OK)
            << flopspack_last_error_message();
        flopspack_test::ExpectSamePlan(plain, with_null);
        flopspack_test::ExpectSamePlan(plain, with_zeros);
        flopspack_plan_destroy(plain);
        flopspack_plan_destroy(with_null);
        flopspack_plan_destroy(with_zeros);
      }
    }
  }
  flopspack_cost_model_destroy(model);
}

// Every sequence costs its model cost plus each piece's share (tokens /
// length) of its document's extra cost, recomputed here piece by piece;
// placement is the plain packer's; the max-cost metric and its lower bound
// include the extra costs.
TEST(PackExtraCostsCapiTest, SequenceCostsCarryTheExtraCostsOfTheirPieces) {
  flopspack_cost_model* model = nullptr;
  ASSERT_EQ(flopspack_cost_model_polynomial(0, 0, 1, 1.0 / 1024, &model), FLOPSPACK_OK);
  const std::vector<int64_t> lengths = ExtraCostsLengths(120);
  std::vector<double> extra(lengths.size());
  for (size_t i = 0; i < extra.size(); ++i) extra[i] = (i % 3 == 0) ? 5000.0 + 17.0 * i : 0.0;
  for (int32_t overflow : {FLOPSPACK_OVERFLOW_TRUNCATE, FLOPSPACK_OVERFLOW_SPLIT}) {
    const flopspack_pack_options o =
        PackOptions(FLOPSPACK_PACK_BEST_FIT_DECREASING, overflow, 700, model);
    flopspack_plan* plain = nullptr;
    flopspack_plan* plan = nullptr;
    ASSERT_EQ(flopspack_pack(&o, lengths.data(), lengths.size(), &plain), FLOPSPACK_OK);
    ASSERT_EQ(
        flopspack_pack_with_extra_costs(&o, lengths.data(), extra.data(), lengths.size(), &plan),
        FLOPSPACK_OK)
        << flopspack_last_error_message();
    const ReadPlan rp = ReadBack(plain), r = ReadBack(plan);
    EXPECT_EQ(r.items, rp.items);
    EXPECT_EQ(r.tokens, rp.tokens);
    bool some_piece_is_partial = false;
    double max_cost = 0;
    for (size_t g = 0; g < r.items.size(); ++g) {
      const double expected = ExpectedGroupCost(model, r.items[g], r.tokens[g], lengths, extra);
      EXPECT_NEAR(r.cost[g], expected, 1e-9 * expected) << "sequence " << g;
      max_cost = std::max(max_cost, r.cost[g]);
      for (size_t k = 0; k < r.items[g].size(); ++k) {
        some_piece_is_partial |= r.tokens[g][k] < lengths[r.items[g][k]];
      }
    }
    EXPECT_TRUE(some_piece_is_partial);  // the proportional rule is exercised
    EXPECT_EQ(r.metrics.max_group_cost, max_cost);
    flopspack_plan_destroy(plain);
    flopspack_plan_destroy(plan);
  }
  flopspack_cost_model_destroy(model);
}

// Without a model a sequence costs its tokens plus the extra costs: two
// whole documents in one sequence cost exactly their sum.
TEST(PackExtraCostsCapiTest, TokenCostPlusExtraCostByHand) {
  const std::vector<int64_t> lengths = {60, 40, 100, 30};
  const std::vector<double> extra = {1.5, 0, 1000, 0.25};
  const flopspack_pack_options o =
      PackOptions(FLOPSPACK_PACK_NEXT_FIT, FLOPSPACK_OVERFLOW_SPLIT, 100, nullptr);
  flopspack_plan* plan = nullptr;
  ASSERT_EQ(
      flopspack_pack_with_extra_costs(&o, lengths.data(), extra.data(), lengths.size(), &plan),
      FLOPSPACK_OK)
      << flopspack_last_error_message();
  const ReadPlan r = ReadBack(plan);
  // Next fit, capacity 100: {60, 40}, {100}, {30}.
  ASSERT_EQ(r.items.size(), 3u);
  EXPECT_EQ(r.items[0], (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(r.cost[0], 101.5);
  EXPECT_EQ(r.cost[1], 1100.0);
  EXPECT_EQ(r.cost[2], 30.25);
  EXPECT_EQ(r.metrics.max_group_cost, 1100.0);
  // The costliest piece (100 tokens + 1000 extra) bounds it from below.
  EXPECT_EQ(r.metrics.lower_bound, 1100.0);
  flopspack_plan_destroy(plan);
}

TEST(PackExtraCostsCapiTest, BadExtraCostsAreRejectedAndNothingIsModified) {
  const std::vector<int64_t> lengths = {10, 20, 30};
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  struct Row {
    std::vector<double> extra;
    flopspack_status status;
    const char* fragment;
  };
  const Row rows[] = {
      {{0, -1, 0}, FLOPSPACK_INVALID_ARGUMENT, "extra_costs[1] = -1"},
      {{0, 0, nan}, FLOPSPACK_INVALID_ARGUMENT, "extra_costs[2] = nan"},
      {{inf, 0, 0}, FLOPSPACK_INVALID_ARGUMENT, "extra_costs[0] = inf"},
      {{0, -0.0, -inf}, FLOPSPACK_INVALID_ARGUMENT, "extra_costs[2] = -inf"},
      {{1e308, 1e308, 0}, FLOPSPACK_OUT_OF_RANGE, "extra_costs"},
  };
  const flopspack_pack_options o =
      PackOptions(FLOPSPACK_PACK_BEST_FIT_DECREASING, FLOPSPACK_OVERFLOW_SPLIT, 64, nullptr);
  for (const Row& row : rows) {
    const std::vector<double> before = row.extra;
    const std::vector<int64_t> lengths_before = lengths;
    const flopspack_pack_options options_before = o;
    flopspack_plan* sentinel = reinterpret_cast<flopspack_plan*>(0x1234);
    flopspack_plan* out = sentinel;
    EXPECT_FLOPSPACK_ERROR(
        flopspack_pack_with_extra_costs(&o, lengths.data(), row.extra.data(), lengths.size(), &out),
        row.status, row.fragment);
    EXPECT_EQ(out, sentinel);
    EXPECT_EQ(std::memcmp(before.data(), row.extra.data(), before.size() * sizeof(double)), 0);
    EXPECT_EQ(lengths, lengths_before);
    EXPECT_EQ(std::memcmp(&o, &options_before, sizeof(o)), 0);
  }
  // The extra costs sum fine, but a sequence's model cost plus its extra
  // costs overflows a double (one sequence holds both documents).
  flopspack_cost_model* steep = nullptr;
  ASSERT_EQ(flopspack_cost_model_polynomial(0, 0, 1e304, 0, &steep), FLOPSPACK_OK);
  const std::vector<int64_t> small = {10, 20};
  const std::vector<double> huge = {0, std::numeric_limits<double>::max()};
  const std::vector<double> sum_overflows = {1e308, 1e308};
  flopspack_pack_options steep_options = o;
  steep_options.cost_model = steep;
  flopspack_plan* out = nullptr;
  EXPECT_FLOPSPACK_ERROR(
      flopspack_pack_with_extra_costs(&steep_options, small.data(), huge.data(), 2, &out),
      FLOPSPACK_OUT_OF_RANGE, "overflows a double");
  EXPECT_EQ(out, nullptr);
  EXPECT_FLOPSPACK_ERROR(
      flopspack_pack_with_extra_costs(&o, small.data(), sum_overflows.data(), 2, &out),
      FLOPSPACK_OUT_OF_RANGE, "extra_costs");
  EXPECT_EQ(out, nullptr);
  flopspack_cost_model_destroy(steep);
  // The usual NULL checks.
  EXPECT_FLOPSPACK_ERROR(flopspack_pack_with_extra_costs(nullptr, lengths.data(), nullptr, 3, &out),
                         FLOPSPACK_INVALID_ARGUMENT, "options");
  EXPECT_FLOPSPACK_ERROR(flopspack_pack_with_extra_costs(&o, lengths.data(), nullptr, 3, nullptr),
                         FLOPSPACK_INVALID_ARGUMENT, "out");
  EXPECT_EQ(out, nullptr);
}

// ---- The stateful planner with extra costs --------------------------------

flopspack_cost_model* QuadraticModel() {
  flopspack_cost_model* model = nullptr;
  EXPECT_EQ(flopspack_cost_model_polynomial(0, 0, 1, 1.0 / 1024, &model), FLOPSPACK_OK);
  return model;
}

std::vector<unsigned char> Save(const flopspack_step_planner* planner) {
  size_t size = 0;
  EXPECT_EQ(flopspack_step_planner_save_size(planner, &size), FLOPSPACK_OK);
  std::vector<unsigned char> bytes(size);
  EXPECT_EQ(flopspack_step_planner_save(planner, bytes.data(), size, &size), FLOPSPACK_OK);
  return bytes;
}

// Random steps pushed with extra costs (some 0) and planned in one step:
// flopspack_plan_step_with_extra_costs's plan on the same documents, bit for
// bit; NULL extra costs give flopspack_step_planner_push's planner (the same
// saved bytes, the same plan).
TEST(StepPlannerExtraCostsCapiTest, NextIsPlanStepWithExtraCosts) {
  flopspack_cost_model* model = QuadraticModel();
  uint64_t x = 99;
  auto next = [&x](uint64_t below) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    return (x >> 33) % below;
  };
  for (int trial = 0; trial < 8; ++trial) {
    flopspack_step_options o = ExtraCostsOptions(4, 4, 1024);
    o.algorithm = trial % 2 == 0 ? FLOPSPACK_STEP_DOCUMENTS : FLOPSPACK_STEP_SEQUENCES;
    if (trial % 4 == 3) o.context_parallel_size = 2;
    const size_t n = 10 + next(10);
    // At most 19 x 800 tokens: one step (4 x 4 x 1,024) holds them all.
    const std::vector<int64_t> lengths = flopspack_test::SeededLengths(n, 1000 + trial, 800);
    std::vector<double> extra(n);
    for (double& e : extra) e = next(3) == 0 ? 0.0 : static_cast<double>(next(1 << 20)) / 7;
    flopspack_step_planner *with = nullptr, *without = nullptr, *null_extra = nullptr;
    ASSERT_EQ(flopspack_step_planner_create(&o, nullptr, model, &with), FLOPSPACK_OK)
        << flopspack_last_error_message();
    ASSERT_EQ(flopspack_step_planner_create(&o, nullptr, model, &without), FLOPSPACK_OK);
    ASSERT_EQ(flopspack_step_planner_create(&o, nullptr, model, &null_extra), FLOPSPACK_OK);
    int64_t first = -1;
    ASSERT_EQ(
        flopspack_step_planner_push_with_extra_costs(with, lengths.data(), extra.data(), n, &first),
        FLOPSPACK_OK)
        << flopspack_last_error_message();
    EXPECT_EQ(first, 0);
    ASSERT_EQ(flopspack_step_planner_push(without, lengths.data(), n, nullptr), FLOPSPACK_OK);
    ASSERT_EQ(flopspack_step_planner_push_with_extra_costs(null_extra, lengths.data(), nullptr, n,
                                                           nullptr),
              FLOPSPACK_OK);
    EXPECT_EQ(Save(without), Save(null_extra));
    EXPECT_NE(Save(with), Save(without));
    flopspack_plan *stepped = nullptr, *direct = nullptr, *plain = nullptr, *plain_step = nullptr;
    ASSERT_EQ(flopspack_step_planner_next(with, &stepped), FLOPSPACK_OK)
        << flopspack_last_error_message();
    ASSERT_EQ(
        flopspack_plan_step_with_extra_costs(&o, model, lengths.data(), extra.data(), n, &direct),
        FLOPSPACK_OK);
    flopspack_test::ExpectSamePlan(stepped, direct, "with extra costs");
    ASSERT_EQ(flopspack_step_planner_next(null_extra, &plain), FLOPSPACK_OK);
    ASSERT_EQ(flopspack_plan_step(&o, model, lengths.data(), n, &plain_step), FLOPSPACK_OK);
    flopspack_test::ExpectSamePlan(plain, plain_step, "NULL extra costs");
    EXPECT_GT(ReadBack(stepped).metrics.total_cost, ReadBack(plain).metrics.total_cost);
    for (flopspack_plan* q : {stepped, direct, plain, plain_step}) flopspack_plan_destroy(q);
    for (flopspack_step_planner* q : {with, without, null_extra}) flopspack_step_planner_destroy(q);
  }
  flopspack_cost_model_destroy(model);
}

// Bad extra costs: flopspack_plan_step_with_extra_costs's status and message,
// first_id untouched, the planner unchanged (its saved bytes).
TEST(StepPlannerExtraCostsCapiTest, BadExtraCostsChangeNothing) {
  flopspack_cost_model* model = QuadraticModel();
  flopspack_step_options o = ExtraCostsOptions(2, 1, 64);
  flopspack_step_planner* planner = nullptr;
  ASSERT_EQ(flopspack_step_planner_create(&o, nullptr, model, &planner), FLOPSPACK_OK);
  const int64_t kept[] = {10, 12};
  const double kept_extra[] = {3, 0};
  ASSERT_EQ(flopspack_step_planner_push_with_extra_costs(planner, kept, kept_extra, 2, nullptr),
            FLOPSPACK_OK);
  const std::vector<unsigned char> before = Save(planner);
  const std::vector<int64_t> lengths = {10, 20, 30};
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const std::vector<std::vector<double>> rows = {
      {0, -1, 0}, {0, 0, nan}, {inf, 0, 0}, {0, -0.0, -inf}, {1e308, 1e308, 0}};
  for (const std::vector<double>& extra : rows) {
    flopspack_plan* plan = nullptr;
    const flopspack_status want = flopspack_plan_step_with_extra_costs(
        &o, model, lengths.data(), extra.data(), lengths.size(), &plan);
    ASSERT_NE(want, FLOPSPACK_OK);
    const std::string want_message = flopspack_last_error_message();
    int64_t first = -77;
    EXPECT_EQ(flopspack_step_planner_push_with_extra_costs(planner, lengths.data(), extra.data(),
                                                           lengths.size(), &first),
              want);
    EXPECT_EQ(flopspack_last_error_message(), want_message);
    EXPECT_EQ(first, -77);
    EXPECT_EQ(Save(planner), before);
  }
  int64_t first = -77;
  EXPECT_FLOPSPACK_ERROR(
      flopspack_step_planner_push_with_extra_costs(nullptr, lengths.data(), nullptr, 3, &first),
      FLOPSPACK_INVALID_ARGUMENT, "planner");
  EXPECT_FLOPSPACK_ERROR(
      flopspack_step_planner_push_with_extra_costs(planner, nullptr, nullptr, 3, &first),
      FLOPSPACK_INVALID_ARGUMENT, "lengths");
  EXPECT_EQ(first, -77);
  EXPECT_EQ(Save(planner), before);
  // NULL extra costs: a plain push, ids after the kept documents.
  ASSERT_EQ(
      flopspack_step_planner_push_with_extra_costs(planner, lengths.data(), nullptr, 3, &first),
      FLOPSPACK_OK);
  EXPECT_EQ(first, 2);
  flopspack_step_planner_destroy(planner);
  flopspack_cost_model_destroy(model);
}

// A planner with extra costs waiting (outliers held back, documents
// carried over) saves and restores them: the same bytes again, and the
// same plans bit for bit from then on, through pushes with and without.
TEST(StepPlannerExtraCostsCapiTest, SaveRestoreKeepsTheExtraCosts) {
  flopspack_cost_model* model = QuadraticModel();
  flopspack_step_options o = ExtraCostsOptions(4, 2, 1024);
  flopspack_step_planner_options p;
  flopspack_step_planner_options_init(&p);
  p.tokens_per_step = 7000;
  p.outlier_min_tokens = 900;
  p.max_outliers_per_step = 1;
  flopspack_step_planner* a = nullptr;
  ASSERT_EQ(flopspack_step_planner_create(&o, &p, model, &a), FLOPSPACK_OK);
  const std::vector<int64_t> lengths = flopspack_test::SeededLengths(240, 4242, 1024);
  std::vector<double> extra(lengths.size());
  for (size_t i = 0; i < extra.size(); ++i) extra[i] = i % 3 == 0 ? 0 : 5000.0 + 37.0 * i;
  ASSERT_EQ(
      flopspack_step_planner_push_with_extra_costs(a, lengths.data(), extra.data(), 120, nullptr),
      FLOPSPACK_OK);
  for (int step = 0; step < 2; ++step) {
    flopspack_plan* plan = nullptr;
    ASSERT_EQ(flopspack_step_planner_next(a, &plan), FLOPSPACK_OK);
    flopspack_plan_destroy(plan);
  }
  const std::vector<unsigned char> saved = Save(a);
  flopspack_step_planner* b = nullptr;
  ASSERT_EQ(flopspack_step_planner_restore(saved.data(), saved.size(), model, &b), FLOPSPACK_OK)
      << flopspack_last_error_message();
  EXPECT_EQ(Save(b), saved);
  for (flopspack_step_planner* planner : {a, b}) {
    ASSERT_EQ(flopspack_step_planner_push(planner, lengths.data() + 120, 60, nullptr),
              FLOPSPACK_OK);
    ASSERT_EQ(flopspack_step_planner_push_with_extra_costs(planner, lengths.data() + 180,
                                                           extra.data() + 180, 60, nullptr),
              FLOPSPACK_OK);
  }
  for (int step = 0; step < 30; ++step) {  // ~17 steps drain the queue
    flopspack_plan *pa = nullptr, *pb = nullptr;
    ASSERT_EQ(flopspack_step_planner_next(a, &pa), FLOPSPACK_OK);
    ASSERT_EQ(flopspack_step_planner_next(b, &pb), FLOPSPACK_OK);
    flopspack_test::ExpectSamePlan(pa, pb, "after restore");
    flopspack_plan_destroy(pa);
    flopspack_plan_destroy(pb);
  }
  uint64_t documents = 1;
  ASSERT_EQ(flopspack_step_planner_pending(a, &documents, nullptr, nullptr), FLOPSPACK_OK);
  EXPECT_EQ(documents, 0u);
  flopspack_step_planner_destroy(a);
  flopspack_step_planner_destroy(b);
  flopspack_cost_model_destroy(model);
}

// A state saved by the library before extra costs (format version 1, made
// by the main branch at 5fbbc36 with the steps below: 2 ranks x 2
// microbatches of 256 tokens, CP 2, microbatch sync, seed 11, 1,600 tokens
// a step, outliers from 300 tokens, one a step; two pushes and two steps,
// 4 documents left) restores with zero extra costs: it saves the bytes and
// plans the steps of a planner that went through the same steps in this
// library.
TEST(StepPlannerExtraCostsCapiTest, RestoresAVersion1State) {
  const char* hex =
      "465053544550504c010000000000000002000000000000000200000000000000"
      "000100000000000000000000000000000b000000000000000000000000000000"
      "02000000000000000100000000000000fca9f1d24d62403f4006000000000000"
      "2c01000000000000020000000000000001000000000000001300000000000000"
      "0200000000000000000000000000000004000000000000000700000000000000"
      "7c0100000000000002000000000000000b000000000000003601000000000000"
      "01000000000000000d00000000000000f4010000000000000100000000000000"
      "12000000000000005e0100000000000001000000000000000100000000000000"
      "0000000000000000000000000000000002000000000000000100000000000000"
      "245c34a0ad46858a";
  std::vector<unsigned char> v1;
  for (const char* c = hex; c[0] != '\0'; c += 2) {
    v1.push_back(static_cast<unsigned char>(std::stoi(std::string(c, 2), nullptr, 16)));
  }
  ASSERT_EQ(v1.size(), 296u);
  ASSERT_EQ(v1[8], 1u);  // format version 1
  flopspack_cost_model* model = QuadraticModel();
  flopspack_step_options o = ExtraCostsOptions(2, 2, 256);
  o.seed = 11;
  o.sync = FLOPSPACK_SYNC_MICROBATCH;
  o.context_parallel_size = 2;
  flopspack_step_planner_options p;
  flopspack_step_planner_options_init(&p);
  p.tokens_per_step = 1600;
  p.outlier_min_tokens = 300;
  p.max_outliers_per_step = 1;
  flopspack_step_planner* fresh = nullptr;
  ASSERT_EQ(flopspack_step_planner_create(&o, &p, model, &fresh), FLOPSPACK_OK);
  const std::vector<int64_t> a = {120, 340, 90, 410, 33, 260, 75, 380, 150, 12, 200};
  const std::vector<int64_t> b = {310, 44, 500, 61, 130, 7, 220, 350};
  for (const std::vector<int64_t>* batch : {&a, &b}) {
    ASSERT_EQ(flopspack_step_planner_push(fresh, batch->data(), batch->size(), nullptr),
              FLOPSPACK_OK);
    flopspack_plan* plan = nullptr;
    ASSERT_EQ(flopspack_step_planner_next(fresh, &plan), FLOPSPACK_OK);
    flopspack_plan_destroy(plan);
  }
  flopspack_step_planner* old = nullptr;
  ASSERT_EQ(flopspack_step_planner_restore(v1.data(), v1.size(), model, &old), FLOPSPACK_OK)
      << flopspack_last_error_message();
  uint64_t documents = 0, steps = 0;
  int64_t tokens = 0;
  ASSERT_EQ(flopspack_step_planner_pending(old, &documents, &tokens, &steps), FLOPSPACK_OK);
  EXPECT_EQ(documents, 4u);
  EXPECT_EQ(tokens, 1540);
  EXPECT_EQ(steps, 2u);
  const std::vector<unsigned char> resaved = Save(old);
  EXPECT_EQ(resaved, Save(fresh));
  EXPECT_EQ(resaved[8], 2u);                     // saved again in this library's version
  EXPECT_EQ(resaved.size(), v1.size() + 4 * 8);  // one extra cost per waiting document
  // From here on, pushes with extra costs work on the restored planner too.
  const std::vector<int64_t> c = {100, 301, 64};
  const std::vector<double> extra = {0, 2e5, 17};
  for (flopspack_step_planner* planner : {old, fresh}) {
    ASSERT_EQ(flopspack_step_planner_push_with_extra_costs(planner, c.data(), extra.data(),
                                                           c.size(), nullptr),
              FLOPSPACK_OK);
  }
  for (int step = 0; step < 4; ++step) {
    flopspack_plan *po = nullptr, *pf = nullptr;
    ASSERT_EQ(flopspack_step_planner_next(old, &po), FLOPSPACK_OK);
    ASSERT_EQ(flopspack_step_planner_next(fresh, &pf), FLOPSPACK_OK);
    flopspack_test::ExpectSamePlan(po, pf, "version 1 state");
    flopspack_plan_destroy(po);
    flopspack_plan_destroy(pf);
  }
  // A version 1 state with a changed byte is still refused (checksum).
  v1[150] ^= 1;
  flopspack_step_planner* bad = nullptr;
  EXPECT_FLOPSPACK_ERROR(flopspack_step_planner_restore(v1.data(), v1.size(), model, &bad),
                         FLOPSPACK_INVALID_ARGUMENT, "checksum mismatch");
  EXPECT_EQ(bad, nullptr);
  flopspack_step_planner_destroy(old);
  flopspack_step_planner_destroy(fresh);
  flopspack_cost_model_destroy(model);
}

}  // namespace
