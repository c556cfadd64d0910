// The golden vectors (tests/golden/*.json, written by tests/golden/generate.cc
// and reviewed): the C ABI must reproduce every cost, assignment and metric
// to the last bit. The Python, Go and Rust bindings run the same check on
// the same files.
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "../golden/golden_io.h"
#include "capi_test_util.h"

namespace {

using golden::Value;

Value Load(const std::string& file) {
  std::ifstream in(std::string(FLOPSPACK_GOLDEN_DIR) + "/" + file);
  std::stringstream text;
  text << in.rdbuf();
  Value v = golden::Parse(text.str());
  EXPECT_EQ(v["format"].text, "flopspack-golden-1");
  return v;
}

uint64_t Bits(double d) {
  uint64_t b;
  std::memcpy(&b, &d, sizeof(b));
  return b;
}

// Equal to the last bit (a golden double is exact, not approximate); NaN
// (written "nan": a figure that does not apply) matches NaN.
bool SameDouble(double a, double b) { return (a != a && b != b) || Bits(a) == Bits(b); }
#define EXPECT_SAME_DOUBLE(actual, expected) \
  EXPECT_TRUE(SameDouble(actual, expected)) << (actual) << " vs " << (expected)

void ExpectPlan(const flopspack_plan* plan, const Value& want, const std::string& where) {
  SCOPED_TRACE(where);
  const std::vector<Value>& groups = want["groups"].items;
  ASSERT_EQ(flopspack_plan_group_count(plan), groups.size());
  for (size_t g = 0; g < groups.size(); ++g) {
    const int64_t* items = nullptr;
    const int64_t* tokens = nullptr;
    size_t n = 0;
    ASSERT_EQ(flopspack_plan_group(plan, g, &items, &tokens, &n), FLOPSPACK_OK);
    EXPECT_EQ(std::vector<int64_t>(items, items + n), groups[g]["items"].AsInts()) << "group " << g;
    EXPECT_EQ(std::vector<int64_t>(tokens, tokens + n), groups[g]["tokens"].AsInts());
    const int64_t* offsets = nullptr;
    size_t n_offsets = 0;
    ASSERT_EQ(flopspack_plan_group_offsets(plan, g, &offsets, &n_offsets), FLOPSPACK_OK);
    EXPECT_EQ(std::vector<int64_t>(offsets, offsets + n_offsets), groups[g]["offsets"].AsInts())
        << "group " << g;
    int64_t real = 0, computed = 0;
    double cost = 0;
    ASSERT_EQ(flopspack_plan_group_info(plan, g, &real, &computed, &cost), FLOPSPACK_OK);
    EXPECT_EQ(real, groups[g]["real_tokens"].AsInt());
    EXPECT_EQ(computed, groups[g]["computed_tokens"].AsInt());
    EXPECT_SAME_DOUBLE(cost, groups[g]["cost"].AsDouble());
    size_t rank = 0, slot = 0;
    const bool has_slot = flopspack_plan_group_slot(plan, g, &rank, &slot) == FLOPSPACK_OK;
    EXPECT_EQ(has_slot, groups[g].has("slot"));
    if (has_slot && groups[g].has("slot")) {
      EXPECT_EQ(int64_t(rank), groups[g]["slot"].items[0].AsInt());
      EXPECT_EQ(int64_t(slot), groups[g]["slot"].items[1].AsInt());
    }
  }
  const int64_t* list = nullptr;
  size_t n = 0;
  ASSERT_EQ(flopspack_plan_deferred(plan, &list, &n), FLOPSPACK_OK);
  EXPECT_EQ(std::vector<int64_t>(list, list + n), want["deferred"].AsInts());
  ASSERT_EQ(flopspack_plan_dropped(plan, &list, &n), FLOPSPACK_OK);
  EXPECT_EQ(std::vector<int64_t>(list, list + n), want["dropped"].AsInts());
  struct flopspack_plan_metrics m;
  m.struct_size = sizeof(m);
  ASSERT_EQ(flopspack_plan_metrics(plan, &m), FLOPSPACK_OK);
  const Value& metrics = want["metrics"];
#define GOLDEN_CHECK(field, kind)                                              \
  if (#kind[0] == 'd') {                                                       \
    EXPECT_SAME_DOUBLE(double(m.field), metrics[#field].AsDouble()) << #field; \
  } else {                                                                     \
    EXPECT_EQ(int64_t(m.field), metrics[#field].AsInt()) << #field;            \
  }
  FLOPSPACK_GOLDEN_PLAN_METRICS(GOLDEN_CHECK)
#undef GOLDEN_CHECK
  size_t fields = 0;
#define GOLDEN_COUNT(field, kind) ++fields;
  FLOPSPACK_GOLDEN_PLAN_METRICS(GOLDEN_COUNT)
#undef GOLDEN_COUNT
  EXPECT_EQ(metrics.fields.size(), fields) << "metrics fields in the file vs the struct";
}

TEST(GoldenTest, CostModels) {
  const Value file = Load("cost_models.json");
  ASSERT_GE(file["cases"].items.size(), 8u);
  for (const Value& c : file["cases"].items) {
    SCOPED_TRACE(c["name"].text);
    flopspack_cost_model* model = golden::MakeModel(c["model"]);
    double overhead = 0;
    int additive = -1;
    ASSERT_EQ(flopspack_cost_model_sequence_overhead(model, &overhead), FLOPSPACK_OK);
    ASSERT_EQ(flopspack_cost_model_is_additive(model, &additive), FLOPSPACK_OK);
    EXPECT_SAME_DOUBLE(overhead, c["sequence_overhead"].AsDouble());
    EXPECT_EQ(additive, c["is_additive"].AsInt());
    if (c.has("fit_report")) {
      const Value& spec = c["model"];
      flopspack_fit_options options;
      flopspack_fit_options_init(&options);
      options.terms = static_cast<uint32_t>(spec["terms"].AsInt());
      const std::vector<int64_t> lengths = spec["lengths"].AsInts();
      std::vector<size_t> offsets;
      for (int64_t o : spec["offsets"].AsInts()) offsets.push_back(static_cast<size_t>(o));
      const std::vector<double> seconds = spec["seconds"].AsDoubles();
      flopspack_fit_report r;
      r.struct_size = sizeof(r);
      flopspack_cost_model* again = nullptr;
      ASSERT_EQ(flopspack_cost_model_fit(&options, lengths.data(), offsets.data(), seconds.data(),
                                         seconds.size(), &r, &again),
                FLOPSPACK_OK);
      flopspack_cost_model_destroy(again);
      const Value& want = c["fit_report"];
#define GOLDEN_CHECK(field, kind)                                           \
  if (#kind[0] == 'd') {                                                    \
    EXPECT_SAME_DOUBLE(double(r.field), want[#field].AsDouble()) << #field; \
  } else {                                                                  \
    EXPECT_EQ(int64_t(r.field), want[#field].AsInt()) << #field;            \
  }
      FLOPSPACK_GOLDEN_FIT_REPORT(GOLDEN_CHECK)
#undef GOLDEN_CHECK
    }
    for (const Value& q : c["queries"].items) {
      const std::vector<int64_t> lengths = q["lengths"].AsInts();
      double sequence = 0, padded = 0;
      std::vector<double> per(lengths.size());
      ASSERT_EQ(
          flopspack_cost_model_sequence_cost(model, lengths.data(), lengths.size(), &sequence),
          FLOPSPACK_OK);
      ASSERT_EQ(
          flopspack_cost_model_padded_batch_cost(model, lengths.data(), lengths.size(), &padded),
          FLOPSPACK_OK);
      ASSERT_EQ(
          flopspack_cost_model_document_costs(model, lengths.data(), lengths.size(), per.data()),
          FLOPSPACK_OK);
      EXPECT_SAME_DOUBLE(sequence, q["sequence_cost"].AsDouble());
      EXPECT_SAME_DOUBLE(padded, q["padded_batch_cost"].AsDouble());
      const std::vector<double> want = q["document_costs"].AsDoubles();
      ASSERT_EQ(per.size(), want.size());
      for (size_t i = 0; i < per.size(); ++i) EXPECT_SAME_DOUBLE(per[i], want[i]);
    }
    flopspack_cost_model_destroy(model);
  }
}

TEST(GoldenTest, StreamPacker) {
  const Value file = Load("stream_packer.json");
  ASSERT_GE(file["cases"].items.size(), 3u);
  for (const Value& c : file["cases"].items) {
    SCOPED_TRACE(c["name"].text);
    flopspack_cost_model* model = golden::MakeModel(c["model"]);
    const Value& o = c["options"];
    flopspack_stream_options options;
    flopspack_stream_options_init(&options);
    options.capacity = o["capacity"].AsInt();
    options.window = static_cast<uint64_t>(o["window"].AsInt());
    options.overflow = static_cast<int32_t>(o["overflow"].AsInt());
    options.seed = static_cast<uint64_t>(o["seed"].AsInt());
    flopspack_stream_packer* packer = nullptr;
    ASSERT_EQ(flopspack_stream_packer_create(&options, model, &packer), FLOPSPACK_OK);
    flopspack_cost_model_destroy(model);  // the packer keeps its own reference
    size_t step = 0;
    for (const Value& op : c["script"].items) {
      const std::string& kind = op["op"].text;
      const std::string where = "step " + std::to_string(step++) + " " + kind;
      if (kind == "push") {
        const std::vector<int64_t> lengths = op["lengths"].AsInts();
        ASSERT_EQ(flopspack_stream_packer_push(packer, lengths.data(), lengths.size()),
                  FLOPSPACK_OK);
      } else if (kind == "flush") {
        ASSERT_EQ(flopspack_stream_packer_flush(packer), FLOPSPACK_OK);
      } else if (kind == "ready") {
        size_t ready = 0;
        ASSERT_EQ(flopspack_stream_packer_ready(packer, &ready), FLOPSPACK_OK);
        EXPECT_EQ(int64_t(ready), op["expect"].AsInt()) << where;
      } else if (kind == "take") {
        flopspack_plan* plan = nullptr;
        ASSERT_EQ(flopspack_stream_packer_take(packer, &plan), FLOPSPACK_OK);
        ExpectPlan(plan, op["plan"], where);
        flopspack_plan_destroy(plan);
      } else if (kind == "totals") {
        flopspack_stream_totals t;
        t.struct_size = sizeof(t);
        ASSERT_EQ(flopspack_stream_packer_totals(packer, &t), FLOPSPACK_OK);
#define GOLDEN_CHECK(field, kind) \
  EXPECT_EQ(int64_t(t.field), op["expect"][#field].AsInt()) << #field;
        FLOPSPACK_GOLDEN_STREAM_TOTALS(GOLDEN_CHECK)
#undef GOLDEN_CHECK
      } else {
        FAIL() << "unknown op " << kind;
      }
    }
    flopspack_stream_packer_destroy(packer);
  }
}

TEST(GoldenTest, Buckets) {
  const Value file = Load("buckets.json");
  ASSERT_GE(file["cases"].items.size(), 6u);
  for (const Value& c : file["cases"].items) {
    SCOPED_TRACE(c["name"].text);
    const std::vector<int64_t> lengths = c["lengths"].AsInts();
    if (c["op"].text == "optimize") {
      const size_t k = static_cast<size_t>(c["num_buckets"].AsInt());
      std::vector<int64_t> bounds(k);
      ASSERT_EQ(flopspack_buckets_optimize(lengths.data(), lengths.size(), k, bounds.data()),
                FLOPSPACK_OK);
      EXPECT_EQ(bounds, c["upper_bounds"].AsInts());
      int64_t padding = -1;
      ASSERT_EQ(
          flopspack_buckets_padding(lengths.data(), lengths.size(), bounds.data(), k, &padding),
          FLOPSPACK_OK);
      EXPECT_EQ(padding, c["padding"].AsInt());
      continue;
    }
    ASSERT_EQ(c["op"].text, "sampler");
    const Value& o = c["options"];
    const std::vector<int64_t> explicit_bounds = o["upper_bounds"].AsInts();
    flopspack_bucket_sampler_options options;
    flopspack_bucket_sampler_options_init(&options);
    options.budget_kind = static_cast<int32_t>(o["budget_kind"].AsInt());
    options.num_buckets = static_cast<uint32_t>(o["num_buckets"].AsInt());
    options.drop_last = static_cast<int32_t>(o["drop_last"].AsInt());
    options.upper_bounds = explicit_bounds.empty() ? nullptr : explicit_bounds.data();
    options.num_upper_bounds = explicit_bounds.size();
    options.max_padded_tokens = o["max_padded_tokens"].AsInt();
    options.max_batch_cost = o["max_batch_cost"].AsDouble();
    options.num_ranks = static_cast<uint64_t>(o["num_ranks"].AsInt());
    options.accumulation_steps = static_cast<uint64_t>(o["accumulation_steps"].AsInt());
    options.seed = static_cast<uint64_t>(o["seed"].AsInt());
    flopspack_cost_model* model = golden::MakeModel(c["model"]);
    flopspack_bucket_sampler* sampler = nullptr;
    ASSERT_EQ(
        flopspack_bucket_sampler_create(&options, model, lengths.data(), lengths.size(), &sampler),
        FLOPSPACK_OK)
        << flopspack_last_error_message();
    flopspack_cost_model_destroy(model);
    uint64_t steps = 0;
    ASSERT_EQ(flopspack_bucket_sampler_steps_per_epoch(sampler, &steps), FLOPSPACK_OK);
    EXPECT_EQ(int64_t(steps), c["steps_per_epoch"].AsInt());
    const int64_t* bounds = nullptr;
    size_t num_bounds = 0;
    ASSERT_EQ(flopspack_bucket_sampler_upper_bounds(sampler, &bounds, &num_bounds), FLOPSPACK_OK);
    EXPECT_EQ(std::vector<int64_t>(bounds, bounds + num_bounds), c["upper_bounds"].AsInts());
    for (const Value& e : c["epochs"].items) {
      flopspack_plan* plan = nullptr;
      ASSERT_EQ(flopspack_bucket_sampler_epoch(sampler, uint64_t(e["epoch"].AsInt()), &plan),
                FLOPSPACK_OK);
      ExpectPlan(plan, e["plan"], "epoch " + std::to_string(e["epoch"].AsInt()));
      const std::vector<double> want_tokens = e["token_distances"].AsDoubles();
      const std::vector<double> want_samples = e["sample_distances"].AsDoubles();
      std::vector<double> tokens(want_tokens.size()), samples(want_samples.size());
      size_t n = 0;
      ASSERT_EQ(flopspack_bucket_sampler_step_diversity(sampler, plan, tokens.data(),
                                                        samples.data(), tokens.size(), &n),
                FLOPSPACK_OK);
      ASSERT_EQ(n, want_tokens.size());
      for (size_t i = 0; i < n; ++i) {
        EXPECT_SAME_DOUBLE(tokens[i], want_tokens[i]);
        EXPECT_SAME_DOUBLE(samples[i], want_samples[i]);
      }
      flopspack_plan_destroy(plan);
    }
    for (const Value& st : c["steps"].items) {
      flopspack_plan* plan = nullptr;
      ASSERT_EQ(flopspack_bucket_sampler_step(sampler, uint64_t(st["epoch"].AsInt()),
                                              uint64_t(st["step"].AsInt()), &plan),
                FLOPSPACK_OK);
      ExpectPlan(plan, st["plan"], "step " + std::to_string(st["step"].AsInt()));
      flopspack_plan_destroy(plan);
    }
    flopspack_bucket_sampler_destroy(sampler);
  }
}

flopspack_step_options StepOptions(const Value& o) {
  flopspack_step_options options;
  flopspack_step_options_init(&options);
  options.num_ranks = static_cast<uint32_t>(o["num_ranks"].AsInt());
  options.microbatches_per_rank = static_cast<uint32_t>(o["microbatches_per_rank"].AsInt());
  options.algorithm = static_cast<int32_t>(o["algorithm"].AsInt());
  options.max_tokens_per_microbatch = o["max_tokens_per_microbatch"].AsInt();
  options.seed = static_cast<uint64_t>(o["seed"].AsInt());
  options.ordering = static_cast<int32_t>(o["ordering"].AsInt());
  options.overflow = static_cast<int32_t>(o["overflow"].AsInt());
  options.sync = static_cast<int32_t>(o["sync"].AsInt());
  options.pipeline_stages = static_cast<uint32_t>(o["pipeline_stages"].AsInt());
  options.pipeline_schedule = static_cast<int32_t>(o["pipeline_schedule"].AsInt());
  options.context_parallel_size = static_cast<uint32_t>(o["context_parallel_size"].AsInt());
  options.context_parallel_layout = static_cast<int32_t>(o["context_parallel_layout"].AsInt());
  return options;
}

TEST(GoldenTest, StepPlanner) {
  const Value file = Load("step_planner.json");
  ASSERT_GE(file["cases"].items.size(), 8u);
  for (const Value& c : file["cases"].items) {
    SCOPED_TRACE(c["name"].text);
    flopspack_cost_model* model = golden::MakeModel(c["model"]);
    const flopspack_step_options options = StepOptions(c["options"]);
    if (c["op"].text == "plan_step") {
      const std::vector<int64_t> lengths = c["lengths"].AsInts();
      flopspack_plan* plan = nullptr;
      ASSERT_EQ(flopspack_plan_step(&options, model, lengths.data(), lengths.size(), &plan),
                FLOPSPACK_OK)
          << flopspack_last_error_message();
      ExpectPlan(plan, c["plan"], "plan_step");
      flopspack_plan_destroy(plan);
      flopspack_cost_model_destroy(model);
      continue;
    }
    if (c["op"].text == "plan_step_with_extra_costs") {
      const std::vector<int64_t> lengths = c["lengths"].AsInts();
      const std::vector<double> extra = c["extra_costs"].AsDoubles();
      flopspack_plan* plan = nullptr;
      ASSERT_EQ(flopspack_plan_step_with_extra_costs(&options, model, lengths.data(), extra.data(),
                                                     lengths.size(), &plan),
                FLOPSPACK_OK)
          << flopspack_last_error_message();
      ExpectPlan(plan, c["plan"], "plan_step_with_extra_costs");
      flopspack_plan_destroy(plan);
      flopspack_cost_model_destroy(model);
      continue;
    }
    ASSERT_EQ(c["op"].text, "planner");
    const Value& p = c["planner_options"];
    flopspack_step_planner_options po;
    flopspack_step_planner_options_init(&po);
    po.tokens_per_step = p["tokens_per_step"].AsInt();
    po.max_defer_steps = static_cast<uint32_t>(p["max_defer_steps"].AsInt());
    po.outlier_min_tokens = p["outlier_min_tokens"].AsInt();
    po.max_outliers_per_step = p["max_outliers_per_step"].AsInt();
    flopspack_step_planner* planner = nullptr;
    ASSERT_EQ(flopspack_step_planner_create(&options, &po, model, &planner), FLOPSPACK_OK)
        << flopspack_last_error_message();
    flopspack_cost_model_destroy(model);  // the planner keeps its own reference
    size_t step = 0;
    for (const Value& op : c["script"].items) {
      const std::string where = "op " + std::to_string(step++) + " " + op["op"].text;
      if (op["op"].text == "push") {
        const std::vector<int64_t> lengths = op["lengths"].AsInts();
        int64_t first = -1;
        ASSERT_EQ(flopspack_step_planner_push(planner, lengths.data(), lengths.size(), &first),
                  FLOPSPACK_OK);
        EXPECT_EQ(first, op["first_id"].AsInt()) << where;
      } else if (op["op"].text == "pending") {
        uint64_t docs = 0, steps = 0;
        int64_t tokens = 0;
        ASSERT_EQ(flopspack_step_planner_pending(planner, &docs, &tokens, &steps), FLOPSPACK_OK);
        EXPECT_EQ(int64_t(docs), op["expect"]["documents"].AsInt()) << where;
        EXPECT_EQ(tokens, op["expect"]["tokens"].AsInt()) << where;
        EXPECT_EQ(int64_t(steps), op["expect"]["steps"].AsInt()) << where;
      } else if (op["op"].text == "next") {
        flopspack_plan* plan = nullptr;
        ASSERT_EQ(flopspack_step_planner_next(planner, &plan), FLOPSPACK_OK);
        ExpectPlan(plan, op["plan"], where);
        flopspack_plan_destroy(plan);
      } else {
        FAIL() << "unknown op " << op["op"].text;
      }
    }
    flopspack_step_planner_destroy(planner);
  }
}

TEST(GoldenTest, PackAndBalance) {
  const Value file = Load("pack_balance.json");
  ASSERT_GE(file["cases"].items.size(), 10u);
  for (const Value& c : file["cases"].items) {
    SCOPED_TRACE(c["name"].text);
    const Value& o = c["options"];
    flopspack_plan* plan = nullptr;
    if (c["op"].text == "pack") {
      flopspack_cost_model* model = golden::MakeModel(c["model"]);
      flopspack_pack_options options;
      flopspack_pack_options_init(&options);
      options.algorithm = static_cast<int32_t>(o["algorithm"].AsInt());
      options.capacity = o["capacity"].AsInt();
      options.overflow = static_cast<int32_t>(o["overflow"].AsInt());
      options.seed = static_cast<uint64_t>(o["seed"].AsInt());
      options.cost_model = model;
      const std::vector<int64_t> lengths = c["lengths"].AsInts();
      ASSERT_EQ(flopspack_pack(&options, lengths.data(), lengths.size(), &plan), FLOPSPACK_OK)
          << flopspack_last_error_message();
      flopspack_cost_model_destroy(model);
    } else {
      ASSERT_EQ(c["op"].text, "balance");
      flopspack_balance_options options;
      flopspack_balance_options_init(&options);
      options.algorithm = static_cast<int32_t>(o["algorithm"].AsInt());
      options.num_groups = o["num_groups"].AsInt();
      options.equal_count = static_cast<int32_t>(o["equal_count"].AsInt());
      options.refine = static_cast<int32_t>(o["refine"].AsInt());
      options.max_tokens_per_group = o["max_tokens_per_group"].AsInt();
      options.seed = static_cast<uint64_t>(o["seed"].AsInt());
      const std::vector<double> costs = c["costs"].AsDoubles();
      const std::vector<int64_t> tokens = c["tokens"].AsInts();
      ASSERT_EQ(flopspack_balance(&options, costs.data(), tokens.empty() ? nullptr : tokens.data(),
                                  costs.size(), &plan),
                FLOPSPACK_OK)
          << flopspack_last_error_message();
    }
    ExpectPlan(plan, c["plan"], c["op"].text);
    flopspack_plan_destroy(plan);
  }
}

// Compares an output struct with the file, field by field.
#define GOLDEN_CHECK_FIELD(field, kind)                                     \
  if (#kind[0] == 'd') {                                                    \
    EXPECT_SAME_DOUBLE(double(v.field), want[#field].AsDouble()) << #field; \
  } else {                                                                  \
    EXPECT_EQ(int64_t(v.field), want[#field].AsInt()) << #field;            \
  }

void ExpectStatsSummary(const flopspack_stats* stats, const Value& want) {
  flopspack_stats_summary v;
  v.struct_size = sizeof(v);
  ASSERT_EQ(flopspack_stats_summarize(stats, &v), FLOPSPACK_OK);
  FLOPSPACK_GOLDEN_STATS_SUMMARY(GOLDEN_CHECK_FIELD)
}

TEST(GoldenTest, StatsAndSimulate) {
  const Value file = Load("stats_simulate.json");
  ASSERT_GE(file["cases"].items.size(), 5u);
  for (const Value& c : file["cases"].items) {
    SCOPED_TRACE(c["name"].text);
    flopspack_cost_model* model = golden::MakeModel(c["model"]);
    const std::vector<int64_t> lengths = c["lengths"].AsInts();
    if (c["op"].text == "stats") {
      const std::vector<int64_t> other = c["other"].AsInts();
      flopspack_stats* stats = nullptr;
      flopspack_stats* b = nullptr;
      ASSERT_EQ(flopspack_stats_create(lengths.data(), lengths.size(), model, &stats),
                FLOPSPACK_OK);
      ASSERT_EQ(flopspack_stats_create(other.data(), other.size(), model, &b), FLOPSPACK_OK);
      ExpectStatsSummary(stats, c["summary"]);
      const std::vector<double> levels = c["levels"].AsDoubles();
      for (size_t i = 0; i < levels.size(); ++i) {
        const std::vector<double> want = c["quantiles"].items[i].AsDoubles();
        for (size_t weighting = 0; weighting < want.size(); ++weighting) {
          double q = 0;
          ASSERT_EQ(flopspack_stats_weighted_quantile(stats, int(weighting), levels[i], &q),
                    FLOPSPACK_OK);
          EXPECT_SAME_DOUBLE(q, want[weighting]);
        }
      }
      const std::vector<int64_t> at = c["cdf_at"].AsInts();
      for (size_t i = 0; i < at.size(); ++i) {
        const std::vector<double> want = c["cdf"].items[i].AsDoubles();
        for (size_t weighting = 0; weighting < want.size(); ++weighting) {
          double x = 0;
          ASSERT_EQ(flopspack_stats_cdf(stats, int(weighting), at[i], &x), FLOPSPACK_OK);
          EXPECT_SAME_DOUBLE(x, want[weighting]);
        }
      }
      for (const Value& h : c["histograms"].items) {
        flopspack_histogram_options o;
        flopspack_histogram_options_init(&o);
        o.binning = static_cast<int32_t>(h["binning"].AsInt());
        o.weighting = static_cast<int32_t>(h["weighting"].AsInt());
        o.normalized = static_cast<int32_t>(h["normalized"].AsInt());
        const std::vector<int64_t> want_edges = h["upper_edges"].AsInts();
        const std::vector<double> want_weights = h["weights"].AsDoubles();
        std::vector<int64_t> edges(want_edges.size());
        std::vector<double> weights(want_weights.size());
        size_t bins = 0;
        ASSERT_EQ(
            flopspack_stats_histogram(stats, &o, edges.data(), weights.data(), edges.size(), &bins),
            FLOPSPACK_OK);
        EXPECT_EQ(bins, want_edges.size());
        EXPECT_EQ(edges, want_edges);
        for (size_t i = 0; i < weights.size(); ++i) EXPECT_SAME_DOUBLE(weights[i], want_weights[i]);
      }
      for (const Value& want : c["tails"].items) {
        flopspack_stats_tail v;
        v.struct_size = sizeof(v);
        ASSERT_EQ(flopspack_stats_tail_share(stats, want["threshold"].AsInt(), &v), FLOPSPACK_OK);
        FLOPSPACK_GOLDEN_STATS_TAIL(GOLDEN_CHECK_FIELD)
      }
      const std::vector<int64_t> draws = c["draws"].AsInts();
      const std::vector<double> maxima = c["expected_max"].AsDoubles();
      for (size_t i = 0; i < draws.size(); ++i) {
        double m = 0;
        ASSERT_EQ(flopspack_stats_expected_max(stats, uint64_t(draws[i]), &m), FLOPSPACK_OK);
        EXPECT_SAME_DOUBLE(m, maxima[i]);
      }
      for (size_t weighting = 0; weighting < c["ks"].items.size(); ++weighting) {
        const Value& want = c["ks"].items[weighting];
        double d = 0;
        int64_t length = 0;
        ASSERT_EQ(flopspack_stats_ks_distance_weighted(stats, b, int(weighting), &d, &length),
                  FLOPSPACK_OK);
        EXPECT_SAME_DOUBLE(d, want.items[0].AsDouble());
        EXPECT_EQ(length, want.items[1].AsInt());
      }
      {
        flopspack_stats_comparison v;
        v.struct_size = sizeof(v);
        ASSERT_EQ(flopspack_stats_compare(stats, b, &v), FLOPSPACK_OK);
        const Value& want = c["comparison"];
        FLOPSPACK_GOLDEN_STATS_COMPARISON(GOLDEN_CHECK_FIELD)
        const std::vector<double> want_levels = want["levels"].AsDoubles();
        for (size_t i = 0; i < FLOPSPACK_STATS_COMPARE_LEVELS; ++i) {
          EXPECT_SAME_DOUBLE(v.levels[i], want_levels[i]);
          EXPECT_EQ(v.quantiles_a[i], want["quantiles_a"].items[i].AsInt());
          EXPECT_EQ(v.quantiles_b[i], want["quantiles_b"].items[i].AsInt());
        }
      }
      const std::vector<int64_t> want_lengths = c["entries"]["lengths"].AsInts();
      std::vector<int64_t> distinct(want_lengths.size());
      std::vector<uint64_t> counts(want_lengths.size());
      size_t n = 0;
      ASSERT_EQ(flopspack_stats_entries(stats, distinct.data(), counts.data(), distinct.size(), &n),
                FLOPSPACK_OK);
      EXPECT_EQ(distinct, want_lengths);
      for (size_t i = 0; i < n; ++i) {
        EXPECT_EQ(int64_t(counts[i]), c["entries"]["counts"].items[i].AsInt());
      }
      flopspack_stats_destroy(stats);
      flopspack_stats_destroy(b);
      flopspack_cost_model_destroy(model);
      continue;
    }
    ASSERT_EQ(c["op"].text, "simulate");
    const Value& o = c["options"];
    flopspack_simulate_options options;
    flopspack_simulate_options_init(&options);
    options.policy = static_cast<int32_t>(o["policy"].AsInt());
    options.num_ranks = uint64_t(o["num_ranks"].AsInt());
    options.microbatches_per_rank = uint64_t(o["microbatches_per_rank"].AsInt());
    options.tokens_per_microbatch = o["tokens_per_microbatch"].AsInt();
    options.max_tokens_per_microbatch = o["max_tokens_per_microbatch"].AsInt();
    options.num_steps = uint64_t(o["num_steps"].AsInt());
    options.seed = uint64_t(o["seed"].AsInt());
    options.record_steps = 1;
    flopspack_simulate_result* result = nullptr;
    ASSERT_EQ(flopspack_simulate(lengths.data(), lengths.size(), model, &options, &result),
              FLOPSPACK_OK)
        << flopspack_last_error_message();
    {
      flopspack_simulate_summary v;
      v.struct_size = sizeof(v);
      ASSERT_EQ(flopspack_simulate_result_summary(result, &v), FLOPSPACK_OK);
      const Value& want = c["summary"];
      FLOPSPACK_GOLDEN_SIMULATE_SUMMARY(GOLDEN_CHECK_FIELD)
    }
    for (size_t series = 0; series < c["series"].items.size(); ++series) {
      const std::vector<double> want = c["series"].items[series].AsDoubles();
      std::vector<double> values(want.size());
      size_t n = 0;
      ASSERT_EQ(
          flopspack_simulate_result_series(result, int(series), values.data(), values.size(), &n),
          FLOPSPACK_OK);
      ASSERT_EQ(n, want.size());
      for (size_t i = 0; i < n; ++i) EXPECT_SAME_DOUBLE(values[i], want[i]);
    }
    flopspack_stats* pieces = nullptr;
    ASSERT_EQ(flopspack_simulate_result_pieces(result, &pieces), FLOPSPACK_OK);
    ExpectStatsSummary(pieces, c["pieces_summary"]);
    flopspack_stats_destroy(pieces);
    const Value& sweep = c["sweep"];
    std::vector<uint64_t> counts;
    for (int64_t k : sweep["rank_counts"].AsInts()) counts.push_back(uint64_t(k));
    std::vector<double> sampled(counts.size()), predicted(counts.size()), relative(counts.size());
    ASSERT_EQ(
        flopspack_simulate_sweep(lengths.data(), lengths.size(), model, &options, counts.data(),
                                 counts.size(), sampled.data(), predicted.data(), relative.data()),
        FLOPSPACK_OK);
    for (size_t i = 0; i < counts.size(); ++i) {
      EXPECT_SAME_DOUBLE(sampled[i], sweep["sampled_efficiency"].items[i].AsDouble());
      EXPECT_SAME_DOUBLE(predicted[i], sweep["predicted_efficiency"].items[i].AsDouble());
      EXPECT_SAME_DOUBLE(relative[i], sweep["relative_throughput"].items[i].AsDouble());
    }
    flopspack_simulate_result_destroy(result);
    flopspack_cost_model_destroy(model);
  }
}
#undef GOLDEN_CHECK_FIELD

TEST(GoldenTest, Seeds) {
  const Value file = Load("seeds.json");
  ASSERT_GE(file["cases"].items.size(), 25u);
  for (const Value& c : file["cases"].items) {
    // uint64 values are decimal strings (JSON integers stop at int64).
    const uint64_t seed = std::stoull(c["seed"].text);
    const uint64_t stream = std::stoull(c["stream"].text);
    EXPECT_EQ(flopspack_derive_seed(seed, stream), std::stoull(c["derived"].text))
        << seed << " " << stream;
  }
}

}  // namespace

namespace {

TEST(GoldenTest, ContextParallel) {
  const Value file = Load("context_parallel.json");
  ASSERT_GE(file["cases"].items.size(), 4u);
  for (const Value& c : file["cases"].items) {
    SCOPED_TRACE(c["name"].text);
    ASSERT_EQ(c["op"].text, "shard_context_parallel");
    flopspack_cost_model* model = golden::MakeModel(c["model"]);
    const flopspack_step_options options = StepOptions(c["options"]);
    const std::vector<int64_t> lengths = c["lengths"].AsInts();
    flopspack_plan* plan = nullptr;
    ASSERT_EQ(flopspack_plan_step(&options, model, lengths.data(), lengths.size(), &plan),
              FLOPSPACK_OK);
    const auto cp = static_cast<uint64_t>(c["context_parallel_size"].AsInt());
    flopspack_cp_shard* shard = nullptr;
    ASSERT_EQ(flopspack_plan_shard_context_parallel(plan, model, cp,
                                                    static_cast<int>(c["layout"].AsInt()), &shard),
              FLOPSPACK_OK)
        << flopspack_last_error_message();
    const std::vector<Value>& groups = c["groups"].items;
    ASSERT_EQ(flopspack_cp_shard_group_count(shard), groups.size());
    for (size_t g = 0; g < groups.size(); ++g) {
      int layout = -1;
      double balance = 0;
      ASSERT_EQ(flopspack_cp_shard_group_layout(shard, g, &layout, &balance), FLOPSPACK_OK);
      EXPECT_EQ(layout, groups[g]["layout"].AsInt()) << "group " << g;
      EXPECT_SAME_DOUBLE(balance, groups[g]["balance"].AsDouble());
      const std::vector<Value>& ranks = groups[g]["ranks"].items;
      ASSERT_EQ(ranks.size(), cp);
      for (size_t r = 0; r < cp; ++r) {
        const int64_t* items = nullptr;
        const int64_t* offsets = nullptr;
        const int64_t* chunk_lengths = nullptr;
        size_t n = 0;
        ASSERT_EQ(flopspack_cp_shard_chunks(shard, g, r, &items, &offsets, &chunk_lengths, &n),
                  FLOPSPACK_OK);
        EXPECT_EQ(std::vector<int64_t>(items, items + n), ranks[r]["items"].AsInts());
        EXPECT_EQ(std::vector<int64_t>(offsets, offsets + n), ranks[r]["offsets"].AsInts());
        EXPECT_EQ(std::vector<int64_t>(chunk_lengths, chunk_lengths + n),
                  ranks[r]["lengths"].AsInts());
        double cost = 0;
        int64_t kv = 0;
        ASSERT_EQ(flopspack_cp_shard_rank_cost(shard, g, r, &cost, &kv), FLOPSPACK_OK);
        EXPECT_SAME_DOUBLE(cost, ranks[r]["cost"].AsDouble());
        EXPECT_EQ(kv, ranks[r]["kv_tokens"].AsInt());
      }
    }
    flopspack_cp_metrics m;
    m.struct_size = sizeof(m);
    ASSERT_EQ(flopspack_cp_shard_metrics(shard, &m), FLOPSPACK_OK);
    const Value& metrics = c["metrics"];
#define GOLDEN_CHECK(field, kind)                                              \
  if (#kind[0] == 'd') {                                                       \
    EXPECT_SAME_DOUBLE(double(m.field), metrics[#field].AsDouble()) << #field; \
  } else {                                                                     \
    EXPECT_EQ(int64_t(m.field), metrics[#field].AsInt()) << #field;            \
  }
    FLOPSPACK_GOLDEN_CP_METRICS(GOLDEN_CHECK)
#undef GOLDEN_CHECK
    flopspack_cp_shard_destroy(shard);
    flopspack_plan_destroy(plan);
    flopspack_cost_model_destroy(model);
  }
}

}  // namespace
