#include "buckets_data.h"

#include <algorithm>

#include "absl/strings/str_format.h"
#include "options.h"
#include "output.h"
#include "plan_output.h"
#include "resample.h"
#include "simulate_ranks.h"
#include "status.h"

namespace flopspack::cli {

Json BucketSettingsJson(const BucketSettings& s) {
  Json out = Json::Object();
  out.Set("num_buckets", static_cast<uint64_t>(s.num_buckets));
  out.Set("budget", s.max_batch_cost > 0 ? "cost" : "padded_tokens");
  out.Set("max_padded_tokens", s.max_padded_tokens);
  out.Set("max_batch_cost", s.max_batch_cost);
  out.Set("num_ranks", s.num_ranks);
  out.Set("accumulation_steps", s.accumulation);
  out.Set("drop_last", s.drop_last);
  out.Set("seed", s.seed);
  out.Set("overflow", OverflowName(s.overflow));
  return out;
}

std::string BudgetSummary(const BucketSettings& s) {
  return s.max_batch_cost > 0 ? absl::StrFormat("cost <= %s", Si(s.max_batch_cost))
                              : absl::StrFormat("%s padded tokens", Cell(s.max_padded_tokens));
}

namespace {

flopspack_status CreateSampler(const Context& context, const std::vector<int64_t>& lengths,
                               const BucketSettings& s, flopspack_bucket_sampler** sampler) {
  flopspack_bucket_sampler_options options;
  flopspack_bucket_sampler_options_init(&options);
  options.num_buckets = s.num_buckets;
  if (s.max_batch_cost > 0) {
    options.budget_kind = FLOPSPACK_BUCKET_BUDGET_COST;
    options.max_batch_cost = s.max_batch_cost;
  } else {
    options.budget_kind = FLOPSPACK_BUCKET_BUDGET_PADDED_TOKENS;
    options.max_padded_tokens = s.max_padded_tokens;
  }
  options.num_ranks = s.num_ranks;
  options.accumulation_steps = s.accumulation;
  options.drop_last = s.drop_last ? 1 : 0;
  options.seed = s.seed;
  options.overflow = s.overflow;
  return flopspack_bucket_sampler_create(&options, context.model.get(), lengths.data(),
                                         lengths.size(), sampler);
}

bool Fits(const Context& context, const std::vector<int64_t>& lengths, const BucketSettings& s,
          const std::vector<uint32_t>& counts) {
  for (uint32_t k : counts) {
    BucketSettings with = s;
    with.num_buckets = k;
    flopspack_bucket_sampler* sampler = nullptr;
    const flopspack_status status = CreateSampler(context, lengths, with, &sampler);
    flopspack_bucket_sampler_destroy(sampler);
    if (status != FLOPSPACK_OK) return false;
  }
  return true;
}

}  // namespace

uint64_t FitSampleToStep(Context& context, const BucketSettings& settings,
                         const std::vector<uint32_t>& counts, bool resample) {
  std::vector<uint32_t> all = counts;
  all.push_back(settings.num_buckets);
  // One rank and one batch per step always has samples enough: a failure
  // there is the data against the budget, reported as it is.
  BucketSettings one = settings;
  one.num_ranks = 1;
  one.accumulation = 1;
  for (uint32_t k : all) {
    one.num_buckets = k;
    flopspack_bucket_sampler* sampler = nullptr;
    const flopspack_status status = CreateSampler(context, context.lengths.values, one, &sampler);
    flopspack_bucket_sampler_destroy(sampler);
    CheckInput(context, status, absl::StrFormat("bucket sampler (%d buckets)", k));
  }
  if (Fits(context, context.lengths.values, settings, all)) return 0;
  const uint64_t n = context.lengths.values.size();
  uint64_t size = std::max<uint64_t>(2 * n, 2 * settings.num_ranks * settings.accumulation);
  std::vector<int64_t> pool;
  for (int i = 0; i < 8; ++i, size *= 2) {
    pool = DrawWithReplacement(context.lengths.values, size, settings.seed ^ 0x9E3779B97F4A7C15ULL);
    if (Fits(context, pool, settings, all)) break;
  }
  if (!resample) {
    throw InputError(absl::StrFormat(
        "--ranks=%d x --microbatches=%d: the file's %s samples cannot fill one step of %s "
        "batches without repeating samples; a step needs about %s documents (give a larger "
        "sample, fewer ranks or microbatches, or drop --noresample to draw them with replacement "
        "from the file)",
        settings.num_ranks, settings.accumulation, Cell(static_cast<int64_t>(n)),
        Cell(static_cast<int64_t>(settings.num_ranks * settings.accumulation)),
        Cell(static_cast<int64_t>(size))));
  }
  context.lengths.values = std::move(pool);
  context.lengths.lines.clear();
  context.tokens = 0;
  for (int64_t l : context.lengths.values) context.tokens += l;
  return size;
}

BucketSamplerPtr MakeBucketSampler(const Context& context, const BucketSettings& s) {
  flopspack_bucket_sampler* sampler = nullptr;
  CheckInput(context, CreateSampler(context, context.lengths.values, s, &sampler),
             absl::StrFormat("bucket sampler (%d buckets)", s.num_buckets));
  return BucketSamplerPtr(sampler);
}

PlanPtr BucketEpoch(const flopspack_bucket_sampler* sampler, uint64_t epoch) {
  flopspack_plan* plan = nullptr;
  Check(flopspack_bucket_sampler_epoch(sampler, epoch, &plan),
        absl::StrFormat("bucket sampler epoch %d", epoch));
  return PlanPtr(plan);
}

uint64_t StepsPerEpoch(const flopspack_bucket_sampler* sampler) {
  uint64_t steps = 0;
  Check(flopspack_bucket_sampler_steps_per_epoch(sampler, &steps), "steps per epoch");
  return steps;
}

std::vector<BucketRow> BucketRows(const Context& context, const flopspack_bucket_sampler* sampler) {
  const int64_t* bounds = nullptr;
  size_t n = 0;
  Check(flopspack_bucket_sampler_upper_bounds(sampler, &bounds, &n), "bucket bounds");
  std::vector<BucketRow> rows;
  for (size_t b = 0; b < n; ++b) {
    if (b > 0 && bounds[b] == bounds[b - 1]) continue;  // empty repeated bounds
    rows.push_back({bounds[b], 0, 0, 0});
  }
  // Each document goes to the first bound >= its length (docs/buckets.md).
  for (int64_t length : context.lengths.values) {
    auto it = std::lower_bound(rows.begin(), rows.end(), length,
                               [](const BucketRow& r, int64_t l) { return r.upper_bound < l; });
    if (it == rows.end()) continue;  // cannot happen: the last bound is the longest length
    it->documents += 1;
    it->tokens += length;
    it->padding += it->upper_bound - length;
  }
  return rows;
}

TradeoffPoint Tradeoff(const Context& context, const BucketSettings& settings, uint64_t epoch) {
  const BucketSamplerPtr sampler = MakeBucketSampler(context, settings);
  const PlanPtr plan = BucketEpoch(sampler.get(), epoch);
  const struct flopspack_plan_metrics m = PlanMetrics(plan.get());
  TradeoffPoint p;
  p.num_buckets = settings.num_buckets;
  p.padding_efficiency = m.padding_efficiency;
  p.diversity_distance = m.diversity_distance;
  p.diversity_distance_samples = m.diversity_distance_samples;
  p.balance_efficiency = m.balance_efficiency;
  p.steps = m.num_steps;
  return p;
}

Json TradeoffJson(const std::vector<TradeoffPoint>& points) {
  Json out = Json::Array();
  for (const TradeoffPoint& p : points) {
    Json j = Json::Object();
    j.Set("num_buckets", static_cast<uint64_t>(p.num_buckets));
    j.Set("padding_efficiency", p.padding_efficiency);
    j.Set("diversity_distance", p.diversity_distance);
    j.Set("diversity_distance_samples", p.diversity_distance_samples);
    j.Set("balance_efficiency", p.balance_efficiency);
    j.Set("steps", p.steps);
    out.Push(std::move(j));
  }
  return out;
}

}  // namespace flopspack::cli
