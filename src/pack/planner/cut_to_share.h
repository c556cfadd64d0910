// Cut to the share: the step planner's fallback where whole documents and
// balanced pieces cannot balance the ranks (few documents, or pieces that
// are a large part of a rank's share).
//
// What: McNaughton's wrap-around rule with costs. Documents in input order
// fill rank 0's microbatches, then rank 1's, ...; a document that does not
// fit the room left in a microbatch is cut there (as concatenate-and-cut
// does), and one that would take the rank's cost past a target S is cut
// where the rank's cost reaches S (the longest piece that keeps it <= S,
// found by binary search on the cost, which grows with length). S is the
// least target, by bisection, for which every document finds room in the
// R ranks; the cut at S = infinity is concatenate-and-cut at the cap, which
// fits whenever the tokens do.
// Complexity: O(60 x (n + R x M x log cap)) cost evaluations.
// Guarantee: no microbatch over the cap; every token placed once, the pieces
// of a document consecutive and in order; each rank's cost (sum of its
// pieces' document costs plus the overhead of its non-empty microbatches)
// <= S; at most one cut per microbatch boundary and one per rank boundary.
// Reference: McNaughton, "Scheduling with deadlines and loss functions",
// Management Science 6(1), 1959 (the wrap-around rule for preemptive
// makespan).
#ifndef FLOPSPACK_PACK_PLANNER_CUT_TO_SHARE_H_
#define FLOPSPACK_PACK_PLANNER_CUT_TO_SHARE_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "cost/cost_model.h"

namespace flopspack::pack {

struct SharePiece {
  int64_t doc;     // position in lengths
  int64_t tokens;  // tokens of this piece
  int32_t where;   // microbatch rank * M + j
};

// The pieces of docs (positions in lengths, filled in this order) over r
// ranks x m microbatches of cap tokens. Precondition: the documents' tokens
// fit in r x m x cap.
absl::StatusOr<std::vector<SharePiece>> CutToShare(const cost::CostModel& model,
                                                   absl::Span<const int64_t> lengths,
                                                   absl::Span<const int64_t> docs, int64_t r,
                                                   int64_t m, int64_t cap);

}  // namespace flopspack::pack

#endif  // FLOPSPACK_PACK_PLANNER_CUT_TO_SHARE_H_
