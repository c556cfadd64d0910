#include "util/checked.h"

#include <cmath>

#include "absl/strings/str_format.h"

namespace flopspack::util {

absl::StatusOr<int64_t> CheckedAdd(absl::string_view what, int64_t a, int64_t b) {
  int64_t r = 0;
  if (!AddInt64(a, b, &r)) {
    return absl::OutOfRangeError(absl::StrFormat("%s: %d + %d overflows int64", what, a, b));
  }
  return r;
}

absl::StatusOr<int64_t> CheckedMul(absl::string_view what, int64_t a, int64_t b) {
  int64_t r = 0;
  if (!MulInt64(a, b, &r)) {
    return absl::OutOfRangeError(absl::StrFormat("%s: %d x %d overflows int64", what, a, b));
  }
  return r;
}

absl::StatusOr<double> CheckedCostSum(absl::string_view name, absl::Span<const double> values) {
  double total = 0;
  for (size_t i = 0; i < values.size(); ++i) {
    total += values[i];
    if (!std::isfinite(total)) {
      return absl::OutOfRangeError(
          absl::StrFormat("%s: the sum of costs overflows a double at index %u (value %g); "
                          "rescale the costs",
                          name, i, values[i]));
    }
  }
  return total;
}

}  // namespace flopspack::util
