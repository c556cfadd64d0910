// The slot neighbourhood of the refinement (refine.h, RefineSlots): groups
// (ranks) of M slots (microbatches), each slot under a token cap. Between
// one slot of the heaviest group H and one of a light group L it tries
// moving one item (1-0) and swapping one for one (1-1) on level 0, then
// swapping one item for two (1-2: moves cost without moving tokens, which
// is what a nearly full step needs, since a long document costs more than
// two short ones of the same total length) and two for one (2-1) on level
// 1. The first candidate group with an improving step wins.
//
// Complexity per candidate: O(M² s_H s_L) for 1-0/1-1 and O(M² m³) for the
// pair swaps (m items per slot, pairs only in slots of up to kMaxPairItems).
#include <algorithm>
#include <vector>

#include "pack/primitives/refine.h"
#include "util/large_buffer.h"

namespace flopspack::pack {
namespace {

struct Entry {
  int64_t length;
  double cost;
  int32_t item;
};

// The slots' contents as slices of one flat array, so the search reads a
// group's items from contiguous memory. A slice that outgrows its capacity
// moves to the end of the array with double the room.
class Arena {
 public:
  // slot[k] = slot of item k (or -1); entries keep item order.
  Arena(absl::Span<const int32_t> slot, size_t slots, absl::Span<const int64_t> lengths,
        absl::Span<const double> costs) {
    begin_.resize(slots);
    size_.assign(slots, 0);
    capacity_.resize(slots);
    for (int32_t w : slot) {
      if (w >= 0) ++size_[w];
    }
    size_t total = 0;
    for (size_t s = 0; s < slots; ++s) {
      begin_[s] = total;
      capacity_[s] = size_[s] + 4;
      total += capacity_[s];
      size_[s] = 0;
    }
    // Room for slices to move and double (Add) without reallocating the
    // pool on every move.
    pool_.reserve(total + total / 2 + 64);
    util::AdviseHugePages(pool_.data(), pool_.capacity() * sizeof(Entry));
    pool_.resize(total);
    for (size_t k = 0; k < slot.size(); ++k) {
      const int32_t w = slot[k];
      if (w >= 0)
        pool_[begin_[w] + size_[w]++] = Entry{lengths[k], costs[k], static_cast<int32_t>(k)};
    }
  }
  absl::Span<const Entry> items(int32_t s) const {
    return absl::MakeConstSpan(pool_.data() + begin_[s], size_[s]);
  }
  Entry Remove(int32_t s, int32_t pos) {
    Entry* base = pool_.data() + begin_[s];
    const Entry e = base[pos];
    base[pos] = base[--size_[s]];
    return e;
  }
  void Add(int32_t s, const Entry& e) {
    if (size_[s] == capacity_[s]) {
      const size_t moved = pool_.size();
      pool_.resize(moved + 2 * capacity_[s]);
      std::copy(pool_.begin() + begin_[s], pool_.begin() + begin_[s] + size_[s],
                pool_.begin() + moved);
      begin_[s] = moved;
      capacity_[s] *= 2;
    }
    pool_[begin_[s] + size_[s]++] = e;
  }
  // Writes each item's slot into slot.
  void Export(absl::Span<int32_t> slot) const {
    for (size_t s = 0; s < begin_.size(); ++s) {
      for (const Entry& e : items(static_cast<int32_t>(s))) slot[e.item] = static_cast<int32_t>(s);
    }
  }

 private:
  std::vector<Entry> pool_;
  std::vector<size_t> begin_;
  std::vector<int32_t> size_, capacity_;
};

// Swap neighbourhoods enumerate pairs inside one slot; a slot of hundreds
// of tiny documents would make that quadratic, so pairs are only tried in
// slots up to this size.
constexpr size_t kMaxPairItems = 48;

class SlotNeighbourhood {
 public:
  struct Step {
    double new_max;
    int32_t light;
    int32_t slot_h, slot_l;
    int32_t h[2], l[2];  // positions in the slices leaving H and L, -1 = none
    bool IsMove() const { return l[0] < 0 && h[1] < 0; }
  };
  static constexpr int kLevels = 2;

  SlotNeighbourhood(Arena& arena, absl::Span<int64_t> tokens, absl::Span<double> group_cost,
                    const SlotRefineOptions& o)
      : arena_(arena),
        tokens_(tokens),
        cost_(group_cost),
        m_(o.slots_per_group),
        cap_(o.cap),
        candidates_(static_cast<size_t>(std::max(0, o.candidates))),
        monotone_(o.monotone) {}

  int32_t num_groups() const { return static_cast<int32_t>(cost_.size()); }
  double Load(int32_t g) const { return cost_[g]; }
  size_t Candidates(int32_t /*heavy*/) const { return candidates_; }

  // Level 0: 1-0 and 1-1; level 1: 1-2 and 2-1.
  bool Search(int32_t h, int32_t l, int level, Step& best) const {
    const bool pairs = level == 1;
    const double cost_h = cost_[h], cost_l = cost_[l];
    const double gap = cost_h - cost_l;
    if (!pairs && monotone_) {
      // With costs non-decreasing in length, a 1-0 or 1-1 move that sends
      // cost to L also sends tokens: L needs room somewhere.
      bool room = false;
      for (int32_t j = 0; j < m_ && !room; ++j) room = tokens_[l * m_ + j] < cap_;
      if (!room) return false;
    }
    bool found = false;
    auto consider = [&](double delta, int32_t slot_h, int32_t slot_l, int32_t h0, int32_t h1,
                        int32_t l0, int32_t l1) {
      if (!(delta > 0) || !(delta < gap)) return;
      const double new_max = std::max(cost_h - delta, cost_l + delta);
      if (new_max < best.new_max) {
        best = Step{new_max, l, slot_h, slot_l, {h0, h1}, {l0, l1}};
        found = true;
      }
    };
    for (int32_t jh = 0; jh < m_; ++jh) {
      const int32_t slot_h = h * m_ + jh;
      const int64_t free_h = cap_ - tokens_[slot_h];
      const absl::Span<const Entry> a = arena_.items(slot_h);
      for (int32_t jl = 0; jl < m_; ++jl) {
        const int32_t slot_l = l * m_ + jl;
        const int64_t free_l = cap_ - tokens_[slot_l];
        if (!pairs && monotone_ && free_l == 0) continue;
        const absl::Span<const Entry> b = arena_.items(slot_l);
        // tokens_moved = tokens leaving H for L; needs -free_h <= it <= free_l.
        auto fits = [&](int64_t moved) { return moved <= free_l && -moved <= free_h; };
        const int32_t na = static_cast<int32_t>(a.size()), nb = static_cast<int32_t>(b.size());
        for (int32_t x = 0; x < na; ++x) {
          const Entry& ea = a[x];
          if (!pairs) {
            if (fits(ea.length)) consider(ea.cost, slot_h, slot_l, x, -1, -1, -1);
            for (int32_t y = 0; y < nb; ++y) {
              if (fits(ea.length - b[y].length)) {
                consider(ea.cost - b[y].cost, slot_h, slot_l, x, -1, y, -1);
              }
            }
            continue;
          }
          if (nb <= static_cast<int32_t>(kMaxPairItems)) {
            for (int32_t y = 0; y < nb; ++y) {
              for (int32_t z = y + 1; z < nb; ++z) {
                if (fits(ea.length - b[y].length - b[z].length)) {
                  consider(ea.cost - b[y].cost - b[z].cost, slot_h, slot_l, x, -1, y, z);
                }
              }
            }
          }
          if (na > static_cast<int32_t>(kMaxPairItems)) continue;
          for (int32_t x2 = x + 1; x2 < na; ++x2) {
            const Entry& ea2 = a[x2];
            for (int32_t y = 0; y < nb; ++y) {
              if (fits(ea.length + ea2.length - b[y].length)) {
                consider(ea.cost + ea2.cost - b[y].cost, slot_h, slot_l, x, x2, y, -1);
              }
            }
          }
        }
      }
    }
    return found;
  }

  void Apply(int32_t h, const Step& step) {
    const int32_t l = step.light;
    // Take both sides out first (higher position first, since removal moves
    // the last entry into the hole), then put them in.
    Entry out_h[2], out_l[2];
    int nh = 0, nl = 0;
    const int32_t hp0 = std::max(step.h[0], step.h[1]), hp1 = std::min(step.h[0], step.h[1]);
    const int32_t lp0 = std::max(step.l[0], step.l[1]), lp1 = std::min(step.l[0], step.l[1]);
    for (int32_t pos : {hp0, hp1}) {
      if (pos >= 0) out_h[nh++] = arena_.Remove(step.slot_h, pos);
    }
    for (int32_t pos : {lp0, lp1}) {
      if (pos >= 0) out_l[nl++] = arena_.Remove(step.slot_l, pos);
    }
    for (int k = 0; k < nh; ++k) {
      tokens_[step.slot_h] -= out_h[k].length;
      tokens_[step.slot_l] += out_h[k].length;
      arena_.Add(step.slot_l, out_h[k]);
    }
    for (int k = 0; k < nl; ++k) {
      tokens_[step.slot_l] -= out_l[k].length;
      tokens_[step.slot_h] += out_l[k].length;
      arena_.Add(step.slot_h, out_l[k]);
    }
    // Recompute both group costs from their items rather than adding
    // deltas, so rounding does not drift over many steps.
    cost_[h] = Sum(h);
    cost_[l] = Sum(l);
  }

 private:
  double Sum(int32_t g) const {
    double total = 0;
    for (int32_t j = 0; j < m_; ++j) {
      for (const Entry& e : arena_.items(g * m_ + j)) total += e.cost;
    }
    return total;
  }

  Arena& arena_;
  absl::Span<int64_t> tokens_;
  absl::Span<double> cost_;
  const int32_t m_;
  const int64_t cap_;
  const size_t candidates_;
  const bool monotone_;
};

}  // namespace

RefineStats RefineSlots(absl::Span<const int64_t> lengths, absl::Span<const double> costs,
                        const SlotRefineOptions& options, absl::Span<double> group_cost,
                        absl::Span<int64_t> slot_tokens, absl::Span<int32_t> slot) {
  if (options.num_groups <= 1 || options.max_steps <= 0) return {};
  const size_t slots = static_cast<size_t>(options.num_groups) * options.slots_per_group;
  Arena arena(slot, slots, lengths, costs);
  SlotNeighbourhood neighbourhood(arena, slot_tokens, group_cost, options);
  LocalSearchOptions search;
  search.max_steps = options.max_steps;
  search.stop_at = options.stop_at;
  search.first_improving = true;
  const RefineStats stats = LocalSearch(neighbourhood, search);
  arena.Export(slot);
  return stats;
}

}  // namespace flopspack::pack
