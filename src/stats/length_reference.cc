#include "stats/length_reference.h"

#include <algorithm>
#include <cmath>

#include "stats/histogram.h"

namespace flopspack::stats {

absl::StatusOr<LengthReference> LengthReference::Create(absl::Span<const int64_t> lengths) {
  absl::StatusOr<LengthHistogram> histogram = BuildLengthHistogram(lengths);
  if (!histogram.ok()) return histogram.status();
  if (histogram->values.size() > UINT32_MAX) {
    return absl::OutOfRangeError("lengths: more than 2^32 distinct lengths");
  }
  LengthReference ref;
  ref.values_ = std::move(histogram->values);
  const size_t d = ref.values_.size();
  ref.token_cdf_.resize(d);
  ref.sample_cdf_.resize(d);
  int64_t tokens = 0, samples = 0;
  int64_t total_tokens = 0;
  for (size_t i = 0; i < d; ++i) total_tokens += histogram->counts[i] * ref.values_[i];
  for (size_t i = 0; i < d; ++i) {
    tokens += histogram->counts[i] * ref.values_[i];
    samples += histogram->counts[i];
    // Ratios of exact integer prefix sums: no accumulated rounding.
    ref.token_cdf_[i] = static_cast<double>(tokens) / static_cast<double>(total_tokens);
    ref.sample_cdf_[i] = static_cast<double>(samples) / static_cast<double>(lengths.size());
  }
  ref.rank_.resize(lengths.size());
  for (size_t i = 0; i < lengths.size(); ++i) {
    ref.rank_[i] = static_cast<uint32_t>(
        std::lower_bound(ref.values_.begin(), ref.values_.end(), lengths[i]) - ref.values_.begin());
  }
  return ref;
}

DiversityDistance LengthReference::Distance(absl::Span<const int64_t> items,
                                            std::vector<uint32_t>& scratch) const {
  if (items.empty()) return {1.0, 1.0};
  scratch.clear();
  int64_t total_tokens = 0;
  for (int64_t item : items) {
    const uint32_t d = rank_[item];
    scratch.push_back(d);
    total_tokens += values_[d];
  }
  std::sort(scratch.begin(), scratch.end());
  const double inv_tokens = 1.0 / static_cast<double>(total_tokens);
  const double inv_samples = 1.0 / static_cast<double>(items.size());
  // Integer running counts, divided at each point: no drift.
  int64_t tokens = 0, samples = 0;
  DiversityDistance out{0, 0};
  for (size_t k = 0; k < scratch.size();) {
    const uint32_t d = scratch[k];
    size_t end = k;
    while (end < scratch.size() && scratch[end] == d) ++end;
    // Just before values_[d]: the dataset's CDF at the previous distinct length.
    const double f_tok_before = d > 0 ? token_cdf_[d - 1] : 0.0;
    const double f_smp_before = d > 0 ? sample_cdf_[d - 1] : 0.0;
    out.tokens =
        std::max(out.tokens, std::fabs(static_cast<double>(tokens) * inv_tokens - f_tok_before));
    out.samples =
        std::max(out.samples, std::fabs(static_cast<double>(samples) * inv_samples - f_smp_before));
    const int64_t run = static_cast<int64_t>(end - k);
    tokens += run * values_[d];
    samples += run;
    out.tokens =
        std::max(out.tokens, std::fabs(static_cast<double>(tokens) * inv_tokens - token_cdf_[d]));
    out.samples = std::max(out.samples,
                           std::fabs(static_cast<double>(samples) * inv_samples - sample_cdf_[d]));
    k = end;
  }
  return out;
}

}  // namespace flopspack::stats
