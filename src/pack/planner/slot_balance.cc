#include "pack/planner/slot_balance.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <memory>
#include <numeric>
#include <utility>

#include "pack/planner/planner_documents.h"
#include "pack/primitives/cost_order.h"
#include "util/scratch_arena.h"
#include "util/vector_pool.h"

namespace flopspack::pack {
namespace {

// Below this many microbatches (and kTokenCandidateBelowMicrobatches per
// rank) the banded token-balanced plan is computed too and kept when
// better (its cost is small there). From 8 per rank on it never won on the
// 216 decision steps (docs/planner.md, round mbspeed4) and cost a third of
// this planner's instructions at 1,024 x 8.
constexpr int64_t kCompareBelow = int64_t{1} << 14;

// The flow's pass stops after this many (or R / 4 if more) donors in a
// row gave nothing.
constexpr int64_t kFlowStopAfter = 256;

// A double's bit pattern as an unsigned integer that orders as the values
// do (finite values; -0.0 is read as 0.0, as the comparisons do).
inline uint64_t Ordered(double x) {
  const double c = x == 0 ? 0.0 : x;
  uint64_t bits;
  std::memcpy(&bits, &c, sizeof bits);
  return (bits >> 63) != 0 ? ~bits : bits | (uint64_t{1} << 63);
}

// A sort key: (hi, lo) compared in that order.
struct SortKey {
  uint64_t hi;
  uint32_t lo;
};

// Sorts v ascending by key(x), keys distinct (lo is an index), so the result
// is the one order any sort gives. For the orders that are not src/pack's
// cost order (ranks by total ascending, a slot's entries heaviest first
// with ties to the higher index); heaviest first with ties by index is
// CostDescendingOrder's (pack/primitives/cost_order.h), which the banding,
// the flow's donors and BandSlotsAndSum call. A stable LSD radix sort on 8-bit digits
// (lo's four, then hi's eight; lo's skipped when the input is in lo order
// already, as (cost, index) pairs built in index order are; histograms in
// one sweep, a digit the same for every element skipped) from 256 elements
// up: the comparison sorts of
// (cost, microbatch) pairs were ~25% of the planner's mispredicted branches
// at 1,024 x 4 (callgrind's model), the radix passes about as many
// instructions and almost none. O(n) per pass, at most 12 passes.
// Reference: Knuth, TAOCP vol. 3, 5.2.5.
template <typename T, typename KeyOf>
void SortByKey(absl::Span<T> v, KeyOf key_of) {
  const size_t n = v.size();
  if (n < 256) {
    std::sort(v.begin(), v.end(), [&](const T& a, const T& b) {
      const SortKey x = key_of(a), y = key_of(b);
      return x.hi != y.hi ? x.hi < y.hi : x.lo < y.lo;
    });
    return;
  }
  // Little-endian: hi's bytes at 0-7, lo's at 8-11; digits from the least
  // significant, lo's first.
  struct Keyed {
    uint64_t hi;
    uint32_t lo;
    uint32_t at;
  };
  static_assert(sizeof(Keyed) == 16);
  static constexpr int kByte[12] = {8, 9, 10, 11, 0, 1, 2, 3, 4, 5, 6, 7};
  // Written whole before read: room, not zeroed arrays.
  util::ScratchArena scratch;
  Keyed* keys = scratch.Room<Keyed>(n);
  Keyed* tmp = scratch.Room<Keyed>(n);
  bool lo_sorted = true;  // lo ascending already (an index, in its order)
  for (size_t i = 0; i < n; ++i) {
    const SortKey k = key_of(v[i]);
    keys[i] = {k.hi, k.lo, static_cast<uint32_t>(i)};
    lo_sorted = lo_sorted && (i == 0 || keys[i - 1].lo < k.lo);
  }
  // Stable passes on hi alone then order by (hi, lo): lo's digits skipped.
  const int from = lo_sorted ? 4 : 0;
  uint32_t count[12][256];
  std::memset(count[from], 0, sizeof(uint32_t) * 256 * (12 - from));
  for (size_t i = 0; i < n; ++i) {
    unsigned char bytes[16];
    std::memcpy(bytes, &keys[i], sizeof bytes);
#pragma GCC unroll 12
    for (int d = 4; d < 12; ++d) ++count[d][bytes[kByte[d]]];
    if (!lo_sorted) {
#pragma GCC unroll 4
      for (int d = 0; d < 4; ++d) ++count[d][bytes[kByte[d]]];
    }
  }
  for (int d = from; d < 12; ++d) {
    uint32_t* start = count[d];
    unsigned char first[16];
    std::memcpy(first, &keys[0], sizeof first);
    if (start[first[kByte[d]]] == n) continue;  // one digit: nothing to do
    uint32_t sum = 0;
    for (int b = 0; b < 256; ++b) {
      const uint32_t here = start[b];
      start[b] = sum;
      sum += here;
    }
    const int at = kByte[d];
    for (size_t i = 0; i < n; ++i) {
      unsigned char bytes[16];
      std::memcpy(bytes, &keys[i], sizeof bytes);
      tmp[start[bytes[at]]++] = keys[i];
    }
    std::swap(keys, tmp);
  }
  T* const sorted = scratch.Room<T>(n);
  for (size_t i = 0; i < n; ++i) sorted[i] = v[keys[i].at];
  std::copy(sorted, sorted + n, v.begin());
}

// An item of a microbatch with its cost and length, so that the searches
// read one list, not the whole item arrays at random.
struct Item {
  double cost;
  int64_t length;
  int32_t item;
};

// Every microbatch's items, in order, in one array: microbatch c's list is
// a slab of its initial size plus 4; a push into a full slab moves the list
// to the end of the array at twice the size, into room reserved up front
// (moves are few: a list rarely outgrows its slab). A list's place, size
// and room are one record (one cache line to read per push, not three), and
// the array is not written first (only the lists' items are ever read). Its
// arrays are carved from a scratch arena (util/scratch_arena.h) that
// outlives it; an outgrown array stays there, unused, until the arena ends.
class ItemLists {
 public:
  explicit ItemLists(util::ScratchArena& scratch) : scratch_(scratch) {}
  void Reset(absl::Span<const int32_t> count) {
    const size_t n = count.size();
    slabs_ = scratch_.Room<Slab>(n);
    num_slabs_ = n;
    size_t end = 0;
    for (size_t c = 0; c < n; ++c) {
      slabs_[c] = {end, 0, static_cast<uint32_t>(count[c]) + 4};
      end += slabs_[c].capacity;
    }
    // Room for lists that outgrow their slab: moving one must not
    // reallocate (and copy, and fault in) the whole array.
    Allocate(end + end / 4 + 64, 0);
    used_ = end;
  }
  // Reset, then every placed item (cell_of[i] >= 0) appended to its list
  // in item order: the counting sort's scatter keeps its next positions in
  // an array of 32-bit offsets (a quarter of the slabs' bytes: at 8,192 x
  // 4, pushing through the slabs missed the cache on most items, 13% of
  // the planner's time).
  void Build(absl::Span<const int32_t> count, absl::Span<const int32_t> cell_of,
             absl::Span<const double> costs, absl::Span<const int64_t> lengths) {
    Reset(count);
    if (used_ > std::numeric_limits<uint32_t>::max()) {
      for (size_t i = 0; i < cell_of.size(); ++i) {
        if (cell_of[i] >= 0) Push(cell_of[i], {costs[i], lengths[i], static_cast<int32_t>(i)});
      }
      return;
    }
    uint32_t* const next = scratch_.Room<uint32_t>(num_slabs_);
    for (size_t c = 0; c < num_slabs_; ++c) next[c] = static_cast<uint32_t>(slabs_[c].begin);
    for (size_t i = 0; i < cell_of.size(); ++i) {
      const int32_t c = cell_of[i];
      if (c >= 0) data_[next[c]++] = {costs[i], lengths[i], static_cast<int32_t>(i)};
    }
    for (size_t c = 0; c < num_slabs_; ++c) slabs_[c].size = static_cast<uint32_t>(count[c]);
  }
  absl::Span<const Item> operator[](int32_t c) const {
    return {data_ + slabs_[c].begin, slabs_[c].size};
  }
  void Push(int32_t c, const Item& i) {
    Slab& s = slabs_[c];
    if (s.size == s.capacity) {
      const size_t moved = used_;
      if (moved + 2 * s.capacity > allocated_) {
        Allocate(std::max(2 * allocated_, moved + 2 * s.capacity), used_);
      }
      used_ += 2 * s.capacity;
      std::copy_n(data_ + s.begin, s.size, data_ + moved);
      s.begin = moved;
      s.capacity *= 2;
    }
    data_[s.begin + s.size++] = i;
  }
  void Prefetch(int32_t c) const { __builtin_prefetch(data_ + slabs_[c].begin); }
  // Removes `item` from c's list, keeping the others' order.
  void Erase(int32_t c, int32_t item) {
    Item* first = data_ + slabs_[c].begin;
    Item* last = first + slabs_[c].size;
    Item* at = std::find_if(first, last, [item](const Item& i) { return i.item == item; });
    std::copy(at + 1, last, at);
    --slabs_[c].size;
  }

 private:
  struct Slab {
    size_t begin;
    uint32_t size, capacity;
  };
  // An array of `capacity` items (unwritten), keeping the first `keep`.
  void Allocate(size_t capacity, size_t keep) {
    Item* grown = scratch_.Room<Item>(capacity);
    if (keep > 0) std::copy_n(data_, keep, grown);
    data_ = grown;
    allocated_ = capacity;
  }
  util::ScratchArena& scratch_;
  Item* data_ = nullptr;
  size_t used_ = 0, allocated_ = 0;
  Slab* slabs_ = nullptr;
  size_t num_slabs_ = 0;
};

class SlotSearch {
 public:
  // The per-microbatch tables are carved from `scratch` (one huge page
  // for all of them at 8,192 x 4, util/scratch_arena.h), which must
  // outlive the search; raw pointers, which the search indexes without
  // absl::Span's hardened bounds checks.
  SlotSearch(absl::Span<const int64_t> lengths, absl::Span<const double> costs,
             const SlotBalanceOptions& o, absl::Span<const int32_t> cell_of,
             util::ScratchArena& scratch)
      : lengths_(lengths),
        costs_(costs),
        o_(o),
        r_(o.num_ranks),
        m_(o.microbatches_per_rank),
        scratch_(scratch),
        items_(scratch),
        cost_(scratch.Array<double>(r_ * m_, 0.0).data()),
        tokens_(scratch.Array<int64_t>(r_ * m_, 0).data()),
        slot_(scratch.Array<int32_t>(r_ * m_, 0).data()),
        mins_(scratch.Array<Entry>(r_ * m_).data()),
        maxs_(scratch.Array<Entry>(r_ * m_).data()),
        pos_min_(scratch.Array<int32_t>(r_ * m_, 0).data()),
        pos_max_(scratch.Array<int32_t>(r_ * m_, 0).data()),
        slot_total_(scratch.Array<double>(m_, 0.0).data()),
        version_(scratch.Array<int64_t>(r_ * m_, 0).data()) {
    // All microbatches' lists in one array, each at its size plus room
    // for a few moves (a vector per microbatch was R M allocations and
    // frees per call, ~6% of the planner's time at 1,024 x 4).
    absl::Span<int32_t> count = scratch.Array<int32_t>(r_ * m_, 0);
    for (int32_t c : cell_of) {
      if (c >= 0) ++count[c];
    }
    items_.Build(count, cell_of, costs, lengths);
    // Each microbatch's cost and tokens from its list, read in memory order
    // instead of two more scattered updates per item; the list is in item
    // order, so the costs are added in the same order as item by item.
    for (int64_t c = 0; c < r_ * m_; ++c) {
      for (const Item& i : items_[static_cast<int32_t>(c)]) {
        cost_[c] += i.cost;
        tokens_[c] += i.length;
      }
    }
  }

  // Slot j = the j-th band of R microbatches by cost, heaviest first.
  void Band() {
    const int64_t cells = r_ * m_;
    // Heaviest first, ties by microbatch index: src/pack's one cost order.
    std::vector<int32_t> order = CostDescendingOrder(absl::MakeConstSpan(cost_, cells));
    util::GiveBackOnExit give_back(order);
    std::fill(slot_total_, slot_total_ + m_, 0.0);
    light0_valid_ = false;
    // Each band's heaps start from its order, heaviest first (nearly a
    // max-heap already) and reversed (nearly a min-heap), then heapified:
    // O(R) per slot.
    for (int64_t p = 0; p < cells; ++p) {
      const int32_t c = order[p];
      const int64_t j = p / r_, k = p % r_;
      slot_[c] = static_cast<int32_t>(j);
      maxs_[p] = {cost_[c], c};
      mins_[j * r_ + (r_ - 1 - k)] = {cost_[c], c};
      slot_total_[j] += cost_[c];
    }
    for (int64_t j = 0; j < m_; ++j) {
      Entry* lo = mins_ + j * r_;
      Entry* hi = maxs_ + j * r_;
      for (int64_t k = 0; k < r_; ++k) {
        pos_min_[lo[k].c] = static_cast<int32_t>(k);
        pos_max_[hi[k].c] = static_cast<int32_t>(k);
      }
      for (int64_t k = r_ / 2 - 1; k >= 0; --k) {
        SiftDown<false>(lo, pos_min_, static_cast<size_t>(k));
        SiftDown<true>(hi, pos_max_, static_cast<size_t>(k));
      }
    }
  }

  // Search steps until no slot improves or the budget is spent.
  void Search(int64_t budget) {
    bool progress = true;
    while (progress && moves_ < budget) {
      progress = false;
      for (int64_t j = 0; j < m_ && moves_ < budget; ++j) {
        while (moves_ < budget && Improve(static_cast<int32_t>(j))) {
          ++moves_;
          progress = true;
        }
      }
    }
  }

  // Microbatch rank * M + j of every item: each band's microbatches,
  // heaviest first, to the ranks lightest so far (LPT over the bands).
  std::vector<int32_t> Assign(size_t n) const {
    std::vector<int32_t> where = util::PooledVector<int32_t>(n, -1);
    util::ScratchArena scratch;
    absl::Span<double> rank_total = scratch.Array<double>(r_, 0.0);
    absl::Span<int32_t> ranks = scratch.Array<int32_t>(r_);
    absl::Span<int32_t> cell_to = scratch.Array<int32_t>(r_ * m_);
    absl::Span<Entry> slot = scratch.Array<Entry>(r_);
    for (int64_t j = 0; j < m_; ++j) {
      std::iota(ranks.begin(), ranks.end(), 0);
      SortByKey(ranks, [&](int32_t a) {
        return SortKey{Ordered(rank_total[a]), static_cast<uint32_t>(a)};
      });
      // The slot's microbatches heaviest first, as (cost, microbatch)
      // descending.
      std::copy(maxs_ + j * r_, maxs_ + (j + 1) * r_, slot.begin());
      SortByKey(slot, [](const Entry& e) {
        return SortKey{~Ordered(e.cost), ~static_cast<uint32_t>(e.c)};
      });
      for (int64_t k = 0; k < r_; ++k) {
        const int32_t c = slot[k].c, rank = ranks[k];
        rank_total[rank] += cost_[c];
        cell_to[c] = static_cast<int32_t>(rank * m_ + j);
      }
    }
    // The items, microbatch by microbatch in index order: the item lists
    // read in the order they lie in memory (in slot order, as before, they
    // were a cache miss per microbatch: a tenth of the slot planner's own
    // time at 8,192 x 4).
    for (int64_t c = 0; c < r_ * m_; ++c) {
      for (const Item& i : items_[static_cast<int32_t>(c)]) where[i.item] = cell_to[c];
    }
    return where;
  }

  // Cost flows into the heaviest slot: its maximum (a microbatch holding a
  // long document, which nothing can make cheaper) leaves room in cost under
  // it in the slot's other microbatches. Each microbatch of the other slots,
  // heaviest first, swaps one document for a cheaper one (or gives one)
  // with one of the lightest microbatches of slot 0, under the cap, without
  // raising slot 0's maximum and without going below the level the other
  // slots would share were slot 0 filled to its maximum. Every step lowers
  // the total cost outside slot 0, so it ends. Slot search then levels the
  // slots that gave.
  void Flow(int passes) {
    if (m_ < 2 || r_ == 0) return;
    for (int pass = 0; pass < passes; ++pass) {
      const double ceiling = maxs_[0].cost;
      double outside = 0;
      for (int64_t j = 1; j < m_; ++j) outside += slot_total_[j];
      const double room0 = static_cast<double>(r_) * ceiling - slot_total_[0];
      const double level = std::max(0.0, (outside - room0) / static_cast<double>(r_ * (m_ - 1)));
      // The donors in index order, then heaviest first (ties by index);
      // their lists carved from the search's arena (room for every
      // microbatch: no growth), which carves nothing else meanwhile.
      int32_t* const donor_cells = scratch_.Room<int32_t>(r_ * m_);
      double* const donor_costs = scratch_.Room<double>(r_ * m_);
      size_t count = 0;
      for (int64_t c = 0; c < r_ * m_; ++c) {
        if (slot_[c] != 0 && cost_[c] > level) {
          donor_cells[count] = static_cast<int32_t>(c);
          donor_costs[count++] = cost_[c];
        }
      }
      std::vector<int32_t> donors = CostDescendingOrder(absl::MakeConstSpan(donor_costs, count));
      util::GiveBackOnExit give_back(donors);
      for (int32_t& d : donors) d = donor_cells[d];
      bool progress = false;
      // The gives land on the heaviest donors: past the first third or so
      // of them almost every donor finds nothing, each after a full scan of
      // its items against slot 0's light partners. The pass stops after
      // max(256, R / 4) donors in a row gave nothing (a count, so the plan
      // stays deterministic): at 1,024 x 4 the flow was ~40% of this
      // planner's cycles, and the stop cuts its instructions by ~8 M of
      // 57 M; on the 216 decision steps no step got worse
      // (docs/planner.md, round mbspeed5).
      const int64_t stop_after = std::max<int64_t>(kFlowStopAfter, r_ / 4);
      int64_t idle = 0;
      size_t k = 0;
      for (; k < donors.size() && idle < stop_after; ++k) {
        // The next donor's item list, a cache miss otherwise (the lists
        // lie all over the item array, in microbatch order): fetched while
        // this donor scans.
        if (k + 1 < donors.size()) items_.Prefetch(donors[k + 1]);
        const bool gave = Give(donors[k], level, ceiling);
        idle = gave ? 0 : idle + 1;
        progress = gave || progress;
      }
      if (k < donors.size()) flow_stopped_ = true;
      if (!progress) return;
    }
  }

  int64_t moves() const { return moves_; }
  bool flow_stopped() const { return flow_stopped_; }

 private:
  // One step for slot j: the move or swap that most lowers its heaviest
  // microbatch H without raising any slot's maximum. False when none.
  bool Improve(int32_t j) {
    if (r_ == 0) return false;
    const Entry* top = maxs_ + j * r_;
    const int32_t h = top[0].c;
    const double ch = cost_[h];
    const double mean = slot_total_[j] / static_cast<double>(r_);
    if (ch <= mean * (1 + o_.tolerance)) return false;
    // The second heaviest: the heavier child of the max-heap's root.
    const double second =
        r_ > 2 ? (Before(top[1], top[2]) ? top[2] : top[1]).cost : (r_ > 1 ? top[1].cost : 0.0);
    double best_gain = ch * 1e-12;
    int32_t best_x = -1, best_d = -1, best_e = -1;
    auto consider = [&](int32_t x, double limit, bool same, const Item& d, const Item* e) {
      const double delta = d.cost - (e != nullptr ? e->cost : 0.0);
      if (delta <= 0 || cost_[x] + delta > limit) return;
      double after = std::max(ch - delta, second);
      if (same) after = std::max(after, cost_[x] + delta);
      const double gain = ch - after;
      if (gain > best_gain) {
        best_gain = gain;
        best_x = x;
        best_d = d.item;
        best_e = e != nullptr ? e->item : -1;
      }
    };
    for (int64_t k = 0; k < m_; ++k) {
      const bool same = k == j;
      // Within H's slot a partner may rise to just below H; elsewhere to
      // its slot's maximum, which then does not move.
      const double limit = same ? ch : maxs_[k * r_].cost;
      int taken = 0;
      const absl::Span<const int32_t> light = Lightest(k, o_.light_candidates + 1);
      for (auto it = light.begin(); it != light.end() && taken < o_.light_candidates; ++it) {
        const int32_t x = *it;
        if (x == h) continue;
        ++taken;
        const int64_t room_x = o_.cap - tokens_[x];
        const int64_t room_h = o_.cap - tokens_[h];
        const double cost_x = cost_[x];
        for (const Item& d : items_[h]) {
          if (d.length <= room_x) consider(x, limit, same, d, nullptr);
          // The swaps of d with x's items: the four admissibility tests
          // evaluated and combined without short-circuits, one branch
          // instead of up to four (each failed unpredictably: 91 K of the
          // planner's 404 K mispredicted branches at 1,024 x 4 in
          // callgrind's model, 52 K after). The same tests as
          // `consider` (delta > 0 is e.cost < d.cost for finite doubles),
          // so the same choice.
          for (const Item& e : items_[x]) {
            const double delta = d.cost - e.cost;
            const int64_t shift = d.length - e.length;
            const bool fits =
                (delta > 0) & (cost_x + delta <= limit) & (shift <= room_x) & (-shift <= room_h);
            if (!fits) continue;
            double after = std::max(ch - delta, second);
            if (same) after = std::max(after, cost_x + delta);
            const double gain = ch - after;
            if (gain > best_gain) {
              best_gain = gain;
              best_x = x;
              best_d = d.item;
              best_e = e.item;
            }
          }
        }
      }
    }
    if (best_x < 0) return false;
    MoveItem(best_d, h, best_x);
    if (best_e >= 0) MoveItem(best_e, best_x, h);
    return true;
  }

  // One swap or move from donor c into a light microbatch of slot 0: the
  // largest cost shift that keeps c at or above `level` and the receiver at
  // or below `ceiling`.
  bool Give(int32_t c, double level, double ceiling) {
    const double most = cost_[c] - level;
    if (most <= 0) return false;
    double best = 0;
    int32_t best_x = -1, best_d = -1, best_e = -1;
    // The donor's items carry their costs and lengths (Item): the pair
    // scan below reads them |items of c| x |items of x| times, from one
    // list instead of the whole item arrays (gathering them from there,
    // two cache misses per item, was 14% of the planner's time at
    // 8,192 x 4: most donors find nothing).
    const int64_t room_c = o_.cap - tokens_[c];
    int taken = 0;
    // Slot 0's lightest change only when a give lands there: kept across
    // donors (most find nothing) instead of walked again for each.
    if (!light0_valid_) {
      const absl::Span<const int32_t> walked = Lightest(0, o_.light_candidates);
      light0_.assign(walked.begin(), walked.end());
      light0_valid_ = true;
    }
    const std::vector<int32_t>& light = light0_;
    for (auto it = light.begin(); it != light.end() && taken < o_.light_candidates; ++it, ++taken) {
      const int32_t x = *it;
      const double room = std::min(most, ceiling - cost_[x]);
      if (room <= best) break;  // the next ones are heavier still
      const int64_t room_x = o_.cap - tokens_[x];
      const Partner& partner = PartnerOf(x);
      for (const Item& d : items_[c]) {
        if (d.length <= room_x && d.cost <= room && d.cost > best) {
          best = d.cost;
          best_x = x;
          best_d = d.item;
          best_e = -1;
        }
        // A swap moves less than d alone: nothing to gain once d is at
        // most the best shift found.
        // Nor when even x's cheapest item leaves no more than the best
        // shift, or its dearest one more than the room (the shift only
        // shrinks as the partner's item gets dearer).
        // Nor when no item of x is within the token rooms of a swap with d
        // (e.length in [d.length - room_x, d.length + room_c]): at 97%
        // fill the rooms are narrow and most pairs fail here, before the
        // search by cost.
        if (d.cost <= best || d.cost - partner.cheapest <= best ||
            d.cost - partner.dearest > room || d.length - room_x > partner.longest ||
            d.length + room_c < partner.shortest) {
          continue;
        }
        // The partner's items are sorted by (cost, position): the shift
        // d.cost - e.cost falls as e gets dearer (floating-point
        // subtraction is monotone), so the items within the room start at
        // a partition point and the first that fits under the caps has the
        // largest shift. Among equal shifts the one first in the list wins,
        // as in a scan of the list updating on `delta > best`: the same
        // choice, without scanning the items out of range (most donors
        // find none: 2,545 of 3,071 at 1,024 x 4).
        const std::vector<Member>& by_cost = partner.members;
        auto e = by_cost.begin() + partner.FirstWithin(d.cost, room);
        const Member* pick = nullptr;
        double top = best;
        for (; e != by_cost.end(); ++e) {
          const double delta = d.cost - e->cost;
          if (delta <= best || (pick != nullptr && delta < top)) break;
          const int64_t shift = d.length - e->length;
          if (shift > room_x || -shift > room_c) continue;
          if (pick == nullptr || e->position < pick->position) {
            pick = &*e;
            top = delta;
          }
        }
        if (pick != nullptr) {
          best = top;
          best_x = x;
          best_d = d.item;
          best_e = pick->item;
        }
      }
    }
    if (best_x < 0) return false;
    MoveItem(best_d, c, best_x);
    if (best_e >= 0) MoveItem(best_e, best_x, c);
    ++moves_;
    return true;
  }

  struct Member {
    double cost;
    int64_t length;
    int32_t item;
    int32_t position;  // in the microbatch's item list
  };

  void Gather(absl::Span<const Item> items, std::vector<Member>& out) const {
    out.clear();
    for (const Item& i : items) {
      out.push_back({i.cost, i.length, i.item, static_cast<int32_t>(out.size())});
    }
  }

  // A light microbatch's items as Give reads them, sorted by (cost,
  // position), with their cheapest and dearest cost. The same few light
  // microbatches of slot 0 are the partners of thousands of donors in a
  // row: each is gathered and sorted once per change of its items
  // (version_), in a small direct-mapped cache.
  struct Partner {
    int32_t cell = -1;
    int64_t version = -1;
    double cheapest = 0, dearest = 0;
    int64_t shortest = 0, longest = 0;
    std::vector<Member> members;
    std::vector<double> costs;  // members' costs, ascending
    // The first member with d - cost <= room: the partition point of the
    // members sorted by cost (d - cost falls as cost rises; floating-point
    // subtraction is monotone). Short lists are counted without branches
    // (a binary search's mispredicted branches were the planner's hottest
    // instructions at 1,024 x 4; one selecting by arithmetic instead, a
    // chain of dependent loads, took 11% of the planner's time there
    // against ~5% for the count, whose compares are independent); the
    // count of a partitioned predicate is its partition point.
    size_t FirstWithin(double d, double room) const {
      if (costs.size() > 32) {
        return static_cast<size_t>(std::partition_point(costs.begin(), costs.end(),
                                                        [&](double c) { return d - c > room; }) -
                                   costs.begin());
      }
      size_t count = 0;
      for (double c : costs) count += d - c > room ? 1 : 0;
      return count;
    }
  };
  const Partner& PartnerOf(int32_t x) {
    Partner& p = partners_[static_cast<size_t>(x) % partners_.size()];
    if (p.cell == x && p.version == version_[x]) return p;
    p.cell = x;
    p.version = version_[x];
    Gather(items_[x], p.members);
    std::sort(p.members.begin(), p.members.end(), [](const Member& a, const Member& b) {
      return a.cost != b.cost ? a.cost < b.cost : a.position < b.position;
    });
    p.cheapest = std::numeric_limits<double>::infinity();
    p.dearest = -std::numeric_limits<double>::infinity();
    p.shortest = std::numeric_limits<int64_t>::max();
    p.longest = std::numeric_limits<int64_t>::min();
    p.costs.clear();
    for (const Member& e : p.members) {
      p.cheapest = std::min(p.cheapest, e.cost);
      p.dearest = std::max(p.dearest, e.cost);
      p.shortest = std::min(p.shortest, e.length);
      p.longest = std::max(p.longest, e.length);
      p.costs.push_back(e.cost);
    }
    return p;
  }

  void MoveItem(int32_t item, int32_t from, int32_t to) {
    ++version_[from];
    ++version_[to];
    SetCost(from, cost_[from] - costs_[item]);
    SetCost(to, cost_[to] + costs_[item]);
    tokens_[from] -= lengths_[item];
    tokens_[to] += lengths_[item];
    items_.Erase(from, item);
    items_.Push(to, {costs_[item], lengths_[item], item});
  }

  void SetCost(int32_t c, double cost) {
    const int64_t j = slot_[c];
    if (j == 0) light0_valid_ = false;
    slot_total_[j] += cost - cost_[c];
    cost_[c] = cost;
    Entry* lo = mins_ + j * r_;
    Entry* hi = maxs_ + j * r_;
    lo[pos_min_[c]].cost = cost;
    hi[pos_max_[c]].cost = cost;
    Sift<false>(lo, pos_min_, static_cast<size_t>(pos_min_[c]));
    Sift<true>(hi, pos_max_, static_cast<size_t>(pos_max_[c]));
  }

  // A slot's microbatch and its cost. The slots' orders are the total order
  // (cost, microbatch), so the lightest and heaviest are unique and every
  // query below answers as an ordered set of the pairs would.
  struct Entry {
    double cost;
    int32_t c;
  };
  static bool Before(const Entry& a, const Entry& b) {
    // Without short-circuits: the heaps' sifts compared unpredictably.
    return (a.cost < b.cost) | ((a.cost == b.cost) & (a.c < b.c));
  }
  // Whether a belongs above b: in the max-heap (kMax) the later in the
  // order, in the min-heap the earlier.
  template <bool kMax>
  static bool Above(const Entry& a, const Entry& b) {
    return kMax ? Before(b, a) : Before(a, b);
  }
  template <bool kMax>
  void SiftDown(Entry* heap, int32_t* pos, size_t i) {
    const size_t n = static_cast<size_t>(r_);
    const Entry e = heap[i];
    while (true) {
      const size_t l = 2 * i + 1;
      if (l >= n) break;
      const size_t k = l + 1 < n && Above<kMax>(heap[l + 1], heap[l]) ? l + 1 : l;
      if (!Above<kMax>(heap[k], e)) break;
      heap[i] = heap[k];
      pos[heap[i].c] = static_cast<int32_t>(i);
      i = k;
    }
    heap[i] = e;
    pos[e.c] = static_cast<int32_t>(i);
  }
  // Entry i's key changed: up, or down (when it moved up its children are
  // below it already).
  template <bool kMax>
  void Sift(Entry* heap, int32_t* pos, size_t i) {
    const Entry e = heap[i];
    const size_t from = i;
    while (i > 0) {
      const size_t p = (i - 1) / 2;
      if (!Above<kMax>(e, heap[p])) break;
      heap[i] = heap[p];
      pos[heap[i].c] = static_cast<int32_t>(i);
      i = p;
    }
    if (i != from) {
      heap[i] = e;
      pos[e.c] = static_cast<int32_t>(i);
      return;
    }
    SiftDown<kMax>(heap, pos, i);
  }
  // The k lightest microbatches of slot j, lightest first: a best-first
  // walk of the min-heap from its root (the frontier holds at most k + 1
  // entries).
  absl::Span<const int32_t> Lightest(int64_t j, int k) {
    const Entry* heap = mins_ + j * r_;
    const size_t n = static_cast<size_t>(r_);
    light_.clear();
    frontier_.clear();
    if (n > 0) frontier_.push_back(0);
    while (static_cast<int>(light_.size()) < k && !frontier_.empty()) {
      size_t b = 0;
      for (size_t t = 1; t < frontier_.size(); ++t) {
        if (Before(heap[frontier_[t]], heap[frontier_[b]])) b = t;
      }
      const size_t i = frontier_[b];
      frontier_[b] = frontier_.back();
      frontier_.pop_back();
      light_.push_back(heap[i].c);
      if (2 * i + 1 < n) frontier_.push_back(2 * i + 1);
      if (2 * i + 2 < n) frontier_.push_back(2 * i + 2);
    }
    return light_;
  }

  absl::Span<const int64_t> lengths_;
  absl::Span<const double> costs_;
  const SlotBalanceOptions& o_;
  const int64_t r_, m_;
  util::ScratchArena& scratch_;
  ItemLists items_;
  double* const cost_;
  int64_t* const tokens_;
  int32_t* const slot_;
  // Each slot's R microbatches as two indexed binary heaps over (cost,
  // microbatch), slot j at [j R, (j + 1) R): a min-heap for the lightest
  // (the search's partners) and a max-heap for the heaviest two, with
  // every microbatch's position in each. Flat arrays instead of an ordered
  // set per slot (red-black tree nodes: pointer chasing and mispredicted
  // branches on every insert, move and banding).
  Entry* const mins_;
  Entry* const maxs_;
  int32_t* const pos_min_;
  int32_t* const pos_max_;
  std::vector<int32_t> light_;
  std::vector<int32_t> light0_;  // Give's partners: slot 0's lightest
  bool light0_valid_ = false;
  std::vector<size_t> frontier_;
  double* const slot_total_;
  int64_t* const version_;  // per microbatch, bumped when its items change
  std::vector<Partner> partners_ = std::vector<Partner>(16);
  int64_t moves_ = 0;
  bool flow_stopped_ = false;
};

// Whether a plan that places every item is within the tolerance of the
// lower bound max(total cost / R, costliest item) on the sum of slot
// maxima (the heaviest microbatch of each slot is at least that rank's
// share of the slot, so the sum is at least any rank's total, at least
// total / R; and the costliest item's microbatch is some slot's maximum).
// Then no plan is better by more than the tolerance.
bool WithinTolerance(absl::Span<const int32_t> where, absl::Span<const double> costs,
                     const SlotBalanceOptions& o, double slot_max_sum) {
  double total = 0, costliest = 0;
  for (size_t i = 0; i < where.size(); ++i) {
    if (where[i] < 0) return false;
    total += costs[i];
    costliest = std::max(costliest, costs[i]);
  }
  const double bound = std::max(total / static_cast<double>(o.num_ranks), costliest);
  return slot_max_sum <= bound * (1 + o.tolerance);
}

// Whether `sorted` (the cost order) is also the order of token counts:
// lengths non-increasing, equal lengths by index. Then it is the order
// CostDescendingItems gives for costs equal to the lengths (the
// token-balanced plan's), exactly: one order satisfies both.
bool IsLengthOrder(const SortedItems& sorted) {
  for (size_t k = 1; k < sorted.order.size(); ++k) {
    const int64_t a = sorted.lengths[k - 1], b = sorted.lengths[k];
    if (a < b || (a == b && sorted.order[k - 1] > sorted.order[k])) return false;
  }
  return true;
}

}  // namespace

double SlotMaxSum(absl::Span<const int32_t> where, absl::Span<const double> costs, int64_t r,
                  int64_t m) {
  util::ScratchArena scratch;
  absl::Span<double> cell = scratch.Array<double>(static_cast<size_t>(r * m), 0.0);
  for (size_t i = 0; i < where.size(); ++i) {
    if (where[i] >= 0) cell[where[i]] += costs[i];
  }
  double sum = 0;
  for (int64_t j = 0; j < m; ++j) {
    double largest = 0;
    for (int64_t k = 0; k < r; ++k) largest = std::max(largest, cell[k * m + j]);
    sum += largest;
  }
  return sum;
}

namespace {

// BandSlots, and the banded plan's SlotMaxSum in *slot_max_sum: the sum of
// each band's heaviest microbatch, the same cell sums (the same items added
// in the same order) and the same order of addition over the slots, so the
// same number bit for bit without a second pass over the items.
std::vector<int32_t> BandSlotsAndSum(absl::Span<const double> costs, const SlotBalanceOptions& o,
                                     absl::Span<const int32_t> where, double* slot_max_sum) {
  // What SlotSearch's Band then Assign do, on the microbatch costs alone:
  // none of the search's per-microbatch item lists and per-slot heaps, which
  // cost more to build than the banding itself (this runs on every
  // candidate plan of a small step and in the fallbacks).
  const int64_t r = o.num_ranks, m = o.microbatches_per_rank, cells = r * m;
  // The per-microbatch and per-rank tables from a scratch arena
  // (util/scratch_arena.h).
  util::ScratchArena scratch;
  absl::Span<double> cost = scratch.Array<double>(cells, 0.0);
  for (size_t i = 0; i < where.size(); ++i) {
    if (where[i] >= 0) cost[where[i]] += costs[i];
  }
  // Bands: heaviest first, ties to the lower microbatch index.
  struct Cell {
    double cost;
    int32_t c;
  };
  absl::Span<Cell> order = scratch.Array<Cell>(cells);
  {
    std::vector<int32_t> by_cost = CostDescendingOrder(cost);
    for (int64_t p = 0; p < cells; ++p) order[p] = {cost[by_cost[p]], by_cost[p]};
    util::Recycle(by_cost);
  }
  // Each band, heaviest first (ties to the higher index, the order the
  // search's Assign gives), to the ranks lightest so far.
  absl::Span<int32_t> cell_to = scratch.Array<int32_t>(cells);
  absl::Span<double> rank_total = scratch.Array<double>(r, 0.0);
  absl::Span<int32_t> ranks = scratch.Array<int32_t>(r);
  double sum = 0;
  for (int64_t j = 0; j < m; ++j) {
    if (r > 0) sum += std::max(0.0, order[j * r].cost);  // as SlotMaxSum's max from 0
    // The band is in (cost descending, index ascending) order already:
    // reversing each run of equal costs gives the ties by index descending.
    const auto band = order.begin() + j * r;
    for (int64_t k = 0; k < r;) {
      int64_t e = k + 1;
      while (e < r && band[e].cost == band[k].cost) ++e;
      std::reverse(band + k, band + e);
      k = e;
    }
    std::iota(ranks.begin(), ranks.end(), 0);
    SortByKey(ranks, [&](int32_t a) {
      return SortKey{Ordered(rank_total[a]), static_cast<uint32_t>(a)};
    });
    for (int64_t k = 0; k < r; ++k) {
      const int32_t c = band[k].c, rank = ranks[k];
      rank_total[rank] += cost[c];
      cell_to[c] = static_cast<int32_t>(rank * m + j);
    }
  }
  std::vector<int32_t> banded = util::PooledVector<int32_t>(where.size(), -1);
  for (size_t i = 0; i < where.size(); ++i) {
    if (where[i] >= 0) banded[i] = cell_to[where[i]];
  }
  *slot_max_sum = sum;
  return banded;
}

}  // namespace

std::vector<int32_t> BandSlots(absl::Span<const int64_t> lengths, absl::Span<const double> costs,
                               const SlotBalanceOptions& o, absl::Span<const int32_t> where) {
  (void)lengths;
  double sum;
  return BandSlotsAndSum(costs, o, where, &sum);
}

std::vector<int32_t> PlanSlotBalanced(absl::Span<const int64_t> lengths,
                                      absl::Span<const double> costs, const SlotBalanceOptions& o,
                                      SlotBalanceStats* stats) {
  const int64_t r = o.num_ranks, m = o.microbatches_per_rank;
  DocumentPlanOptions pool;
  pool.num_ranks = r * m;
  pool.microbatches_per_rank = 1;
  pool.cap = o.cap;
  pool.tolerance = o.tolerance;
  // Both plans of a small step visit the items in the same order when the
  // cost order is the length order (every built-in cost model on
  // documents): then the token-balanced plan reuses the pool plan's sort.
  SortedItems sorted = CostDescendingItems(costs, lengths, o.cap);
  const bool compare = o.search && r * m <= kCompareBelow && m < kTokenCandidateBelowMicrobatches;
  SortedItems by_tokens;
  if (compare && IsLengthOrder(sorted)) {
    by_tokens.order = sorted.order;
    by_tokens.lengths = sorted.lengths;
    by_tokens.costs.assign(sorted.lengths.begin(), sorted.lengths.end());
  }
  // The search's tables live in this arena; the sorts and the document
  // plan below carve theirs in arenas nested in it.
  util::ScratchArena scratch;
  std::vector<int32_t> pooled_plan = PlanSortedDocuments(std::move(sorted), pool);
  SlotSearch search(lengths, costs, o, pooled_plan, scratch);
  // Back to the caller's vector pool, if any: freed, its storage would
  // also raise glibc's mmap threshold and put the next call's blocks on
  // the heap, where a huge page cannot always be made.
  util::Recycle(pooled_plan);
  search.Band();
  if (o.search) {
    const int64_t budget = o.max_moves >= 0 ? o.max_moves : 2 * r * m + 1024;
    search.Search(budget);
    search.Flow(1);
    search.Band();
    search.Search(3 * budget);
  }
  if (stats != nullptr) {
    stats->moves = search.moves();
    stats->flow_stopped = search.flow_stopped();
  }
  std::vector<int32_t> where = search.Assign(lengths.size());
  const double where_sum = compare ? SlotMaxSum(where, costs, r, m) : 0.0;
  if (compare && !WithinTolerance(where, costs, o, where_sum)) {
    // Small steps: the token-balanced LPT plan's microbatches, banded,
    // kept when it leaves no more items out and its slot maxima sum lower:
    // never worse than those microbatches in any slot order. The
    // rank-balanced (STEP) plan's microbatches, banded, used to be a
    // candidate too; it never won against these two on 216 steps (R in
    // {64, 256, 1024}, M in {1, 2, 4, 8}, six seeds of the long-tail batch
    // and of the code and prose corpora; docs/planner.md) and cost a whole
    // STEP plan, ~20% of this planner's instructions at 1,024 x 4.
    const auto unplaced = [](const std::vector<int32_t>& w) {
      return std::count(w.begin(), w.end(), -1);
    };
    // LPT on token counts, without the refinement: the refinement was a
    // third of this planner's instructions at 1,024 x 4, and the plain LPT
    // plan, banded, syncs better on most steps (22 fingerprint steps: 5
    // better by 0.07-0.37 points, 2 worse by 0.013-0.028, docs/planner.md).
    DocumentPlanOptions ranks = pool;
    ranks.num_ranks = r;
    ranks.microbatches_per_rank = m;
    ranks.refine = false;
    std::vector<int32_t> token_plan;
    if (!by_tokens.order.empty()) {
      token_plan = PlanSortedDocuments(std::move(by_tokens), ranks);
    } else {
      const std::vector<double> token_costs(lengths.begin(), lengths.end());
      token_plan = PlanDocuments(lengths, token_costs, ranks);
    }
    double banded_sum;
    std::vector<int32_t> banded = BandSlotsAndSum(costs, o, token_plan, &banded_sum);
    if (unplaced(banded) < unplaced(where) ||
        (unplaced(banded) == unplaced(where) && banded_sum < where_sum)) {
      util::Recycle(where);
      where = std::move(banded);
      if (stats != nullptr) stats->token_balanced = true;
    }
    util::Recycle(token_plan);
    util::Recycle(banded);  // nothing when it became the plan
  }
  return where;
}

}  // namespace flopspack::pack
