// Fitting the polynomial cost form to measured step times.
//
// Model: seconds ≈ s·[sequence non-empty] + c0·docs + c1·Σl + c2·Σl², with
// every coefficient ≥ 0 (a negative per-token cost would make the balancers
// prefer longer work). Solved exactly as non-negative least squares over the
// chosen terms (cost/nnls.h: every support tried, 16 small QR solves on
// column-scaled data, O(16·n) time). Ties (collinear terms) go to the smaller
// support, then to the earlier one in term order. The samples are validated
// by cost/samples.h.
#ifndef FLOPSPACK_COST_FIT_H_
#define FLOPSPACK_COST_FIT_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "cost/polynomial.h"

namespace flopspack::cost {

enum FitTerm : uint32_t {
  kFitPerSequence = 1,
  kFitPerDocument = 2,
  kFitLinear = 4,
  kFitQuadratic = 8,
  kFitAll = 15,
};

struct FitResult {
  PolynomialCoefficients coefficients;
  double r_squared = 0;
  double rms_residual = 0;
  uint64_t num_samples = 0;
};

// Sample i holds document_lengths[offsets[i], offsets[i+1]) and took
// seconds[i]. offsets.size() == seconds.size() + 1, offsets[0] == 0,
// non-decreasing, offsets.back() == document_lengths.size(). Needs at least
// as many samples as terms, every sample non-empty, lengths > 0, seconds
// finite and ≥ 0.
absl::StatusOr<FitResult> FitPolynomial(absl::Span<const int64_t> document_lengths,
                                        absl::Span<const size_t> offsets,
                                        absl::Span<const double> seconds, uint32_t terms);

}  // namespace flopspack::cost

#endif  // FLOPSPACK_COST_FIT_H_
