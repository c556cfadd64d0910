// Input checks shared by the core: each returns a Status whose message names
// the offending argument, index and value, as docs/errors.md promises.
#ifndef FLOPSPACK_UTIL_VALIDATE_H_
#define FLOPSPACK_UTIL_VALIDATE_H_

#include <cstdint>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"

namespace flopspack::util {

// Every length positive; returns their sum, or an error if it overflows int64.
absl::StatusOr<int64_t> CheckLengths(absl::string_view name, absl::Span<const int64_t> lengths);

// Every value finite and >= 0.
absl::Status CheckCosts(absl::string_view name, absl::Span<const double> costs);

// value finite and >= 0.
absl::Status CheckNonNegativeFinite(absl::string_view name, double value);

// a * b without overflow, or an OutOfRange error naming both.
absl::StatusOr<uint64_t> CheckedMultiply(absl::string_view what, uint64_t a, uint64_t b);

}  // namespace flopspack::util

#endif  // FLOPSPACK_UTIL_VALIDATE_H_
