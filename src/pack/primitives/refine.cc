// The flat neighbourhood of the refinement (refine.h): items in k groups
// under GroupLimits, moves of one item from H to L and 1-1 swaps, the best
// step over all candidate groups.
#include "pack/primitives/refine.h"

#include <algorithm>
#include <vector>

namespace flopspack::pack {
namespace {

// Items by cost ascending, ties by index: the order of every member list.
struct Cheaper {
  absl::Span<const double> costs;
  bool operator()(int32_t x, int32_t y) const {
    return costs[x] != costs[y] ? costs[x] < costs[y] : x < y;
  }
};

class FlatNeighbourhood {
 public:
  struct Step {
    double new_max;
    int32_t light = -1;  // the group L
    int32_t out = -1;    // item leaving H
    int32_t in = -1;     // item leaving L for H (swap), or -1 (move)
    bool IsMove() const { return in < 0; }
  };
  static constexpr int kLevels = 1;

  FlatNeighbourhood(absl::Span<const double> costs, int32_t k, const GroupLimits& limits,
                    absl::Span<int32_t> group)
      : costs_(costs),
        limits_(limits),
        group_(group),
        quota_(costs.size(), static_cast<size_t>(k), limits.equal_count),
        members_(static_cast<size_t>(k)),
        load_(static_cast<size_t>(k), 0.0),
        tokens_(static_cast<size_t>(k), 0) {
    for (size_t i = 0; i < costs.size(); ++i) {
      const int32_t g = group[i];
      members_[g].push_back(static_cast<int32_t>(i));
      load_[g] += costs[i];
      tokens_[g] += limits.item_tokens(i);
    }
    for (std::vector<int32_t>& list : members_) std::sort(list.begin(), list.end(), Cheaper{costs});
  }

  int32_t num_groups() const { return static_cast<int32_t>(load_.size()); }
  double Load(int32_t g) const { return load_[g]; }
  // Fewer candidate groups when groups are large keeps a step near
  // kRefineWork item visits.
  size_t Candidates(int32_t heavy) const {
    return std::clamp<size_t>(kRefineWork / std::max<size_t>(1, members_[heavy].size()), 1,
                              kRefineCandidates);
  }

  bool Search(int32_t heavy, int32_t light, int /*level*/, Step& best) const {
    const double top = load_[heavy];
    const double window = top - load_[light];  // any delta in (0, window) helps
    bool found = false;
    if (quota_.CanMove(members_[heavy].size(), members_[light].size())) {
      for (int32_t a : members_[heavy]) {
        if (costs_[a] >= window) break;  // ascending: the rest are larger
        if (costs_[a] <= 0) continue;
        if (!TokensFit(light, limits_.item_tokens(a))) continue;
        const double m = std::max(top - costs_[a], load_[light] + costs_[a]);
        if (m < best.new_max) {
          best = Step{m, light, a, -1};
          found = true;
        }
      }
    }
    // Swaps: for item a of H the ideal partner costs c_a - window / 2.
    const std::vector<int32_t>& sorted = members_[light];
    for (int32_t a : members_[heavy]) {
      const double want = costs_[a] - window / 2;
      const auto pos = std::lower_bound(sorted.begin(), sorted.end(), want,
                                        [&](int32_t x, double v) { return costs_[x] < v; });
      const ptrdiff_t p = pos - sorted.begin();
      // Nearest partners on each side; a few more in case tokens rule the
      // nearest out.
      for (ptrdiff_t j = std::max<ptrdiff_t>(0, p - 3);
           j < std::min<ptrdiff_t>(static_cast<ptrdiff_t>(sorted.size()), p + 3); ++j) {
        const int32_t b = sorted[j];
        const double delta = costs_[a] - costs_[b];
        if (delta <= 0 || delta >= window) continue;
        const int64_t dt = limits_.item_tokens(a) - limits_.item_tokens(b);
        if (!TokensFit(light, dt) || !TokensFit(heavy, -dt)) continue;
        const double m = std::max(top - delta, load_[light] + delta);
        if (m < best.new_max) {
          best = Step{m, light, a, b};
          found = true;
        }
      }
    }
    return found;
  }

  void Apply(int32_t heavy, const Step& step) {
    Shift(heavy, step.light, step.out);
    if (step.in >= 0) Shift(step.light, heavy, step.in);
  }

 private:
  bool TokensFit(int32_t g, int64_t delta) const {
    return !limits_.has_token_cap() || tokens_[g] + delta <= limits_.max_tokens;
  }

  void Shift(int32_t from, int32_t to, int32_t item) {
    std::vector<int32_t>& source = members_[from];
    source.erase(std::lower_bound(source.begin(), source.end(), item, Cheaper{costs_}));
    std::vector<int32_t>& target = members_[to];
    target.insert(std::upper_bound(target.begin(), target.end(), item, Cheaper{costs_}), item);
    group_[item] = to;
    load_[from] -= costs_[item];
    load_[to] += costs_[item];
    tokens_[from] -= limits_.item_tokens(item);
    tokens_[to] += limits_.item_tokens(item);
  }

  absl::Span<const double> costs_;
  const GroupLimits& limits_;
  absl::Span<int32_t> group_;
  CountQuota quota_;
  std::vector<std::vector<int32_t>> members_;
  std::vector<double> load_;
  std::vector<int64_t> tokens_;
};

}  // namespace

RefineStats Refine(absl::Span<const double> costs, int32_t k, const GroupLimits& limits,
                   absl::Span<int32_t> group, int64_t max_steps) {
  if (k <= 1 || max_steps <= 0) return {};
  FlatNeighbourhood neighbourhood(costs, k, limits, group);
  LocalSearchOptions options;
  options.max_steps = max_steps;
  options.min_gain = 1e-12;
  return LocalSearch(neighbourhood, options);
}

}  // namespace flopspack::pack
