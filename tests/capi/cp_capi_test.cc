// Context-parallel sharding through the shared library: chunks tile every
// entry of the plan, CP-rank costs sum to the sequence costs (plus the
// overhead per CP rank), metrics, accessors' range checks, determinism.
#include <cstddef>
#include <cstring>
#include <map>
#include <vector>

#include "capi_test_util.h"

namespace {

struct Fixture {
  flopspack_cost_model* model = nullptr;
  flopspack_plan* plan = nullptr;
  Fixture() {
    flopspack_transformer_config c;
    flopspack_transformer_config_init(&c);
    c.num_layers = 4;
    c.hidden_size = 256;
    c.num_attention_heads = 8;
    c.num_key_value_heads = 8;
    c.intermediate_size = 1024;
    c.vocab_size = 1000;
    EXPECT_EQ(flopspack_cost_model_transformer(&c, &model), FLOPSPACK_OK);
    std::vector<int64_t> lengths;
    for (int64_t i = 0; i < 60; ++i) lengths.push_back(1 + (i * 7919) % 700);
    flopspack_step_options o;
    flopspack_step_options_init(&o);
    o.num_ranks = 4;
    o.microbatches_per_rank = 2;
    o.max_tokens_per_microbatch = 4096;
    EXPECT_EQ(flopspack_plan_step(&o, model, lengths.data(), lengths.size(), &plan), FLOPSPACK_OK);
  }
  ~Fixture() {
    flopspack_plan_destroy(plan);
    flopspack_cost_model_destroy(model);
  }
};

flopspack_cp_metrics CpMetrics(const flopspack_cp_shard* shard) {
  flopspack_cp_metrics m;
  std::memset(&m, 0, sizeof(m));
  m.struct_size = sizeof(m);
  EXPECT_EQ(flopspack_cp_shard_metrics(shard, &m), FLOPSPACK_OK);
  return m;
}

TEST(CpCapiTest, ChunksTileThePlanAndCostsAddUp) {
  Fixture f;
  for (uint64_t c : {1u, 2u, 4u, 8u}) {
    for (int layout : {FLOPSPACK_CP_SEQUENCE_HEAD_TAIL, FLOPSPACK_CP_DOCUMENT_HEAD_TAIL,
                       FLOPSPACK_CP_ADAPTIVE}) {
      flopspack_cp_shard* shard = nullptr;
      ASSERT_EQ(flopspack_plan_shard_context_parallel(f.plan, f.model, c, layout, &shard),
                FLOPSPACK_OK)
          << flopspack_last_error_message();
      const size_t groups = flopspack_plan_group_count(f.plan);
      ASSERT_EQ(flopspack_cp_shard_group_count(shard), groups);
      uint64_t chunks = 0;
      for (size_t g = 0; g < groups; ++g) {
        // Token -> times covered, from the plan and from the chunks.
        std::map<std::pair<int64_t, int64_t>, int> want, got;
        const int64_t* items = nullptr;
        const int64_t* tokens = nullptr;
        const int64_t* offsets = nullptr;
        size_t n = 0;
        ASSERT_EQ(flopspack_plan_group(f.plan, g, &items, &tokens, &n), FLOPSPACK_OK);
        ASSERT_EQ(flopspack_plan_group_offsets(f.plan, g, &offsets, &n), FLOPSPACK_OK);
        for (size_t k = 0; k < n; ++k) {
          for (int64_t t = 0; t < tokens[k]; ++t) ++want[{items[k], offsets[k] + t}];
        }
        double sum = 0, group_cost = 0;
        for (size_t r = 0; r < c; ++r) {
          const int64_t* ci = nullptr;
          const int64_t* co = nullptr;
          const int64_t* cl = nullptr;
          size_t m = 0;
          ASSERT_EQ(flopspack_cp_shard_chunks(shard, g, r, &ci, &co, &cl, &m), FLOPSPACK_OK);
          chunks += m;
          for (size_t k = 0; k < m; ++k) {
            EXPECT_GT(cl[k], 0);
            for (int64_t t = 0; t < cl[k]; ++t) ++got[{ci[k], co[k] + t}];
          }
          double cost = -1;
          int64_t kv = -1;
          ASSERT_EQ(flopspack_cp_shard_rank_cost(shard, g, r, &cost, &kv), FLOPSPACK_OK);
          EXPECT_GE(kv, 0);
          sum += cost;
        }
        EXPECT_EQ(want, got) << "group " << g << " C " << c << " layout " << layout;
        ASSERT_EQ(flopspack_plan_group_info(f.plan, g, nullptr, nullptr, &group_cost),
                  FLOPSPACK_OK);
        EXPECT_NEAR(sum, group_cost, 1e-9 * group_cost);
        int used = -1;
        double balance = -1;
        ASSERT_EQ(flopspack_cp_shard_group_layout(shard, g, &used, &balance), FLOPSPACK_OK);
        if (layout != FLOPSPACK_CP_ADAPTIVE) {
          EXPECT_EQ(used, layout);
        }
        EXPECT_NE(used, FLOPSPACK_CP_ADAPTIVE);
        EXPECT_GT(balance, 0);
        EXPECT_LE(balance, 1);
      }
      const flopspack_cp_metrics m = CpMetrics(shard);
      EXPECT_EQ(m.context_parallel_size, c);
      EXPECT_EQ(m.num_groups, groups);
      EXPECT_EQ(m.num_chunks, chunks);
      EXPECT_EQ(m.sequence_layout_groups + m.document_layout_groups, groups);
      EXPECT_LE(m.worst_balance, m.balance_efficiency);
      if (c == 1) {
        EXPECT_DOUBLE_EQ(m.balance_efficiency, 1.0);
      }
      flopspack_cp_shard_destroy(shard);
    }
  }
}

TEST(CpCapiTest, DocumentLayoutBeatsSequenceLayoutOnPackedSequences) {
  Fixture f;
  flopspack_cp_shard* seq = nullptr;
  flopspack_cp_shard* doc = nullptr;
  ASSERT_EQ(flopspack_plan_shard_context_parallel(f.plan, f.model, 4,
                                                  FLOPSPACK_CP_SEQUENCE_HEAD_TAIL, &seq),
            FLOPSPACK_OK);
  ASSERT_EQ(flopspack_plan_shard_context_parallel(f.plan, f.model, 4,
                                                  FLOPSPACK_CP_DOCUMENT_HEAD_TAIL, &doc),
            FLOPSPACK_OK);
  EXPECT_GT(CpMetrics(doc).worst_balance, CpMetrics(seq).worst_balance);
  EXPECT_GT(CpMetrics(doc).worst_balance, 0.995);  // a small model: attention weighs more
  EXPECT_GT(CpMetrics(doc).kv_tokens, CpMetrics(seq).kv_tokens);
  flopspack_cp_shard_destroy(seq);
  flopspack_cp_shard_destroy(doc);
}

TEST(CpCapiTest, AccessorsCheckRangesAndNulls) {
  Fixture f;
  flopspack_cp_shard* shard = nullptr;
  ASSERT_EQ(
      flopspack_plan_shard_context_parallel(f.plan, f.model, 2, FLOPSPACK_CP_ADAPTIVE, &shard),
      FLOPSPACK_OK);
  size_t n = 0;
  const size_t groups = flopspack_cp_shard_group_count(shard);
  EXPECT_FLOPSPACK_ERROR(flopspack_cp_shard_chunks(shard, groups, 0, nullptr, nullptr, nullptr, &n),
                         FLOPSPACK_OUT_OF_RANGE, "group");
  EXPECT_FLOPSPACK_ERROR(flopspack_cp_shard_chunks(shard, 0, 2, nullptr, nullptr, nullptr, &n),
                         FLOPSPACK_OUT_OF_RANGE, "cp_rank 2 is out of range");
  EXPECT_FLOPSPACK_ERROR(flopspack_cp_shard_chunks(shard, 0, 0, nullptr, nullptr, nullptr, nullptr),
                         FLOPSPACK_INVALID_ARGUMENT, "n must not be NULL");
  EXPECT_FLOPSPACK_ERROR(flopspack_cp_shard_rank_cost(nullptr, 0, 0, nullptr, nullptr),
                         FLOPSPACK_INVALID_ARGUMENT, "shard must not be NULL");
  EXPECT_FLOPSPACK_ERROR(flopspack_cp_shard_group_layout(shard, groups, nullptr, nullptr),
                         FLOPSPACK_OUT_OF_RANGE, "group");
  EXPECT_FLOPSPACK_ERROR(flopspack_cp_shard_metrics(shard, nullptr), FLOPSPACK_INVALID_ARGUMENT,
                         "out must not be NULL");
  EXPECT_EQ(flopspack_cp_shard_group_count(nullptr), 0u);
  // An older caller's smaller metrics struct gets only the fields it knows.
  flopspack_cp_metrics older;
  std::memset(&older, 0, sizeof(older));
  older.struct_size = offsetof(flopspack_cp_metrics, balance_efficiency);
  EXPECT_EQ(flopspack_cp_shard_metrics(shard, &older), FLOPSPACK_OK);
  EXPECT_EQ(older.context_parallel_size, 2u);
  EXPECT_EQ(older.balance_efficiency, 0.0);
  flopspack_cp_shard_destroy(shard);
  flopspack_cp_shard_destroy(nullptr);
}

TEST(CpCapiTest, Deterministic) {
  Fixture f;
  flopspack_cp_shard* a = nullptr;
  flopspack_cp_shard* b = nullptr;
  ASSERT_EQ(flopspack_plan_shard_context_parallel(f.plan, f.model, 4, FLOPSPACK_CP_ADAPTIVE, &a),
            FLOPSPACK_OK);
  ASSERT_EQ(flopspack_plan_shard_context_parallel(f.plan, f.model, 4, FLOPSPACK_CP_ADAPTIVE, &b),
            FLOPSPACK_OK);
  for (size_t g = 0; g < flopspack_cp_shard_group_count(a); ++g) {
    for (size_t r = 0; r < 4; ++r) {
      const int64_t *ia, *oa, *la, *ib, *ob, *lb;
      size_t na = 0, nb = 0;
      ASSERT_EQ(flopspack_cp_shard_chunks(a, g, r, &ia, &oa, &la, &na), FLOPSPACK_OK);
      ASSERT_EQ(flopspack_cp_shard_chunks(b, g, r, &ib, &ob, &lb, &nb), FLOPSPACK_OK);
      ASSERT_EQ(na, nb);
      EXPECT_EQ(std::vector<int64_t>(ia, ia + na), std::vector<int64_t>(ib, ib + nb));
      EXPECT_EQ(std::vector<int64_t>(oa, oa + na), std::vector<int64_t>(ob, ob + nb));
      EXPECT_EQ(std::vector<int64_t>(la, la + na), std::vector<int64_t>(lb, lb + nb));
    }
  }
  flopspack_cp_shard_destroy(a);
  flopspack_cp_shard_destroy(b);
}

}  // namespace
