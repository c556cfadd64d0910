// Document-level step planning: items (documents or pieces of documents)
// into R ranks x M microbatches, each microbatch holding at most `cap`
// tokens, minimising the maximum rank cost (the sum of its items' costs).
//
// Phase 1, LPT under the cap: items by cost, heaviest first, each to the
// lightest rank that has a microbatch with room, into that rank's
// best-fitting microbatch (least room left). Ranks that can no longer take
// even the smallest remaining item leave the LPT tree for good.
// Phase 2, refinement: while the heaviest rank H is above the lower bound
// max(total / R, largest item) by more than `tolerance`, look among the
// `light_candidates` lightest ranks L for the move or swap between one
// microbatch of H and one of L that most lowers max(cost H, cost L) under
// the cap: move 1 item (1-0), swap 1-1 (both tried on every candidate
// first), then swap 1 of H for 2 of L (1-2: moves cost without moving
// tokens, which is what a nearly full step needs, since a long document
// costs more than two short ones of the same total length) and 2-1. Stops
// when H has no improving move or the move budget is spent. Phase 2 is the
// shared refinement, RefineSlots in pack/primitives/refine.h.
//
// Complexity: O(n log n) sort + O(n log R) tree work for phase 1 (plus the
// ranks skipped because they are full); phase 2 costs O(K s m^2) per move,
// s items per rank, m per microbatch, K light candidates, at most
// `max_moves` moves.
// Guarantee: no microbatch exceeds the cap; every item is placed or
// reported unplaced; phase 2 never raises the maximum rank cost (each move
// strictly lowers the larger of the two ranks it touches, and the sum of
// squared rank costs strictly decreases, so it terminates).
// References: Graham, "Bounds on multiprocessing timing anomalies" (1969)
// for LPT; Wang et al., "WLB-LLM", OSDI 2025, for document-level balance
// under a token cap; the swap neighbourhoods follow the local search for
// multiprocessor scheduling of Finn & Horowitz (1979).
#ifndef FLOPSPACK_PACK_PLANNER_PLANNER_DOCUMENTS_H_
#define FLOPSPACK_PACK_PLANNER_PLANNER_DOCUMENTS_H_

#include <cstdint>
#include <vector>

#include "absl/types/span.h"
#include "pack/primitives/cost_order.h"

namespace flopspack::pack {

struct DocumentPlanOptions {
  int64_t num_ranks = 1;
  int64_t microbatches_per_rank = 1;
  int64_t cap = 1;  // tokens per microbatch
  bool refine = true;
  // Moves phase 2 may make; < 0 = 2 * num_ranks + 1024.
  int64_t max_moves = -1;
  // Phase 2 stops once the heaviest rank is within this fraction of the
  // lower bound max(total / R, largest item).
  double tolerance = 5e-4;
  // Lightest ranks tried as partners of the heaviest rank per move.
  int light_candidates = 8;
};

// What the refinement did (for tests and the quality benchmark).
struct DocumentPlanStats {
  int64_t moves = 0;
  double max_rank_cost_after_lpt = 0;
};

// For each item, the microbatch rank * M + j it goes to, or -1 when it did
// not fit anywhere. Preconditions: lengths and costs have equal sizes, every
// length in [1, cap], every cost finite and >= 0, R * M < 2^31, n < 2^31.
std::vector<int32_t> PlanDocuments(absl::Span<const int64_t> lengths,
                                   absl::Span<const double> costs,
                                   const DocumentPlanOptions& options,
                                   DocumentPlanStats* stats = nullptr);

// The same plan from the items already in LPT order: `sorted` as
// CostDescendingItems(costs, lengths, options.cap) returns it
// (pack/primitives/cost_order.h), for a caller that plans items in that
// order more than once (the slot planner's two plans of one step).
// PlanDocuments is this after the sort.
std::vector<int32_t> PlanSortedDocuments(SortedItems sorted, const DocumentPlanOptions& options,
                                         DocumentPlanStats* stats = nullptr);

}  // namespace flopspack::pack

#endif  // FLOPSPACK_PACK_PLANNER_PLANNER_DOCUMENTS_H_
