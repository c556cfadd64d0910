#include "pack/planner/step_planner.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <utility>
#include <vector>

#include "absl/strings/str_format.h"
#include "pack/planner/balanced_split.h"
#include "pack/planner/cut_to_share.h"
#include "pack/planner/pipeline_order.h"
#include "pack/planner/planner_baselines.h"
#include "pack/planner/planner_documents.h"
#include "pack/planner/slot_balance.h"
#include "pack/planner/sync_metrics.h"
#include "pack/primitives/bin_packing.h"
#include "pack/primitives/extra_costs.h"
#include "pack/primitives/lpt.h"
#include "util/checked.h"
#include "util/large_buffer.h"
#include "util/random.h"
#include "util/validate.h"
#include "util/vector_pool.h"

namespace flopspack::pack {
namespace {

constexpr int64_t kMaxInt32 = std::numeric_limits<int32_t>::max();

// The unit every algorithm places: a whole document or a piece of one.
struct Items {
  std::vector<int64_t> doc;     // position in the input lengths
  std::vector<int64_t> tokens;  // tokens of this item
  std::vector<int32_t> where;   // microbatch rank * M + j, -1 unplaced

  void Add(int64_t d, int64_t t) {
    doc.push_back(d);
    tokens.push_back(t);
    where.push_back(-1);
  }
  size_t size() const { return doc.size(); }
  // On empty items: room for n without reallocating, from the caller's
  // vector pool if any.
  void Reserve(size_t n) {
    doc = util::PooledReserved<int64_t>(n);
    tokens = util::PooledReserved<int64_t>(n);
    where = util::PooledReserved<int32_t>(n);
  }
};

int64_t CeilDiv(int64_t a, int64_t b) { return util::CeilDivInt64(a, b); }

// The default algorithm under MICROBATCH balances every slot
// (slot_balance.h); the baselines ignore the synchronization model.
bool SlotBalanced(const StepOptions& o) {
  return o.sync == StepSync::kMicrobatch && o.algorithm == StepAlgorithm::kDocuments;
}

absl::Status TooManyMicrobatches(int64_t r, int64_t m, int64_t cap) {
  return absl::OutOfRangeError(absl::StrFormat(
      "the batch needs num_ranks x microbatches_per_rank = %d x %d microbatches of %d tokens: "
      "at most %d per step (plan fewer tokens per step, or raise max_tokens_per_microbatch)",
      r, m, cap, kMaxStepMicrobatches));
}

// The cost of each item: the model's cost of its tokens plus its share of
// its document's extra cost (docs[i] is item i's document).
absl::StatusOr<std::vector<double>> ItemCosts(const cost::CostModel& model,
                                              absl::Span<const int64_t> docs,
                                              absl::Span<const int64_t> tokens,
                                              const ExtraCosts& extra) {
  std::vector<double> costs = util::PooledVector<double>(tokens.size());
  absl::Status status = model.DocumentCosts(tokens, absl::MakeSpan(costs));
  if (!status.ok()) return status;
  if (absl::Status s = util::CheckCosts("document cost", costs); !s.ok()) return s;
  if (!extra.empty()) {
    for (size_t i = 0; i < costs.size(); ++i) {
      const double share = extra.Of(docs[i], tokens[i]);
      if (!std::isfinite(costs[i] + share)) {
        return absl::OutOfRangeError(absl::StrFormat(
            "lengths[%d]: its cost %g plus its extra cost %g overflows a double; rescale the costs",
            docs[i], costs[i], share));
      }
      costs[i] += share;
    }
  }
  // Rank and microbatch costs are sums of these: they must stay finite.
  if (absl::StatusOr<double> sum = util::CheckedCostSum("document cost", costs); !sum.ok()) {
    return sum.status();
  }
  return costs;
}

// The document-level planner with M fixed (> 0) or, for M = 0, the fewest
// microbatches per rank that place every item.
absl::StatusOr<int64_t> RunDocuments(Items& items, absl::Span<const double> costs,
                                     const StepOptions& o, int64_t total_tokens, StepStats* stats,
                                     StepStats::PlannedBy* planned_by = nullptr) {
  const int64_t r = o.num_ranks, cap = o.max_tokens_per_microbatch;
  int64_t m = o.microbatches_per_rank;
  const bool search = m == 0;
  if (search) m = std::max<int64_t>(1, CeilDiv(CeilDiv(total_tokens, cap), r));
  while (true) {
    // r <= 2^24 and m <= 2^31 here: the product fits int64.
    if (r * m > kMaxStepMicrobatches) return TooManyMicrobatches(r, m, cap);
    // The old placement back to the caller's pool before the new one is
    // made (freed, it would also raise glibc's mmap threshold mid-call).
    util::Recycle(items.where);
    if (SlotBalanced(o)) {
      SlotBalanceOptions b;
      b.num_ranks = r;
      b.microbatches_per_rank = m;
      b.cap = cap;
      b.search = o.refine;
      b.tolerance = o.tolerance;
      SlotBalanceStats s;
      items.where = PlanSlotBalanced(items.tokens, costs, b, &s);
      if (stats != nullptr) stats->refine_moves = s.moves;
      if (planned_by != nullptr) {
        *planned_by =
            s.token_balanced ? StepStats::PlannedBy::kTokens : StepStats::PlannedBy::kDocuments;
      }
    } else {
      DocumentPlanOptions d;
      d.num_ranks = r;
      d.microbatches_per_rank = m;
      d.cap = cap;
      d.refine = o.refine;
      d.tolerance = o.tolerance;
      DocumentPlanStats s;
      items.where = PlanDocuments(items.tokens, costs, d, &s);
      if (stats != nullptr) {
        stats->refine_moves = s.moves;
        stats->max_rank_cost_after_lpt = s.max_rank_cost_after_lpt;
      }
    }
    if (!search) return m;
    // One item per microbatch always fits, so the search ends by then.
    if (std::find(items.where.begin(), items.where.end(), -1) == items.where.end()) return m;
    ++m;
  }
}

int64_t RunSequences(Items& items, const cost::CostModel& model, const ExtraCosts& extra,
                     const StepOptions& o, absl::Status& status) {
  BinAssignment packed = FirstFitDecreasing(items.tokens, o.max_tokens_per_microbatch);
  // Its placements come from the caller's vector pool, if any: back to it.
  util::GiveBackOnExit give_back_packed(packed.order, packed.placed_bin);
  const int32_t count = packed.num_bins;
  const std::vector<int32_t>& seq_of = packed.bin;
  std::vector<std::vector<int64_t>> members(count);
  for (size_t i = 0; i < items.size(); ++i) members[seq_of[i]].push_back(items.tokens[i]);
  std::vector<double> seq_cost(count);
  for (int32_t q = 0; q < count; ++q) {
    absl::StatusOr<double> c = model.SequenceCost(members[q]);
    if (!c.ok()) {
      status = c.status();
      return 0;
    }
    seq_cost[q] = *c;
  }
  if (!extra.empty()) {
    for (size_t i = 0; i < items.size(); ++i) {
      seq_cost[seq_of[i]] += extra.Of(items.doc[i], items.tokens[i]);
    }
  }
  const int64_t m = o.microbatches_per_rank > 0 ? o.microbatches_per_rank
                                                : std::max<int64_t>(1, CeilDiv(count, o.num_ranks));
  if (o.num_ranks * m > kMaxStepMicrobatches) {
    status = TooManyMicrobatches(o.num_ranks, m, o.max_tokens_per_microbatch);
    return 0;
  }
  std::vector<int32_t> slot_of = AssignLptSlots(seq_cost, static_cast<int32_t>(o.num_ranks), m);
  for (size_t i = 0; i < items.size(); ++i) items.where[i] = slot_of[seq_of[i]];
  return m;
}

// Cuts the unplaced items into the room left in the microbatches, lightest
// ranks first; each cut-off part becomes a new item.
absl::Status SplitIntoRoom(Items& items, absl::Span<const double> costs, int64_t r, int64_t m,
                           int64_t cap) {
  std::vector<int64_t> used(r * m, 0);
  std::vector<double> rank_cost(r, 0.0);
  std::vector<int32_t> unplaced;
  for (size_t i = 0; i < items.size(); ++i) {
    if (items.where[i] < 0) {
      unplaced.push_back(static_cast<int32_t>(i));
      continue;
    }
    used[items.where[i]] += items.tokens[i];
    rank_cost[items.where[i] / m] += costs[i];
  }
  if (unplaced.empty()) return absl::OkStatus();
  std::vector<int64_t> ranks(r);
  std::iota(ranks.begin(), ranks.end(), 0);
  std::stable_sort(ranks.begin(), ranks.end(),
                   [&](int64_t a, int64_t b) { return rank_cost[a] < rank_cost[b]; });
  std::stable_sort(unplaced.begin(), unplaced.end(),
                   [&](int32_t a, int32_t b) { return costs[a] > costs[b]; });
  size_t next_rank = 0;
  int64_t j = 0;
  for (int32_t i : unplaced) {
    const int64_t doc = items.doc[i];
    int64_t left = items.tokens[i];
    bool first = true;
    while (left > 0) {
      while (next_rank < ranks.size() && used[ranks[next_rank] * m + j] >= cap) {
        if (++j == m) {
          j = 0;
          ++next_rank;
        }
      }
      if (next_rank == ranks.size()) {
        return absl::FailedPreconditionError(absl::StrFormat(
            "the batch does not fit: %d tokens of lengths[%d] are left after every microbatch "
            "is full",
            left, doc));
      }
      const int64_t mb = ranks[next_rank] * m + j;
      const int64_t take = std::min(left, cap - used[mb]);
      used[mb] += take;
      left -= take;
      if (first) {
        // The original item becomes the first piece.
        items.tokens[i] = take;
        items.where[i] = static_cast<int32_t>(mb);
        first = false;
      } else {
        items.Add(doc, take);
        items.where.back() = static_cast<int32_t>(mb);
      }
    }
  }
  return absl::OkStatus();
}

// Under split, the pieces BalancedPieceCounts gives each kept document
// (indexed by position in lengths; 0 for the others), costed as cut into
// the fewest near-equal pieces of at most cap tokens.
absl::StatusOr<BalancedCut> BalancedCounts(const cost::CostModel& model,
                                           absl::Span<const int64_t> lengths,
                                           absl::Span<const int64_t> kept, int64_t r, int64_t cap,
                                           int64_t rank_tokens) {
  std::vector<int64_t> kept_lengths(kept.size());
  for (size_t k = 0; k < kept.size(); ++k) kept_lengths[k] = lengths[kept[k]];
  std::vector<double> kept_costs(kept.size());
  if (absl::Status s = model.DocumentCosts(kept_lengths, absl::MakeSpan(kept_costs)); !s.ok()) {
    return s;
  }
  for (size_t k = 0; k < kept.size(); ++k) {
    if (kept_lengths[k] <= cap) continue;
    absl::StatusOr<double> c =
        NearEqualCost(model, kept_lengths[k], CapPieces(kept_lengths[k], cap));
    if (!c.ok()) return c.status();
    kept_costs[k] = *c;
  }
  if (absl::Status s = util::CheckCosts("document cost", kept_costs); !s.ok()) return s;
  absl::StatusOr<BalancedCut> cut =
      BalancedPieceCounts(model, kept_lengths, kept_costs, r, cap, rank_tokens);
  if (!cut.ok()) return cut.status();
  BalancedCut out;
  out.longest = cut->longest;
  out.pieces.assign(lengths.size(), 0);
  for (size_t k = 0; k < kept.size(); ++k) out.pieces[kept[k]] = cut->pieces[k];
  return out;
}

// Recuts the documents whose cap-sized piece (or whole self) costs more
// than the share into their balanced count of near-equal pieces; the other items (whole documents
// and cap-sized pieces) keep their order and costs. Items of one document
// are contiguous, in the order of `kept`.
absl::Status RecutHeavy(Items& items, std::vector<double>& costs, const cost::CostModel& model,
                        const ExtraCosts& extra, absl::Span<const int64_t> lengths,
                        const BalancedCut& balanced, int64_t cap) {
  std::vector<int64_t> want(lengths.size(), 0);
  for (size_t doc = 0; doc < lengths.size(); ++doc) {
    if (balanced.pieces[doc] > 0 && std::min(lengths[doc], cap) > balanced.longest) {
      want[doc] = balanced.pieces[doc];
    }
  }
  Items out;
  std::vector<double> out_costs;
  std::vector<size_t> fresh;  // items of out whose cost is computed below
  for (size_t i = 0; i < items.size();) {
    const int64_t doc = items.doc[i];
    size_t end = i + 1;
    while (end < items.size() && items.doc[end] == doc) ++end;
    if (want[doc] == 0) {
      for (size_t j = i; j < end; ++j) {
        out.Add(doc, items.tokens[j]);
        out_costs.push_back(costs[j]);
      }
    } else {
      for (int64_t p = 0; p < want[doc]; ++p) {
        fresh.push_back(out.size());
        out.Add(doc, NearEqualPiece(lengths[doc], want[doc], p));
        out_costs.push_back(0);
      }
    }
    i = end;
  }
  std::vector<int64_t> fresh_tokens(fresh.size()), fresh_docs(fresh.size());
  for (size_t f = 0; f < fresh.size(); ++f) {
    fresh_tokens[f] = out.tokens[fresh[f]];
    fresh_docs[f] = out.doc[fresh[f]];
  }
  absl::StatusOr<std::vector<double>> c = ItemCosts(model, fresh_docs, fresh_tokens, extra);
  if (!c.ok()) return c.status();
  for (size_t f = 0; f < fresh.size(); ++f) out_costs[fresh[f]] = (*c)[f];
  items = std::move(out);
  costs = std::move(out_costs);
  return absl::OkStatus();
}

// Rank balance (mean / max rank cost) of items placed in r x m
// microbatches, and the heaviest rank: rank cost = the sum of item costs
// plus the overhead of each non-empty microbatch (exact for an additive
// model, the comparison the fallbacks need for any).
std::pair<double, double> RankBalance(const Items& items, absl::Span<const double> costs,
                                      double overhead, int64_t r, int64_t m) {
  std::vector<double> rank(r, 0.0);
  std::vector<char> used(r * m, 0);
  for (size_t i = 0; i < items.size(); ++i) {
    const int32_t w = items.where[i];
    if (w < 0) continue;
    rank[w / m] += costs[i];
    if (!used[w]) {
      used[w] = 1;
      rank[w / m] += overhead;
    }
  }
  return {BalanceEfficiency(rank), *std::max_element(rank.begin(), rank.end())};
}

// Replaces items and costs by other's when its rank balance is higher (the
// figure the plan is judged by; cuts change the total, so the lighter
// heaviest rank is the tie-break).
void KeepLighter(Items& items, std::vector<double>& costs, Items& other,
                 std::vector<double>& other_costs, double overhead, int64_t r, int64_t m,
                 double margin, StepStats::PlannedBy by, StepStats* stats) {
  const std::pair<double, double> mine = RankBalance(items, costs, overhead, r, m);
  const std::pair<double, double> theirs = RankBalance(other, other_costs, overhead, r, m);
  if (theirs.first > mine.first + margin ||
      (margin == 0 && theirs.first == mine.first && theirs.second < mine.second)) {
    items = std::move(other);
    costs = std::move(other_costs);
    if (stats != nullptr) stats->planned_by = by;
  }
}

// The cut to the share cuts documents at rank and microbatch boundaries
// (hundreds more cuts than the document-level plan on a 1,024-rank step), so
// it is tried only below this balance: above it, keeping documents whole is
// worth more than the last fraction of a percent.
constexpr double kCutToShareBelow = 0.99;

// Microbatch-synchronous efficiency (the sum over slots of the slots' mean
// microbatch cost over the sum of their maxima) of items placed in r x m
// microbatches, and that sum of maxima: a microbatch costs its items plus
// the overhead when non-empty (exact for an additive model, as RankBalance).
std::pair<double, double> SyncBalance(const Items& items, absl::Span<const double> costs,
                                      double overhead, int64_t r, int64_t m) {
  std::vector<double> cell(r * m, 0.0);
  std::vector<char> used(r * m, 0);
  double total = 0;
  for (size_t i = 0; i < items.size(); ++i) {
    const int32_t w = items.where[i];
    if (w < 0) continue;
    cell[w] += costs[i];
    total += costs[i];
    if (!used[w]) {
      used[w] = 1;
      cell[w] += overhead;
      total += overhead;
    }
  }
  double sum_max = 0;
  for (int64_t j = 0; j < m; ++j) {
    double largest = 0;
    for (int64_t k = 0; k < r; ++k) largest = std::max(largest, cell[k * m + j]);
    sum_max += largest;
  }
  const double sum_mean = total / static_cast<double>(r);
  return {sum_max > 0 ? sum_mean / sum_max : 1.0, sum_max};
}

// KeepLighter for MICROBATCH: replaces items and costs by other's (its
// microbatches banded for the slots first, slot_balance.h) when its
// microbatch-synchronous efficiency is higher by more than margin (cuts
// change the total, so with no margin the lower sum of slot maxima breaks
// a tie).
void KeepBetterSynced(Items& items, std::vector<double>& costs, Items& other,
                      std::vector<double>& other_costs, double overhead, int64_t r, int64_t m,
                      int64_t cap, double margin, StepStats::PlannedBy by, StepStats* stats) {
  SlotBalanceOptions b;
  b.num_ranks = r;
  b.microbatches_per_rank = m;
  b.cap = cap;
  other.where = BandSlots(other.tokens, other_costs, b, other.where);
  const std::pair<double, double> mine = SyncBalance(items, costs, overhead, r, m);
  const std::pair<double, double> theirs = SyncBalance(other, other_costs, overhead, r, m);
  if (theirs.first > mine.first + margin ||
      (margin == 0 && theirs.first == mine.first && theirs.second < mine.second)) {
    items = std::move(other);
    costs = std::move(other_costs);
    if (stats != nullptr) stats->planned_by = by;
  }
}

// The fallbacks where documents had to be cut: the token-balanced planner
// on the cap-sized pieces (when every rank must be full, balancing tokens
// can win), replacing the plan when it balances better; then, when the plan
// is still below kCutToShareBelow, the cut to the share (cut_to_share.h),
// replacing it when it balances better by more than the planner's
// tolerance. "Balances better": the rank balance under STEP
// (KeepLighter); under MICROBATCH the microbatch-synchronous efficiency,
// each plan's microbatches banded for the slots first (KeepBetterSynced;
// the token-balanced planner plans for STEP: it balances ranks, the bands
// then gather its heavy microbatches into the same slots).
absl::Status TryFallbacks(Items& items, std::vector<double>& costs, Items capcut,
                          const cost::CostModel& model, const ExtraCosts& extra,
                          absl::Span<const int64_t> lengths, absl::Span<const int64_t> kept,
                          const StepOptions& o, int64_t m, int64_t total, bool microbatch_sync,
                          StepStats* stats) {
  const int64_t r = o.num_ranks, cap = o.max_tokens_per_microbatch;
  const double overhead = model.SequenceOverhead();
  auto keep_better = [&](Items& other, std::vector<double>& other_costs, double margin,
                         StepStats::PlannedBy by) {
    if (microbatch_sync) {
      KeepBetterSynced(items, costs, other, other_costs, overhead, r, m, cap, margin, by, stats);
    } else {
      KeepLighter(items, costs, other, other_costs, overhead, r, m, margin, by, stats);
    }
  };
  if (stats != nullptr) stats->documents_balance = RankBalance(items, costs, overhead, r, m).first;
  StepOptions fixed = o;
  fixed.microbatches_per_rank = m;
  fixed.sync = StepSync::kStep;
  std::vector<double> token_costs(capcut.tokens.begin(), capcut.tokens.end());
  absl::StatusOr<int64_t> found = RunDocuments(capcut, token_costs, fixed, total, nullptr);
  if (!found.ok()) return found.status();
  absl::StatusOr<std::vector<double>> capcut_costs =
      ItemCosts(model, capcut.doc, capcut.tokens, extra);
  if (!capcut_costs.ok()) return capcut_costs.status();
  if (absl::Status s = SplitIntoRoom(capcut, *capcut_costs, r, m, cap); !s.ok()) return s;
  capcut_costs = ItemCosts(model, capcut.doc, capcut.tokens, extra);
  if (!capcut_costs.ok()) return capcut_costs.status();
  keep_better(capcut, *capcut_costs, 0, StepStats::PlannedBy::kTokens);
  const double balance = microbatch_sync ? SyncBalance(items, costs, overhead, r, m).first
                                         : RankBalance(items, costs, overhead, r, m).first;
  if (balance >= kCutToShareBelow) return absl::OkStatus();
  absl::StatusOr<std::vector<SharePiece>> cut = CutToShare(model, lengths, kept, r, m, cap);
  if (!cut.ok()) return cut.status();
  if (!cut->empty() && static_cast<int64_t>(cut->size()) <= kMaxStepItems) {
    Items other;
    other.Reserve(cut->size());
    for (const SharePiece& p : *cut) {
      other.Add(p.doc, p.tokens);
      other.where.back() = p.where;
    }
    absl::StatusOr<std::vector<double>> other_costs =
        ItemCosts(model, other.doc, other.tokens, extra);
    if (!other_costs.ok()) return other_costs.status();
    keep_better(other, *other_costs, o.tolerance, StepStats::PlannedBy::kCutToShare);
  }
  return absl::OkStatus();
}

}  // namespace

int64_t StepItemBudget(const StepOptions& o) {
  if (o.microbatches_per_rank > 0) return kMaxStepItems;
  return kMaxStepMicrobatches / o.num_ranks * o.num_ranks;
}

absl::Status ValidateStepOptions(const StepOptions& o) {
  if (o.num_ranks < 1 || o.num_ranks > kMaxStepMicrobatches) {
    return absl::InvalidArgumentError(absl::StrFormat("num_ranks = %d: must be between 1 and %d",
                                                      o.num_ranks, kMaxStepMicrobatches));
  }
  if (o.microbatches_per_rank < 0 || o.microbatches_per_rank > kMaxInt32) {
    return absl::InvalidArgumentError(
        absl::StrFormat("microbatches_per_rank = %d: must be 0 (the fewest that fit) or positive",
                        o.microbatches_per_rank));
  }
  // Both factors are below 2^31: the product fits int64.
  if (o.num_ranks * std::max<int64_t>(o.microbatches_per_rank, 1) > kMaxStepMicrobatches) {
    return absl::OutOfRangeError(
        absl::StrFormat("num_ranks x microbatches_per_rank = %d x %d: at most %d microbatches",
                        o.num_ranks, o.microbatches_per_rank, kMaxStepMicrobatches));
  }
  if (o.max_tokens_per_microbatch < 1) {
    return absl::InvalidArgumentError(
        absl::StrFormat("max_tokens_per_microbatch = %d: the token cap must be positive",
                        o.max_tokens_per_microbatch));
  }
  if (o.context_parallel_size < 0 || o.context_parallel_size > kMaxContextParallelSize) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "context_parallel_size = %d: must be between 0 (no context parallelism) and %d",
        o.context_parallel_size, kMaxContextParallelSize));
  }
  if (o.context_parallel_layout != CpLayout::kSequenceHeadTail &&
      o.context_parallel_layout != CpLayout::kDocumentHeadTail &&
      o.context_parallel_layout != CpLayout::kAdaptive) {
    return absl::InvalidArgumentError(
        absl::StrFormat("context_parallel_layout = %d: not a CP layout",
                        static_cast<int>(o.context_parallel_layout)));
  }
  // A CP group's microbatch holds cap x C tokens: that must fit int64.
  if (absl::StatusOr<uint64_t> group =
          util::CheckedMultiply("max_tokens_per_microbatch x context_parallel_size",
                                o.max_tokens_per_microbatch, ContextParallelSize(o));
      !group.ok()) {
    return group.status();
  } else if (*group > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
    return absl::OutOfRangeError(absl::StrFormat(
        "max_tokens_per_microbatch x context_parallel_size = %d x %d overflows int64",
        o.max_tokens_per_microbatch, ContextParallelSize(o)));
  }
  if (o.microbatches_per_rank > 0) {
    absl::StatusOr<uint64_t> slots = util::CheckedMultiply(
        ContextParallelSize(o) > 1
            ? "(num_ranks x microbatches_per_rank) x "
              "(max_tokens_per_microbatch x context_parallel_size)"
            : "(num_ranks x microbatches_per_rank) x max_tokens_per_microbatch",
        o.num_ranks * o.microbatches_per_rank, GroupCap(o));
    if (!slots.ok()) return slots.status();
    if (*slots > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      return absl::OutOfRangeError(
          ContextParallelSize(o) > 1
              ? "num_ranks x microbatches_per_rank x cap x context_parallel_size overflows int64"
              : "num_ranks x microbatches_per_rank x cap overflows int64");
    }
  }
  if (o.pipeline_stages < 0 || o.pipeline_stages > kMaxPipelineStages) {
    return absl::InvalidArgumentError(
        absl::StrFormat("pipeline_stages = %d: must be between 0 (no pipeline) and %d",
                        o.pipeline_stages, kMaxPipelineStages));
  }
  // Enum values are the C layer's to check (src/capi); what is left is
  // the policy the step planner does not offer.
  if (o.overflow == Overflow::kTruncate) {
    return absl::InvalidArgumentError(
        "overflow = truncate: the step planner takes error, split or defer");
  }
  return absl::OkStatus();
}

absl::StatusOr<Plan> PlanStep(const StepOptions& o, const cost::CostModel& model,
                              absl::Span<const int64_t> lengths, absl::Span<const int64_t> ids,
                              StepStats* stats) {
  return PlanStepWithExtraCosts(o, model, lengths, {}, ids, stats);
}

namespace {

// PlanStepWithExtraCosts on validated input. o.max_tokens_per_microbatch is
// the group cap (the CP size x the per-GPU cap) and `cp` the CP size: with
// cp > 1 the assignment is made as without CP (item costs scaled by 1 / cp
// would not change it: LPT, refinement and fallbacks compare costs only),
// then every microbatch is costed as its slowest CP rank under `layout`
// (ShardSequence, the code flopspack_plan_shard_context_parallel runs), its
// extra costs shared evenly by its CP ranks, and the bounds are divided by
// cp (a CP rank costs at least the mean, the group's cost / cp).
absl::StatusOr<Plan> PlanStepBody(const StepOptions& o, int64_t cp, CpLayout layout,
                                  const cost::CostModel& model, absl::Span<const int64_t> lengths,
                                  const ExtraCosts& extra, absl::Span<const int64_t> ids,
                                  StepStats* stats) {
  const int64_t n = static_cast<int64_t>(lengths.size());
  const int64_t r = o.num_ranks, cap = o.max_tokens_per_microbatch;
  auto id_of = [&](int64_t doc) { return ids.empty() ? doc : ids[doc]; };

  // Which plan won where the fallbacks were tried (the plan's metrics say
  // so, stats or not).
  StepStats fallback;

  // Documents over the cap: reject, defer, or cut into cap-sized pieces.
  Items items;
  std::vector<int64_t> deferred;  // positions in lengths
  // documents that go to the algorithm
  std::vector<int64_t> kept = util::PooledReserved<int64_t>(lengths.size());
  int64_t total = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (lengths[i] <= cap) {
      kept.push_back(i);
      total += lengths[i];
      continue;
    }
    if (o.overflow == Overflow::kError) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "lengths[%d] = %d exceeds max_tokens_per_microbatch = %d and the overflow policy is "
          "reject (use split or defer)",
          i, lengths[i], cap));
    }
    if (o.overflow == Overflow::kDefer) {
      deferred.push_back(i);
    } else {
      kept.push_back(i);
      total += lengths[i];
    }
  }
  // Count the items before making any (each term and the running count stay
  // below 2^62: no overflow), so an impossible split fails at once.
  int64_t pieces = 0;
  for (int64_t i : kept) {
    pieces += StepPieces(lengths[i], cap);
    if (pieces > kMaxStepItems) {
      return absl::OutOfRangeError(absl::StrFormat(
          "%d documents of %d tokens: splitting at max_tokens_per_microbatch = %d makes more "
          "than %d items, too many for one step",
          n, total, cap, kMaxStepItems));
    }
  }
  const int64_t fixed_m = o.microbatches_per_rank;
  if (fixed_m == 0) {
    // The fewest microbatches that hold the tokens (every algorithm needs at
    // least these): reject before allocating.
    const int64_t least_m = std::max<int64_t>(1, CeilDiv(CeilDiv(total, cap), r));
    if (least_m > kMaxStepMicrobatches / r) return TooManyMicrobatches(r, least_m, cap);
  }
  if (fixed_m > 0 && o.overflow != Overflow::kDefer && total > r * fixed_m * cap) {
    return absl::FailedPreconditionError(absl::StrFormat(
        "the batch does not fit: %d tokens > num_ranks x microbatches_per_rank x cap = %d x %d x "
        "%d = %d (overflow policy %s; use defer, or microbatches_per_rank = 0)",
        total, r, fixed_m, cap, r * fixed_m * cap, OverflowName(o.overflow)));
  }

  int64_t m = fixed_m;
  std::vector<double> costs;
  // Under split every document may be cut: each gets the pieces balance
  // needs (balanced_split.h; 1 or ceil(L / cap) for most). A heavy document
  // needs more than the cap asks; documents over the cap or heavy ones make
  // the step divisible: the default planner recuts the heavy ones, tries
  // its fallbacks, and the lower bound treats cut documents as divisible.
  BalancedCut balanced;
  bool heavy = false, divisible = false;
  if (o.overflow == Overflow::kSplit && !kept.empty()) {
    // With M fixed, the tokens a rank carries: at least what is left when
    // the others are full; in a step at least 98% full, the average (the
    // sampled steps of a pipeline stop short of full by one document, and
    // their ranks still end up nearly full).
    int64_t rank_tokens = 0;
    if (fixed_m > 0) {
      const int64_t slots = r * fixed_m * cap;  // validated to fit int64
      rank_tokens = std::max<int64_t>(0, total - (slots - fixed_m * cap));
      if (total >= slots / 50 * 49) rank_tokens = std::max(rank_tokens, total / r);
    }
    absl::StatusOr<BalancedCut> counts = BalancedCounts(model, lengths, kept, r, cap, rank_tokens);
    if (!counts.ok()) return counts.status();
    balanced = std::move(*counts);
    for (int64_t i : kept) {
      heavy = heavy || std::min(lengths[i], cap) > balanced.longest;
      divisible = divisible || lengths[i] > cap;
    }
    divisible = divisible || heavy;
  }
  Items capcut;  // the items cut at the cap, for the fallbacks
  if (o.algorithm == StepAlgorithm::kRandom) {
    // Under defer, the documents past R x M x cap tokens (in input order)
    // wait; the rest are concatenated, cut and dealt.
    std::vector<int64_t> take_lengths, take_docs;
    int64_t room = fixed_m > 0 ? r * fixed_m * cap : std::numeric_limits<int64_t>::max();
    for (int64_t i : kept) {
      if (lengths[i] > room) {
        room = 0;
        deferred.push_back(i);
        continue;
      }
      room -= lengths[i];
      take_lengths.push_back(lengths[i]);
      take_docs.push_back(i);
    }
    Sequences seqs = ConcatenateAndCut(take_lengths, take_docs, cap);
    const int64_t count = static_cast<int64_t>(seqs.count());
    if (m == 0) m = std::max<int64_t>(1, CeilDiv(count, r));
    std::vector<int64_t> order(count);
    std::iota(order.begin(), order.end(), 0);
    util::Rng rng(util::DeriveSeed(o.seed, 0));
    rng.Shuffle(absl::MakeSpan(order));
    for (int64_t k = 0; k < count; ++k) {
      const int64_t q = order[k];
      const int32_t mb = static_cast<int32_t>((k % r) * m + k / r);
      for (int64_t p = seqs.offsets[q]; p < seqs.offsets[q + 1]; ++p) {
        items.Add(seqs.pieces[p].doc, seqs.pieces[p].tokens);
        items.where.back() = mb;
      }
    }
    absl::StatusOr<std::vector<double>> c = ItemCosts(model, items.doc, items.tokens, extra);
    if (!c.ok()) return c.status();
    costs = std::move(*c);
  } else {
    items.Reserve(static_cast<size_t>(pieces));
    for (int64_t i : kept) {
      for (int64_t left = lengths[i]; left > 0; left -= cap) items.Add(i, std::min(left, cap));
    }
    absl::StatusOr<std::vector<double>> c = ItemCosts(model, items.doc, items.tokens, extra);
    if (!c.ok()) return c.status();
    costs = std::move(*c);
    // Only the default planner cuts for balance; the baselines cut at the
    // cap, as the pipelines they stand for do.
    if (divisible && o.algorithm == StepAlgorithm::kDocuments) {
      capcut = items;
      int64_t more_pieces = 0;
      for (int64_t i : kept) more_pieces += balanced.pieces[i] - CapPieces(lengths[i], cap);
      if (heavy && pieces + more_pieces <= StepItemBudget(o)) {
        if (absl::Status s = RecutHeavy(items, costs, model, extra, lengths, balanced, cap);
            !s.ok()) {
          return s;
        }
      }
    }
    // From here only the fallbacks read kept: without them its storage
    // goes back to the pool now, for the planner's scratch (a first call
    // then faults in one array less).
    if (!(divisible && o.algorithm == StepAlgorithm::kDocuments)) util::Recycle(kept);
    if (o.algorithm == StepAlgorithm::kSequences) {
      absl::Status status;
      m = RunSequences(items, model, extra, o, status);
      if (!status.ok()) return status;
    } else if (o.algorithm == StepAlgorithm::kTokens) {
      std::vector<double> token_costs(items.tokens.begin(), items.tokens.end());
      absl::StatusOr<int64_t> found = RunDocuments(items, token_costs, o, total, stats);
      if (!found.ok()) return found.status();
      m = *found;
    } else {
      absl::StatusOr<int64_t> found =
          RunDocuments(items, costs, o, total, stats, &fallback.planned_by);
      if (!found.ok()) return found.status();
      m = *found;
      if (stats != nullptr) stats->planned_by = fallback.planned_by;
    }
  }
  if (r * m > kMaxStepMicrobatches) return TooManyMicrobatches(r, m, cap);

  // What the algorithm could not place.
  if (o.overflow == Overflow::kSplit) {
    const size_t placed_before_split = static_cast<size_t>(
        std::count_if(items.where.begin(), items.where.end(), [](int32_t w) { return w >= 0; }));
    if (absl::Status s = SplitIntoRoom(items, costs, r, m, cap); !s.ok()) return s;
    // New pieces need their own costs, and the items they were cut from
    // new ones.
    if (items.size() > costs.size()) {
      absl::StatusOr<std::vector<double>> c = ItemCosts(model, items.doc, items.tokens, extra);
      if (!c.ok()) return c.status();
      costs = std::move(*c);
    }
    // Under MICROBATCH the cuts went wherever there was room, blind to the
    // slots: band the finished microbatches again (never raises the sum of
    // slot maxima of the items' costs, slot_balance.h).
    if (SlotBalanced(o) && placed_before_split < items.size()) {
      SlotBalanceOptions b;
      b.num_ranks = r;
      b.microbatches_per_rank = m;
      b.cap = cap;
      items.where = BandSlots(items.tokens, costs, b, items.where);
    }
    // Where documents had to be cut, the fallbacks (the token-balanced plan,
    // the cut to the share) replace the plan when they balance better: the
    // ranks under STEP, the slots under MICROBATCH.
    if (divisible && o.algorithm == StepAlgorithm::kDocuments) {
      if (absl::Status s = TryFallbacks(items, costs, std::move(capcut), model, extra, lengths,
                                        kept, o, m, total, SlotBalanced(o), &fallback);
          !s.ok()) {
        return s;
      }
      if (stats != nullptr) {
        stats->planned_by = fallback.planned_by;
        stats->documents_balance = fallback.documents_balance;
      }
    }
  } else {
    for (size_t i = 0; i < items.size(); ++i) {
      if (items.where[i] >= 0) continue;
      if (o.overflow == Overflow::kError) {
        return absl::FailedPreconditionError(absl::StrFormat(
            "the batch does not fit: lengths[%d] = %d finds no microbatch with room among %d x "
            "%d of %d tokens (overflow policy reject; use split or defer)",
            items.doc[i], lengths[items.doc[i]], r, m, cap));
      }
      deferred.push_back(items.doc[i]);
    }
  }

  // Under CP the metrics see item costs as a CP rank pays at least them
  // (an item's cost / cp: its CP ranks share it).
  if (cp > 1) {
    for (double& c : costs) c /= static_cast<double>(cp);
  }

  // Microbatches as CSR over items, in item order: one pass over the items
  // scatters them to their microbatch, so everything after reads each
  // microbatch from contiguous memory. Its arrays become the plan's (below).
  const int64_t groups = r * m;
  std::vector<int64_t> start = util::PooledVector<int64_t>(groups + 1, 0);
  for (int32_t w : items.where) {
    if (w >= 0) ++start[w + 1];
  }
  for (int64_t g = 0; g < groups; ++g) start[g + 1] += start[g];
  const size_t placed = static_cast<size_t>(start[groups]);
  std::vector<int64_t> mb_doc = util::LargeVector<int64_t>(placed);
  std::vector<int64_t> plan_tokens = util::LargeVector<int64_t>(placed);
  double largest_item = 0;
  // start[w] is microbatch w's cursor during the scatter (it then ends w):
  // shifted back after.
  for (size_t i = 0; i < items.size(); ++i) {
    const int32_t w = items.where[i];
    if (w < 0) continue;
    const int64_t at = start[w]++;
    mb_doc[at] = items.doc[i];
    plan_tokens[at] = items.tokens[i];
    largest_item = std::max(largest_item, costs[i]);
  }
  for (int64_t g = groups; g > 0; --g) start[g] = start[g - 1];
  start[0] = 0;
  std::vector<double> mb_cost = util::PooledVector<double>(groups);
  // The scratch goes back to the caller's vector pool, if any
  // (util/vector_pool.h), on every way out from here.
  util::GiveBackOnExit give_back(kept, items.doc, items.tokens, items.where, costs, start, mb_doc,
                                 plan_tokens, mb_cost);
  std::vector<int64_t> no_offsets;  // the cost of a chunk does not depend on where its piece starts
  for (int64_t g = 0; g < groups; ++g) {
    const auto mb = absl::MakeConstSpan(plan_tokens).subspan(start[g], start[g + 1] - start[g]);
    if (cp > 1) {
      CpShard shard;
      shard.context_parallel_size = cp;
      no_offsets.assign(mb.size(), 0);
      if (absl::Status s = ShardSequence(absl::MakeConstSpan(mb_doc).subspan(start[g], mb.size()),
                                         mb, no_offsets, model, layout, shard);
          !s.ok()) {
        return s;
      }
      mb_cost[g] = *std::max_element(shard.costs.begin(), shard.costs.end());
    } else {
      absl::StatusOr<double> c = model.SequenceCost(mb);
      if (!c.ok()) return c.status();
      mb_cost[g] = *c;
    }
    if (!extra.empty()) {
      // The extra costs of the microbatch's items, in item order; under CP
      // each CP rank runs its share.
      double sum = 0;
      for (int64_t p = start[g]; p < start[g + 1]; ++p) sum += extra.Of(mb_doc[p], plan_tokens[p]);
      mb_cost[g] += cp > 1 ? sum / static_cast<double>(cp) : sum;
      if (!std::isfinite(mb_cost[g])) {
        return absl::OutOfRangeError(absl::StrFormat(
            "microbatch cost with its extra costs overflows a double (microbatch %d)", g));
      }
    }
  }
  // Finite microbatch costs whose total is not (a custom model near DBL_MAX)
  // would make the rank metrics inf or NaN.
  if (absl::StatusOr<double> sum = util::CheckedCostSum("microbatch cost", mb_cost); !sum.ok()) {
    return sum.status();
  }

  // The plan's CSR in slot order, written once, over the scatter's arrays:
  // items over mb_doc, tokens over plan_tokens, offsets over start, costs
  // over mb_cost, rank by rank (a rank's groups are one contiguous range in
  // group and in slot order) through buffers of one rank's documents,
  // tokens, m + 1 starts and m costs, so a first call faults in no array
  // for them. The plan's arrays: a context's plans give them back when
  // destroyed. Group g of the plan is slot g % m of rank g / m
  // (Plan::SetSlotGrid), and a microbatch computes its real tokens (no
  // padding).
  size_t at = 0;
  // Under MICROBATCH the planner chose the slots: the order permutes whole
  // slots (by their total cost), the same for every rank.
  // With pipelines the document planner orders each rank's microbatches
  // for the shortest 1F1B makespan, starting from the requested order
  // (never worse than it); under MICROBATCH one order shared by every rank
  // (pipeline_order.h). The baselines keep the requested order.
  const bool pipelined = o.pipeline_stages >= 2 && o.algorithm == StepAlgorithm::kDocuments;
  std::vector<int32_t> slot_perm;
  if (SlotBalanced(o)) {
    std::vector<double> slot_total(m, 0.0);
    for (int64_t g = 0; g < groups; ++g) slot_total[g % m] += mb_cost[g];
    slot_perm = OrderSlots(slot_total, o.ordering);
    if (pipelined) slot_perm = SharedOrderForPipeline(mb_cost, r, m, o.pipeline_stages, slot_perm);
  }
  std::vector<int32_t> rank_perms;
  if (pipelined && !SlotBalanced(o)) {
    rank_perms.reserve(groups);
    for (int64_t rank = 0; rank < r; ++rank) {
      const std::vector<int32_t> requested =
          OrderSlots(absl::MakeConstSpan(mb_cost).subspan(rank * m, m), o.ordering);
      rank_perms.insert(rank_perms.end(), requested.begin(), requested.end());
    }
    rank_perms = OrderReplicasForPipeline(mb_cost, r, m, o.pipeline_stages, rank_perms);
  }
  // One rank's documents, tokens, starts and costs in group order while
  // they are rewritten in slot order.
  int64_t widest_rank = 0;
  for (int64_t rank = 0; rank < r; ++rank) {
    widest_rank = std::max(widest_rank, start[(rank + 1) * m] - start[rank * m]);
  }
  std::vector<int64_t> rank_docs = util::PooledVector<int64_t>(widest_rank);
  std::vector<int64_t> rank_tokens = util::PooledVector<int64_t>(widest_rank);
  std::vector<int64_t> rank_starts(m + 1);
  std::vector<double> rank_costs(m);
  util::GiveBackOnExit give_back_rank_buffers(rank_docs, rank_tokens);
  std::vector<int64_t>& plan_items = mb_doc;
  std::vector<int64_t>& offsets = start;
  std::vector<int32_t> ordered;  // a rank's own slot order
  for (int64_t rank = 0; rank < r; ++rank) {
    std::copy(start.begin() + rank * m, start.begin() + (rank + 1) * m + 1, rank_starts.begin());
    std::copy(mb_cost.begin() + rank * m, mb_cost.begin() + (rank + 1) * m, rank_costs.begin());
    const int64_t rank_start = rank_starts[0];
    std::copy(mb_doc.begin() + rank_start, mb_doc.begin() + rank_starts[m], rank_docs.begin());
    std::copy(plan_tokens.begin() + rank_start, plan_tokens.begin() + rank_starts[m],
              rank_tokens.begin());
    absl::Span<const int32_t> perm;
    if (SlotBalanced(o)) {
      perm = slot_perm;
    } else if (!rank_perms.empty()) {
      perm = absl::MakeConstSpan(rank_perms).subspan(rank * m, m);
    } else {
      ordered = OrderSlots(rank_costs, o.ordering);
      perm = ordered;
    }
    for (int64_t slot = 0; slot < m; ++slot) {
      const int64_t k = perm[slot];  // the group's index within the rank
      const int64_t position = rank * m + slot;
      for (int64_t p = rank_starts[k]; p < rank_starts[k + 1]; ++p, ++at) {
        plan_items[at] = id_of(rank_docs[p - rank_start]);
        plan_tokens[at] = rank_tokens[p - rank_start];
      }
      offsets[position + 1] = static_cast<int64_t>(at);
      mb_cost[position] = rank_costs[k];
    }
  }
  Plan plan;
  plan.SetUnpaddedGroups(std::move(offsets), std::move(plan_items), std::move(plan_tokens),
                         std::move(mb_cost));
  plan.SetSlotGrid(m);
  ComputeGroupMetrics(plan, static_cast<uint64_t>(n), largest_item, cap);
  ComputeRankMetrics(plan, static_cast<uint64_t>(r), static_cast<uint64_t>(m), largest_item);

  // Documents that appear in more than one piece (none when every item is
  // a whole document).
  PlanMetrics& metrics = plan.metrics();
  bool any_piece = false;
  for (size_t i = 0; i < items.size() && !any_piece; ++i) {
    any_piece = items.tokens[i] != lengths[items.doc[i]];
  }
  // Every item a whole document of its own (no caller ids, which need not
  // be distinct).
  if (!any_piece && ids.empty()) plan.SetWholeItemOffsets();
  std::vector<int32_t> pieces_of;
  if (any_piece || heavy) {
    pieces_of.assign(n, 0);
    for (size_t i = 0; i < items.size(); ++i) {
      if (items.where[i] >= 0) ++pieces_of[items.doc[i]];
    }
    for (int64_t i = 0; i < n; ++i) metrics.split_items += pieces_of[i] > 1 ? 1 : 0;
  }
  if (o.overflow == Overflow::kSplit && (any_piece || heavy)) {
    // The honest bound: a document may be cut into as many pieces as
    // balance needs or as this plan made (so the plan is one of the plans
    // bounded); the others are whole.
    std::vector<int64_t> cut_lengths, cut_pieces;
    double whole_cost = 0, largest_whole = 0;
    int64_t tokens = 0;
    auto most = [&](size_t doc) {
      return std::max<int64_t>(balanced.pieces.empty() ? 1 : balanced.pieces[doc], pieces_of[doc]);
    };
    for (size_t i = 0; i < items.size(); ++i) {
      if (items.where[i] < 0) continue;
      tokens += items.tokens[i];
      if (most(items.doc[i]) == 1) {
        whole_cost += costs[i];
        largest_whole = std::max(largest_whole, costs[i]);
      }
    }
    for (int64_t i = 0; i < n; ++i) {
      if (pieces_of[i] > 0 && most(i) > 1) {
        cut_lengths.push_back(lengths[i]);
        cut_pieces.push_back(most(i));
      }
    }
    for (const bool per_rank : {true, false}) {
      // Under CP: the bound of the same plan without CP (item costs
      // unscaled), / cp.
      const double scale = static_cast<double>(cp);
      absl::StatusOr<double> bound =
          DivisibleLowerBound(model, cut_lengths, cut_pieces, whole_cost * scale,
                              largest_whole * scale, tokens, cap, per_rank ? r : r * m);
      if (!bound.ok()) return bound.status();
      if (cp > 1) *bound /= scale;
      // Above the plan only for a cost that is not convex in length
      // (docs/planner.md): the plan itself is then the best bound known.
      if (per_rank) {
        metrics.rank_lower_bound = std::min(*bound, metrics.max_rank_cost);
        metrics.rank_gap_to_lower_bound =
            metrics.rank_lower_bound > 0 ? metrics.max_rank_cost / metrics.rank_lower_bound - 1 : 0;
      } else {
        metrics.lower_bound = std::min(*bound, metrics.max_group_cost);
        metrics.gap_to_lower_bound =
            metrics.lower_bound > 0 ? metrics.max_group_cost / metrics.lower_bound - 1 : 0;
      }
    }
  }
  std::sort(deferred.begin(), deferred.end());
  for (int64_t d : deferred) {
    plan.deferred().push_back(id_of(d));
    metrics.deferred_tokens += lengths[d];
  }
  metrics.deferred_items = deferred.size();
  metrics.num_steps = 1;
  metrics.planned_by = PublicPlannedBy(o.algorithm, fallback.planned_by);

  // Synchronization figures; their document-level bounds use the documents
  // only where every item is a whole document under an additive model.
  SyncBoundInputs sync;
  sync.whole_documents = !any_piece && !heavy && model.IsAdditive();
  sync.overhead = model.SequenceOverhead();
  sync.cap = cap;
  bool first_item = true;
  for (size_t i = 0; i < items.size(); ++i) {
    if (items.where[i] < 0) continue;
    sync.document_cost_total += costs[i];
    sync.largest_document_cost = std::max(sync.largest_document_cost, costs[i]);
    sync.tokens += items.tokens[i];
    const double per_token = costs[i] / static_cast<double>(items.tokens[i]);
    sync.cheapest_cost_per_token =
        first_item ? per_token : std::min(sync.cheapest_cost_per_token, per_token);
    first_item = false;
  }
  ComputeSyncMetrics(plan, o.pipeline_stages, sync);
  return plan;
}

}  // namespace

absl::StatusOr<Plan> PlanStepWithExtraCosts(const StepOptions& o, const cost::CostModel& model,
                                            absl::Span<const int64_t> lengths,
                                            absl::Span<const double> extra_costs,
                                            absl::Span<const int64_t> ids, StepStats* stats) {
  if (absl::Status s = ValidateStepOptions(o); !s.ok()) return s;
  absl::StatusOr<int64_t> checked = util::CheckLengths("lengths", lengths);
  if (!checked.ok()) return checked.status();
  if (absl::Status s = CheckExtraCosts(extra_costs, lengths.size()); !s.ok()) return s;
  const ExtraCosts extra{extra_costs, lengths};
  if (!ids.empty() && ids.size() != lengths.size()) {
    return absl::InvalidArgumentError(
        absl::StrFormat("ids has %u entries for %u lengths", ids.size(), lengths.size()));
  }
  const int64_t cp = ContextParallelSize(o);
  if (cp == 1)
    return PlanStepBody(o, 1, o.context_parallel_layout, model, lengths, extra, ids, stats);
  if (!model.IsAdditive()) {
    return absl::InvalidArgumentError(
        "context_parallel_size > 1 needs an additive cost model (attention within documents): a "
        "model whose attention spans the whole sequence, or a custom callback, gives no cost per "
        "CP rank");
  }
  // Everything token-related (which documents are over the cap, splitting,
  // the fewest microbatches, fill) sees the CP group's cap.
  StepOptions group = o;
  group.max_tokens_per_microbatch = GroupCap(o);
  group.context_parallel_size = 0;
  return PlanStepBody(group, cp, o.context_parallel_layout, model, lengths, extra, ids, stats);
}

std::vector<int64_t> RepresentativeStepLengths(const StepOptions& o, int64_t documents) {
  std::vector<int64_t> lengths(static_cast<size_t>(std::max<int64_t>(0, documents)));
  if (lengths.empty()) return lengths;
  const double cap = static_cast<double>(o.max_tokens_per_microbatch);
  const double n = static_cast<double>(lengths.size());
  double mean = cap / 4;
  if (o.microbatches_per_rank > 0) {
    const double room = static_cast<double>(o.num_ranks) *
                        static_cast<double>(o.microbatches_per_rank) * cap * 0.97;
    mean = std::min(cap, room / n);
  }
  util::Rng rng(1);
  for (int64_t& l : lengths) {
    const double draw = -std::log(1 - rng.Uniform()) * mean;
    l = std::clamp<int64_t>(static_cast<int64_t>(std::llround(std::min(draw, cap))), 1,
                            o.max_tokens_per_microbatch);
  }
  return lengths;
}

}  // namespace flopspack::pack
