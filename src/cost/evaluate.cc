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

  double mean = 0;
  for (double y : seconds) mean += y;
  mean /= static_cast<double>(n);
  double ss_res = 0, ss_tot = 0, relative_sum = 0;
  std::vector<double> relative(n);
  for (size_t i = 0; i < n; ++i) {
    const double predicted = q.scale * cost[i] + q.offset;
    const double residual = seconds[i] - predicted;
    ss_res += residual * residual;
    ss_tot += (seconds[i] - mean) * (seconds[i] - mean);
    relative[i] = std::fabs(residual) / seconds[i];
    relative_sum += relative[i];
  }
  if (ss_tot > 0) {
    q.r_squared = 1 - ss_res / ss_tot;
  } else {
    q.r_squared = ss_res == 0 ? 1.0 : 0.0;
  }
  q.rms_residual = std::sqrt(ss_res / static_cast<double>(n));
  q.mean_relative_error = relative_sum / static_cast<double>(n);
  std::sort(relative.begin(), relative.end());
  q.max_relative_error = relative.back();
  q.median_relative_error =
      n % 2 == 1 ? relative[n / 2] : 0.5 * (relative[n / 2 - 1] + relative[n / 2]);
  return q;
}

}  // namespace flopspack::cost
