#include "pack/buckets/diversity.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_format.h"
#include "pack/buckets/buckets.h"

namespace flopspack::pack {

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

absl::StatusOr<std::vector<DiversityDistance>> StepDistances(const Plan& plan,
                                                             const LengthReference& reference,
                                                             int64_t slots_per_step) {
  if (slots_per_step < 1) {
    return absl::InvalidArgumentError(
        absl::StrFormat("slots_per_step = %d: must be at least 1", slots_per_step));
  }
  if (!plan.has_slots()) {
    return absl::InvalidArgumentError(
        "the plan has no ranks and slots: step diversity needs a step or sampler plan");
  }
  const size_t groups = plan.group_count();
  int64_t num_steps = 0;
  for (size_t g = 0; g < groups; ++g) {
    if (plan.group_slot(g) < 0) {
      return absl::InvalidArgumentError(
          absl::StrFormat("group %u has a negative slot %d", g, plan.group_slot(g)));
    }
    num_steps = std::max(num_steps, plan.group_slot(g) / slots_per_step + 1);
    for (int64_t item : plan.group_items(g)) {
      if (item < 0 || static_cast<size_t>(item) >= reference.num_items()) {
        return absl::InvalidArgumentError(
            absl::StrFormat("group %u holds item %d but the lengths have %u items", g, item,
                            reference.num_items()));
      }
    }
  }
  // Bucket the items by step (counting sort keeps group order within a step).
  std::vector<size_t> start(static_cast<size_t>(num_steps) + 1, 0);
  for (size_t g = 0; g < groups; ++g) {
    start[plan.group_slot(g) / slots_per_step + 1] += plan.group_items(g).size();
  }
  for (size_t s = 0; s < static_cast<size_t>(num_steps); ++s) start[s + 1] += start[s];
  std::vector<int64_t> items(start.back());
  std::vector<size_t> fill(start.begin(), start.end() - 1);
  for (size_t g = 0; g < groups; ++g) {
    size_t& at = fill[plan.group_slot(g) / slots_per_step];
    for (int64_t item : plan.group_items(g)) items[at++] = item;
  }
  std::vector<DiversityDistance> out;
  out.reserve(static_cast<size_t>(num_steps));
  std::vector<uint32_t> scratch;
  for (size_t s = 0; s < static_cast<size_t>(num_steps); ++s) {
    if (start[s] == start[s + 1]) continue;
    out.push_back(reference.Distance(
        absl::MakeConstSpan(items).subspan(start[s], start[s + 1] - start[s]), scratch));
  }
  return out;
}

DiversityDistance MeanDistance(absl::Span<const DiversityDistance> distances) {
  DiversityDistance mean{0, 0};
  if (distances.empty()) return mean;
  for (const DiversityDistance& d : distances) {
    mean.tokens += d.tokens;
    mean.samples += d.samples;
  }
  mean.tokens /= static_cast<double>(distances.size());
  mean.samples /= static_cast<double>(distances.size());
  return mean;
}

}  // namespace flopspack::pack
