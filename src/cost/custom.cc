#include "cost/custom.h"

#include <cmath>

#include "absl/strings/str_format.h"

namespace flopspack::cost {

absl::StatusOr<double> CustomModel::SequenceCost(absl::Span<const int64_t> lengths) const {
  if (lengths.empty()) return 0.0;
  absl::StatusOr<double> cost = fn_(lengths);
  if (!cost.ok()) return cost.status();
  if (!std::isfinite(*cost) || *cost < 0) {
    return absl::AbortedError(absl::StrFormat(
        "custom cost model returned %g for a sequence of %u documents: costs must be finite "
        "and non-negative",
        *cost, lengths.size()));
  }
  return *cost;
}

absl::StatusOr<double> CustomModel::DocumentCost(int64_t length) const {
  return SequenceCost({&length, 1});
}

}  // namespace flopspack::cost
