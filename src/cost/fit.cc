#include "cost/fit.h"

#include <cmath>
#include <vector>

#include "absl/strings/str_format.h"
#include "cost/nnls.h"
#include "cost/samples.h"

namespace flopspack::cost {

absl::StatusOr<FitResult> FitPolynomial(absl::Span<const int64_t> document_lengths,
                                        absl::Span<const size_t> offsets,
                                        absl::Span<const double> seconds, uint32_t terms) {
  if (terms == 0 || terms > kFitAll) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "fit: terms = %u must be a non-empty combination of the FitTerm flags (1..15)", terms));
  }
  const size_t num_samples = seconds.size();
  const int num_terms = __builtin_popcount(terms);
  if (num_samples < static_cast<size_t>(num_terms)) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "fit: %u samples are too few to fit %d terms (need at least one sample per term)",
        num_samples, num_terms));
  }
  absl::Status valid = CheckSamples("fit", document_lengths, offsets, seconds);
  if (!valid.ok()) return valid;

  // One row per sample: the features the four coefficients multiply.
  std::vector<NnlsRow> rows(num_samples);
  for (size_t i = 0; i < num_samples; ++i) {
    double docs = 0, sum = 0, sum_squares = 0;
    for (size_t j = offsets[i]; j < offsets[i + 1]; ++j) {
      const double l = static_cast<double>(document_lengths[j]);
      docs += 1;
      sum += l;
      sum_squares += l * l;
    }
    rows[i] = {1.0, docs, sum, sum_squares};
  }
  std::vector<double> y(seconds.begin(), seconds.end());
  const NnlsSolution best = SolveSmallNnls(rows, y, terms);

  double mean = 0;
  for (double v : y) mean += v;
  mean /= static_cast<double>(num_samples);
  double total_ss = 0;
  for (double v : y) total_ss += (v - mean) * (v - mean);

  FitResult result;
  result.coefficients = {best.x[0], best.x[1], best.x[2], best.x[3]};
  result.num_samples = num_samples;
  result.rms_residual = std::sqrt(best.sum_squared_residuals / static_cast<double>(num_samples));
  if (total_ss > 0) {
    result.r_squared = 1 - best.sum_squared_residuals / total_ss;
  } else {
    result.r_squared = best.sum_squared_residuals == 0 ? 1.0 : 0.0;
  }
  return result;
}

}  // namespace flopspack::cost
