#include "pack/planner/cut_to_share.h"

#include <algorithm>
#include <limits>

namespace flopspack::pack {
namespace {

// One fill at target `share`: false when the documents run past the last
// rank. `worst` is the heaviest rank's cost.
absl::StatusOr<bool> Fill(const cost::CostModel& model, absl::Span<const int64_t> lengths,
                          absl::Span<const int64_t> docs, int64_t r, int64_t m, int64_t cap,
                          double share, std::vector<SharePiece>& out, double& worst) {
  out.clear();
  worst = 0;
  const double overhead = model.SequenceOverhead();
  int64_t rank = 0, j = 0, used = 0;
  double rank_cost = 0;
  auto next_rank = [&] {
    ++rank;
    j = 0;
    used = 0;
    rank_cost = 0;
  };
  for (int64_t d : docs) {
    int64_t left = lengths[d];
    while (left > 0) {
      if (rank == r) return false;
      if (used == cap) {
        used = 0;
        if (++j == m) next_rank();
        continue;
      }
      int64_t take = std::min(left, cap - used);
      const double extra = used == 0 ? overhead : 0;
      absl::StatusOr<double> c = model.DocumentCost(take);
      if (!c.ok()) return c.status();
      bool full = false;
      if (rank_cost + extra + *c > share) {
        // The longest piece that keeps the rank within the share.
        int64_t lo = 0, hi = take - 1;
        while (lo < hi) {
          const int64_t mid = lo + (hi - lo + 1) / 2;
          absl::StatusOr<double> cm = model.DocumentCost(mid);
          if (!cm.ok()) return cm.status();
          if (rank_cost + extra + *cm <= share) {
            lo = mid;
          } else {
            hi = mid - 1;
          }
        }
        full = true;
        if (lo == 0) {
          // Not one token fits: an empty rank still takes the piece (the
          // share is then below what the step allows, and bisection rises).
          if (rank_cost > 0 || used > 0) {
            next_rank();
            continue;
          }
          lo = take;
        }
        take = lo;
        c = model.DocumentCost(take);
        if (!c.ok()) return c.status();
      }
      out.push_back({d, take, static_cast<int32_t>(rank * m + j)});
      used += take;
      left -= take;
      rank_cost += extra + *c;
      worst = std::max(worst, rank_cost);
      if (full) next_rank();
    }
  }
  return true;
}

}  // namespace

absl::StatusOr<std::vector<SharePiece>> CutToShare(const cost::CostModel& model,
                                                   absl::Span<const int64_t> lengths,
                                                   absl::Span<const int64_t> docs, int64_t r,
                                                   int64_t m, int64_t cap) {
  std::vector<SharePiece> best, trial;
  double hi = 0, worst = 0;
  absl::StatusOr<bool> ok =
      Fill(model, lengths, docs, r, m, cap, std::numeric_limits<double>::infinity(), best, hi);
  if (!ok.ok()) return ok.status();
  if (!*ok) return std::vector<SharePiece>{};
  double lo = 0;
  for (int round = 0; round < 60 && hi - lo > 1e-6 * hi; ++round) {
    const double mid = lo + (hi - lo) / 2;
    ok = Fill(model, lengths, docs, r, m, cap, mid, trial, worst);
    if (!ok.ok()) return ok.status();
    if (*ok) {
      hi = std::min(mid, worst);
      best.swap(trial);
    } else {
      lo = mid;
    }
  }
  return best;
}

}  // namespace flopspack::pack
