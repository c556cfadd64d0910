#include "stats/order_statistics.h"

#include <cmath>

#include "absl/strings/str_format.h"

namespace flopspack::stats {

double ProbabilityMaxAbove(uint64_t cum, uint64_t n, uint64_t draws) {
  if (cum >= n) return 0.0;
  if (cum == 0) return 1.0;
  const double nd = static_cast<double>(n);
  const double above = static_cast<double>(n - cum) / nd;  // s = 1 - F, exact numerator
  // log F: log1p(-s) is accurate for small s; log(F) for F small.
  const double log_f = above < 0.5 ? std::log1p(-above) : std::log(static_cast<double>(cum) / nd);
  return -std::expm1(static_cast<double>(draws) * log_f);
}

absl::StatusOr<double> ExpectedMaxSorted(absl::Span<const double> values,
                                         absl::Span<const uint64_t> counts, uint64_t draws) {
  if (values.empty()) {
    return absl::InvalidArgumentError(
        "the expected maximum of an empty distribution is undefined: no documents");
  }
  if (draws == 0) {
    return absl::InvalidArgumentError("draws = 0: the maximum of no draws is undefined");
  }
  if (!counts.empty() && counts.size() != values.size()) {
    return absl::InvalidArgumentError(
        absl::StrFormat("counts has %u entries but values has %u", counts.size(), values.size()));
  }
  uint64_t n = 0;
  for (size_t i = 0; i < values.size(); ++i) {
    if (i > 0 && values[i] < values[i - 1]) {
      return absl::InvalidArgumentError(
          absl::StrFormat("values[%u] = %g < values[%u] = %g: values must be ascending", i,
                          values[i], i - 1, values[i - 1]));
    }
    n += counts.empty() ? 1 : counts[i];
  }
  double expected = values[0];
  uint64_t cum = 0;
  for (size_t j = 0; j + 1 < values.size(); ++j) {
    cum += counts.empty() ? 1 : counts[j];
    const double step = values[j + 1] - values[j];
    if (step > 0) expected += step * ProbabilityMaxAbove(cum, n, draws);
  }
  return expected;
}

}  // namespace flopspack::stats
