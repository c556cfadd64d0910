#include "cost/evaluate.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "absl/strings/str_format.h"
#include "cost/nnls.h"
#include "cost/samples.h"
#include "util/validate.h"

namespace flopspack::cost {

absl::StatusOr<PredictionQuality> EvaluateModel(const CostModel& model,
                                                absl::Span<const int64_t> document_lengths,
                                                absl::Span<const size_t> offsets,
                                                absl::Span<const double> seconds,
                                                const EvaluateOptions& options) {
  const size_t n = seconds.size();
  const size_t needed = options.fit_scale ? 2 : 1;
  if (n < needed) {
    return absl::InvalidArgumentError(
        absl::StrFormat("evaluate: %u samples are too few (need at least %u%s)", n, needed,
                        options.fit_scale ? " to fit a scale and an offset" : ""));
  }
  if (!options.fit_scale) {
    absl::Status s = util::CheckNonNegativeFinite("evaluate: scale", options.scale);
    if (!s.ok()) return s;
    s = util::CheckNonNegativeFinite("evaluate: offset", options.offset);
    if (!s.ok()) return s;
  }
  absl::Status valid = CheckSamples("evaluate", document_lengths, offsets, seconds);
  if (!valid.ok()) return valid;
  for (size_t i = 0; i < n; ++i) {
    if (seconds[i] <= 0) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "seconds[%u] = %g: evaluate needs every measured time > 0 (relative errors divide by "
          "it)",
          i, seconds[i]));
    }
  }

  std::vector<double> cost(n);
  for (size_t i = 0; i < n; ++i) {
    absl::StatusOr<double> c =
        model.SequenceCost(document_lengths.subspan(offsets[i], offsets[i + 1] - offsets[i]));
    if (!c.ok()) return c.status();
    if (!std::isfinite(*c) || *c < 0) {
      return absl::InvalidArgumentError(
          absl::StrFormat("evaluate: the model's cost of sample %u is %g", i, *c));
    }
    cost[i] = *c;
  }

  PredictionQuality q;
  q.num_samples = n;
  if (options.fit_scale) {
    std::vector<NnlsRow> rows(n);
    for (size_t i = 0; i < n; ++i) rows[i] = {1.0, cost[i], 0.0, 0.0};
    const NnlsSolution s =
        SolveSmallNnls(rows, std::vector<double>(seconds.begin(), seconds.end()), 3u);
    q.offset = s.x[0];
    q.scale = s.x[1];
  } else {
    q.scale = options.scale;
    q.offset = options.offset;
  }

  // Predictions, each finite (an overflowing scale·cost is an input error).
  std::vector<double> predicted(n);
  double largest = 0;
  for (size_t i = 0; i < n; ++i) {
    predicted[i] = q.scale * cost[i] + q.offset;
    if (!std::isfinite(predicted[i])) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "evaluate: the prediction of sample %u overflows (scale %g x cost %g + offset %g)", i,
          q.scale, cost[i], q.offset));
    }
    largest = std::max({largest, predicted[i], seconds[i]});
  }
  // Sums of squares in units of the largest value, so that no square or sum
  // overflows; R² is a ratio and the RMS is scaled back.
  double mean = 0;
  for (double y : seconds) mean += y / largest;
  mean /= static_cast<double>(n);
  double ss_res = 0, ss_tot = 0, relative_mean = 0;
  std::vector<double> relative(n);
  for (size_t i = 0; i < n; ++i) {
    const double residual = seconds[i] - predicted[i];  // both in [0, largest]
    ss_res += (residual / largest) * (residual / largest);
    ss_tot += (seconds[i] / largest - mean) * (seconds[i] / largest - mean);
    relative[i] = std::fabs(residual) / seconds[i];  // may overflow to inf: a true inf
    relative_mean += relative[i] / static_cast<double>(n);
  }
  if (ss_tot > 0) {
    q.r_squared = 1 - ss_res / ss_tot;
  } else {
    q.r_squared = ss_res == 0 ? 1.0 : 0.0;
  }
  q.rms_residual = largest * std::sqrt(ss_res / static_cast<double>(n));
  q.mean_relative_error = relative_mean;
  std::sort(relative.begin(), relative.end());
  q.max_relative_error = relative.back();
  q.median_relative_error =
      n % 2 == 1 ? relative[n / 2] : relative[n / 2 - 1] / 2 + relative[n / 2] / 2;
  return q;
}

}  // namespace flopspack::cost
