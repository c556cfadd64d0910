// The baselines the step planner offers for comparison, each what a common
// training pipeline does today.
//
// ConcatenateAndCut: documents in input order are concatenated and cut into
// sequences of exactly `cap` tokens (a document crossing a cut is split),
// the sequences are shuffled with the seeded generator and dealt round
// robin: sequence k goes to rank k mod R, slot k / R. O(n + S).
//
// Pre-packed sequences (StepAlgorithm::kSequences, in step_planner.cc, from
// the shared primitives): documents are packed into sequences of at most
// `cap` tokens by FirstFitDecreasing (primitives/bin_packing.h; the densest
// common packing, so this baseline gets its best fill), then the sequences
// are spread over R ranks of M slots by AssignLptSlots (primitives/lpt.h:
// heaviest sequence to the lightest rank that still has a free slot).
// FFD uses at most 11/9 OPT + 6/9 bins (Dósa 2007); LPT is within 4/3 of the
// optimal makespan (Graham 1969). It cannot fix a sequence that holds one
// long document: that is the point of the comparison.
#ifndef FLOPSPACK_PACK_PLANNER_PLANNER_BASELINES_H_
#define FLOPSPACK_PACK_PLANNER_PLANNER_BASELINES_H_

#include <cstdint>
#include <vector>

#include "absl/types/span.h"

namespace flopspack::pack {

// A piece of a document: `tokens` of document `doc`.
struct Piece {
  int64_t doc;
  int64_t tokens;
};

// Sequences as CSR over pieces: sequence s holds pieces[offsets[s] ..
// offsets[s+1]).
struct Sequences {
  std::vector<int64_t> offsets{0};
  std::vector<Piece> pieces;
  size_t count() const { return offsets.size() - 1; }
};

// Concatenates lengths (document i has lengths[i] tokens) and cuts every
// `cap` tokens. Preconditions: lengths positive, cap > 0.
Sequences ConcatenateAndCut(absl::Span<const int64_t> lengths, absl::Span<const int64_t> docs,
                            int64_t cap);

}  // namespace flopspack::pack

#endif  // FLOPSPACK_PACK_PLANNER_PLANNER_BASELINES_H_
