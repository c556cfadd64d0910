// Checked arithmetic for lengths, token sums, counts and costs: every sum or
// product the core forms from caller-supplied values goes through one of
// these, so an extreme but legal input (INT64_MAX tokens, costs near
// DBL_MAX) gives an OUT_OF_RANGE error naming the argument instead of
// signed-overflow UB, a wrapped size, or inf/NaN metrics.
//
// The bool forms leave *out untouched on overflow (for hot loops); the
// StatusOr forms build the error message (for entry points).
#ifndef FLOPSPACK_UTIL_CHECKED_H_
#define FLOPSPACK_UTIL_CHECKED_H_

#include <cstdint>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"

namespace flopspack::util {

// a + b into *out; false (and *out unchanged) if it overflows int64.
inline bool AddInt64(int64_t a, int64_t b, int64_t* out) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r)) return false;
  *out = r;
  return true;
}

// a * b into *out; false (and *out unchanged) if it overflows int64.
inline bool MulInt64(int64_t a, int64_t b, int64_t* out) {
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r)) return false;
  *out = r;
  return true;
}

// ceil(a / b) for a >= 0, b > 0, without forming a + b - 1.
inline int64_t CeilDivInt64(int64_t a, int64_t b) { return a / b + (a % b != 0 ? 1 : 0); }

// a + b, or OutOfRange "<what>: <a> + <b> overflows int64".
absl::StatusOr<int64_t> CheckedAdd(absl::string_view what, int64_t a, int64_t b);

// a * b, or OutOfRange "<what>: <a> x <b> overflows int64".
absl::StatusOr<int64_t> CheckedMul(absl::string_view what, int64_t a, int64_t b);

// The sum of values (each already finite) in index order, or OutOfRange
// "<name>: the sum of costs overflows a double at index i (value v)" when a
// partial sum is not finite. Costs whose sum is finite keep every derived
// metric (mean, efficiency, gap) finite, since the others divide by counts
// or by the maximum.
absl::StatusOr<double> CheckedCostSum(absl::string_view name, absl::Span<const double> values);

}  // namespace flopspack::util

#endif  // FLOPSPACK_UTIL_CHECKED_H_
