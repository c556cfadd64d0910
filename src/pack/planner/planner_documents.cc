#include "pack/planner/planner_documents.h"

#include <algorithm>
#include <limits>
#include <set>
#include <utility>

#include "pack/primitives/cost_order.h"
#include "util/large_buffer.h"

namespace flopspack::pack {
namespace {

// Min-heap of ranks keyed by (cost, rank) with the keys inline: the lightest
// rank on top, ties to the lower rank index so the plan is deterministic.
// Four children per node: half the levels of a binary heap, and a node's
// children share a cache line, which is what LPT over thousands of ranks
// spends its time on. The top is the unique minimum of a total order, so
// the arity does not change the plan.
class RankHeap {
 public:
  struct Node {
    double cost;
    int32_t rank;
  };
  explicit RankHeap(int32_t num_ranks) {
    // All costs start at 0, so rank order is already a valid heap.
    heap_.resize(num_ranks);
    for (int32_t r = 0; r < num_ranks; ++r) heap_[r] = {0.0, r};
  }
  bool empty() const { return heap_.empty(); }
  const Node& Top() const { return heap_.front(); }
  void Push(Node node) {
    heap_.push_back(node);
    size_t i = heap_.size() - 1;
    while (i > 0) {
      const size_t parent = (i - 1) / kArity;
      if (!Less(node, heap_[parent])) break;
      heap_[i] = heap_[parent];
      i = parent;
    }
    heap_[i] = node;
  }
  void Pop() {
    heap_.front() = heap_.back();
    heap_.pop_back();
    if (!heap_.empty()) SiftDown();
  }
  // The top's cost grew to `cost`: restore the heap order.
  void RaiseTop(double cost) {
    heap_.front().cost = cost;
    SiftDown();
  }

 private:
  static constexpr size_t kArity = 4;
  static bool Less(const Node& a, const Node& b) {
    return a.cost < b.cost || (a.cost == b.cost && a.rank < b.rank);
  }
  void SiftDown() {
    const size_t n = heap_.size();
    const Node node = heap_.front();
    size_t i = 0;
    while (true) {
      const size_t first = kArity * i + 1;
      if (first >= n) break;
      const size_t last = std::min(first + kArity, n);
      size_t child = first;
      for (size_t c = first + 1; c < last; ++c) {
        if (Less(heap_[c], heap_[child])) child = c;
      }
      if (!Less(heap_[child], node)) break;
      heap_[i] = heap_[child];
      i = child;
    }
    heap_[i] = node;
  }
  std::vector<Node> heap_;
};

struct Entry {
  int64_t length;
  double cost;
  int32_t item;
};

// The microbatches' contents after phase 1 as slices of one flat array, so
// the refinement reads a rank's items from contiguous memory. A slice that
// outgrows its capacity moves to the end of the array with double the room.
class Arena {
 public:
  // where[k] = microbatch of item k (or -1); entries keep item order.
  Arena(absl::Span<const int32_t> where, size_t microbatches, absl::Span<const int64_t> lengths,
        absl::Span<const double> costs) {
    begin_.resize(microbatches);
    size_.assign(microbatches, 0);
    capacity_.resize(microbatches);
    for (int32_t w : where) {
      if (w >= 0) ++size_[w];
    }
    size_t total = 0;
    for (size_t mb = 0; mb < microbatches; ++mb) {
      begin_[mb] = total;
      capacity_[mb] = size_[mb] + 4;
      total += capacity_[mb];
      size_[mb] = 0;
    }
    // Room for slices to move and double (Add) without reallocating the
    // pool on every move.
    pool_.reserve(total + total / 2 + 64);
    util::AdviseHugePages(pool_.data(), pool_.capacity() * sizeof(Entry));
    pool_.resize(total);
    for (size_t k = 0; k < where.size(); ++k) {
      const int32_t w = where[k];
      if (w >= 0)
        pool_[begin_[w] + size_[w]++] = Entry{lengths[k], costs[k], static_cast<int32_t>(k)};
    }
  }
  absl::Span<const Entry> items(int32_t mb) const {
    return absl::MakeConstSpan(pool_.data() + begin_[mb], size_[mb]);
  }
  Entry Remove(int32_t mb, int32_t pos) {
    Entry* base = pool_.data() + begin_[mb];
    const Entry e = base[pos];
    base[pos] = base[--size_[mb]];
    return e;
  }
  void Add(int32_t mb, const Entry& e) {
    if (size_[mb] == capacity_[mb]) {
      const size_t moved = pool_.size();
      pool_.resize(moved + 2 * capacity_[mb]);
      std::copy(pool_.begin() + begin_[mb], pool_.begin() + begin_[mb] + size_[mb],
                pool_.begin() + moved);
      begin_[mb] = moved;
      capacity_[mb] *= 2;
    }
    pool_[begin_[mb] + size_[mb]++] = e;
  }
  // Writes each item's microbatch into where.
  void Export(std::vector<int32_t>& where) const {
    for (size_t mb = 0; mb < begin_.size(); ++mb) {
      for (const Entry& e : items(static_cast<int32_t>(mb)))
        where[e.item] = static_cast<int32_t>(mb);
    }
  }

 private:
  std::vector<Entry> pool_;
  std::vector<size_t> begin_;
  std::vector<int32_t> size_, capacity_;
};

// Swap neighbourhoods enumerate pairs inside one microbatch; a microbatch of
// hundreds of tiny documents would make that quadratic, so pairs are only
// tried in microbatches up to this size.
constexpr size_t kMaxPairItems = 48;

struct Move {
  double new_max;
  int32_t mb_h, mb_l;
  int32_t h[2], l[2];  // positions in the slices leaving H and L, -1 = none
};

class Refiner {
 public:
  Refiner(Arena& arena, std::vector<int64_t>& tokens, std::vector<double>& rank_cost,
          const DocumentPlanOptions& o, bool monotone)
      : arena_(arena),
        tokens_(tokens),
        rank_cost_(rank_cost),
        m_(static_cast<int32_t>(o.microbatches_per_rank)),
        cap_(o.cap),
        monotone_(monotone) {}

  int64_t Run(int64_t max_moves, int light_candidates, double target) {
    std::set<std::pair<double, int32_t>> by_cost;
    for (int32_t r = 0; r < static_cast<int32_t>(rank_cost_.size()); ++r) {
      by_cost.emplace(rank_cost_[r], r);
    }
    int64_t moves = 0;
    while (moves < max_moves) {
      const int32_t h = by_cost.rbegin()->second;
      const double cost_h = rank_cost_[h];
      if (cost_h <= target) break;
      bool moved = false;
      // Cheap neighbourhoods (1-0, 1-1) over every candidate first, the
      // pair swaps only when those find nothing.
      for (int pairs = 0; pairs < 2 && !moved; ++pairs) {
        int tried = 0;
        for (auto it = by_cost.begin(); it != by_cost.end() && tried < light_candidates;
             ++it, ++tried) {
          const int32_t l = it->second;
          if (l == h || !(rank_cost_[l] < cost_h)) break;
          Move best{};
          if (!Search(h, l, pairs == 1, best)) continue;
          Apply(h, l, best, by_cost);
          moved = true;
          break;
        }
      }
      if (!moved) break;
      ++moves;
    }
    return moves;
  }

 private:
  // Best move between the microbatches of H and L; false if none lowers
  // max(cost H, cost L).
  bool Search(int32_t h, int32_t l, bool pairs, Move& best) {
    const double cost_h = rank_cost_[h], cost_l = rank_cost_[l];
    const double gap = cost_h - cost_l;
    if (!pairs && monotone_) {
      // With costs non-decreasing in length, a 1-0 or 1-1 move that sends
      // cost to L also sends tokens: L needs room somewhere.
      bool room = false;
      for (int32_t j = 0; j < m_ && !room; ++j) room = tokens_[l * m_ + j] < cap_;
      if (!room) return false;
    }
    best.new_max = cost_h;
    bool found = false;
    auto consider = [&](double delta, int32_t mb_h, int32_t mb_l, int32_t h0, int32_t h1,
                        int32_t l0, int32_t l1) {
      if (!(delta > 0) || !(delta < gap)) return;
      const double new_max = std::max(cost_h - delta, cost_l + delta);
      if (new_max < best.new_max) {
        best = Move{new_max, mb_h, mb_l, {h0, h1}, {l0, l1}};
        found = true;
      }
    };
    for (int32_t jh = 0; jh < m_; ++jh) {
      const int32_t mb_h = h * m_ + jh;
      const int64_t free_h = cap_ - tokens_[mb_h];
      const absl::Span<const Entry> a = arena_.items(mb_h);
      for (int32_t jl = 0; jl < m_; ++jl) {
        const int32_t mb_l = l * m_ + jl;
        const int64_t free_l = cap_ - tokens_[mb_l];
        if (!pairs && monotone_ && free_l == 0) continue;
        const absl::Span<const Entry> b = arena_.items(mb_l);
        // tokens_moved = tokens leaving H for L; needs -free_h <= it <= free_l.
        auto fits = [&](int64_t moved) { return moved <= free_l && -moved <= free_h; };
        const int32_t na = static_cast<int32_t>(a.size()), nb = static_cast<int32_t>(b.size());
        for (int32_t x = 0; x < na; ++x) {
          const Entry& ea = a[x];
          if (!pairs) {
            if (fits(ea.length)) consider(ea.cost, mb_h, mb_l, x, -1, -1, -1);
            for (int32_t y = 0; y < nb; ++y) {
              if (fits(ea.length - b[y].length)) {
                consider(ea.cost - b[y].cost, mb_h, mb_l, x, -1, y, -1);
              }
            }
            continue;
          }
          if (nb <= static_cast<int32_t>(kMaxPairItems)) {
            for (int32_t y = 0; y < nb; ++y) {
              for (int32_t z = y + 1; z < nb; ++z) {
                if (fits(ea.length - b[y].length - b[z].length)) {
                  consider(ea.cost - b[y].cost - b[z].cost, mb_h, mb_l, x, -1, y, z);
                }
              }
            }
          }
          if (na > static_cast<int32_t>(kMaxPairItems)) continue;
          for (int32_t x2 = x + 1; x2 < na; ++x2) {
            const Entry& ea2 = a[x2];
            for (int32_t y = 0; y < nb; ++y) {
              if (fits(ea.length + ea2.length - b[y].length)) {
                consider(ea.cost + ea2.cost - b[y].cost, mb_h, mb_l, x, x2, y, -1);
              }
            }
          }
        }
      }
    }
    return found;
  }

  void Apply(int32_t h, int32_t l, const Move& move,
             std::set<std::pair<double, int32_t>>& by_cost) {
    by_cost.erase({rank_cost_[h], h});
    by_cost.erase({rank_cost_[l], l});
    // Take both sides out first (higher position first, since removal moves
    // the last entry into the hole), then put them in.
    Entry out_h[2], out_l[2];
    int nh = 0, nl = 0;
    const int32_t hp0 = std::max(move.h[0], move.h[1]), hp1 = std::min(move.h[0], move.h[1]);
    const int32_t lp0 = std::max(move.l[0], move.l[1]), lp1 = std::min(move.l[0], move.l[1]);
    for (int32_t pos : {hp0, hp1}) {
      if (pos >= 0) out_h[nh++] = arena_.Remove(move.mb_h, pos);
    }
    for (int32_t pos : {lp0, lp1}) {
      if (pos >= 0) out_l[nl++] = arena_.Remove(move.mb_l, pos);
    }
    for (int k = 0; k < nh; ++k) {
      tokens_[move.mb_h] -= out_h[k].length;
      tokens_[move.mb_l] += out_h[k].length;
      arena_.Add(move.mb_l, out_h[k]);
    }
    for (int k = 0; k < nl; ++k) {
      tokens_[move.mb_l] -= out_l[k].length;
      tokens_[move.mb_h] += out_l[k].length;
      arena_.Add(move.mb_h, out_l[k]);
    }
    // Recompute both rank costs from their items rather than adding deltas,
    // so rounding does not drift over many moves.
    rank_cost_[h] = Sum(h);
    rank_cost_[l] = Sum(l);
    by_cost.emplace(rank_cost_[h], h);
    by_cost.emplace(rank_cost_[l], l);
  }

  double Sum(int32_t r) const {
    double total = 0;
    for (int32_t j = 0; j < m_; ++j) {
      for (const Entry& e : arena_.items(r * m_ + j)) total += e.cost;
    }
    return total;
  }

  Arena& arena_;
  std::vector<int64_t>& tokens_;
  std::vector<double>& rank_cost_;
  const int32_t m_;
  const int64_t cap_;
  const bool monotone_;
};

// Back from LPT positions to input indices.
std::vector<int32_t> Unsorted(const std::vector<int32_t>& order,
                              const std::vector<int32_t>& where) {
  std::vector<int32_t> result(where.size());
  for (size_t k = 0; k < where.size(); ++k) result[order[k]] = where[k];
  return result;
}

}  // namespace

std::vector<int32_t> PlanDocuments(absl::Span<const int64_t> lengths,
                                   absl::Span<const double> costs,
                                   const DocumentPlanOptions& options, DocumentPlanStats* stats) {
  const int32_t n = static_cast<int32_t>(lengths.size());
  const int32_t num_ranks = static_cast<int32_t>(options.num_ranks);
  const int32_t m = static_cast<int32_t>(options.microbatches_per_rank);
  const int64_t cap = options.cap;
  const size_t microbatches = static_cast<size_t>(num_ranks) * m;

  // Work on items renumbered by their position in LPT order, so every pass
  // below reads memory sequentially.
  // Costs usually follow lengths, which are bounded by the cap: then a
  // counting sort gives the same order (checked, not assumed).
  const std::vector<int32_t> order = CostDescendingOrder(costs, lengths, cap);
  std::vector<int64_t> len = util::LargeVector<int64_t>(n);
  std::vector<double> cost = util::LargeVector<double>(n);
  for (int32_t k = 0; k < n; ++k) {
    len[k] = lengths[order[k]];
    cost[k] = costs[order[k]];
  }
  // suffix_min[k] = shortest item among k..: a rank whose roomiest
  // microbatch is below it can never take another item.
  std::vector<int64_t> suffix_min(n + 1, std::numeric_limits<int64_t>::max());
  for (int32_t k = n - 1; k >= 0; --k) suffix_min[k] = std::min(suffix_min[k + 1], len[k]);

  std::vector<int64_t> tokens(microbatches, 0);
  std::vector<int32_t> where(n, -1);
  std::vector<double> rank_cost(num_ranks, 0.0);

  // Phase 1: LPT under the cap. `heap` holds the ranks whose roomiest
  // microbatch fits the current item, lightest on top; the others wait in
  // `parked`, roomiest on top, and return when the items get short enough.
  // For monotone cost models items come longest first, so each rank moves
  // between the two O(1) times per placement: O(n log R) in all.
  std::vector<int64_t> max_free(num_ranks, cap);
  RankHeap heap(num_ranks);
  auto roomier = [&](int32_t a, int32_t b) {  // std max-heap on (room, -rank)
    return max_free[a] < max_free[b] || (max_free[a] == max_free[b] && a > b);
  };
  std::vector<int32_t> parked;
  for (int32_t k = 0; k < n; ++k) {
    const int64_t l = len[k];
    while (!parked.empty() && max_free[parked.front()] >= l) {
      std::pop_heap(parked.begin(), parked.end(), roomier);
      const int32_t r = parked.back();
      parked.pop_back();
      heap.Push({rank_cost[r], r});
    }
    while (!heap.empty() && max_free[heap.Top().rank] < l) {
      parked.push_back(heap.Top().rank);
      std::push_heap(parked.begin(), parked.end(), roomier);
      heap.Pop();
    }
    if (heap.empty()) continue;  // fits nowhere: unplaced
    const int32_t r = heap.Top().rank;
    int64_t* mb_tokens = tokens.data() + static_cast<size_t>(r) * m;
    // Best fit: the microbatch with the least room that still fits. The
    // first fitting one seeds the search (a sentinel of INT64_MAX would
    // never be beaten by an empty microbatch under cap = INT64_MAX); one
    // fits, since max_free[r] >= l.
    int32_t best = -1;
    int64_t best_free = 0;
    for (int32_t j = 0; j < m; ++j) {
      const int64_t free = cap - mb_tokens[j];
      if (free >= l && (best < 0 || free < best_free)) {
        best = j;
        best_free = free;
      }
    }
    mb_tokens[best] += l;
    where[k] = r * m + best;
    rank_cost[r] += cost[k];
    int64_t room = 0;
    for (int32_t j = 0; j < m; ++j) room = std::max(room, cap - mb_tokens[j]);
    max_free[r] = room;
    if (room < suffix_min[k + 1]) {
      heap.Pop();  // full for good: no later item fits
    } else {
      heap.RaiseTop(rank_cost[r]);
    }
  }
  if (stats != nullptr) {
    stats->max_rank_cost_after_lpt = *std::max_element(rank_cost.begin(), rank_cost.end());
  }

  // Phase 2: refinement between the heaviest and the lightest ranks.
  if (options.refine && num_ranks > 1) {
    double total = 0, largest = 0, heaviest = 0;
    for (int32_t r = 0; r < num_ranks; ++r) {
      total += rank_cost[r];
      heaviest = std::max(heaviest, rank_cost[r]);
    }
    for (int32_t k = 0; k < n; ++k) {
      if (where[k] >= 0) largest = std::max(largest, cost[k]);
    }
    const double lower_bound = std::max(total / num_ranks, largest);
    const double target = lower_bound * (1 + options.tolerance);
    const int64_t max_moves =
        options.max_moves >= 0 ? options.max_moves : 2 * options.num_ranks + 1024;
    if (heaviest <= target) return Unsorted(order, where);
    // Costs non-decreasing in length (true of every built-in model) let the
    // search skip light ranks without room; checked, not assumed.
    bool monotone = true;
    for (int32_t k = 1; k < n && monotone; ++k) monotone = len[k] <= len[k - 1];
    Arena arena(where, microbatches, len, cost);
    Refiner refiner(arena, tokens, rank_cost, options, monotone);
    const int64_t moves = refiner.Run(max_moves, options.light_candidates, target);
    arena.Export(where);
    if (stats != nullptr) stats->moves = moves;
  }
  return Unsorted(order, where);
}

}  // namespace flopspack::pack
