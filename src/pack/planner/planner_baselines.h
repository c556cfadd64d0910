// The baselines the step planner offers for comparison, each what a common
// training pipeline does today.
//
// ConcatenateAndCut: documents in input order are concatenated and cut into
// sequences of exactly `cap` tokens (a document crossing a cut is split),
// the sequences are shuffled with the seeded generator and dealt round
// robin: sequence k goes to rank k mod R, slot k / R. O(n + S).
//
// PackSequencesFirstFit + AssignSequencesLpt: documents are packed into
// sequences of at most `cap` tokens by first-fit decreasing on length (the
// densest common packing, so this baseline gets its best fill), then the
// sequences are spread over R ranks of M slots by LPT on sequence cost
// (heaviest sequence to the lightest rank that still has a free slot).
// O(n log n) packing with a max-tree over bins, O(S log R) assignment.
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

// First-fit decreasing: items (documents or pieces, each <= cap) by length,
// longest first (ties by position), each into the first sequence with room.
// Returns for each item its sequence.
std::vector<int32_t> PackSequencesFirstFit(absl::Span<const int64_t> lengths, int64_t cap,
                                           int32_t* num_sequences);

// LPT of sequences (by cost, ties by index) onto num_ranks ranks of `slots`
// slots each. Returns for each sequence its slot rank * slots + j, or -1 when
// every slot is taken.
std::vector<int32_t> AssignSequencesLpt(absl::Span<const double> sequence_costs, int64_t num_ranks,
                                        int64_t slots);

}  // namespace flopspack::pack

#endif  // FLOPSPACK_PACK_PLANNER_PLANNER_BASELINES_H_
