// Step planning for a trainer that synchronizes every microbatch (FSDP /
// ZeRO-3, flopspack_sync MICROBATCH): items into R ranks x M microbatches,
// each holding at most `cap` tokens, minimising the sum over slots j of the
// heaviest rank's microbatch in slot j (rank totals do not count).
//
// Phase 1: balance all R x M microbatches as one pool (the document-level
// planner with R x M ranks of one microbatch: LPT under the cap plus its
// refinement). Phase 2, bands: sort the microbatches by cost and give slot
// j the j-th band of R of them, so the heavy microbatches (those holding a
// long document) gather in the same slots; for fixed microbatches this
// assignment is optimal (exchange argument: sorted bands minimise the sum
// of band maxima). Phase 3, slot search: while a slot's heaviest
// microbatch H is above the slot's mean by more than `tolerance`, move one
// of its items, or swap one for a cheaper one, with one of the lightest
// microbatches of any slot, under the cap, so that H gets lighter and no
// slot's maximum rises. Phase 4, flow: the heaviest slot's maximum (a
// microbatch holding a long document) leaves room in cost under it; every
// microbatch of the other slots, heaviest first, swaps a document for a
// cheaper one of a light slot-0 microbatch (or gives one) so that cost flows
// into slot 0 (the pass stops after max(256, R / 4) donors in a row gave
// nothing: the gives land on the heaviest donors); then bands again (whole
// microbatches between slots) and a second search.
// Last, each band's microbatches go to ranks by LPT on the rank totals, so
// the rank balance stays high too. On steps of at most 2^14 microbatches
// and fewer than 8 per rank the token-balanced LPT plan's microbatches
// (LPT on token counts, not refined), banded, are computed too and kept
// when their slot maxima sum lower (there the extra planning is cheap);
// not when the plan is already within `tolerance` of the lower bound
// max(total cost / R, costliest item). From 8 microbatches per rank on it
// never won (216 steps, docs/planner.md round mbspeed4), so it is skipped.
//
// Complexity: phase 1 as planner_documents.h with R M groups; phases 2-3
// O(R M log(R M)) plus O(s (K M) u) per search step, s items in H, K
// light candidates per slot, u items per candidate, at most max_moves steps.
// Guarantee: no microbatch exceeds the cap; every item is placed or
// reported unplaced; phase 3 strictly lowers the objective (sum of slot
// maxima, item costs additive) at each step, so it terminates; the bands
// never raise it. On small steps with M < 8, never worse than the
// token-balanced LPT plan's microbatches banded (beyond the tolerance),
// placing no fewer items.
// This file carries its own move/swap search over slot maxima; it should
// move onto the unified refiner (pack/primitives/refine.h) once that takes
// an objective over groups of groups.
// References: Graham (1969) for LPT; the band assignment is the classic
// "sort and cut" for minimising the sum of group maxima (e.g. the
// min-sum-of-max batching of Brucker et al., "Scheduling a batching
// machine", J. Scheduling 1998).
#ifndef FLOPSPACK_PACK_PLANNER_SLOT_BALANCE_H_
#define FLOPSPACK_PACK_PLANNER_SLOT_BALANCE_H_

#include <cstdint>
#include <vector>

#include "absl/types/span.h"

namespace flopspack::pack {

// The token-balanced candidate (above) is planned only below this many
// microbatches per rank.
inline constexpr int64_t kTokenCandidateBelowMicrobatches = 8;

struct SlotBalanceOptions {
  int64_t num_ranks = 1;
  int64_t microbatches_per_rank = 1;
  int64_t cap = 1;
  // Phase 3 (off = phases 1 and 2 only, the baseline heuristic).
  bool search = true;
  // Search steps; < 0 = 2 x R x M + 1024.
  int64_t max_moves = -1;
  // A slot is left alone once its maximum is within this fraction of its
  // mean.
  double tolerance = 5e-4;
  // Lightest microbatches of each slot tried as partners per step.
  int light_candidates = 4;
};

struct SlotBalanceStats {
  int64_t moves = 0;
  // The token-balanced plan's microbatches, banded, were kept (small steps
  // only; see PlanSlotBalanced).
  bool token_balanced = false;
  // A flow pass stopped on its count of donors in a row that gave
  // nothing, before the last donor.
  bool flow_stopped = false;
};

// For each item, the microbatch rank * M + j it goes to, or -1 when it did
// not fit. Preconditions as PlanDocuments (planner_documents.h): equal
// sizes, lengths in [1, cap], costs finite and >= 0, R M < 2^31.
std::vector<int32_t> PlanSlotBalanced(absl::Span<const int64_t> lengths,
                                      absl::Span<const double> costs,
                                      const SlotBalanceOptions& options,
                                      SlotBalanceStats* stats = nullptr);

// Reassigns whole microbatches of a finished plan (where[i] = rank * M + j
// or -1) to slots and ranks as PlanSlotBalanced's last step does: slot j
// gets the j-th band of R microbatches by cost (the sum of their items'
// costs), heaviest first, each band's microbatches to ranks by LPT. For
// fixed microbatches this minimises the sum of slot maxima (exchange
// argument), so it never raises that sum. O(R M log(R M) + n).
std::vector<int32_t> BandSlots(absl::Span<const int64_t> lengths, absl::Span<const double> costs,
                               const SlotBalanceOptions& options, absl::Span<const int32_t> where);

// The sum over slots of the heaviest microbatch, item costs additive
// (where[i] = rank * M + j, or -1 for an unplaced item).
double SlotMaxSum(absl::Span<const int32_t> where, absl::Span<const double> costs, int64_t r,
                  int64_t m);

}  // namespace flopspack::pack

#endif  // FLOPSPACK_PACK_PLANNER_SLOT_BALANCE_H_
