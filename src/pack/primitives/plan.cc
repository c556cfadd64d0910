#include "pack/primitives/plan.h"

#include <algorithm>

#include "util/checked.h"
#include "util/vector_pool.h"

namespace flopspack::pack {

void Plan::AddGroup(absl::Span<const int64_t> items, absl::Span<const int64_t> tokens,
                    int64_t computed_tokens, double cost) {
  items_.insert(items_.end(), items.begin(), items.end());
  tokens_.insert(tokens_.end(), tokens.begin(), tokens.end());
  offsets_.push_back(static_cast<int64_t>(items_.size()));
  computed_tokens_.push_back(computed_tokens);
  costs_.push_back(cost);
}

void Plan::SetGroups(std::vector<int64_t> offsets, std::vector<int64_t> items,
                     std::vector<int64_t> tokens, std::vector<int64_t> computed_tokens,
                     std::vector<double> costs) {
  SetUnpaddedGroups(std::move(offsets), std::move(items), std::move(tokens), std::move(costs));
  computed_tokens_ = std::move(computed_tokens);
}

void Plan::SetUnpaddedGroups(std::vector<int64_t> offsets, std::vector<int64_t> items,
                             std::vector<int64_t> tokens, std::vector<double> costs) {
  offsets_ = std::move(offsets);
  items_ = std::move(items);
  tokens_ = std::move(tokens);
  computed_tokens_.clear();
  costs_ = std::move(costs);
}

void Plan::GiveStorage(util::VectorPool& pool) {
  for (std::vector<int64_t>* v : {&offsets_, &items_, &tokens_, &piece_offsets_, &computed_tokens_,
                                  &ranks_, &slots_, &deferred_, &dropped_}) {
    pool.Give(*v);
  }
  pool.Give(costs_);
}

void Plan::SetSlots(std::vector<int64_t> ranks, std::vector<int64_t> slots) {
  ranks_ = std::move(ranks);
  slots_ = std::move(slots);
  slots_per_rank_ = 0;
}

void Plan::SetSlotGrid(int64_t slots_per_rank) {
  ranks_.clear();
  slots_.clear();
  slots_per_rank_ = slots_per_rank;
}

void Plan::SetPieceOffsets(std::vector<int64_t> piece_offsets) {
  piece_offsets_ = std::move(piece_offsets);
  whole_items_ = false;
}

void Plan::SetWholeItemOffsets() {
  int64_t largest = 0;
  for (size_t g = 0; g + 1 < offsets_.size(); ++g) {
    largest = std::max(largest, offsets_[g + 1] - offsets_[g]);
  }
  piece_offsets_ = util::PooledVector<int64_t>(static_cast<size_t>(largest), 0);
  whole_items_ = true;
}

void Plan::FillPieceOffsets() {
  if (has_piece_offsets()) return;
  const size_t n = items_.size();
  piece_offsets_ = util::PooledVector<int64_t>(n, 0);
  if (n < 2) return;
  const auto [lo, hi] = std::minmax_element(items_.begin(), items_.end());
  // Item ids are input indices or push ids, never negative; the range is
  // taken in unsigned arithmetic so that no id pair can overflow it.
  const uint64_t range = static_cast<uint64_t>(*hi) - static_cast<uint64_t>(*lo);
  if (range < 4 * static_cast<uint64_t>(n) + 1024) {
    // Dense ids (the usual case): a running offset per item, in plan order.
    std::vector<int64_t> next = util::PooledVector<int64_t>(static_cast<size_t>(range) + 1, 0);
    util::GiveBackOnExit give_back(next);
    for (size_t k = 0; k < n; ++k) {
      int64_t& at =
          next[static_cast<size_t>(static_cast<uint64_t>(items_[k]) - static_cast<uint64_t>(*lo))];
      piece_offsets_[k] = at;
      at += tokens_[k];
    }
    return;
  }
  // Sparse ids: a stable sort of the entries by item keeps plan order
  // within an item.
  std::vector<size_t> order(n);
  for (size_t k = 0; k < n; ++k) order[k] = k;
  std::stable_sort(order.begin(), order.end(),
                   [this](size_t a, size_t b) { return items_[a] < items_[b]; });
  int64_t running = 0;
  for (size_t j = 0; j < n; ++j) {
    const size_t k = order[j];
    if (j > 0 && items_[order[j - 1]] != items_[k]) running = 0;
    piece_offsets_[k] = running;
    running += tokens_[k];
  }
}

void Plan::Reserve(size_t groups, size_t entries) {
  offsets_.reserve(groups + 1);
  computed_tokens_.reserve(groups);
  costs_.reserve(groups);
  items_.reserve(entries);
  tokens_.reserve(entries);
}

absl::Status CheckGroupCostSum(const Plan& plan, absl::string_view what) {
  return util::CheckedCostSum(what, plan.group_costs()).status();
}

namespace {

// mean / largest of `count` values that sum to `total` (1 for none, or none
// positive): BalanceEfficiency's arithmetic, for callers that sum as they go.
double EfficiencyOf(double total, size_t count, double largest) {
  if (count == 0 || largest <= 0) return 1.0;
  return total / static_cast<double>(count) / largest;
}

}  // namespace

double BalanceEfficiency(absl::Span<const double> values) {
  double total = 0, largest = 0;
  for (double v : values) {
    total += v;
    largest = std::max(largest, v);
  }
  return EfficiencyOf(total, values.size(), largest);
}

void ComputeGroupMetrics(Plan& plan, uint64_t num_items, double largest_item_cost,
                         int64_t capacity) {
  PlanMetrics& m = plan.metrics();
  const size_t groups = plan.group_count();
  m.num_groups = groups;
  m.num_items = num_items;
  m.capacity = capacity;
  m.real_tokens = 0;
  m.computed_tokens = 0;
  m.total_cost = 0;
  m.max_group_cost = 0;
  m.min_group_cost = 0;
  for (size_t g = 0; g < groups; ++g) {
    const double cost = plan.group_cost(g);
    m.total_cost += cost;
    m.max_group_cost = g == 0 ? cost : std::max(m.max_group_cost, cost);
    m.min_group_cost = g == 0 ? cost : std::min(m.min_group_cost, cost);
    const int64_t real = plan.group_real_tokens(g);
    m.real_tokens += real;
    m.computed_tokens += plan.has_computed_tokens() ? plan.group_computed_tokens(g) : real;
  }
  m.mean_group_cost = groups ? m.total_cost / static_cast<double>(groups) : 0;
  m.balance_efficiency = BalanceEfficiency(plan.group_costs());
  m.lower_bound = std::max(m.mean_group_cost, largest_item_cost);
  m.gap_to_lower_bound = m.lower_bound > 0 ? m.max_group_cost / m.lower_bound - 1 : 0;
  m.fill = capacity > 0 && groups > 0
               ? static_cast<double>(m.real_tokens) /
                     (static_cast<double>(groups) * static_cast<double>(capacity))
               : 0;
  m.padding_efficiency = m.computed_tokens > 0 ? static_cast<double>(m.real_tokens) /
                                                     static_cast<double>(m.computed_tokens)
                                               : 1.0;
}

namespace {

// ComputeRankMetrics on a full slot grid (every (rank, slot) one group,
// rank-major): the same sums in the same order (a rank's cost summed over
// its slots in slot order from 0, the total and each slot's over ranks in
// rank order, BalanceEfficiency's arithmetic), so the same bits, without
// the rank- and slot-sized arrays.
void ComputeGridRankMetrics(Plan& plan, double largest_item_cost) {
  PlanMetrics& m = plan.metrics();
  const size_t slots = static_cast<size_t>(plan.slots_per_rank());
  const size_t ranks = plan.group_count() / slots;
  const absl::Span<const double> cost = plan.group_costs();
  double total = 0;
  m.max_rank_cost = 0;
  for (size_t r = 0; r < ranks; ++r) {
    double rank_cost = 0.0;
    for (size_t s = 0; s < slots; ++s) rank_cost += cost[r * slots + s];
    total += rank_cost;
    m.max_rank_cost = std::max(m.max_rank_cost, rank_cost);
  }
  m.mean_rank_cost = ranks ? total / static_cast<double>(ranks) : 0;
  m.rank_balance_efficiency = EfficiencyOf(total, ranks, m.max_rank_cost);
  m.rank_lower_bound = std::max(m.mean_rank_cost, largest_item_cost);
  m.rank_gap_to_lower_bound = m.rank_lower_bound > 0 ? m.max_rank_cost / m.rank_lower_bound - 1 : 0;
  m.worst_slot_balance = 1.0;
  for (size_t s = 0; s < slots; ++s) {
    double slot_total = 0, largest = 0;
    for (size_t r = 0; r < ranks; ++r) {
      slot_total += cost[r * slots + s];
      largest = std::max(largest, cost[r * slots + s]);
    }
    m.worst_slot_balance = std::min(m.worst_slot_balance, EfficiencyOf(slot_total, ranks, largest));
  }
}

}  // namespace

void ComputeRankMetrics(Plan& plan, uint64_t num_ranks, uint64_t slots_per_rank,
                        double largest_item_cost) {
  PlanMetrics& m = plan.metrics();
  m.num_ranks = num_ranks;
  m.microbatches_per_rank = slots_per_rank;
  if (plan.has_slot_grid() && static_cast<uint64_t>(plan.slots_per_rank()) == slots_per_rank &&
      plan.group_count() == num_ranks * slots_per_rank) {
    ComputeGridRankMetrics(plan, largest_item_cost);
    return;
  }
  std::vector<double> rank_cost(num_ranks, 0.0);
  std::vector<std::vector<double>> slot_cost(slots_per_rank, std::vector<double>(num_ranks, 0.0));
  for (size_t g = 0; g < plan.group_count(); ++g) {
    const int64_t r = plan.group_rank(g);
    const int64_t s = plan.group_slot(g);
    rank_cost[r] += plan.group_cost(g);
    if (static_cast<uint64_t>(s) < slots_per_rank) slot_cost[s][r] += plan.group_cost(g);
  }
  double total = 0;
  m.max_rank_cost = 0;
  for (double c : rank_cost) {
    total += c;
    m.max_rank_cost = std::max(m.max_rank_cost, c);
  }
  m.mean_rank_cost = num_ranks ? total / static_cast<double>(num_ranks) : 0;
  m.rank_balance_efficiency = BalanceEfficiency(rank_cost);
  m.rank_lower_bound = std::max(m.mean_rank_cost, largest_item_cost);
  m.rank_gap_to_lower_bound = m.rank_lower_bound > 0 ? m.max_rank_cost / m.rank_lower_bound - 1 : 0;
  m.worst_slot_balance = 1.0;
  for (const std::vector<double>& costs : slot_cost) {
    m.worst_slot_balance = std::min(m.worst_slot_balance, BalanceEfficiency(costs));
  }
}

}  // namespace flopspack::pack
