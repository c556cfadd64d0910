// The bucket sampler through the library, shared by `buckets` and `report`.
#ifndef FLOPSPACK_CLI_BUCKETS_DATA_H_
#define FLOPSPACK_CLI_BUCKETS_DATA_H_

#include <memory>
#include <string>
#include <vector>

#include "context.h"
#include "flopspack/flopspack.h"
#include "handles.h"
#include "json.h"

namespace flopspack::cli {

struct BucketSamplerDeleter {
  void operator()(flopspack_bucket_sampler* s) const { flopspack_bucket_sampler_destroy(s); }
};
using BucketSamplerPtr = std::unique_ptr<flopspack_bucket_sampler, BucketSamplerDeleter>;

struct BucketSettings {
  uint32_t num_buckets = 64;
  int64_t max_padded_tokens = 262144;
  double max_batch_cost = 0;  // > 0: the COST budget instead of padded tokens
  uint64_t num_ranks = 8;
  uint64_t accumulation = 1;
  bool drop_last = false;
  uint64_t seed = 0;
  int32_t overflow = FLOPSPACK_OVERFLOW_ERROR;  // samples over the budget
};

Json BucketSettingsJson(const BucketSettings& settings);
std::string BudgetSummary(const BucketSettings& settings);

// A sample is enough (resample.h): when the file holds too few samples for
// one step of settings.num_ranks x settings.accumulation batches at every
// bucket count in `counts`, replaces context's lengths by a pool drawn with
// replacement from them (resample) or fails with how many documents a step
// needs (exit 1). Returns the pool's size, 0 when the file is used as is.
// Budget errors (a sample over the budget) are reported with the file's line
// first, before any resampling.
uint64_t FitSampleToStep(Context& context, const BucketSettings& settings,
                         const std::vector<uint32_t>& counts, bool resample);

BucketSamplerPtr MakeBucketSampler(const Context& context, const BucketSettings& settings);
PlanPtr BucketEpoch(const flopspack_bucket_sampler* sampler, uint64_t epoch);
uint64_t StepsPerEpoch(const flopspack_bucket_sampler* sampler);

// Each bucket in use: its bound, the documents and tokens it holds, and the
// padding they get (to the bound).
struct BucketRow {
  int64_t upper_bound = 0, documents = 0, tokens = 0, padding = 0;
};
std::vector<BucketRow> BucketRows(const Context& context, const flopspack_bucket_sampler* sampler);

// One point of the padding / mixing trade-off: a sampler with
// settings.num_buckets buckets, metrics of one epoch.
struct TradeoffPoint {
  uint32_t num_buckets = 0;
  double padding_efficiency = 0, diversity_distance = 0, diversity_distance_samples = 0;
  double balance_efficiency = 0;
  uint64_t steps = 0;
};
TradeoffPoint Tradeoff(const Context& context, const BucketSettings& settings, uint64_t epoch);
Json TradeoffJson(const std::vector<TradeoffPoint>& points);

}  // namespace flopspack::cli

#endif  // FLOPSPACK_CLI_BUCKETS_DATA_H_
