#include "pack/binpack/packer.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "absl/strings/str_format.h"
#include "pack/primitives/bin_packing.h"
#include "pack/primitives/extra_costs.h"
#include "util/checked.h"
#include "util/large_buffer.h"
#include "util/validate.h"

namespace flopspack::pack {
namespace {

// The items the bin packer sees: one per document, or several for a split
// document (item[p] is the document of piece p).
struct Pieces {
  std::vector<int64_t> size;
  std::vector<int64_t> item;
};

absl::Status CheckOptions(const PackOptions& options) {
  if (options.capacity <= 0) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "capacity = %d: the sequence capacity in tokens must be positive", options.capacity));
  }
  // Enum values are the C layer's to check (src/capi); what is left is
  // the policy sequence packing does not offer.
  if (options.overflow == Overflow::kDefer) {
    return absl::InvalidArgumentError(
        "overflow = defer: sequence packing takes error, truncate or split");
  }
  return absl::OkStatus();
}

// Applies the overflow policy. Returns false in *needed when every document
// fits, in which case the lengths themselves are the pieces.
absl::Status MakePieces(absl::Span<const int64_t> lengths, const PackOptions& options,
                        PlanMetrics& metrics, Pieces& pieces, bool& needed) {
  const int64_t capacity = options.capacity;
  size_t first_long = lengths.size();
  for (size_t i = 0; i < lengths.size(); ++i) {
    if (lengths[i] > capacity) {
      first_long = i;
      break;
    }
  }
  needed = first_long < lengths.size();
  if (!needed) return absl::OkStatus();
  if (options.overflow == Overflow::kError) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "lengths[%u] = %d exceeds capacity = %d: choose the truncate or split overflow policy "
        "to pack documents longer than a sequence",
        first_long, lengths[first_long], capacity));
  }
  // Count the pieces before making any: one document of 2^40 tokens split
  // at capacity 1 must fail here, not after allocating 2^31 pieces.
  if (options.overflow == Overflow::kSplit) {
    uint64_t count = 0;
    for (int64_t length : lengths) {
      count += static_cast<uint64_t>(length / capacity + (length % capacity != 0 ? 1 : 0));
      if (count > static_cast<uint64_t>(std::numeric_limits<int32_t>::max())) {
        return absl::OutOfRangeError(absl::StrFormat(
            "lengths: splitting into pieces of capacity = %d makes more than 2^31 - 1 pieces",
            capacity));
      }
    }
  }
  pieces.size.reserve(lengths.size());
  pieces.item.reserve(lengths.size());
  for (size_t i = 0; i < lengths.size(); ++i) {
    const int64_t length = lengths[i];
    const int64_t item = static_cast<int64_t>(i);
    if (length <= capacity) {
      pieces.size.push_back(length);
      pieces.item.push_back(item);
    } else if (options.overflow == Overflow::kTruncate) {
      pieces.size.push_back(capacity);
      pieces.item.push_back(item);
      ++metrics.truncated_items;
      metrics.truncated_tokens += length - capacity;
    } else {
      ++metrics.split_items;
      for (int64_t left = length; left > 0; left -= capacity) {
        pieces.size.push_back(std::min(left, capacity));
        pieces.item.push_back(item);
      }
    }
    if (pieces.size.size() > static_cast<size_t>(std::numeric_limits<int32_t>::max())) {
      return absl::OutOfRangeError(absl::StrFormat(
          "lengths: splitting into pieces of capacity = %d makes more than 2^31 - 1 pieces",
          capacity));
    }
  }
  return absl::OkStatus();
}

// Placements only (no per-item bins): the plan is built from them in order.
BinAssignment Assign(absl::Span<const int64_t> sizes, const PackOptions& options) {
  switch (options.algorithm) {
    case PackAlgorithm::kNextFit:
      return NextFit(sizes, options.capacity, /*item_bins=*/false);
    case PackAlgorithm::kFirstFitDecreasing:
      return FirstFitDecreasing(sizes, options.capacity, /*item_bins=*/false);
    case PackAlgorithm::kShuffledFirstFit:
      return ShuffledFirstFit(sizes, options.capacity, options.seed, /*item_bins=*/false);
    case PackAlgorithm::kBestFitDecreasing:
      break;
  }
  return BestFitDecreasing(sizes, options.capacity, /*item_bins=*/false);
}

}  // namespace

absl::StatusOr<Plan> Pack(absl::Span<const int64_t> lengths, const PackOptions& options) {
  return PackWithExtraCosts(lengths, {}, options);
}

absl::StatusOr<Plan> PackWithExtraCosts(absl::Span<const int64_t> lengths,
                                        absl::Span<const double> extra_costs,
                                        const PackOptions& options) {
  if (absl::Status s = CheckOptions(options); !s.ok()) return s;
  if (absl::StatusOr<int64_t> total = util::CheckLengths("lengths", lengths); !total.ok()) {
    return total.status();
  }
  if (absl::Status s = CheckExtraCosts(extra_costs, lengths.size()); !s.ok()) return s;
  const ExtraCosts extra_cost{extra_costs, lengths};
  if (lengths.size() > static_cast<size_t>(std::numeric_limits<int32_t>::max())) {
    return absl::OutOfRangeError(
        absl::StrFormat("n = %u documents: at most 2^31 - 1 are supported", lengths.size()));
  }
  PlanMetrics extra;
  Pieces pieces;
  bool has_pieces = false;
  if (absl::Status s = MakePieces(lengths, options, extra, pieces, has_pieces); !s.ok()) return s;
  const absl::Span<const int64_t> sizes = has_pieces ? absl::MakeConstSpan(pieces.size) : lengths;
  BinAssignment assignment = Assign(sizes, options);
  // Its placements come from the caller's vector pool, if any: back to it.
  util::GiveBackOnExit give_back_assignment(assignment.order, assignment.placed_bin);
  // Each sequence computes `capacity` tokens; their total must fit int64
  // (three documents of INT64_MAX / 3 at a capacity just below twice that
  // make three sequences of ~2/3 INT64_MAX).
  if (int64_t computed = 0; !util::MulInt64(assignment.num_bins, options.capacity, &computed)) {
    return absl::OutOfRangeError(absl::StrFormat(
        "capacity = %d: %d sequences of it compute more than int64 tokens (the computed_tokens "
        "metric); use a smaller capacity",
        options.capacity, assignment.num_bins));
  }

  // Group the pieces by bin, keeping placement order inside each bin: the
  // placements are read in order (no per-item lookups), one scatter.
  const size_t placed = assignment.order.size();
  // The plan's arrays and the scratch come from the caller's vector pool,
  // if any (util/vector_pool.h), and the scratch goes back to it.
  std::vector<int64_t> start =
      util::PooledVector<int64_t>(static_cast<size_t>(assignment.num_bins) + 1, 0);
  for (int32_t bin : assignment.placed_bin) ++start[static_cast<size_t>(bin) + 1];
  for (size_t b = 1; b < start.size(); ++b) start[b] += start[b - 1];
  std::vector<int64_t> items = util::LargeVector<int64_t>(placed);
  std::vector<int64_t> tokens = util::LargeVector<int64_t>(placed);
  int64_t longest = 0;
  {
    std::vector<int64_t> cursor = util::PooledReserved<int64_t>(start.size() - 1);
    cursor.assign(start.begin(), start.end() - 1);
    util::GiveBackOnExit give_back_cursor(cursor);
    for (size_t k = 0; k < placed; ++k) {
      const int32_t piece = assignment.order[k];
      const int64_t size = sizes[piece];
      const int64_t at = cursor[assignment.placed_bin[k]]++;
      items[at] = has_pieces ? pieces.item[piece] : piece;
      tokens[at] = size;
      longest = std::max(longest, size);
    }
  }
  std::vector<double> costs = util::PooledVector<double>(static_cast<size_t>(assignment.num_bins));
  // On a way out before the plan takes them (an error), back to the pool.
  util::GiveBackOnExit give_back(start, items, tokens, costs);
  for (int32_t b = 0; b < assignment.num_bins; ++b) {
    const auto group_tokens =
        absl::MakeConstSpan(tokens).subspan(start[b], start[b + 1] - start[b]);
    double cost = 0;
    if (options.cost_model != nullptr) {
      absl::StatusOr<double> c = options.cost_model->SequenceCost(group_tokens);
      if (!c.ok()) return c.status();
      cost = *c;
    } else {
      for (int64_t t : group_tokens) cost += static_cast<double>(t);
    }
    if (!extra_cost.empty()) {
      for (int64_t k = start[b]; k < start[b + 1]; ++k) cost += extra_cost.Of(items[k], tokens[k]);
      if (!std::isfinite(cost)) {
        return absl::OutOfRangeError(absl::StrFormat(
            "sequence %d: its cost plus its documents' extra costs overflows a double; rescale "
            "the costs",
            b));
      }
    }
    costs[b] = cost;
  }
  // With extra costs the costliest piece need not be the longest: take the
  // costliest piece, model cost plus its share (computed before the plan
  // takes the arrays).
  double costliest_piece = 0;
  if (!extra_cost.empty()) {
    for (size_t k = 0; k < placed; ++k) {
      double c = static_cast<double>(tokens[k]);
      if (options.cost_model != nullptr) {
        absl::StatusOr<double> mc = options.cost_model->SequenceCost({&tokens[k], 1});
        if (!mc.ok()) return mc.status();
        c = *mc;
      }
      costliest_piece = std::max(costliest_piece, c + extra_cost.Of(items[k], tokens[k]));
    }
  }
  Plan plan;
  plan.SetGroups(
      std::move(start), std::move(items), std::move(tokens),
      util::PooledVector<int64_t>(static_cast<size_t>(assignment.num_bins), options.capacity),
      std::move(costs));
  // The costliest single piece bounds the costliest sequence from below (for
  // cost models that grow with length, as all built-in ones do).
  double largest = static_cast<double>(longest);
  if (options.cost_model != nullptr && longest > 0) {
    absl::StatusOr<double> c = options.cost_model->SequenceCost({&longest, 1});
    if (!c.ok()) return c.status();
    largest = *c;
  }
  if (!extra_cost.empty()) largest = std::max(largest, costliest_piece);
  if (!has_pieces) plan.SetWholeItemOffsets();
  if (absl::Status s = CheckGroupCostSum(plan, "sequence cost"); !s.ok()) return s;
  ComputeGroupMetrics(plan, lengths.size(), largest, options.capacity);
  PlanMetrics& m = plan.metrics();
  m.split_items = extra.split_items;
  m.truncated_items = extra.truncated_items;
  m.truncated_tokens = extra.truncated_tokens;
  return plan;
}

}  // namespace flopspack::pack
