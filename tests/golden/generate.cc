// Writes the golden vectors (tests/golden/*.json) from the C++ core through
// the C ABI. Run once when an algorithm changes on purpose, review the diff,
// commit:  build/tests/golden/golden_generate tests/golden
// Every binding's tests (C++, Python, Go, Rust) read these files and must
// reproduce every assignment and every metric to the last bit. The inputs
// are written into the files, so readers need nothing but the JSON.
#include <array>
#include <cstdint>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "golden_io.h"

namespace {

using golden::Writer;

void Check(flopspack_status status, const char* what) {
  if (status != FLOPSPACK_OK) {
    throw std::runtime_error(std::string(what) + ": " + flopspack_last_error_message());
  }
}

// Deterministic pseudo-random lengths in [1, max] (64-bit LCG, top bits);
// the values are written into the files, so this is not part of the format.
std::vector<int64_t> Lengths(size_t n, int64_t max, uint64_t seed) {
  std::vector<int64_t> out;
  uint64_t x = seed * 0x9E3779B97F4A7C15ULL + 1;
  for (size_t i = 0; i < n; ++i) {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    out.push_back(1 + static_cast<int64_t>((x >> 33) % static_cast<uint64_t>(max)));
  }
  return out;
}

std::string Transformer(int64_t layers, int64_t hidden, int64_t heads, int64_t kv_heads,
                        int64_t head_dim, int64_t ffn, int64_t vocab, int gated, int causal,
                        int recompute, int span) {
  return "{\"kind\": \"transformer\", \"num_layers\": " + std::to_string(layers) +
         ", \"hidden_size\": " + std::to_string(hidden) +
         ", \"num_attention_heads\": " + std::to_string(heads) +
         ", \"num_key_value_heads\": " + std::to_string(kv_heads) +
         ", \"head_dim\": " + std::to_string(head_dim) +
         ", \"intermediate_size\": " + std::to_string(ffn) +
         ", \"vocab_size\": " + std::to_string(vocab) +
         ", \"gated_mlp\": " + std::to_string(gated) + ", \"causal\": " + std::to_string(causal) +
         ", \"recompute\": " + std::to_string(recompute) +
         ", \"attention_span\": " + std::to_string(span) + "}";
}

std::string Polynomial(double s, double d, double l, double q) {
  Writer w;
  w.Raw("{\"kind\": \"polynomial\", \"per_sequence\": ");
  w.Double(s);
  w.Raw(", \"per_document\": ");
  w.Double(d);
  w.Raw(", \"linear\": ");
  w.Double(l);
  w.Raw(", \"quadratic\": ");
  w.Double(q);
  w.Raw("}");
  return w.out;
}

// A fit spec: samples of 1-4 documents whose "measured" time is a known
// polynomial plus a deterministic wobble, so the fit has residuals.
std::string Fit(uint32_t terms, size_t samples, uint64_t seed) {
  std::vector<int64_t> lengths;
  std::vector<int64_t> offsets = {0};
  std::vector<double> seconds;
  std::vector<int64_t> pool = Lengths(samples * 4, 16384, seed);
  size_t next = 0;
  for (size_t i = 0; i < samples; ++i) {
    const size_t docs = 1 + i % 4;
    double t = 0.003;
    for (size_t j = 0; j < docs; ++j) {
      const double l = static_cast<double>(pool[next]);
      lengths.push_back(pool[next++]);
      t += 1e-5 + 2e-7 * l + 3e-12 * l * l;
    }
    t *= 1.0 + 0.01 * static_cast<double>(static_cast<int>(i % 7) - 3);
    seconds.push_back(t);
    offsets.push_back(static_cast<int64_t>(lengths.size()));
  }
  Writer w;
  w.Raw("{\"kind\": \"fit\", \"terms\": " + std::to_string(terms) + ", \"lengths\": ");
  w.Ints(lengths);
  w.Raw(", \"offsets\": ");
  w.Ints(offsets);
  w.Raw(", \"seconds\": ");
  w.Doubles(seconds);
  w.Raw("}");
  return w.out;
}

void WriteCostCase(Writer& w, const std::string& name, const std::string& spec_text,
                   const std::vector<std::vector<int64_t>>& queries) {
  const golden::Value spec = golden::Parse(spec_text);
  flopspack_cost_model* model = golden::MakeModel(spec);
  w.Raw("    {\"name\": ");
  w.Str(name);
  w.Raw(",\n     \"model\": " + spec_text);
  double overhead = 0;
  int additive = 0;
  Check(flopspack_cost_model_sequence_overhead(model, &overhead), "overhead");
  Check(flopspack_cost_model_is_additive(model, &additive), "additive");
  w.Raw(",\n     \"sequence_overhead\": ");
  w.Double(overhead);
  w.Raw(", \"is_additive\": ");
  w.Int(additive);
  if (spec["kind"].text == "fit") {
    // The report, from a second fit of the same samples.
    flopspack_fit_options options;
    flopspack_fit_options_init(&options);
    options.terms = static_cast<uint32_t>(spec["terms"].AsInt());
    const std::vector<int64_t> lengths = spec["lengths"].AsInts();
    std::vector<size_t> offsets;
    for (int64_t o : spec["offsets"].AsInts()) offsets.push_back(static_cast<size_t>(o));
    const std::vector<double> seconds = spec["seconds"].AsDoubles();
    flopspack_fit_report report;
    report.struct_size = sizeof(report);
    flopspack_cost_model* again = nullptr;
    Check(flopspack_cost_model_fit(&options, lengths.data(), offsets.data(), seconds.data(),
                                   seconds.size(), &report, &again),
          "fit");
    flopspack_cost_model_destroy(again);
    w.Raw(",\n     \"fit_report\": {");
    const char* sep = "";
#define GOLDEN_WRITE(field, kind)   \
  w.Raw(sep);                       \
  sep = ", ";                       \
  w.Key(#field);                    \
  if (#kind[0] == 'd') {            \
    w.Double(double(report.field)); \
  } else {                          \
    w.UInt(uint64_t(report.field)); \
  }
    FLOPSPACK_GOLDEN_FIT_REPORT(GOLDEN_WRITE)
#undef GOLDEN_WRITE
    w.Raw("}");
  }
  w.Raw(",\n     \"queries\": [");
  for (size_t q = 0; q < queries.size(); ++q) {
    const std::vector<int64_t>& lengths = queries[q];
    double sequence = 0, padded = 0;
    std::vector<double> per(lengths.size());
    Check(flopspack_cost_model_sequence_cost(model, lengths.data(), lengths.size(), &sequence),
          "sequence_cost");
    Check(flopspack_cost_model_document_costs(model, lengths.data(), lengths.size(), per.data()),
          "document_costs");
    Check(flopspack_cost_model_padded_batch_cost(model, lengths.data(), lengths.size(), &padded),
          "padded_batch_cost");
    w.Raw(q ? ",\n       {" : "\n       {");
    w.Key("lengths");
    w.Ints(lengths);
    w.Raw(", ");
    w.Key("sequence_cost");
    w.Double(sequence);
    w.Raw(", ");
    w.Key("padded_batch_cost");
    w.Double(padded);
    w.Raw(", ");
    w.Key("document_costs");
    w.Doubles(per);
    w.Raw("}");
  }
  w.Raw("]}");
  flopspack_cost_model_destroy(model);
}

void WritePlan(Writer& w, const flopspack_plan* plan, const std::string& indent) {
  const size_t groups = flopspack_plan_group_count(plan);
  w.Raw("{\"groups\": [");
  for (size_t g = 0; g < groups; ++g) {
    const int64_t* items = nullptr;
    const int64_t* tokens = nullptr;
    size_t n = 0;
    Check(flopspack_plan_group(plan, g, &items, &tokens, &n), "group");
    int64_t real = 0, computed = 0;
    double cost = 0;
    Check(flopspack_plan_group_info(plan, g, &real, &computed, &cost), "group_info");
    w.Raw(g ? ",\n" + indent + "  {" : "\n" + indent + "  {");
    w.Key("items");
    w.Ints(std::vector<int64_t>(items, items + n));
    w.Raw(", ");
    w.Key("tokens");
    w.Ints(std::vector<int64_t>(tokens, tokens + n));
    const int64_t* offsets = nullptr;
    size_t n_offsets = 0;
    Check(flopspack_plan_group_offsets(plan, g, &offsets, &n_offsets), "group_offsets");
    w.Raw(", ");
    w.Key("offsets");
    w.Ints(std::vector<int64_t>(offsets, offsets + n_offsets));
    w.Raw(", ");
    w.Key("real_tokens");
    w.Int(real);
    w.Raw(", ");
    w.Key("computed_tokens");
    w.Int(computed);
    w.Raw(", ");
    w.Key("cost");
    w.Double(cost);
    size_t rank = 0, slot = 0;
    if (flopspack_plan_group_slot(plan, g, &rank, &slot) == FLOPSPACK_OK) {
      w.Raw(", ");
      w.Key("slot");
      w.Ints(std::vector<uint64_t>{rank, slot});
    }
    w.Raw("}");
  }
  w.Raw("],\n" + indent + " ");
  const int64_t* list = nullptr;
  size_t n = 0;
  Check(flopspack_plan_deferred(plan, &list, &n), "deferred");
  w.Key("deferred");
  w.Ints(std::vector<int64_t>(list, list + n));
  w.Raw(", ");
  Check(flopspack_plan_dropped(plan, &list, &n), "dropped");
  w.Key("dropped");
  w.Ints(std::vector<int64_t>(list, list + n));
  struct flopspack_plan_metrics m;
  m.struct_size = sizeof(m);
  Check(flopspack_plan_metrics(plan, &m), "metrics");
  w.Raw(",\n" + indent + " \"metrics\": {");
  const char* sep = "";
#define GOLDEN_WRITE(field, kind) \
  w.Raw(sep);                     \
  sep = ", ";                     \
  w.Key(#field);                  \
  if (#kind[0] == 'd') {          \
    w.Double(double(m.field));    \
  } else if (#kind[0] == 'i') {   \
    w.Int(int64_t(m.field));      \
  } else {                        \
    w.UInt(uint64_t(m.field));    \
  }
  FLOPSPACK_GOLDEN_PLAN_METRICS(GOLDEN_WRITE)
#undef GOLDEN_WRITE
  w.Raw("}}");
}

// A streaming packer case: push chunks, take after each, flush, take, and
// record ready counts and totals along the way.
void WriteStreamCase(Writer& w, const std::string& name, const std::string& model_text,
                     int64_t capacity, uint64_t window, int overflow, uint64_t seed,
                     const std::vector<int64_t>& lengths, size_t chunk) {
  const golden::Value model_spec = golden::Parse(model_text);
  flopspack_cost_model* model = golden::MakeModel(model_spec);
  flopspack_stream_options options;
  flopspack_stream_options_init(&options);
  options.capacity = capacity;
  options.window = window;
  options.overflow = overflow;
  options.seed = seed;
  flopspack_stream_packer* packer = nullptr;
  Check(flopspack_stream_packer_create(&options, model, &packer), "stream create");
  w.Raw("    {\"name\": ");
  w.Str(name);
  w.Raw(",\n     \"model\": " + model_text +
        ",\n     \"options\": {\"capacity\": " + std::to_string(capacity) +
        ", \"window\": " + std::to_string(window) + ", \"overflow\": " + std::to_string(overflow) +
        ", \"seed\": " + std::to_string(seed) + "},\n     \"script\": [");
  const char* sep = "\n";
  auto take = [&] {
    size_t ready = 0;
    Check(flopspack_stream_packer_ready(packer, &ready), "ready");
    w.Raw(sep);
    w.Raw("      {\"op\": \"ready\", \"expect\": " + std::to_string(ready) + "},\n");
    flopspack_plan* plan = nullptr;
    Check(flopspack_stream_packer_take(packer, &plan), "take");
    w.Raw("      {\"op\": \"take\", \"plan\": ");
    WritePlan(w, plan, "        ");
    w.Raw("}");
    sep = ",\n";
    flopspack_plan_destroy(plan);
  };
  for (size_t i = 0; i < lengths.size(); i += chunk) {
    const size_t n = std::min(chunk, lengths.size() - i);
    Check(flopspack_stream_packer_push(packer, lengths.data() + i, n), "push");
    w.Raw(sep);
    w.Raw("      {\"op\": \"push\", \"lengths\": ");
    w.Ints(std::vector<int64_t>(lengths.begin() + i, lengths.begin() + i + n));
    w.Raw("}");
    sep = ",\n";
    take();
  }
  Check(flopspack_stream_packer_flush(packer), "flush");
  w.Raw(",\n      {\"op\": \"flush\"}");
  take();
  flopspack_stream_totals totals;
  totals.struct_size = sizeof(totals);
  Check(flopspack_stream_packer_totals(packer, &totals), "totals");
  w.Raw(",\n      {\"op\": \"totals\", \"expect\": {");
  const char* fsep = "";
#define GOLDEN_WRITE(field, kind)   \
  w.Raw(fsep);                      \
  fsep = ", ";                      \
  w.Key(#field);                    \
  if (#kind[0] == 'i') {            \
    w.Int(int64_t(totals.field));   \
  } else {                          \
    w.UInt(uint64_t(totals.field)); \
  }
  FLOPSPACK_GOLDEN_STREAM_TOTALS(GOLDEN_WRITE)
#undef GOLDEN_WRITE
  w.Raw("}}]}");
  flopspack_stream_packer_destroy(packer);
  flopspack_cost_model_destroy(model);
}

// Bucket boundaries: optimal bounds and their padding.
void WriteOptimizeCase(Writer& w, const std::string& name, const std::vector<int64_t>& lengths,
                       size_t num_buckets) {
  std::vector<int64_t> bounds(num_buckets);
  Check(flopspack_buckets_optimize(lengths.data(), lengths.size(), num_buckets, bounds.data()),
        "optimize");
  int64_t padding = 0;
  Check(flopspack_buckets_padding(lengths.data(), lengths.size(), bounds.data(), num_buckets,
                                  &padding),
        "padding");
  w.Raw("    {\"name\": ");
  w.Str(name);
  w.Raw(", \"op\": \"optimize\", \"num_buckets\": " + std::to_string(num_buckets) +
        ",\n     \"lengths\": ");
  w.Ints(lengths);
  w.Raw(",\n     \"upper_bounds\": ");
  w.Ints(bounds);
  w.Raw(", \"padding\": " + std::to_string(padding) + "}");
}

struct SamplerSpec {
  int budget_kind = FLOPSPACK_BUCKET_BUDGET_PADDED_TOKENS;
  uint32_t num_buckets = 64;
  int drop_last = 0;
  std::vector<int64_t> upper_bounds;
  int64_t max_padded_tokens = 0;
  double max_batch_cost = 0;
  uint64_t num_ranks = 1, accumulation_steps = 1, seed = 0;
};

// The bucket sampler: two epochs with their per-step diversity, and two
// single steps.
void WriteSamplerCase(Writer& w, const std::string& name, const std::string& model_text,
                      const SamplerSpec& spec, const std::vector<int64_t>& lengths) {
  flopspack_cost_model* model = golden::MakeModel(golden::Parse(model_text));
  flopspack_bucket_sampler_options o;
  flopspack_bucket_sampler_options_init(&o);
  o.budget_kind = spec.budget_kind;
  o.num_buckets = spec.num_buckets;
  o.drop_last = spec.drop_last;
  o.upper_bounds = spec.upper_bounds.empty() ? nullptr : spec.upper_bounds.data();
  o.num_upper_bounds = spec.upper_bounds.size();
  o.max_padded_tokens = spec.max_padded_tokens;
  o.max_batch_cost = spec.max_batch_cost;
  o.num_ranks = spec.num_ranks;
  o.accumulation_steps = spec.accumulation_steps;
  o.seed = spec.seed;
  flopspack_bucket_sampler* sampler = nullptr;
  Check(flopspack_bucket_sampler_create(&o, model, lengths.data(), lengths.size(), &sampler),
        "sampler create");
  flopspack_cost_model_destroy(model);
  uint64_t steps = 0;
  Check(flopspack_bucket_sampler_steps_per_epoch(sampler, &steps), "steps_per_epoch");
  const int64_t* bounds = nullptr;
  size_t num_bounds = 0;
  Check(flopspack_bucket_sampler_upper_bounds(sampler, &bounds, &num_bounds), "upper_bounds");
  w.Raw("    {\"name\": ");
  w.Str(name);
  w.Raw(", \"op\": \"sampler\",\n     \"model\": " + model_text + ",\n     \"options\": {");
  w.Raw("\"budget_kind\": " + std::to_string(spec.budget_kind) +
        ", \"num_buckets\": " + std::to_string(spec.num_buckets) +
        ", \"drop_last\": " + std::to_string(spec.drop_last) + ", \"upper_bounds\": ");
  w.Ints(spec.upper_bounds);
  w.Raw(", \"max_padded_tokens\": " + std::to_string(spec.max_padded_tokens) +
        ", \"max_batch_cost\": ");
  w.Double(spec.max_batch_cost);
  w.Raw(", \"num_ranks\": " + std::to_string(spec.num_ranks) +
        ", \"accumulation_steps\": " + std::to_string(spec.accumulation_steps) +
        ", \"seed\": " + std::to_string(spec.seed) + "},\n     \"lengths\": ");
  w.Ints(lengths);
  w.Raw(",\n     \"steps_per_epoch\": " + std::to_string(steps) + ", \"upper_bounds\": ");
  w.Ints(std::vector<int64_t>(bounds, bounds + num_bounds));
  w.Raw(",\n     \"epochs\": [");
  for (uint64_t epoch = 0; epoch < 2; ++epoch) {
    flopspack_plan* plan = nullptr;
    Check(flopspack_bucket_sampler_epoch(sampler, epoch, &plan), "epoch");
    size_t n = 0;
    Check(flopspack_bucket_sampler_step_diversity(sampler, plan, nullptr, nullptr, 0, &n),
          "diversity size");
    std::vector<double> tokens(n), samples(n);
    Check(flopspack_bucket_sampler_step_diversity(sampler, plan, tokens.data(), samples.data(), n,
                                                  &n),
          "diversity");
    w.Raw(epoch ? ",\n      {" : "\n      {");
    w.Raw("\"epoch\": " + std::to_string(epoch) + ", \"token_distances\": ");
    w.Doubles(tokens);
    w.Raw(", \"sample_distances\": ");
    w.Doubles(samples);
    w.Raw(",\n       \"plan\": ");
    WritePlan(w, plan, "        ");
    w.Raw("}");
    flopspack_plan_destroy(plan);
  }
  w.Raw("],\n     \"steps\": [");
  const std::vector<std::pair<uint64_t, uint64_t>> picks = {{1, 0}, {5, steps - 1}};
  for (size_t i = 0; i < picks.size(); ++i) {
    flopspack_plan* plan = nullptr;
    Check(flopspack_bucket_sampler_step(sampler, picks[i].first, picks[i].second, &plan), "step");
    w.Raw(i ? ",\n      {" : "\n      {");
    w.Raw("\"epoch\": " + std::to_string(picks[i].first) +
          ", \"step\": " + std::to_string(picks[i].second) + ", \"plan\": ");
    WritePlan(w, plan, "        ");
    w.Raw("}");
    flopspack_plan_destroy(plan);
  }
  w.Raw("]}");
  flopspack_bucket_sampler_destroy(sampler);
}

std::string Buckets() {
  Writer w;
  WriteOptimizeCase(w, "optimize/small", {1, 2, 3, 10, 11, 12}, 2);
  w.Raw(",\n");
  WriteOptimizeCase(w, "optimize/fewer-distinct-than-buckets", {5, 5, 9, 9, 9}, 4);
  w.Raw(",\n");
  WriteOptimizeCase(w, "optimize/random-8", Lengths(200, 4000, 21), 8);
  w.Raw(",\n");
  SamplerSpec tokens;
  tokens.num_buckets = 6;
  tokens.max_padded_tokens = 6000;
  tokens.num_ranks = 2;
  tokens.accumulation_steps = 2;
  tokens.seed = 17;
  WriteSamplerCase(w, "sampler/padded-tokens-pad-last", "null", tokens, Lengths(240, 2000, 22));
  w.Raw(",\n");
  SamplerSpec dropping = tokens;
  dropping.drop_last = 1;
  dropping.upper_bounds = {300, 700, 1200, 2000};
  dropping.num_ranks = 3;
  dropping.accumulation_steps = 1;
  dropping.seed = 4;
  WriteSamplerCase(w, "sampler/explicit-bounds-drop-last", "null", dropping,
                   Lengths(200, 2000, 23));
  w.Raw(",\n");
  SamplerSpec cost;
  cost.budget_kind = FLOPSPACK_BUCKET_BUDGET_COST;
  cost.num_buckets = 5;
  cost.max_batch_cost = 2.5e6;
  cost.num_ranks = 2;
  cost.accumulation_steps = 2;
  cost.seed = 99;
  WriteSamplerCase(w, "sampler/cost-budget-polynomial", Polynomial(100, 10, 1, 0.5), cost,
                   Lengths(180, 1500, 24));
  return w.out;
}

void WritePackCase(Writer& w, const std::string& name, const std::string& model_text, int algorithm,
                   int64_t capacity, int overflow, uint64_t seed,
                   const std::vector<int64_t>& lengths) {
  flopspack_cost_model* model = golden::MakeModel(golden::Parse(model_text));
  flopspack_pack_options o;
  flopspack_pack_options_init(&o);
  o.algorithm = algorithm;
  o.capacity = capacity;
  o.overflow = overflow;
  o.seed = seed;
  o.cost_model = model;
  flopspack_plan* plan = nullptr;
  Check(flopspack_pack(&o, lengths.data(), lengths.size(), &plan), "pack");
  w.Raw("    {\"name\": ");
  w.Str(name);
  w.Raw(", \"op\": \"pack\",\n     \"model\": " + model_text +
        ",\n     \"options\": {\"algorithm\": " + std::to_string(algorithm) + ", \"capacity\": " +
        std::to_string(capacity) + ", \"overflow\": " + std::to_string(overflow) +
        ", \"seed\": " + std::to_string(seed) + "},\n     \"lengths\": ");
  w.Ints(lengths);
  w.Raw(",\n     \"plan\": ");
  WritePlan(w, plan, "       ");
  w.Raw("}");
  flopspack_plan_destroy(plan);
  flopspack_cost_model_destroy(model);
}

void WriteBalanceCase(Writer& w, const std::string& name, int algorithm, int64_t groups,
                      int equal_count, int refine, int64_t cap, uint64_t seed,
                      const std::vector<double>& costs, const std::vector<int64_t>& tokens) {
  flopspack_balance_options o;
  flopspack_balance_options_init(&o);
  o.algorithm = algorithm;
  o.num_groups = groups;
  o.equal_count = equal_count;
  o.refine = refine;
  o.max_tokens_per_group = cap;
  o.seed = seed;
  flopspack_plan* plan = nullptr;
  Check(flopspack_balance(&o, costs.data(), tokens.empty() ? nullptr : tokens.data(), costs.size(),
                          &plan),
        "balance");
  w.Raw("    {\"name\": ");
  w.Str(name);
  w.Raw(", \"op\": \"balance\",\n     \"options\": {\"algorithm\": " + std::to_string(algorithm) +
        ", \"num_groups\": " + std::to_string(groups) + ", \"equal_count\": " +
        std::to_string(equal_count) + ", \"refine\": " + std::to_string(refine) +
        ", \"max_tokens_per_group\": " + std::to_string(cap) +
        ", \"seed\": " + std::to_string(seed) + "},\n     \"costs\": ");
  w.Doubles(costs);
  w.Raw(",\n     \"tokens\": ");
  w.Ints(tokens);
  w.Raw(",\n     \"plan\": ");
  WritePlan(w, plan, "       ");
  w.Raw("}");
  flopspack_plan_destroy(plan);
}

std::string PackBalance() {
  Writer w;
  const std::string tokens_model = "null";
  const char* names[] = {"best-fit-decreasing", "first-fit-decreasing", "next-fit",
                         "shuffled-first-fit"};
  const std::vector<int64_t> docs = Lengths(150, 5000, 41);
  for (int a = 0; a < 4; ++a) {
    WritePackCase(w, std::string("pack/") + names[a], tokens_model, a, 4096,
                  FLOPSPACK_OVERFLOW_SPLIT, 7, docs);
    w.Raw(",\n");
  }
  WritePackCase(w, "pack/truncate-with-quadratic-model", Polynomial(10, 0, 1, 1.0 / 4096),
                FLOPSPACK_PACK_BEST_FIT_DECREASING, 2048, FLOPSPACK_OVERFLOW_TRUNCATE, 0,
                Lengths(80, 4000, 42));
  w.Raw(",\n");
  // Costs of real documents: the quadratic model's document costs.
  const std::vector<int64_t> lengths = Lengths(64, 16384, 43);
  std::vector<double> costs;
  for (int64_t l : lengths) {
    costs.push_back(static_cast<double>(l) +
                    static_cast<double>(l) * static_cast<double>(l) / 8192);
  }
  const char* balancers[] = {"auto", "greedy", "lpt", "karmarkar-karp"};
  for (int a = 0; a < 4; ++a) {
    WriteBalanceCase(w, std::string("balance/") + balancers[a], a, 6, 0, a == 1 ? 0 : 1, 0, 0,
                     costs, {});
    w.Raw(",\n");
  }
  WriteBalanceCase(w, "balance/equal-count-seeded", FLOPSPACK_BALANCE_KARMARKAR_KARP, 8, 1, 1, 0, 3,
                   costs, {});
  w.Raw(",\n");
  int64_t total = 0;
  for (int64_t l : lengths) total += l;
  WriteBalanceCase(w, "balance/token-cap", FLOPSPACK_BALANCE_AUTO, 6, 0, 1, total / 6 + 4000, 0,
                   costs, lengths);
  return w.out;
}

// Writes the fields of an output struct listed by a FLOPSPACK_GOLDEN_* macro.
#define GOLDEN_STRUCT_FIELD(field, kind) \
  w.Raw(sep);                            \
  sep = ", ";                            \
  w.Key(#field);                         \
  if (#kind[0] == 'd') {                 \
    w.Double(double(v.field));           \
  } else if (#kind[0] == 'i') {          \
    w.Int(int64_t(v.field));             \
  } else {                               \
    w.UInt(uint64_t(v.field));           \
  }

void WriteStatsCase(Writer& w, const std::string& name, const std::string& model_text,
                    const std::vector<int64_t>& lengths, const std::vector<int64_t>& other) {
  flopspack_cost_model* model = golden::MakeModel(golden::Parse(model_text));
  flopspack_stats* stats = nullptr;
  flopspack_stats* b = nullptr;
  Check(flopspack_stats_create(lengths.data(), lengths.size(), model, &stats), "stats");
  Check(flopspack_stats_create(other.data(), other.size(), model, &b), "stats b");
  const bool has_model = model != nullptr;
  flopspack_cost_model_destroy(model);
  w.Raw("    {\"name\": ");
  w.Str(name);
  w.Raw(", \"op\": \"stats\",\n     \"model\": " + model_text + ",\n     \"lengths\": ");
  w.Ints(lengths);
  w.Raw(",\n     \"other\": ");
  w.Ints(other);
  {
    flopspack_stats_summary v;
    v.struct_size = sizeof(v);
    Check(flopspack_stats_summarize(stats, &v), "summary");
    const char* sep = "";
    w.Raw(",\n     \"summary\": {");
    FLOPSPACK_GOLDEN_STATS_SUMMARY(GOLDEN_STRUCT_FIELD)
    w.Raw("}");
  }
  const std::vector<double> levels = {0, 0.1, 0.5, 0.9, 0.99, 1};
  const int max_weighting = has_model ? 3 : 2;
  w.Raw(",\n     \"quantiles\": [");
  for (size_t i = 0; i < levels.size(); ++i) {
    w.Raw(i ? ", [" : "[");
    for (int weighting = 0; weighting < max_weighting; ++weighting) {
      double q = 0;
      Check(flopspack_stats_weighted_quantile(stats, weighting, levels[i], &q), "quantile");
      if (weighting) w.Raw(", ");
      w.Double(q);
    }
    w.Raw("]");
  }
  w.Raw("], \"levels\": ");
  w.Doubles(levels);
  const std::vector<int64_t> at = {1, 100, 1000, 5000, 100000};
  w.Raw(",\n     \"cdf_at\": ");
  w.Ints(at);
  w.Raw(", \"cdf\": [");
  for (size_t i = 0; i < at.size(); ++i) {
    w.Raw(i ? ", [" : "[");
    for (int weighting = 0; weighting < max_weighting; ++weighting) {
      double c = 0;
      Check(flopspack_stats_cdf(stats, weighting, at[i], &c), "cdf");
      if (weighting) w.Raw(", ");
      w.Double(c);
    }
    w.Raw("]");
  }
  w.Raw("],\n     \"histograms\": [");
  for (int h = 0; h < 2; ++h) {
    flopspack_histogram_options o;
    flopspack_histogram_options_init(&o);
    o.binning = h == 0 ? FLOPSPACK_STATS_BINS_LOG2 : FLOPSPACK_STATS_BINS_LINEAR;
    o.weighting = h == 0 ? FLOPSPACK_STATS_WEIGHT_COUNT : FLOPSPACK_STATS_WEIGHT_TOKENS;
    o.normalized = h;
    size_t bins = 0;
    Check(flopspack_stats_histogram(stats, &o, nullptr, nullptr, 0, &bins), "bins");
    std::vector<int64_t> edges(bins);
    std::vector<double> weights(bins);
    Check(flopspack_stats_histogram(stats, &o, edges.data(), weights.data(), bins, &bins),
          "histogram");
    w.Raw(h ? ",\n       {" : "\n       {");
    w.Raw("\"binning\": " + std::to_string(o.binning) +
          ", \"weighting\": " + std::to_string(o.weighting) +
          ", \"normalized\": " + std::to_string(o.normalized) + ", \"upper_edges\": ");
    w.Ints(edges);
    w.Raw(", \"weights\": ");
    w.Doubles(weights);
    w.Raw("}");
  }
  w.Raw("],\n     \"tails\": [");
  const std::vector<int64_t> thresholds = {0, 1000, 8000};
  for (size_t i = 0; i < thresholds.size(); ++i) {
    flopspack_stats_tail v;
    v.struct_size = sizeof(v);
    Check(flopspack_stats_tail_share(stats, thresholds[i], &v), "tail");
    const char* sep = "";
    w.Raw(i ? ", {\"threshold\": " : "{\"threshold\": ");
    w.Int(thresholds[i]);
    w.Raw(", ");
    FLOPSPACK_GOLDEN_STATS_TAIL(GOLDEN_STRUCT_FIELD)
    w.Raw("}");
  }
  const std::vector<uint64_t> draws = {1, 8, 1000, 1000000};
  w.Raw("],\n     \"draws\": ");
  w.Ints(draws);
  std::vector<double> maxima;
  for (uint64_t d : draws) {
    double m = 0;
    Check(flopspack_stats_expected_max(stats, d, &m), "expected_max");
    maxima.push_back(m);
  }
  w.Raw(", \"expected_max\": ");
  w.Doubles(maxima);
  w.Raw(",\n     \"ks\": [");
  for (int weighting = 0; weighting < max_weighting; ++weighting) {
    double d = 0;
    int64_t length = 0;
    Check(flopspack_stats_ks_distance_weighted(stats, b, weighting, &d, &length), "ks");
    w.Raw(weighting ? ", [" : "[");
    w.Double(d);
    w.Raw(", " + std::to_string(length) + "]");
  }
  {
    flopspack_stats_comparison v;
    v.struct_size = sizeof(v);
    Check(flopspack_stats_compare(stats, b, &v), "compare");
    const char* sep = "";
    w.Raw("],\n     \"comparison\": {");
    FLOPSPACK_GOLDEN_STATS_COMPARISON(GOLDEN_STRUCT_FIELD)
    w.Raw(", \"levels\": ");
    w.Doubles(std::vector<double>(v.levels, v.levels + FLOPSPACK_STATS_COMPARE_LEVELS));
    w.Raw(", \"quantiles_a\": ");
    w.Ints(std::vector<int64_t>(v.quantiles_a, v.quantiles_a + FLOPSPACK_STATS_COMPARE_LEVELS));
    w.Raw(", \"quantiles_b\": ");
    w.Ints(std::vector<int64_t>(v.quantiles_b, v.quantiles_b + FLOPSPACK_STATS_COMPARE_LEVELS));
    w.Raw("}");
  }
  size_t n = 0;
  Check(flopspack_stats_entries(stats, nullptr, nullptr, 0, &n), "entries size");
  std::vector<int64_t> distinct(n);
  std::vector<uint64_t> counts(n);
  Check(flopspack_stats_entries(stats, distinct.data(), counts.data(), n, &n), "entries");
  w.Raw(",\n     \"entries\": {\"lengths\": ");
  w.Ints(distinct);
  w.Raw(", \"counts\": ");
  w.Ints(counts);
  w.Raw("}}");
  flopspack_stats_destroy(stats);
  flopspack_stats_destroy(b);
}

void WriteSimulateCase(Writer& w, const std::string& name, const std::string& model_text,
                       int policy, uint64_t ranks, uint64_t microbatches, int64_t tokens,
                       int64_t cap, uint64_t steps, uint64_t seed,
                       const std::vector<int64_t>& lengths) {
  flopspack_cost_model* model = golden::MakeModel(golden::Parse(model_text));
  flopspack_simulate_options o;
  flopspack_simulate_options_init(&o);
  o.policy = policy;
  o.num_ranks = ranks;
  o.microbatches_per_rank = microbatches;
  o.tokens_per_microbatch = tokens;
  o.max_tokens_per_microbatch = cap;
  o.num_steps = steps;
  o.seed = seed;
  o.record_steps = 1;
  flopspack_simulate_result* result = nullptr;
  Check(flopspack_simulate(lengths.data(), lengths.size(), model, &o, &result), "simulate");
  w.Raw("    {\"name\": ");
  w.Str(name);
  w.Raw(", \"op\": \"simulate\",\n     \"model\": " + model_text +
        ",\n     \"options\": {\"policy\": " + std::to_string(policy) + ", \"num_ranks\": " +
        std::to_string(ranks) + ", \"microbatches_per_rank\": " + std::to_string(microbatches) +
        ", \"tokens_per_microbatch\": " + std::to_string(tokens) +
        ", \"max_tokens_per_microbatch\": " + std::to_string(cap) + ", \"num_steps\": " +
        std::to_string(steps) + ", \"seed\": " + std::to_string(seed) + "},\n     \"lengths\": ");
  w.Ints(lengths);
  {
    flopspack_simulate_summary v;
    v.struct_size = sizeof(v);
    Check(flopspack_simulate_result_summary(result, &v), "summary");
    const char* sep = "";
    w.Raw(",\n     \"summary\": {");
    FLOPSPACK_GOLDEN_SIMULATE_SUMMARY(GOLDEN_STRUCT_FIELD)
    w.Raw("}");
  }
  w.Raw(",\n     \"series\": [");
  for (int series = 0; series <= FLOPSPACK_SIM_SERIES_REAL_TOKENS; ++series) {
    size_t n = 0;
    Check(flopspack_simulate_result_series(result, series, nullptr, 0, &n), "series size");
    std::vector<double> values(n);
    Check(flopspack_simulate_result_series(result, series, values.data(), n, &n), "series");
    w.Raw(series ? ",\n       " : "\n       ");
    w.Doubles(values);
  }
  flopspack_stats* pieces = nullptr;
  Check(flopspack_simulate_result_pieces(result, &pieces), "pieces");
  flopspack_stats_summary v;
  v.struct_size = sizeof(v);
  Check(flopspack_stats_summarize(pieces, &v), "pieces summary");
  const char* sep = "";
  w.Raw("],\n     \"pieces_summary\": {");
  FLOPSPACK_GOLDEN_STATS_SUMMARY(GOLDEN_STRUCT_FIELD)
  w.Raw("}");
  flopspack_stats_destroy(pieces);
  const std::vector<uint64_t> counts = {2, 8, 32};
  std::vector<double> sampled(3), predicted(3), relative(3);
  o.num_steps = steps;
  Check(flopspack_simulate_sweep(lengths.data(), lengths.size(), model, &o, counts.data(), 3,
                                 sampled.data(), predicted.data(), relative.data()),
        "sweep");
  w.Raw(",\n     \"sweep\": {\"rank_counts\": ");
  w.Ints(counts);
  w.Raw(", \"sampled_efficiency\": ");
  w.Doubles(sampled);
  w.Raw(", \"predicted_efficiency\": ");
  w.Doubles(predicted);
  w.Raw(", \"relative_throughput\": ");
  w.Doubles(relative);
  w.Raw("}}");
  flopspack_simulate_result_destroy(result);
  flopspack_cost_model_destroy(model);
}

std::string Seeds() {
  Writer w;
  const std::vector<uint64_t> seeds = {0, 1, 42, 0xFFFFFFFFFFFFFFFFULL, 0x123456789ABCDEF0ULL};
  const std::vector<uint64_t> streams = {0, 1, 2, 1000, 0xFFFFFFFFFFFFFFFEULL};
  bool first = true;
  for (uint64_t seed : seeds) {
    for (uint64_t stream : streams) {
      w.Raw(first ? "    {" : ",\n    {");
      first = false;
      w.Raw("\"seed\": \"" + std::to_string(seed) + "\", \"stream\": \"" + std::to_string(stream) +
            "\", \"derived\": \"" + std::to_string(flopspack_derive_seed(seed, stream)) + "\"}");
    }
  }
  return w.out;
}

std::string StatsAndSimulate() {
  Writer w;
  const std::string quadratic = Polynomial(0, 0, 1, 1.0 / 8192);
  WriteStatsCase(w, "stats/with-model", quadratic, Lengths(400, 12000, 51), Lengths(300, 9000, 52));
  w.Raw(",\n");
  WriteStatsCase(w, "stats/without-model", "null", Lengths(250, 3000, 53), Lengths(250, 3500, 54));
  w.Raw(",\n");
  const std::vector<int64_t> docs = Lengths(300, 6000, 55);
  WriteSimulateCase(w, "simulate/random", quadratic, FLOPSPACK_SIM_RANDOM, 8, 2, 4096, 0, 6, 1,
                    docs);
  w.Raw(",\n");
  WriteSimulateCase(w, "simulate/buckets", quadratic, FLOPSPACK_SIM_BUCKETS, 4, 1, 8192, 0, 5, 2,
                    docs);
  w.Raw(",\n");
  WriteSimulateCase(w, "simulate/planner-documents", quadratic, FLOPSPACK_SIM_PLANNER_DOCUMENTS, 4,
                    2, 4096, 6144, 5, 3, docs);
  return w.out;
}

struct StepSpec {
  uint32_t num_ranks = 1, microbatches_per_rank = 0;
  int algorithm = FLOPSPACK_STEP_DOCUMENTS;
  int64_t cap = 0;
  uint64_t seed = 0;
  int ordering = FLOPSPACK_SLOT_ORDER_DESCENDING;
  int overflow = FLOPSPACK_OVERFLOW_SPLIT;
  int sync = FLOPSPACK_SYNC_STEP;
  uint32_t pipeline_stages = 0;
  int pipeline_schedule = FLOPSPACK_PIPELINE_1F1B;
  uint32_t context_parallel_size = 0;
  int context_parallel_layout = FLOPSPACK_CP_DOCUMENT_HEAD_TAIL;
};

flopspack_step_options StepOptions(const StepSpec& spec) {
  flopspack_step_options o;
  flopspack_step_options_init(&o);
  o.num_ranks = spec.num_ranks;
  o.microbatches_per_rank = spec.microbatches_per_rank;
  o.algorithm = spec.algorithm;
  o.max_tokens_per_microbatch = spec.cap;
  o.seed = spec.seed;
  o.ordering = spec.ordering;
  o.overflow = spec.overflow;
  o.sync = spec.sync;
  o.pipeline_stages = spec.pipeline_stages;
  o.pipeline_schedule = spec.pipeline_schedule;
  o.context_parallel_size = spec.context_parallel_size;
  o.context_parallel_layout = spec.context_parallel_layout;
  return o;
}

std::string StepOptionsJson(const StepSpec& s) {
  return "{\"num_ranks\": " + std::to_string(s.num_ranks) +
         ", \"microbatches_per_rank\": " + std::to_string(s.microbatches_per_rank) +
         ", \"algorithm\": " + std::to_string(s.algorithm) +
         ", \"max_tokens_per_microbatch\": " + std::to_string(s.cap) +
         ", \"seed\": " + std::to_string(s.seed) + ", \"ordering\": " + std::to_string(s.ordering) +
         ", \"overflow\": " + std::to_string(s.overflow) + ", \"sync\": " + std::to_string(s.sync) +
         ", \"pipeline_stages\": " + std::to_string(s.pipeline_stages) +
         ", \"pipeline_schedule\": " + std::to_string(s.pipeline_schedule) +
         ", \"context_parallel_size\": " + std::to_string(s.context_parallel_size) +
         ", \"context_parallel_layout\": " + std::to_string(s.context_parallel_layout) + "}";
}

// extra_costs empty: a plan_step case; else a plan_step_with_extra_costs
// case that lists them.
void WritePlanStepCase(Writer& w, const std::string& name, const std::string& model_text,
                       const StepSpec& spec, const std::vector<int64_t>& lengths,
                       const std::vector<double>& extra_costs = {}) {
  flopspack_cost_model* model = golden::MakeModel(golden::Parse(model_text));
  const flopspack_step_options o = StepOptions(spec);
  flopspack_plan* plan = nullptr;
  if (extra_costs.empty()) {
    Check(flopspack_plan_step(&o, model, lengths.data(), lengths.size(), &plan), "plan_step");
  } else {
    Check(flopspack_plan_step_with_extra_costs(&o, model, lengths.data(), extra_costs.data(),
                                               lengths.size(), &plan),
          "plan_step_with_extra_costs");
  }
  w.Raw("    {\"name\": ");
  w.Str(name);
  w.Raw(std::string(", \"op\": \"") +
        (extra_costs.empty() ? "plan_step" : "plan_step_with_extra_costs") +
        "\",\n     \"model\": " + model_text + ",\n     \"options\": " + StepOptionsJson(spec) +
        ",\n     \"lengths\": ");
  w.Ints(lengths);
  if (!extra_costs.empty()) {
    w.Raw(",\n     \"extra_costs\": ");
    w.Doubles(extra_costs);
  }
  w.Raw(",\n     \"plan\": ");
  WritePlan(w, plan, "       ");
  w.Raw("}");
  flopspack_plan_destroy(plan);
  flopspack_cost_model_destroy(model);
}

// The stateful planner: pushes of uneven size, a plan per step, pending.
void WritePlannerCase(Writer& w, const std::string& name, const std::string& model_text,
                      const StepSpec& spec, int64_t tokens_per_step, uint32_t max_defer_steps,
                      int64_t outlier_min_tokens, int64_t max_outliers_per_step,
                      const std::vector<int64_t>& lengths, const std::vector<size_t>& pushes,
                      int steps) {
  flopspack_cost_model* model = golden::MakeModel(golden::Parse(model_text));
  const flopspack_step_options o = StepOptions(spec);
  flopspack_step_planner_options po;
  flopspack_step_planner_options_init(&po);
  po.tokens_per_step = tokens_per_step;
  po.max_defer_steps = max_defer_steps;
  po.outlier_min_tokens = outlier_min_tokens;
  po.max_outliers_per_step = max_outliers_per_step;
  flopspack_step_planner* planner = nullptr;
  Check(flopspack_step_planner_create(&o, &po, model, &planner), "planner create");
  w.Raw("    {\"name\": ");
  w.Str(name);
  w.Raw(", \"op\": \"planner\",\n     \"model\": " + model_text +
        ",\n     \"options\": " + StepOptionsJson(spec) +
        ",\n     \"planner_options\": {\"tokens_per_step\": " + std::to_string(tokens_per_step) +
        ", \"max_defer_steps\": " + std::to_string(max_defer_steps) +
        ", \"outlier_min_tokens\": " + std::to_string(outlier_min_tokens) +
        ", \"max_outliers_per_step\": " + std::to_string(max_outliers_per_step) +
        "},\n     \"script\": [");
  const char* sep = "\n";
  size_t at = 0;
  auto pending = [&] {
    uint64_t docs = 0, done = 0;
    int64_t tokens = 0;
    Check(flopspack_step_planner_pending(planner, &docs, &tokens, &done), "pending");
    w.Raw(sep);
    w.Raw("      {\"op\": \"pending\", \"expect\": {\"documents\": " + std::to_string(docs) +
          ", \"tokens\": " + std::to_string(tokens) + ", \"steps\": " + std::to_string(done) +
          "}}");
    sep = ",\n";
  };
  for (int step = 0; step < steps; ++step) {
    if (step < static_cast<int>(pushes.size())) {
      const size_t n = std::min(pushes[step], lengths.size() - at);
      int64_t first = -1;
      Check(flopspack_step_planner_push(planner, lengths.data() + at, n, &first), "push");
      w.Raw(sep);
      w.Raw("      {\"op\": \"push\", \"first_id\": " + std::to_string(first) + ", \"lengths\": ");
      w.Ints(std::vector<int64_t>(lengths.begin() + at, lengths.begin() + at + n));
      w.Raw("}");
      sep = ",\n";
      at += n;
    }
    pending();
    flopspack_plan* plan = nullptr;
    Check(flopspack_step_planner_next(planner, &plan), "next");
    w.Raw(",\n      {\"op\": \"next\", \"plan\": ");
    WritePlan(w, plan, "        ");
    w.Raw("}");
    flopspack_plan_destroy(plan);
  }
  pending();
  w.Raw("]}");
  flopspack_step_planner_destroy(planner);
  flopspack_cost_model_destroy(model);
}

std::string StepPlanner() {
  Writer w;
  const std::string quadratic = Polynomial(0, 0, 1, 1.0 / 8192);
  const std::string llama = Transformer(32, 4096, 32, 8, 0, 14336, 128256, 1, 1, 0, 0);
  StepSpec spec;
  spec.num_ranks = 4;
  spec.microbatches_per_rank = 3;
  spec.cap = 16384;
  const std::vector<int64_t> batch = Lengths(48, 9000, 31);
  const char* algorithms[] = {"documents", "random", "tokens", "sequences"};
  for (int a = 0; a < 4; ++a) {
    spec.algorithm = a;
    spec.seed = 5;
    WritePlanStepCase(w, std::string("plan_step/") + algorithms[a], a == 0 ? llama : quadratic,
                      spec, batch);
    w.Raw(",\n");
  }
  StepSpec ends = spec;
  ends.algorithm = FLOPSPACK_STEP_DOCUMENTS;
  ends.ordering = FLOPSPACK_SLOT_ORDER_LIGHT_ENDS;
  ends.microbatches_per_rank = 0;
  WritePlanStepCase(w, "plan_step/light-ends-auto-microbatches", quadratic, ends,
                    Lengths(40, 12000, 32));
  w.Raw(",\n");
  StepSpec defer = spec;
  defer.algorithm = FLOPSPACK_STEP_DOCUMENTS;
  defer.num_ranks = 2;
  defer.microbatches_per_rank = 2;
  defer.cap = 8192;
  defer.overflow = FLOPSPACK_OVERFLOW_DEFER;
  WritePlanStepCase(w, "plan_step/defer-overflow", quadratic, defer, Lengths(30, 10000, 33));
  w.Raw(",\n");
  // One plan per synchronization objective: every slot balanced (FSDP /
  // ZeRO-3), and a 4-stage 1F1B pipeline per rank (its metrics).
  StepSpec micro = spec;
  micro.algorithm = FLOPSPACK_STEP_DOCUMENTS;
  micro.sync = FLOPSPACK_SYNC_MICROBATCH;
  WritePlanStepCase(w, "plan_step/microbatch-sync", llama, micro, batch);
  w.Raw(",\n");
  StepSpec pipeline = spec;
  pipeline.algorithm = FLOPSPACK_STEP_DOCUMENTS;
  pipeline.pipeline_stages = 4;
  WritePlanStepCase(w, "plan_step/pipeline-1f1b", llama, pipeline, batch);
  w.Raw(",\n");
  // Planned for CP groups of 2 GPUs of 8,192 tokens: documents up to 16,384
  // stay whole; microbatch costs are the slowest CP rank (adaptive layout).
  StepSpec cp = spec;
  cp.algorithm = FLOPSPACK_STEP_DOCUMENTS;
  cp.cap = 8192;
  cp.microbatches_per_rank = 0;
  cp.context_parallel_size = 2;
  cp.context_parallel_layout = FLOPSPACK_CP_ADAPTIVE;
  WritePlanStepCase(w, "plan_step/context-parallel", llama, cp, Lengths(40, 12000, 36));
  w.Raw(",\n");
  // Per-document extra costs (a vision encoder's, say) with documents over
  // the cap: split pieces carry their document's extra cost by tokens.
  StepSpec extra = spec;
  extra.algorithm = FLOPSPACK_STEP_DOCUMENTS;
  extra.cap = 4096;
  extra.microbatches_per_rank = 0;
  const std::vector<int64_t> extra_lengths = Lengths(40, 12000, 37);
  std::vector<double> extra_costs(extra_lengths.size(), 0.0);
  for (size_t i = 0; i < extra_costs.size(); i += 3) extra_costs[i] = 4096.0 * (1 + i % 7) + 0.375;
  WritePlanStepCase(w, "plan_step_with_extra_costs/split-pieces", quadratic, extra, extra_lengths,
                    extra_costs);
  w.Raw(",\n");
  StepSpec planner;
  planner.num_ranks = 2;
  planner.microbatches_per_rank = 2;
  planner.cap = 8192;
  WritePlannerCase(w, "planner/outlier-queue", quadratic, planner, 0, 2, 6000, 1,
                   Lengths(160, 8192, 34), {40, 25, 60, 0, 35}, 8);
  w.Raw(",\n");
  StepSpec plain = planner;
  plain.num_ranks = 3;
  plain.microbatches_per_rank = 0;
  WritePlannerCase(w, "planner/tokens-per-step", llama, plain, 40000, 0, 0, 0,
                   Lengths(120, 6000, 35), {70, 50}, 6);
  return w.out;
}

// Context-parallel sharding of a step plan: per group its layout and
// balance, per CP rank its chunks, cost and key/value tokens; the metrics.
void WriteCpCase(Writer& w, const std::string& name, const std::string& model_text,
                 const StepSpec& spec, const std::vector<int64_t>& lengths, uint64_t cp,
                 int layout) {
  flopspack_cost_model* model = golden::MakeModel(golden::Parse(model_text));
  const flopspack_step_options o = StepOptions(spec);
  flopspack_plan* plan = nullptr;
  Check(flopspack_plan_step(&o, model, lengths.data(), lengths.size(), &plan), "plan_step");
  flopspack_cp_shard* shard = nullptr;
  Check(flopspack_plan_shard_context_parallel(plan, model, cp, layout, &shard), "shard");
  w.Raw("    {\"name\": ");
  w.Str(name);
  w.Raw(", \"op\": \"shard_context_parallel\",\n     \"model\": " + model_text +
        ",\n     \"options\": " + StepOptionsJson(spec) + ",\n     \"lengths\": ");
  w.Ints(lengths);
  w.Raw(",\n     \"context_parallel_size\": " + std::to_string(cp) +
        ", \"layout\": " + std::to_string(layout) + ",\n     \"groups\": [");
  for (size_t g = 0; g < flopspack_cp_shard_group_count(shard); ++g) {
    int used = 0;
    double balance = 0;
    Check(flopspack_cp_shard_group_layout(shard, g, &used, &balance), "group_layout");
    w.Raw(g ? ",\n       {" : "\n       {");
    w.Raw("\"layout\": " + std::to_string(used) + ", \"balance\": ");
    w.Double(balance);
    w.Raw(", \"ranks\": [");
    for (size_t r = 0; r < cp; ++r) {
      const int64_t* items = nullptr;
      const int64_t* offsets = nullptr;
      const int64_t* chunk_lengths = nullptr;
      size_t n = 0;
      Check(flopspack_cp_shard_chunks(shard, g, r, &items, &offsets, &chunk_lengths, &n), "chunks");
      double cost = 0;
      int64_t kv = 0;
      Check(flopspack_cp_shard_rank_cost(shard, g, r, &cost, &kv), "rank_cost");
      w.Raw(r ? ",\n         {" : "\n         {");
      w.Key("items");
      w.Ints(std::vector<int64_t>(items, items + n));
      w.Raw(", ");
      w.Key("offsets");
      w.Ints(std::vector<int64_t>(offsets, offsets + n));
      w.Raw(", ");
      w.Key("lengths");
      w.Ints(std::vector<int64_t>(chunk_lengths, chunk_lengths + n));
      w.Raw(", ");
      w.Key("cost");
      w.Double(cost);
      w.Raw(", ");
      w.Key("kv_tokens");
      w.Int(kv);
      w.Raw("}");
    }
    w.Raw("]}");
  }
  flopspack_cp_metrics v;
  v.struct_size = sizeof(v);
  Check(flopspack_cp_shard_metrics(shard, &v), "cp metrics");
  w.Raw("],\n     \"metrics\": {");
  const char* sep = "";
  FLOPSPACK_GOLDEN_CP_METRICS(GOLDEN_STRUCT_FIELD)
  w.Raw("}}");
  flopspack_cp_shard_destroy(shard);
  flopspack_plan_destroy(plan);
  flopspack_cost_model_destroy(model);
}

std::string ContextParallel() {
  Writer w;
  const std::string llama = Transformer(32, 4096, 32, 8, 0, 14336, 128256, 1, 1, 0, 0);
  const std::string quadratic = Polynomial(3, 1, 1, 1.0 / 1024);
  StepSpec spec;
  spec.num_ranks = 2;
  spec.microbatches_per_rank = 2;
  spec.cap = 8192;
  spec.seed = 3;
  const std::vector<int64_t> batch = Lengths(12, 5000, 61);
  const char* layouts[] = {"sequence", "document", "adaptive"};
  for (int layout = 0; layout < 3; ++layout) {
    WriteCpCase(w, std::string("cp/") + layouts[layout] + "-llama-c4", llama, spec, batch, 4,
                layout);
    w.Raw(",\n");
  }
  WriteCpCase(w, "cp/adaptive-polynomial-c3-short-documents", quadratic, spec, Lengths(40, 12, 62),
              3, FLOPSPACK_CP_ADAPTIVE);
  return w.out;
}
#undef GOLDEN_STRUCT_FIELD

void Save(const std::string& dir, const std::string& file, const std::string& kind,
          const std::string& cases) {
  std::ofstream out(dir + "/" + file);
  out << "{\"format\": \"flopspack-golden-1\", \"kind\": \"" << kind
      << "\", \"generator\": \"tests/golden/generate.cc\", \"library_version\": \""
      << flopspack_version_string() << "\",\n \"cases\": [\n"
      << cases << "\n ]}\n";
  if (!out) throw std::runtime_error("cannot write " + dir + "/" + file);
  std::cout << "wrote " << dir << "/" << file << "\n";
}

std::string CostModels() {
  const std::vector<std::vector<int64_t>> queries = {
      {1}, {8192}, {1000, 3000, 4096}, {131072}, {7, 77, 777, 7777, 77777}, Lengths(24, 32768, 1)};
  Writer w;
  const std::vector<std::pair<std::string, std::string>> models = {
      {"tokens", "{\"kind\": \"tokens\"}"},
      {"polynomial/integers", Polynomial(7, 1, 2, 0.25)},
      {"polynomial/seconds", Polynomial(1e-3, 2.5e-6, 1.7e-9, 3.3e-13)},
      {"transformer/llama3-8b", Transformer(32, 4096, 32, 8, 0, 14336, 128256, 1, 1, 0, 0)},
      {"transformer/gpt-1.3b-no-causal-saving",
       Transformer(24, 2048, 16, 16, 0, 8192, 50257, 0, 0, 0, 0)},
      {"transformer/70b-recompute", Transformer(80, 8192, 64, 8, 0, 28672, 128256, 1, 1, 1, 0)},
      {"transformer/sequence-attention", Transformer(32, 4096, 32, 8, 0, 14336, 0, 1, 1, 0, 1)},
      {"transformer/explicit-head-dim",
       Transformer(28, 3072, 16, 16, 256, 24576, 256000, 1, 1, 0, 0)},
      {"fit/all-terms", Fit(FLOPSPACK_FIT_ALL, 40, 2)},
      {"fit/sequence-and-quadratic",
       Fit(FLOPSPACK_FIT_PER_SEQUENCE | FLOPSPACK_FIT_QUADRATIC, 25, 3)},
  };
  for (size_t i = 0; i < models.size(); ++i) {
    if (i) w.Raw(",\n");
    WriteCostCase(w, models[i].first, models[i].second, queries);
  }
  return w.out;
}

std::string StreamPacker() {
  Writer w;
  WriteStreamCase(w, "stream/tokens-bfd", "{\"kind\": \"tokens\"}", 4096, 64, 2, 0,
                  Lengths(300, 6000, 11), 50);
  w.Raw(",\n");
  WriteStreamCase(w, "stream/truncate-polynomial-seeded", Polynomial(5, 1, 0.5, 0.001), 2048, 20, 1,
                  7, Lengths(120, 3000, 12), 30);
  w.Raw(",\n");
  WriteStreamCase(w, "stream/split-transformer-small-window",
                  Transformer(2, 64, 4, 4, 0, 256, 0, 0, 1, 0, 0), 1000, 10, 2, 12345,
                  Lengths(90, 2500, 13), 9);
  return w.out;
}

// ---- Cost-model files (docs/cost-models.md) and prediction quality ----

// A JSON string literal of `text` (which holds no control characters).
std::string Quoted(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

std::string CoefficientsJson(double s, double d, double l, double q) {
  Writer w;
  w.Raw("{\"per_sequence\": ");
  w.Double(s);
  w.Raw(", \"per_document\": ");
  w.Double(d);
  w.Raw(", \"linear\": ");
  w.Double(l);
  w.Raw(", \"quadratic\": ");
  w.Double(q);
  w.Raw("}");
  return w.out;
}

// The header every valid file starts with; `rest` continues the object.
std::string ModelFile(const std::string& coefficients, const std::string& rest) {
  return "{\"format\": \"flopspack-cost-model\", \"version\": 1, \"kind\": \"polynomial\", "
         "\"attention\": \"document\", \"coefficients\": " +
         coefficients + rest + "}";
}

const char* const kQualityFields[] = {"scale",
                                      "offset",
                                      "r_squared",
                                      "rms_residual",
                                      "mean_relative_error",
                                      "median_relative_error",
                                      "max_relative_error",
                                      "num_samples"};

void WriteQuality(Writer& w, const flopspack_prediction_quality& q) {
  const double values[] = {q.scale,
                           q.offset,
                           q.r_squared,
                           q.rms_residual,
                           q.mean_relative_error,
                           q.median_relative_error,
                           q.max_relative_error};
  w.Raw("{");
  for (size_t i = 0; i < 7; ++i) {
    w.Key(kQualityFields[i]);
    w.Double(values[i]);
    w.Raw(", ");
  }
  w.Key(kQualityFields[7]);
  w.UInt(q.num_samples);
  w.Raw("}");
}

// Samples of 1-4 documents whose times follow a polynomial with a wobble.
struct GoldenSamples {
  std::vector<int64_t> lengths;
  std::vector<size_t> offsets{0};
  std::vector<double> seconds;
};

GoldenSamples QualitySamples(size_t n, uint64_t seed) {
  GoldenSamples s;
  const std::vector<int64_t> pool = Lengths(n * 4, 8192, seed);
  size_t next = 0;
  for (size_t i = 0; i < n; ++i) {
    double t = 2e-3;
    for (size_t j = 0; j < 1 + i % 4; ++j) {
      const double l = static_cast<double>(pool[next]);
      s.lengths.push_back(pool[next++]);
      t += 3e-4 + 1e-7 * l + 4e-11 * l * l;
    }
    s.offsets.push_back(s.lengths.size());
    s.seconds.push_back(t * (1 + 0.1 * (((i * 7) % 11) / 10.0 - 0.5)));
  }
  return s;
}

flopspack_prediction_quality Evaluate(const flopspack_cost_model* model, const GoldenSamples& s,
                                      int fit_scale, double scale, double offset) {
  flopspack_evaluate_options options;
  flopspack_evaluate_options_init(&options);
  options.fit_scale = fit_scale;
  options.scale = scale;
  options.offset = offset;
  flopspack_prediction_quality q;
  q.struct_size = sizeof(q);
  Check(flopspack_cost_model_evaluate(model, &options, s.lengths.data(), s.offsets.data(),
                                      s.seconds.data(), s.seconds.size(), &q),
        "evaluate");
  return q;
}

std::string CostModelFiles() {
  Writer w;
  // A full file as calibration writes it, with real quality figures.
  const GoldenSamples samples = QualitySamples(24, 41);
  flopspack_cost_model* fitted = nullptr;
  flopspack_fit_report report;
  report.struct_size = sizeof(report);
  Check(flopspack_cost_model_fit(nullptr, samples.lengths.data(), samples.offsets.data(),
                                 samples.seconds.data(), samples.seconds.size(), &report, &fitted),
        "fit");
  flopspack_cost_model* tokens = nullptr;
  Check(flopspack_cost_model_tokens(&tokens), "tokens");
  const flopspack_prediction_quality fitted_q = Evaluate(fitted, samples, 0, 1, 0);
  const flopspack_prediction_quality tokens_q = Evaluate(tokens, samples, 1, 1, 0);
  flopspack_cost_model_destroy(fitted);
  flopspack_cost_model_destroy(tokens);
  Writer quality;
  quality.Raw(", \"quality\": [{\"model\": \"fitted\", \"train\": ");
  WriteQuality(quality, fitted_q);
  quality.Raw(", \"held_out\": ");
  WriteQuality(quality, fitted_q);
  quality.Raw("}, {\"model\": \"tokens\", \"train\": ");
  WriteQuality(quality, tokens_q);
  quality.Raw("}]");
  const std::string fitted_coefficients =
      CoefficientsJson(report.per_sequence, report.per_document, report.linear, report.quadratic);
  struct Valid {
    std::string name, text;
    double s, d, l, q;
    std::string unit;
  };
  const std::vector<Valid> valid = {
      {"calibrated",
       ModelFile(fitted_coefficients,
                 ", \"unit\": \"seconds\", \"provenance\": {\"source\": "
                 "\"flopspack.torch.calibrate\", \"device\": \"cuda (H100)\", "
                 "\"max_tokens\": \"8192\"}" +
                     quality.out),
       report.per_sequence, report.per_document, report.linear, report.quadratic, "seconds"},
      {"minimal", ModelFile(CoefficientsJson(0.1 / 3, 1e-3, 2.718281828459045e-7, 1.0 / 7e9), ""),
       0.1 / 3, 1e-3, 2.718281828459045e-7, 1.0 / 7e9, "seconds"},
      {"integers-unknown-keys-and-samples",
       "{\"coefficients\": {\"quadratic\": 0, \"linear\": 1, \"per_document\": 0, "
       "\"per_sequence\": 5}, \"attention\": \"document\", \"kind\": \"polynomial\", "
       "\"version\": 1, \"format\": \"flopspack-cost-model\", \"unit\": \"tokens\", "
       "\"comment\": \"keys in any order; unknown keys are ignored\", \"samples\": "
       "[{\"lengths\": [3, 4], \"seconds\": 0.5, \"held_out\": false}]}",
       5, 0, 1, 0, "tokens"},
  };
  const std::vector<std::vector<int64_t>> queries = {
      {1}, {4096}, {7, 700, 7000}, Lengths(9, 32768, 5)};
  for (size_t i = 0; i < valid.size(); ++i) {
    const Valid& v = valid[i];
    flopspack_cost_model* model = nullptr;
    Check(flopspack_cost_model_polynomial(v.s, v.d, v.l, v.q, &model), "polynomial");
    w.Raw(i ? ",\n    {\"name\": " : "    {\"name\": ");
    w.Str(v.name);
    w.Raw(",\n     \"text\": " + Quoted(v.text));
    w.Raw(",\n     \"unit\": ");
    w.Str(v.unit);
    w.Raw(", \"coefficients\": " + CoefficientsJson(v.s, v.d, v.l, v.q));
    w.Raw(",\n     \"queries\": [");
    for (size_t q = 0; q < queries.size(); ++q) {
      double cost = 0;
      Check(flopspack_cost_model_sequence_cost(model, queries[q].data(), queries[q].size(), &cost),
            "sequence_cost");
      w.Raw(q ? ", {" : "{");
      w.Key("lengths");
      w.Ints(queries[q]);
      w.Raw(", ");
      w.Key("sequence_cost");
      w.Double(cost);
      w.Raw("}");
    }
    w.Raw("]}");
    flopspack_cost_model_destroy(model);
  }
  // Files every reader must reject, and a word its message must contain.
  const std::string ok = CoefficientsJson(1, 2, 3, 4);
  const std::vector<std::array<std::string, 3>> invalid = {
      {"not-json", "{\"format\": \"flopspack-cost-model\",", "JSON"},
      {"top-level-array", "[1, 2, 3]", "object"},
      {"wrong-format",
       "{\"format\": \"flopspack-golden-1\", \"version\": 1, \"kind\": \"polynomial\", "
       "\"attention\": \"document\", \"coefficients\": " +
           ok + "}",
       "format"},
      {"no-format",
       "{\"version\": 1, \"kind\": \"polynomial\", \"attention\": \"document\", "
       "\"coefficients\": " +
           ok + "}",
       "format"},
      {"newer-version",
       "{\"format\": \"flopspack-cost-model\", \"version\": 2, \"kind\": \"polynomial\", "
       "\"attention\": \"document\", \"coefficients\": " +
           ok + "}",
       "version 2"},
      {"version-as-string",
       "{\"format\": \"flopspack-cost-model\", \"version\": \"1\", \"kind\": \"polynomial\", "
       "\"attention\": \"document\", \"coefficients\": " +
           ok + "}",
       "version"},
      {"transformer-kind",
       "{\"format\": \"flopspack-cost-model\", \"version\": 1, \"kind\": \"transformer\", "
       "\"attention\": \"document\", \"coefficients\": " +
           ok + "}",
       "kind"},
      {"sequence-attention",
       "{\"format\": \"flopspack-cost-model\", \"version\": 1, \"kind\": \"polynomial\", "
       "\"attention\": \"sequence\", \"coefficients\": " +
           ok + "}",
       "attention"},
      {"no-coefficients",
       "{\"format\": \"flopspack-cost-model\", \"version\": 1, \"kind\": \"polynomial\", "
       "\"attention\": \"document\"}",
       "coefficients"},
      {"negative-linear", ModelFile(CoefficientsJson(1, 2, -3, 4), ""), "coefficients.linear"},
      {"missing-quadratic",
       ModelFile("{\"per_sequence\": 1, \"per_document\": 2, \"linear\": 3}", ""),
       "coefficients.quadratic"},
      {"quadratic-as-string",
       ModelFile("{\"per_sequence\": 1, \"per_document\": 2, \"linear\": 3, \"quadratic\": "
                 "\"4e-9\"}",
                 ""),
       "coefficients.quadratic"},
      // Rejected by the JSON parser or by the finiteness check, depending on
      // the language: any message will do.
      {"nan-literal",
       ModelFile("{\"per_sequence\": 1, \"per_document\": 2, \"linear\": 3, \"quadratic\": "
                 "NaN}",
                 ""),
       ""},
      {"coefficient-overflows-double",
       ModelFile("{\"per_sequence\": 1, \"per_document\": 2, \"linear\": 3, \"quadratic\": "
                 "1e400}",
                 ""),
       ""},
      {"provenance-number", ModelFile(ok, ", \"provenance\": {\"max_tokens\": 8192}"),
       "provenance"},
      {"quality-without-train", ModelFile(ok, ", \"quality\": [{\"model\": \"tokens\"}]"),
       "quality"},
  };
  for (const auto& [name, text, fragment] : invalid) {
    w.Raw(",\n    {\"name\": ");
    w.Str(name);
    w.Raw(", \"text\": " + Quoted(text) + ", \"error\": ");
    w.Str(fragment);
    w.Raw("}");
  }
  return w.out;
}

std::string PredictionQualities() {
  Writer w;
  const GoldenSamples samples = QualitySamples(30, 43);
  struct Case {
    std::string name, model;
    int fit_scale;
    double scale, offset;
  };
  const std::vector<Case> cases = {
      {"tokens/fitted-scale", "{\"kind\": \"tokens\"}", 1, 1, 0},
      {"tokens/given-scale", "{\"kind\": \"tokens\"}", 0, 2.5e-6, 1e-3},
      {"polynomial/as-seconds", Polynomial(2e-3, 3e-4, 1e-7, 4e-11), 0, 1, 0},
      {"transformer/fitted-scale", Transformer(2, 64, 2, 2, 0, 64, 64, 1, 1, 0, 0), 1, 1, 0},
      {"transformer/unscaled-flops", Transformer(2, 64, 2, 2, 0, 64, 64, 1, 1, 0, 0), 0, 1, 0},
  };
  for (size_t i = 0; i < cases.size(); ++i) {
    const Case& c = cases[i];
    flopspack_cost_model* model = golden::MakeModel(golden::Parse(c.model));
    const flopspack_prediction_quality q = Evaluate(model, samples, c.fit_scale, c.scale, c.offset);
    flopspack_cost_model_destroy(model);
    w.Raw(i ? ",\n    {\"name\": " : "    {\"name\": ");
    w.Str(c.name);
    w.Raw(", \"model\": " + c.model);
    w.Raw(",\n     \"lengths\": ");
    w.Ints(samples.lengths);
    w.Raw(",\n     \"offsets\": ");
    w.Ints(samples.offsets);
    w.Raw(",\n     \"seconds\": ");
    w.Doubles(samples.seconds);
    w.Raw(",\n     \"fit_scale\": ");
    w.Int(c.fit_scale);
    w.Raw(", \"scale\": ");
    w.Double(c.scale);
    w.Raw(", \"offset\": ");
    w.Double(c.offset);
    w.Raw(",\n     \"quality\": ");
    WriteQuality(w, q);
    w.Raw("}");
  }
  return w.out;
}
}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: " << argv[0] << " <tests/golden directory>\n";
    return 2;
  }
  try {
    Save(argv[1], "cost_models.json", "cost", CostModels());
    Save(argv[1], "stream_packer.json", "stream", StreamPacker());
    Save(argv[1], "buckets.json", "buckets", Buckets());
    Save(argv[1], "step_planner.json", "step", StepPlanner());
    Save(argv[1], "pack_balance.json", "pack", PackBalance());
    Save(argv[1], "stats_simulate.json", "stats", StatsAndSimulate());
    Save(argv[1], "seeds.json", "seeds", Seeds());
    Save(argv[1], "cost_model_files.json", "cost_model_file", CostModelFiles());
    Save(argv[1], "prediction_quality.json", "quality", PredictionQualities());
    Save(argv[1], "context_parallel.json", "context_parallel", ContextParallel());
  } catch (const std::exception& e) {
    std::cerr << "golden_generate: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
