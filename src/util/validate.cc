#include "util/validate.h"

#include <cmath>
#include <limits>

#include "absl/strings/str_format.h"

namespace flopspack::util {

absl::StatusOr<int64_t> CheckLengths(absl::string_view name, absl::Span<const int64_t> lengths) {
  int64_t total = 0;
  for (size_t i = 0; i < lengths.size(); ++i) {
    const int64_t length = lengths[i];
    if (length <= 0) {
      return absl::InvalidArgumentError(
          absl::StrFormat("%s[%u] = %d: every length must be positive", name, i, length));
    }
    if (length > std::numeric_limits<int64_t>::max() - total) {
      return absl::OutOfRangeError(absl::StrFormat(
          "%s: the sum of lengths overflows int64 at index %u (value %d)", name, i, length));
    }
    total += length;
  }
  return total;
}

absl::Status CheckCosts(absl::string_view name, absl::Span<const double> costs) {
  for (size_t i = 0; i < costs.size(); ++i) {
    if (!std::isfinite(costs[i]) || costs[i] < 0) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "%s[%u] = %g: every cost must be finite and non-negative", name, i, costs[i]));
    }
  }
  return absl::OkStatus();
}

absl::Status CheckNonNegativeFinite(absl::string_view name, double value) {
  if (!std::isfinite(value) || value < 0) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s = %g: must be finite and non-negative", name, value));
  }
  return absl::OkStatus();
}

absl::StatusOr<uint64_t> CheckedMultiply(absl::string_view what, uint64_t a, uint64_t b) {
  if (a != 0 && b > std::numeric_limits<uint64_t>::max() / a) {
    return absl::OutOfRangeError(absl::StrFormat("%s: %u x %u overflows 64 bits", what, a, b));
  }
  return a * b;
}

}  // namespace flopspack::util
