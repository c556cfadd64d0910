// How well a cost model predicts measured times.
//
// For samples (packed sequences and the seconds each took), the prediction of
// sample i is scale·SequenceCost(sample i) + offset. The affine map is either
// given (scale 1, offset 0: the model's own unit is seconds, as for a fitted
// model; or a map fitted on other samples, for held-out figures) or fitted
// here by non-negative least squares on these samples (cost/nnls.h with the
// columns [1, cost]: scale, offset >= 0, so the scaled model is a valid cost
// model too). Then: R² = 1 − SS_res/SS_tot (the coefficient of determination
// on these samples, as scikit-learn's r2_score: out of sample it can be
// negative; 1 when SS_tot = 0 and every prediction is exact, else 0), the RMS
// residual sqrt(SS_res/n) in seconds, and the relative errors
// |prediction − seconds| / seconds: mean, median and max. O(n log n) for the
// median plus one SequenceCost per sample; sums in sample order.
#ifndef FLOPSPACK_COST_EVALUATE_H_
#define FLOPSPACK_COST_EVALUATE_H_

#include <cstddef>
#include <cstdint>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "cost/cost_model.h"

namespace flopspack::cost {

struct EvaluateOptions {
  bool fit_scale = false;  // fit scale and offset on these samples (needs >= 2)
  double scale = 1;        // used when !fit_scale: finite, >= 0
  double offset = 0;       // used when !fit_scale: finite, >= 0
};

struct PredictionQuality {
  double scale = 1;
  double offset = 0;
  double r_squared = 0;
  double rms_residual = 0;
  double mean_relative_error = 0;
  double median_relative_error = 0;
  double max_relative_error = 0;
  uint64_t num_samples = 0;
};

// Samples as in cost/samples.h, and every time > 0 (relative errors divide
// by it); at least one sample, two with fit_scale. A failing model (a custom
// callback) fails the call with its status.
absl::StatusOr<PredictionQuality> EvaluateModel(const CostModel& model,
                                                absl::Span<const int64_t> document_lengths,
                                                absl::Span<const size_t> offsets,
                                                absl::Span<const double> seconds,
                                                const EvaluateOptions& options);

}  // namespace flopspack::cost

#endif  // FLOPSPACK_COST_EVALUATE_H_
