// Measured samples: packed sequences (their document lengths) and the time
// each took, in the CSR layout of the C API (flopspack_cost_model_fit,
// flopspack_cost_model_evaluate). One validation for every consumer.
#ifndef FLOPSPACK_COST_SAMPLES_H_
#define FLOPSPACK_COST_SAMPLES_H_

#include <cstddef>
#include <cstdint>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"

namespace flopspack::cost {

// Sample i holds document_lengths[offsets[i], offsets[i+1]) and took
// seconds[i]. Checks, in this order: offsets.size() == seconds.size() + 1,
// offsets[0] == 0, offsets.back() == document_lengths.size(); every sample
// non-empty (offsets strictly increasing, so no index runs past the
// lengths); every length > 0 with an int64 sum; every time finite and
// >= 0. `what` starts each message ("fit", "evaluate").
absl::Status CheckSamples(absl::string_view what, absl::Span<const int64_t> document_lengths,
                          absl::Span<const size_t> offsets, absl::Span<const double> seconds);

}  // namespace flopspack::cost

#endif  // FLOPSPACK_COST_SAMPLES_H_
