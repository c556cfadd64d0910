// The histogram of a dataset's lengths: its distinct lengths, ascending,
// and how many documents have each. The one histogram builder of the
// library (length statistics, optimal buckets, the diversity reference).
//
// How: a counting array over [1, longest] when longest <= max(n,
// kMaxCountingRange) (O(n + longest), no comparison), else a sort
// (O(n log n)). Guarantee: exact. Reference: Knuth, TAOCP vol. 3, §5.2
// (counting sort).
#ifndef FLOPSPACK_STATS_HISTOGRAM_H_
#define FLOPSPACK_STATS_HISTOGRAM_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"

namespace flopspack::stats {

// Above this many slots a counting array wastes memory; sort instead.
inline constexpr int64_t kMaxCountingRange = int64_t{1} << 22;

struct LengthHistogram {
  std::vector<int64_t> values;  // distinct lengths, ascending
  std::vector<int64_t> counts;  // documents of each
};

// Precondition: every length > 0. Empty input gives an empty histogram.
LengthHistogram CountLengths(absl::Span<const int64_t> lengths);

// Validates lengths (every one positive, n * max length fits int64 so that
// padding totals cannot overflow) and counts them.
absl::StatusOr<LengthHistogram> BuildLengthHistogram(absl::Span<const int64_t> lengths);

}  // namespace flopspack::stats

#endif  // FLOPSPACK_STATS_HISTOGRAM_H_
