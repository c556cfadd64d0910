// Sequence packing: documents into sequences of a fixed token capacity,
// returned as a Plan whose groups are the sequences.
//
// Documents longer than the capacity are handled by the overflow policy
// (error, truncate to the capacity, or split into capacity-sized pieces plus
// a remainder; each piece is packed as an item of its own). The pieces are
// then placed by one of the bin-packing algorithms of pack/primitives/bin_packing.h
// (see there for complexity, guarantees and references). Each sequence's
// cost is the cost model's SequenceCost of the document lengths in it
// (tokens without a model); a packed sequence is computed at its full
// capacity, so computed_tokens = capacity per group and padding efficiency
// equals fill.
#ifndef FLOPSPACK_PACK_BINPACK_PACKER_H_
#define FLOPSPACK_PACK_BINPACK_PACKER_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "cost/cost_model.h"
#include "pack/primitives/overflow.h"
#include "pack/primitives/plan.h"

namespace flopspack::pack {

// Values match flopspack_pack_algorithm.
enum class PackAlgorithm {
  kBestFitDecreasing = 0,
  kFirstFitDecreasing = 1,
  kNextFit = 2,
  kShuffledFirstFit = 3,
};

struct PackOptions {
  PackAlgorithm algorithm = PackAlgorithm::kBestFitDecreasing;
  int64_t capacity = 0;  // tokens per sequence, > 0
  Overflow overflow = Overflow::kError;
  uint64_t seed = 0;                            // used by kShuffledFirstFit
  const cost::CostModel* cost_model = nullptr;  // nullptr = cost is tokens
};

// Packs documents of the given lengths (each > 0). Errors: InvalidArgument
// for a bad capacity, overflow policy (kDefer) or length, or a length
// above the capacity under Overflow::kError; OutOfRange for more than
// 2^31 - 1 pieces; the cost model's status if it fails.
absl::StatusOr<Plan> Pack(absl::Span<const int64_t> lengths, const PackOptions& options);

// Pack where document i's sequence cost share is the model's cost of its
// tokens plus extra_costs[i] (empty = none: the same plan as Pack, bit for
// bit). Placement is by tokens (the capacity is a token limit), so extra
// costs change the sequence costs and cost metrics, never the placement. A
// split or truncated document's pieces carry its extra cost in proportion
// to their tokens (extra_costs.h). Errors: Pack's, plus CheckExtraCosts'
// and OutOfRange for a sequence cost that overflows a double.
absl::StatusOr<Plan> PackWithExtraCosts(absl::Span<const int64_t> lengths,
                                        absl::Span<const double> extra_costs,
                                        const PackOptions& options);

}  // namespace flopspack::pack

#endif  // FLOPSPACK_PACK_BINPACK_PACKER_H_
