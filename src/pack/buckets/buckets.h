// Optimal length-bucket boundaries for padded batching.
//
// What: given sample lengths and a number of buckets B, the upper bounds
// u_1 < ... < u_B that minimise the total padding
//   sum over samples of (upper bound of the sample's bucket - its length),
// where a sample falls in the first bucket whose upper bound is >= its length.
// How: an optimal set of bounds uses only lengths that occur (lowering a bound
// to the longest sample below it never adds padding), so the problem is to cut
// the D distinct lengths, ascending, into B contiguous runs. Exact dynamic
// programming over the length histogram:
//   f_b(j) = min_{i<j} f_{b-1}(i) + w(i, j),
//   w(i, j) = p(v_{j-1}) * count[i, j)   (runs are half-open),
// which is the padding plus the constant sum of lengths for p(v) = v. For
// any non-decreasing price p, w satisfies the quadrangle inequality
// w(a,c) + w(b,d) <= w(a,d) + w(b,c) for a <= b <= c <= d (the difference is
// (p(v_{d-1}) - p(v_{c-1})) * count[a, b) >= 0), so the leftmost optimal
// split point is monotone in j and each layer is solved by divide and
// conquer. The bucket sampler uses a budget-aware price (bucket_sampler.h).
// Complexity: O(n) or O(n log n) to build the histogram, O(B * D log D) time
// and O(B * D) memory for the DP (B < D; B >= D is answered directly).
// Guarantee: minimum total padding, ties broken towards the smaller split
// point (deterministic). Reference: Yao, "Efficient dynamic programming using
// quadrangle inequalities" (STOC 1980); the divide-and-conquer layer
// optimisation as in Galil & Park, "Dynamic programming with convexity,
// concavity and sparsity" (TCS 1992).
#ifndef FLOPSPACK_PACK_BUCKETS_BUCKETS_H_
#define FLOPSPACK_PACK_BUCKETS_BUCKETS_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "stats/histogram.h"

namespace flopspack::pack {

// The length histogram and its validating builder live in stats/histogram.h.
using stats::BuildLengthHistogram;
using stats::LengthHistogram;

// The B = num_buckets upper bounds of minimum total padding, non-decreasing.
// When the histogram has D >= B distinct lengths the bounds are strictly
// increasing and the last is the longest length. When D < B, every distinct
// length gets its own bucket (zero padding) and the last B - D bounds repeat
// the longest length: those buckets are empty. Precondition: histogram not
// empty, num_buckets >= 1.
std::vector<int64_t> OptimalUpperBounds(const LengthHistogram& histogram, int64_t num_buckets);

// The generalisation the bucket sampler uses: minimise
//   sum over buckets of count(bucket) * price[index of its upper bound]
// for any price that is non-decreasing over the distinct lengths (price =
// the lengths themselves is minimum padding, up to the constant sum of
// lengths). The quadrangle inequality only needs that monotonicity, so the
// same exact DP applies. Precondition: price.size() == histogram size,
// non-decreasing, and total count x max price fits int64.
std::vector<int64_t> OptimalUpperBoundsForPrice(const LengthHistogram& histogram,
                                                int64_t num_buckets,
                                                absl::Span<const int64_t> price);

// Validating front end: lengths non-empty and positive, num_buckets >= 1.
absl::StatusOr<std::vector<int64_t>> OptimalUpperBounds(absl::Span<const int64_t> lengths,
                                                        int64_t num_buckets);

// Total padding when each sample is padded to the first upper bound >= its
// length. upper_bounds must be non-decreasing and the last must be >= every
// length (errors name the offending index and value).
absl::StatusOr<int64_t> PaddingToUpperBounds(absl::Span<const int64_t> lengths,
                                             absl::Span<const int64_t> upper_bounds);

// Checks explicit upper bounds: non-empty, positive, non-decreasing (a
// repeated bound is an empty bucket, as OptimalUpperBounds returns when there
// are fewer distinct lengths than buckets).
absl::Status CheckUpperBounds(absl::Span<const int64_t> upper_bounds);

}  // namespace flopspack::pack

#endif  // FLOPSPACK_PACK_BUCKETS_BUCKETS_H_
