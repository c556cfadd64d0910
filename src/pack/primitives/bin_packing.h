// One-dimensional bin packing of item sizes into bins of a fixed capacity:
// the assignment step of sequence packing (documents into fixed-length
// sequences), with no notion of documents, costs or overflow (see
// pack/binpack/packer.h for those).
//
// Algorithms, complexities and guarantees (OPT = fewest bins possible):
//   NextFit            in order, one open bin;        O(n);             <= 2·OPT − 1
//   FirstFit           given order, lowest bin that fits;  O(n log n);  <= 1.7·OPT
//   FirstFitDecreasing sizes descending, then first fit;   O(n + C) or O(n log n)
//                                                          <= 11/9·OPT + 6/9
//   BestFitDecreasing  sizes descending, fullest bin that fits; same bound as FFD
//   ShuffledFirstFit   seeded Fisher–Yates order, then first fit
// First fit runs on a max segment tree over the bins (leftmost bin with room
// in O(log bins)); best fit on bins bucketed by their remaining capacity with
// a 64-ary bit tree over the buckets (fullest bin with room in O(log_64 C)),
// or an ordered set when C is much larger than n. The descending sort is a
// counting sort when C is small next to n, a comparison sort otherwise.
// References: D. S. Johnson, "Near-optimal bin packing algorithms", MIT PhD
// thesis, 1973 (FF, FFD, BFD, NF); G. Dósa, "The tight bound of first fit
// decreasing bin-packing algorithm is FFD(I) <= 11/9 OPT(I) + 6/9", 2007.
//
// Speed: after a counting sort the placement loops take each item's size
// from its run of equal sizes, not from sizes[item] (on a million items that
// random read was most of best fit's time).
//
// Determinism: sizes that are equal keep their index order in the sort;
// among bins with equal remaining capacity best fit takes the one that
// reached that level most recently (LIFO), in both of its data structures.
#ifndef FLOPSPACK_PACK_PRIMITIVES_BIN_PACKING_H_
#define FLOPSPACK_PACK_PRIMITIVES_BIN_PACKING_H_

#include <cstdint>
#include <vector>

#include "absl/types/span.h"

namespace flopspack::pack {

// order and placed_bin are sized with util::ResizeLarge: under a thread's
// vector pool (util/vector_pool.h) their storage comes from it, and a
// caller in a pool gives them back (binpack/packer.cc).
struct BinAssignment {
  // The items in the order they were placed (items of one bin appear in
  // this order within it), and the bin each placement went into:
  // order[k] went into placed_bin[k]. Bins are numbered in the order they
  // were opened, in [0, num_bins).
  std::vector<int32_t> order;
  std::vector<int32_t> placed_bin;
  int32_t num_bins = 0;
  // bin[i]: the bin of item i; empty when the caller passed item_bins =
  // false (a caller that reads the placements in order, like the packer,
  // saves a scattered write per item).
  std::vector<int32_t> bin;
};

// Preconditions for all: capacity > 0; every size in [1, capacity];
// sizes.size() < 2^31.

BinAssignment NextFit(absl::Span<const int64_t> sizes, int64_t capacity, bool item_bins = true);

// First fit visiting items in `order` (a permutation of 0..n-1).
BinAssignment FirstFit(absl::Span<const int64_t> sizes, std::vector<int32_t> order,
                       int64_t capacity, bool item_bins = true);

BinAssignment FirstFitDecreasing(absl::Span<const int64_t> sizes, int64_t capacity,
                                 bool item_bins = true);

BinAssignment BestFitDecreasing(absl::Span<const int64_t> sizes, int64_t capacity,
                                bool item_bins = true);

// First fit in a random order drawn from util::Rng(seed).
BinAssignment ShuffledFirstFit(absl::Span<const int64_t> sizes, int64_t capacity, uint64_t seed,
                               bool item_bins = true);

// Item indices by size descending, ties by index ascending.
std::vector<int32_t> DecreasingOrder(absl::Span<const int64_t> sizes, int64_t capacity);

}  // namespace flopspack::pack

#endif  // FLOPSPACK_PACK_PRIMITIVES_BIN_PACKING_H_
