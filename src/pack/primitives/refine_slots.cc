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
// pair swaps (m items per slot, pairs only in slots of up to kMaxPairItems);
// O(n) once to link each slot's items, plus a copy of the items of each
// group the search looks at (Arena).
#include <algorithm>
#include <cstring>
#include <vector>

#include "pack/primitives/refine.h"
#include "util/large_buffer.h"
#include "util/scratch_arena.h"
#include "util/vector_pool.h"

namespace flopspack::pack {
namespace {

struct Entry {
  int64_t length;
  double cost;
  int32_t item;
};

// Entries are stored as three 64-bit words (so the array is a plain
// std::vector<uint64_t> a vector pool can keep between calls).
constexpr size_t kWords = 3;
inline Entry Decode(const uint64_t* w) {
  Entry e;
  std::memcpy(&e.length, w, sizeof e.length);
  std::memcpy(&e.cost, w + 1, sizeof e.cost);
  e.item = static_cast<int32_t>(w[2]);
  return e;
}
inline void Encode(const Entry& e, uint64_t* w) {
  std::memcpy(w, &e.length, sizeof e.length);
  std::memcpy(w + 1, &e.cost, sizeof e.cost);
  w[2] = static_cast<uint32_t>(e.item);
}

// A slot's items.
struct Slice {
  const uint64_t* words;
  size_t count;
  size_t size() const { return count; }
  Entry operator[](size_t i) const { return Decode(words + kWords * i); }
};

// The slots' contents as slices of one flat array, so the search reads a
// group's items from contiguous memory. A group's slices are filled the
// first time the search looks at it (Touch): a step touches a handful of
// groups, and copying all n items up front was half of the refinement's
// time on 1.6M items (and tens of MB of fresh pages on every call). Until
// then a slot's items are a linked list in item order (head_/next_, built
// in one backward pass), so a slice holds its items in item order exactly
// as an eager copy would. A slice that outgrows its capacity moves to the
// end of the array with double the room.
class Arena {
 public:
  // slot[k] = slot of item k (or -1). The per-slot and per-item tables are
  // carved from `scratch` (raw pointers: the search indexes them without
  // absl::Span's hardened bounds checks).
  Arena(absl::Span<const int32_t> slot, size_t slots, int32_t slots_per_group,
        absl::Span<const int64_t> lengths, absl::Span<const double> costs,
        util::ScratchArena& scratch)
      : lengths_(lengths),
        costs_(costs),
        m_(slots_per_group),
        slots_(slots),
        head_(scratch.Array<int32_t>(slots, -1).data()),
        next_(scratch.Array<int32_t>(slot.size()).data()),
        begin_(scratch.Array<uint64_t>(slots, kNotFilled).data()),
        size_(scratch.Array<int32_t>(slots, 0).data()),
        capacity_(scratch.Array<int32_t>(slots, 0).data()) {
    size_t placed = 0;
    for (size_t k = slot.size(); k-- > 0;) {
      const int32_t w = slot[k];
      if (w < 0) continue;
      next_[k] = head_[w];
      head_[w] = static_cast<int32_t>(k);
      ++placed;
    }
    // Room for every slice to be filled, move and double (Add) without
    // reallocating: address space only, pages are touched as slices fill
    // (a step touches about a third of it, so a new arena's pages are not
    // faulted in up front: util::PooledRoom).
    const size_t total = placed + 4 * slots;
    const size_t room = total + total / 2 + 64;
    words_ = util::PooledRoom<uint64_t>(kWords * room);
    util::AdviseHugePages(words_.data(), kWords * room * sizeof(uint64_t));
  }
  ~Arena() { util::Recycle(words_); }
  Arena(const Arena&) = delete;
  Arena& operator=(const Arena&) = delete;

  // Fills group g's slices if they are not yet. Invalidates earlier items()
  // spans (the array may grow).
  void Touch(int32_t g) {
    const size_t first = static_cast<size_t>(g) * m_;
    if (begin_[first] != kNotFilled) return;
    for (size_t s = first; s < first + m_; ++s) {
      int32_t count = 0;
      for (int32_t k = head_[s]; k >= 0; k = next_[k]) ++count;
      const size_t at = size();
      begin_[s] = at;
      capacity_[s] = count + 4;
      Grow(at + capacity_[s]);
      size_t out = at;
      for (int32_t k = head_[s]; k >= 0; k = next_[k], ++out) {
        Put(out, Entry{lengths_[k], costs_[k], k});
      }
      size_[s] = count;
    }
  }
  // Slot s's items; its group must have been touched.
  Slice items(int32_t s) const {
    return Slice{words_.data() + kWords * begin_[s], static_cast<size_t>(size_[s])};
  }
  Entry Remove(int32_t s, int32_t pos) {
    const size_t at = begin_[s] + pos, last = begin_[s] + --size_[s];
    const Entry e = Get(at);
    Put(at, Get(last));
    return e;
  }
  void Add(int32_t s, const Entry& e) {
    if (size_[s] == capacity_[s]) {
      const size_t moved = size(), from = begin_[s];
      Grow(moved + 2 * capacity_[s]);
      for (int32_t i = 0; i < size_[s]; ++i) {
        Put(moved + i, Get(from + i));
      }
      begin_[s] = moved;
      capacity_[s] *= 2;
    }
    Put(begin_[s] + size_[s]++, e);
  }
  // Writes the slot of each item of the touched groups into slot (the
  // others' items did not move).
  void Export(absl::Span<int32_t> slot) const {
    for (size_t s = 0; s < slots_; ++s) {
      if (begin_[s] == kNotFilled) continue;
      const Slice slice = items(static_cast<int32_t>(s));
      for (size_t i = 0; i < slice.size(); ++i) slot[slice[i].item] = static_cast<int32_t>(s);
    }
  }

 private:
  static constexpr uint64_t kNotFilled = ~uint64_t{0};
  // Within the reserved room, so spans into the arrays stay valid until
  // the next Touch or Add.
  size_t size() const { return words_.size() / kWords; }
  void Grow(size_t entries) { words_.resize(kWords * entries); }
  Entry Get(size_t at) const { return Decode(words_.data() + kWords * at); }
  void Put(size_t at, const Entry& e) { Encode(e, words_.data() + kWords * at); }
  absl::Span<const int64_t> lengths_;
  absl::Span<const double> costs_;
  const int32_t m_;
  const size_t slots_;
  int32_t* const head_;
  int32_t* const next_;
  std::vector<uint64_t> words_;
  uint64_t* const begin_;
  int32_t* const size_;
  int32_t* const capacity_;
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
    arena_.Touch(h);
    arena_.Touch(l);
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
      const Slice a = arena_.items(slot_h);
      for (int32_t jl = 0; jl < m_; ++jl) {
        const int32_t slot_l = l * m_ + jl;
        const int64_t free_l = cap_ - tokens_[slot_l];
        if (!pairs && monotone_ && free_l == 0) continue;
        const Slice b = arena_.items(slot_l);
        // tokens_moved = tokens leaving H for L; needs -free_h <= it <= free_l.
        auto fits = [&](int64_t moved) { return moved <= free_l && -moved <= free_h; };
        const int32_t na = static_cast<int32_t>(a.size()), nb = static_cast<int32_t>(b.size());
        for (int32_t x = 0; x < na; ++x) {
          const Entry ea = a[x];
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
            const Entry ea2 = a[x2];
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
      const Slice slice = arena_.items(g * m_ + j);
      for (size_t i = 0; i < slice.size(); ++i) total += slice[i].cost;
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
  util::ScratchArena scratch;
  Arena arena(slot, slots, options.slots_per_group, lengths, costs, scratch);
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
