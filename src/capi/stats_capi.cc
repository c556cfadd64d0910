// extern "C" entry points for flopspack_stats: validate pointers, convert,
// call the core in src/stats/, map the status.
#include <algorithm>
#include <cmath>
#include <vector>

#include "capi/capi_util.h"
#include "capi/handles.h"
#include "capi/stats_handle.h"
#include "stats/compare.h"
#include "stats/length_stats.h"

using flopspack::capi::FromStatus;
using flopspack::capi::Guard;
using flopspack::capi::ReadOptions;
using flopspack::capi::RequireArray;
using flopspack::capi::RequireNonNull;
using flopspack::capi::SetError;
using flopspack::capi::WriteOutput;
using flopspack::stats::LengthStats;
using flopspack::stats::Weighting;

namespace {

const flopspack::cost::CostModel* ModelOf(const flopspack_cost_model* model) {
  return model == nullptr ? nullptr : model->model.get();
}

flopspack_status Emit(absl::StatusOr<LengthStats> stats, flopspack_stats** out) {
  if (!stats.ok()) return FromStatus(stats.status());
  *out = new flopspack_stats{std::move(*stats)};
  return FLOPSPACK_OK;
}

flopspack_status ReadWeighting(int weighting, Weighting* out) {
  if (weighting < FLOPSPACK_STATS_WEIGHT_COUNT || weighting > FLOPSPACK_STATS_WEIGHT_COST) {
    return SetError(FLOPSPACK_INVALID_ARGUMENT,
                    absl::StrFormat("weighting = %d is not a flopspack_stats_weighting value "
                                    "(COUNT 0, TOKENS 1, COST 2)",
                                    weighting));
  }
  *out = static_cast<Weighting>(weighting);
  return FLOPSPACK_OK;
}

flopspack_status RequireCost(const flopspack_stats* stats, Weighting w, const char* name) {
  if (w == Weighting::kCost && !stats->stats.has_cost()) {
    return SetError(FLOPSPACK_INVALID_ARGUMENT,
                    absl::StrFormat("weighting = FLOPSPACK_STATS_WEIGHT_COST but %s was built "
                                    "without a cost model",
                                    name));
  }
  return FLOPSPACK_OK;
}

}  // namespace

extern "C" {

flopspack_status flopspack_stats_create(const int64_t* lengths, size_t n,
                                        const flopspack_cost_model* model, flopspack_stats** out) {
  return Guard([&] {
    if (flopspack_status s = RequireArray(lengths, n, sizeof(int64_t), "lengths")) return s;
    if (flopspack_status s = RequireNonNull(out, "out")) return s;
    return Emit(LengthStats::Create(absl::MakeConstSpan(lengths, n), ModelOf(model)), out);
  });
}

flopspack_status flopspack_stats_create_from_histogram(const int64_t* lengths,
                                                       const uint64_t* counts, size_t n,
                                                       const flopspack_cost_model* model,
                                                       flopspack_stats** out) {
  return Guard([&] {
    if (flopspack_status s = RequireArray(lengths, n, sizeof(int64_t), "lengths")) return s;
    if (flopspack_status s = RequireArray(counts, n, sizeof(uint64_t), "counts")) return s;
    if (flopspack_status s = RequireNonNull(out, "out")) return s;
    return Emit(LengthStats::FromHistogram(absl::MakeConstSpan(lengths, n),
                                           absl::MakeConstSpan(counts, n), ModelOf(model)),
                out);
  });
}

flopspack_status flopspack_stats_merge(const flopspack_stats* a, const flopspack_stats* b,
                                       flopspack_stats** out) {
  return Guard([&] {
    if (flopspack_status s = RequireNonNull(a, "a")) return s;
    if (flopspack_status s = RequireNonNull(b, "b")) return s;
    if (flopspack_status s = RequireNonNull(out, "out")) return s;
    return Emit(LengthStats::Merge(a->stats, b->stats), out);
  });
}

flopspack_status flopspack_stats_summarize(const flopspack_stats* stats,
                                           flopspack_stats_summary* out) {
  return Guard([&] {
    if (flopspack_status s = RequireNonNull(stats, "stats")) return s;
    if (flopspack_status s = RequireNonNull(out, "out")) return s;
    const LengthStats& st = stats->stats;
    flopspack_stats_summary full{};
    full.struct_size = sizeof(full);
    full.count = st.count();
    full.distinct_lengths = st.lengths().size();
    full.tokens = st.tokens();
    full.mean = st.mean();
    full.stddev = st.stddev();
    full.min = st.min();
    full.max = st.max();
    if (!st.empty()) {
      full.p50 = *st.Quantile(0.5);
      full.p90 = *st.Quantile(0.9);
      full.p99 = *st.Quantile(0.99);
      full.p999 = *st.Quantile(0.999);
    }
    full.has_cost = st.has_cost() ? 1 : 0;
    full.total_cost = st.total_cost();
    full.mean_cost = st.empty() ? 0.0 : st.total_cost() / static_cast<double>(st.count());
    full.max_cost = st.max_cost();
    return WriteOutput(full, out, "flopspack_stats_summary");
  });
}

flopspack_status flopspack_stats_quantile(const flopspack_stats* stats, double q, double* out) {
  return flopspack_stats_weighted_quantile(stats, FLOPSPACK_STATS_WEIGHT_COUNT, q, out);
}

flopspack_status flopspack_stats_weighted_quantile(const flopspack_stats* stats, int weighting,
                                                   double q, double* out) {
  return Guard([&] {
    if (flopspack_status s = RequireNonNull(stats, "stats")) return s;
    if (flopspack_status s = RequireNonNull(out, "out")) return s;
    Weighting w;
    if (flopspack_status s = ReadWeighting(weighting, &w)) return s;
    if (flopspack_status s = RequireCost(stats, w, "stats")) return s;
    absl::StatusOr<int64_t> value = stats->stats.Quantile(q, w);
    if (!value.ok()) return FromStatus(value.status());
    *out = static_cast<double>(*value);
    return FLOPSPACK_OK;
  });
}

flopspack_status flopspack_stats_cdf(const flopspack_stats* stats, int weighting, int64_t length,
                                     double* out) {
  return Guard([&] {
    if (flopspack_status s = RequireNonNull(stats, "stats")) return s;
    if (flopspack_status s = RequireNonNull(out, "out")) return s;
    Weighting w;
    if (flopspack_status s = ReadWeighting(weighting, &w)) return s;
    if (flopspack_status s = RequireCost(stats, w, "stats")) return s;
    *out = stats->stats.Cdf(length, w);
    return FLOPSPACK_OK;
  });
}

void flopspack_histogram_options_init(flopspack_histogram_options* options) {
  if (options == nullptr) return;
  *options = flopspack_histogram_options{};
  options->struct_size = sizeof(flopspack_histogram_options);
  options->binning = FLOPSPACK_STATS_BINS_LOG2;
  options->weighting = FLOPSPACK_STATS_WEIGHT_COUNT;
}

flopspack_status flopspack_stats_histogram(const flopspack_stats* stats,
                                           const flopspack_histogram_options* options,
                                           int64_t* upper_edges, double* weights, size_t capacity,
                                           size_t* num_bins) {
  return Guard([&] {
    if (flopspack_status s = RequireNonNull(stats, "stats")) return s;
    if (flopspack_status s = RequireNonNull(num_bins, "num_bins")) return s;
    flopspack_histogram_options o;
    flopspack_histogram_options_init(&o);
    if (flopspack_status s = ReadOptions(options, &o, "flopspack_histogram_options")) return s;
    if (o.binning != FLOPSPACK_STATS_BINS_LINEAR && o.binning != FLOPSPACK_STATS_BINS_LOG2) {
      return SetError(FLOPSPACK_INVALID_ARGUMENT,
                      absl::StrFormat("flopspack_histogram_options.binning = %d is not LINEAR (0) "
                                      "or LOG2 (1)",
                                      o.binning));
    }
    if (o.normalized != 0 && o.normalized != 1) {
      return SetError(FLOPSPACK_INVALID_ARGUMENT,
                      absl::StrFormat("flopspack_histogram_options.normalized = %d must be 0 or 1",
                                      o.normalized));
    }
    if (o.width < 0) {
      return SetError(FLOPSPACK_INVALID_ARGUMENT,
                      absl::StrFormat("flopspack_histogram_options.width = %d must be >= 0 "
                                      "(0 = automatic)",
                                      o.width));
    }
    flopspack::stats::HistogramSpec spec;
    if (flopspack_status s = ReadWeighting(o.weighting, &spec.weighting)) return s;
    if (flopspack_status s = RequireCost(stats, spec.weighting, "stats")) return s;
    spec.binning = static_cast<flopspack::stats::Binning>(o.binning);
    spec.width = o.width;
    spec.normalized = o.normalized == 1;
    absl::StatusOr<size_t> bins = stats->stats.BinCount(spec);
    if (!bins.ok()) return FromStatus(bins.status());
    if (upper_edges == nullptr && weights == nullptr) {
      *num_bins = *bins;
      return FLOPSPACK_OK;
    }
    if (capacity < *bins) {
      return SetError(FLOPSPACK_BUFFER_TOO_SMALL,
                      absl::StrFormat("capacity = %u but the histogram has %u bins: query the "
                                      "size with NULL buffers first",
                                      capacity, *bins));
    }
    std::vector<int64_t> edges(*bins);
    std::vector<double> values(*bins);
    absl::Status filled =
        stats->stats.FillHistogram(spec, absl::MakeSpan(edges), absl::MakeSpan(values));
    if (!filled.ok()) return FromStatus(filled);
    if (upper_edges != nullptr) std::copy(edges.begin(), edges.end(), upper_edges);
    if (weights != nullptr) std::copy(values.begin(), values.end(), weights);
    *num_bins = *bins;
    return FLOPSPACK_OK;
  });
}

flopspack_status flopspack_stats_tail_share(const flopspack_stats* stats, int64_t threshold,
                                            flopspack_stats_tail* out) {
  return Guard([&] {
    if (flopspack_status s = RequireNonNull(stats, "stats")) return s;
    if (flopspack_status s = RequireNonNull(out, "out")) return s;
    const flopspack::stats::TailShare t = stats->stats.Above(threshold);
    flopspack_stats_tail full{};
    full.struct_size = sizeof(full);
    full.documents = t.documents;
    full.tokens = t.tokens;
    full.cost = t.cost;
    full.document_share = t.document_share;
    full.token_share = t.token_share;
    full.cost_share = t.cost_share;
    return WriteOutput(full, out, "flopspack_stats_tail");
  });
}

flopspack_status flopspack_stats_expected_max(const flopspack_stats* stats, uint64_t draws,
                                              double* out) {
  return Guard([&] {
    if (flopspack_status s = RequireNonNull(stats, "stats")) return s;
    if (flopspack_status s = RequireNonNull(out, "out")) return s;
    absl::StatusOr<double> value = stats->stats.ExpectedMax(draws);
    if (!value.ok()) return FromStatus(value.status());
    *out = *value;
    return FLOPSPACK_OK;
  });
}

flopspack_status flopspack_stats_ks_distance(const flopspack_stats* a, const flopspack_stats* b,
                                             double* out) {
  return flopspack_stats_ks_distance_weighted(a, b, FLOPSPACK_STATS_WEIGHT_COUNT, out, nullptr);
}

flopspack_status flopspack_stats_ks_distance_weighted(const flopspack_stats* a,
                                                      const flopspack_stats* b, int weighting,
                                                      double* distance, int64_t* length) {
  return Guard([&] {
    if (flopspack_status s = RequireNonNull(a, "a")) return s;
    if (flopspack_status s = RequireNonNull(b, "b")) return s;
    if (flopspack_status s = RequireNonNull(distance, "distance")) return s;
    Weighting w;
    if (flopspack_status s = ReadWeighting(weighting, &w)) return s;
    if (flopspack_status s = RequireCost(a, w, "a")) return s;
    if (flopspack_status s = RequireCost(b, w, "b")) return s;
    auto ks = flopspack::stats::KsDistance(a->stats, b->stats, w);
    if (!ks.ok()) return FromStatus(ks.status());
    *distance = ks->distance;
    if (length != nullptr) *length = ks->length;
    return FLOPSPACK_OK;
  });
}

flopspack_status flopspack_stats_compare(const flopspack_stats* a, const flopspack_stats* b,
                                         flopspack_stats_comparison* out) {
  return Guard([&] {
    if (flopspack_status s = RequireNonNull(a, "a")) return s;
    if (flopspack_status s = RequireNonNull(b, "b")) return s;
    if (flopspack_status s = RequireNonNull(out, "out")) return s;
    auto c = flopspack::stats::Compare(a->stats, b->stats);
    if (!c.ok()) return FromStatus(c.status());
    static_assert(flopspack::stats::kComparisonLevels.size() == FLOPSPACK_STATS_COMPARE_LEVELS,
                  "the header's level count must match the core's");
    flopspack_stats_comparison full{};
    full.struct_size = sizeof(full);
    full.ks_distance = c->ks_count.distance;
    full.ks_length = c->ks_count.length;
    full.ks_distance_tokens = c->ks_tokens.distance;
    full.ks_length_tokens = c->ks_tokens.length;
    for (size_t l = 0; l < FLOPSPACK_STATS_COMPARE_LEVELS; ++l) {
      full.levels[l] = flopspack::stats::kComparisonLevels[l];
      full.quantiles_a[l] = c->quantiles_a[l];
      full.quantiles_b[l] = c->quantiles_b[l];
    }
    full.first_divergent_level = c->first_divergent_level;
    full.tail_threshold = c->tail_threshold;
    full.token_share_above_a = c->token_share_above_a;
    full.token_share_above_b = c->token_share_above_b;
    full.cost_share_above_a = c->cost_share_above_a;
    full.cost_share_above_b = c->cost_share_above_b;
    return WriteOutput(full, out, "flopspack_stats_comparison");
  });
}

flopspack_status flopspack_stats_entries(const flopspack_stats* stats, int64_t* lengths,
                                         uint64_t* counts, size_t capacity, size_t* n) {
  return Guard([&] {
    if (flopspack_status s = RequireNonNull(stats, "stats")) return s;
    if (flopspack_status s = RequireNonNull(n, "n")) return s;
    const size_t k = stats->stats.lengths().size();
    if (lengths == nullptr && counts == nullptr) {
      *n = k;
      return FLOPSPACK_OK;
    }
    if (capacity < k) {
      return SetError(FLOPSPACK_BUFFER_TOO_SMALL,
                      absl::StrFormat("capacity = %u but the statistics hold %u distinct lengths: "
                                      "query the size with NULL buffers first",
                                      capacity, k));
    }
    if (lengths != nullptr) {
      std::copy(stats->stats.lengths().begin(), stats->stats.lengths().end(), lengths);
    }
    if (counts != nullptr) {
      std::copy(stats->stats.counts().begin(), stats->stats.counts().end(), counts);
    }
    *n = k;
    return FLOPSPACK_OK;
  });
}

void flopspack_stats_options_init(flopspack_stats_options* options) {
  if (options == nullptr) return;
  *options = flopspack_stats_options{};
  options->struct_size = sizeof(flopspack_stats_options);
}

flopspack_status flopspack_stats_create_with_options(const int64_t* lengths, const uint64_t* counts,
                                                     size_t n, const flopspack_cost_model* model,
                                                     const flopspack_stats_options* options,
                                                     flopspack_stats** out) {
  return Guard([&] {
    if (flopspack_status s = RequireArray(lengths, n, sizeof(int64_t), "lengths")) return s;
    if (counts != nullptr) {
      if (flopspack_status s = RequireArray(counts, n, sizeof(uint64_t), "counts")) return s;
    }
    if (flopspack_status s = RequireNonNull(out, "out")) return s;
    flopspack_stats_options o;
    flopspack_stats_options_init(&o);
    if (flopspack_status s = ReadOptions(options, &o, "flopspack_stats_options")) return s;
    if (o.cost_capacity < 0) {
      return SetError(FLOPSPACK_INVALID_ARGUMENT,
                      absl::StrFormat("flopspack_stats_options->cost_capacity = %d: must be 0 "
                                      "(documents costed whole) or a positive sequence length",
                                      o.cost_capacity));
    }
    if (counts == nullptr) {
      return Emit(
          LengthStats::Create(absl::MakeConstSpan(lengths, n), ModelOf(model), o.cost_capacity),
          out);
    }
    return Emit(
        LengthStats::FromHistogram(absl::MakeConstSpan(lengths, n), absl::MakeConstSpan(counts, n),
                                   ModelOf(model), o.cost_capacity),
        out);
  });
}

void flopspack_stats_destroy(flopspack_stats* stats) { delete stats; }

}  // extern "C"
