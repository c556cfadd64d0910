#include "pack/buckets/bucket_sampler.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <utility>

#include "absl/strings/str_format.h"
#include "pack/buckets/buckets.h"
#include "pack/primitives/group_limits.h"
#include "pack/primitives/lpt.h"
#include "pack/primitives/refine.h"
#include "util/checked.h"
#include "util/random.h"
#include "util/validate.h"

namespace flopspack::pack {
namespace {

// Sub-seed streams of an epoch: buckets use their index, the step order this.
constexpr uint64_t kStepOrderStream = std::numeric_limits<uint64_t>::max();
// Local-search steps per optimizer step after LPT (accumulation > 1).
constexpr int64_t kStepRefineSteps = 64;

// The most samples whose longest is `longest` a batch may hold: k with
// k * longest <= budget (tokens) or k * SequenceCost({longest}) <= budget
// (cost). 0 when one sample alone breaks the budget.
absl::StatusOr<int64_t> BatchCap(const BucketSamplerOptions& options, const cost::CostModel* model,
                                 int64_t longest) {
  if (options.budget == BucketBudget::kPaddedTokens) return options.max_padded_tokens / longest;
  absl::StatusOr<double> one = model->SequenceCost({&longest, 1});
  if (!one.ok()) return one.status();
  if (!std::isfinite(*one) || *one < 0) {
    return absl::InvalidArgumentError(
        absl::StrFormat("the cost model gave %g for a sequence of length %d: costs must be finite "
                        "and non-negative",
                        *one, longest));
  }
  if (*one > options.max_batch_cost) return int64_t{0};
  if (*one == 0) return std::numeric_limits<int64_t>::max();
  const double ratio = std::floor(options.max_batch_cost / *one);
  int64_t cap = ratio >= 0x1p62 ? (int64_t{1} << 62) : static_cast<int64_t>(ratio);
  // Division rounding must never let cap x cost exceed the budget.
  while (cap > 1 && static_cast<double>(cap) * *one > options.max_batch_cost) --cap;
  return std::max<int64_t>(cap, 1);
}

absl::Status BudgetError(const BucketSamplerOptions& options, const cost::CostModel* model,
                         size_t index, int64_t length) {
  if (options.budget == BucketBudget::kPaddedTokens) {
    return absl::FailedPreconditionError(absl::StrFormat(
        "lengths[%u] = %d exceeds max_padded_tokens = %d: even a batch of that one sample would "
        "break the budget",
        index, length, options.max_padded_tokens));
  }
  // The model is asked again for the message: a callback may fail this time
  // (it is user code), and its failure is then what the caller gets.
  const absl::StatusOr<double> one = model->SequenceCost({&length, 1});
  if (!one.ok()) return one.status();
  return absl::FailedPreconditionError(absl::StrFormat(
      "lengths[%u] = %d costs %g, more than max_batch_cost = %g: even a batch of that one sample "
      "would break the budget",
      index, length, *one, options.max_batch_cost));
}

// Budget-aware bucket prices for OptimalUpperBoundsForPrice: a sample in a
// bucket whose longest is v occupies 1 / cap(v) of a batch, so the total
// price is the (fractional) number of batches: padding and the budget a
// bucket's batches leave unused both raise it. Scaled by 2^P to integers
// (n * 2^P < 2^63); cap is made non-increasing so the price is monotone.
absl::StatusOr<std::vector<int64_t>> BudgetAwareBounds(const BucketSamplerOptions& options,
                                                       const cost::CostModel* model,
                                                       absl::Span<const int64_t> lengths) {
  absl::StatusOr<LengthHistogram> h = BuildLengthHistogram(lengths);
  if (!h.ok()) return h.status();
  int shift = 62;
  for (uint64_t n = lengths.size(); n > 0; n >>= 1) --shift;
  const int64_t scale = int64_t{1} << std::max(shift, 0);
  std::vector<int64_t> price(h->values.size());
  int64_t previous_cap = std::numeric_limits<int64_t>::max();
  for (size_t d = 0; d < h->values.size(); ++d) {
    absl::StatusOr<int64_t> cap = BatchCap(options, model, h->values[d]);
    if (!cap.ok()) return cap.status();
    if (*cap == 0) {
      const size_t index =
          std::find(lengths.begin(), lengths.end(), h->values[d]) - lengths.begin();
      return BudgetError(options, model, index, h->values[d]);
    }
    previous_cap = std::min(previous_cap, *cap);
    price[d] = std::max<int64_t>(1, scale / previous_cap);
  }
  return OptimalUpperBoundsForPrice(*h, options.num_buckets, price);
}

}  // namespace

struct BucketSampler::Layout {
  std::vector<int64_t> offsets{0};  // per group in plan order, into members
  std::vector<int64_t> members;     // sample indices
  std::vector<int64_t> longest;     // per group
  std::vector<double> costs;        // per group
  std::vector<int64_t> dropped;     // ascending sample indices
  int64_t dropped_tokens = 0;
};

BucketSampler::BucketSampler(const BucketSamplerOptions& options, LengthReference reference)
    : reference_(std::move(reference)),
      num_ranks_(options.num_ranks),
      accumulation_(options.accumulation_steps),
      seed_(options.seed) {}

absl::StatusOr<std::unique_ptr<BucketSampler>> BucketSampler::Create(
    const BucketSamplerOptions& options, std::shared_ptr<const cost::CostModel> model,
    absl::Span<const int64_t> lengths) {
  // Options first: they are cheaper to check than the data.
  if (options.num_ranks < 1) {
    return absl::InvalidArgumentError(
        absl::StrFormat("num_ranks = %d: need at least one rank", options.num_ranks));
  }
  if (options.accumulation_steps < 1) {
    return absl::InvalidArgumentError(
        absl::StrFormat("accumulation_steps = %d: need at least one batch per rank and step",
                        options.accumulation_steps));
  }
  if (options.num_ranks > std::numeric_limits<int32_t>::max() / options.accumulation_steps) {
    return absl::OutOfRangeError(
        absl::StrFormat("num_ranks x accumulation_steps = %d x %d: too many batches per step",
                        options.num_ranks, options.accumulation_steps));
  }
  if (options.upper_bounds.empty() && options.num_buckets < 1) {
    return absl::InvalidArgumentError(
        absl::StrFormat("num_buckets = %d: need at least one bucket (or explicit upper_bounds)",
                        options.num_buckets));
  }
  if (!options.upper_bounds.empty()) {
    if (absl::Status s = CheckUpperBounds(options.upper_bounds); !s.ok()) return s;
  }
  if (options.budget == BucketBudget::kPaddedTokens) {
    if (options.max_padded_tokens <= 0) {
      return absl::InvalidArgumentError(
          absl::StrFormat("max_padded_tokens = %d: the padded-token budget per batch must be "
                          "positive",
                          options.max_padded_tokens));
    }
  } else {
    if (model == nullptr) {
      return absl::InvalidArgumentError("budget kind COST needs a cost model: model is NULL");
    }
    if (!std::isfinite(options.max_batch_cost) || options.max_batch_cost <= 0) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "max_batch_cost = %g: the cost budget per batch must be finite and positive",
          options.max_batch_cost));
    }
  }
  if (options.overflow != Overflow::kError && options.overflow != Overflow::kTruncate &&
      options.overflow != Overflow::kDefer) {
    return absl::InvalidArgumentError(
        absl::StrFormat("overflow = %s: the bucket sampler takes error, truncate or defer (drop)",
                        OverflowName(options.overflow)));
  }
  if (lengths.empty()) {
    return absl::InvalidArgumentError("lengths is empty: a sampler needs at least one sample");
  }
  if (absl::StatusOr<int64_t> total = util::CheckLengths("lengths", lengths); !total.ok()) {
    return total.status();
  }
  const cost::CostModel* model_ptr = model.get();

  // Over-budget samples: the longest length a batch of one may hold.
  std::vector<int64_t> effective(lengths.begin(), lengths.end());
  std::vector<char> keep(lengths.size(), 1);
  std::vector<int64_t> deferred;
  int64_t deferred_tokens = 0, truncated_tokens = 0;
  uint64_t truncated_items = 0;
  {
    // Cost budget: memo of the verdict per distinct over-long length.
    int64_t fits_below = 0;  // every length <= this fits (cost budget)
    for (size_t i = 0; i < lengths.size(); ++i) {
      const int64_t length = lengths[i];
      int64_t limit = length;  // the longest prefix of the sample that fits
      if (options.budget == BucketBudget::kPaddedTokens) {
        limit = std::min(length, options.max_padded_tokens);
      } else if (length > fits_below) {
        absl::StatusOr<int64_t> cap = BatchCap(options, model_ptr, length);
        if (!cap.ok()) return cap.status();
        if (*cap >= 1) {
          fits_below = std::max(fits_below, length);
        } else if (options.overflow == Overflow::kTruncate) {
          // Bisection for the longest fitting length (costs grow with length).
          int64_t lo = 0, hi = length;  // lo fits (or is 0), hi does not
          while (hi - lo > 1) {
            const int64_t mid = lo + (hi - lo) / 2;
            absl::StatusOr<int64_t> c = BatchCap(options, model_ptr, mid);
            if (!c.ok()) return c.status();
            (*c >= 1 ? lo : hi) = mid;
          }
          if (lo == 0) {
            return absl::FailedPreconditionError(absl::StrFormat(
                "overflow = truncate: lengths[%u] = %d cannot be truncated to fit max_batch_cost "
                "= %g: even one token costs more",
                i, length, options.max_batch_cost));
          }
          limit = lo;
        } else {
          limit = 0;
        }
      }
      if (limit == length) continue;
      if (options.overflow == Overflow::kError) {
        return BudgetError(options, model_ptr, i, length);
      }
      if (options.overflow == Overflow::kTruncate) {
        effective[i] = limit;
        ++truncated_items;
        truncated_tokens += length - limit;
      } else {
        keep[i] = 0;
        deferred.push_back(static_cast<int64_t>(i));
        deferred_tokens += length;
        // The reference (step KS) is over all indices: a deferred sample
        // counts at the budget's length there, never at an arbitrary one.
        if (options.budget == BucketBudget::kPaddedTokens) effective[i] = limit;
      }
    }
  }
  if (deferred.size() == lengths.size()) {
    return absl::FailedPreconditionError(absl::StrFormat(
        "overflow = defer: all %u samples break the budget, so every sample would be left out",
        lengths.size()));
  }
  std::vector<int64_t> kept_lengths;
  kept_lengths.reserve(lengths.size() - deferred.size());
  for (size_t i = 0; i < lengths.size(); ++i) {
    if (keep[i]) kept_lengths.push_back(effective[i]);
  }
  if (options.budget == BucketBudget::kCost) {
    // Deferred samples enter the reference at the longest kept length.
    const int64_t top = *std::max_element(kept_lengths.begin(), kept_lengths.end());
    for (int64_t i : deferred) effective[i] = std::min(effective[i], top);
  }

  absl::StatusOr<LengthReference> reference = LengthReference::Create(effective);
  if (!reference.ok()) return reference.status();

  std::unique_ptr<BucketSampler> sampler(new BucketSampler(options, std::move(*reference)));
  sampler->model_ = std::move(model);
  sampler->lengths_ = std::move(effective);
  sampler->deferred_ = std::move(deferred);
  sampler->deferred_tokens_ = deferred_tokens;
  sampler->truncated_items_ = truncated_items;
  sampler->truncated_tokens_ = truncated_tokens;
  const std::vector<int64_t>& eff = sampler->lengths_;
  const int64_t longest = *std::max_element(kept_lengths.begin(), kept_lengths.end());

  if (!options.upper_bounds.empty()) {
    sampler->upper_bounds_ = options.upper_bounds;
    if (longest > sampler->upper_bounds_.back()) {
      size_t i = 0;
      while (!(keep[i] && eff[i] == longest)) ++i;
      return absl::InvalidArgumentError(absl::StrFormat(
          "lengths[%u] = %d exceeds the largest upper bound %d: every sample needs a bucket", i,
          longest, sampler->upper_bounds_.back()));
    }
  } else {
    absl::StatusOr<std::vector<int64_t>> bounds =
        BudgetAwareBounds(options, model_ptr, kept_lengths);
    if (!bounds.ok()) return bounds.status();
    sampler->upper_bounds_ = std::move(*bounds);
  }

  // Per-sample bucket: the first bound >= the length.
  const std::vector<int64_t>& bounds = sampler->upper_bounds_;
  sampler->bucket_items_.assign(bounds.size(), {});
  for (size_t i = 0; i < eff.size(); ++i) {
    if (!keep[i]) continue;
    const size_t b = std::lower_bound(bounds.begin(), bounds.end(), eff[i]) - bounds.begin();
    sampler->bucket_items_[b].push_back(static_cast<int64_t>(i));
  }
  if (options.budget == BucketBudget::kPaddedTokens) {
    sampler->budget_tokens_ = options.max_padded_tokens;
  }

  // Per non-empty bucket: size, hard cap h_b (non-increasing), balance cost
  // per sample c_b (non-decreasing).
  struct Run {
    int64_t size, cap;
    double cost;
  };
  std::vector<Run> runs;
  int64_t previous_cap = std::numeric_limits<int64_t>::max();
  double previous_cost = 0;
  double least_cost_per_token = std::numeric_limits<double>::infinity();
  for (size_t b = 0; b < bounds.size(); ++b) {
    const std::vector<int64_t>& items = sampler->bucket_items_[b];
    if (items.empty()) continue;
    int64_t arg = items[0];
    for (int64_t i : items) {
      if (eff[i] > eff[arg]) arg = i;
    }
    const int64_t bucket_longest = eff[arg];
    absl::StatusOr<int64_t> cap = BatchCap(options, model_ptr, bucket_longest);
    if (!cap.ok()) return cap.status();
    if (*cap == 0) return BudgetError(options, model_ptr, arg, bucket_longest);
    double cost = static_cast<double>(bucket_longest);
    if (model_ptr != nullptr) {
      absl::StatusOr<double> one = model_ptr->SequenceCost({&bucket_longest, 1});
      if (!one.ok()) return one.status();
      cost = *one;
      // The least cost per token over the data's lengths: every sample of
      // this bucket costs at least cost(shortest) per its tokens.
      int64_t shortest = eff[items[0]];
      for (int64_t i : items) shortest = std::min(shortest, eff[i]);
      absl::StatusOr<double> low = model_ptr->SequenceCost({&shortest, 1});
      if (!low.ok()) return low.status();
      least_cost_per_token =
          std::min(least_cost_per_token, std::min(*low / static_cast<double>(shortest),
                                                  cost / static_cast<double>(bucket_longest)));
    }
    previous_cap = std::min(previous_cap, *cap);
    previous_cost = std::max(previous_cost, cost);
    runs.push_back({static_cast<int64_t>(items.size()), previous_cap, previous_cost});
  }

  // The cost cap a token budget implies with a model (docs/buckets.md).
  double top_cap = std::numeric_limits<double>::infinity();
  if (model_ptr != nullptr && options.budget == BucketBudget::kPaddedTokens &&
      least_cost_per_token > 0 && std::isfinite(least_cost_per_token)) {
    top_cap = least_cost_per_token * static_cast<double>(options.max_padded_tokens);
    sampler->implied_cost_budget_ = top_cap;
  }

  // Greedy cut for cost cap T: pieces and their count (INT64_MAX if T admits
  // no sample of some bucket, which cannot happen: k >= 1).
  auto per_batch = [&](const Run& r, double cap) -> int64_t {
    if (!(cap < std::numeric_limits<double>::infinity()) || r.cost <= 0) return r.cap;
    const double k = std::floor(cap / r.cost);
    if (k >= static_cast<double>(r.cap)) return r.cap;
    return std::max<int64_t>(1, static_cast<int64_t>(k));
  };
  auto cut = [&](double cap, std::vector<Piece>* pieces) -> int64_t {
    int64_t count = 0, open = 0, position = 0, open_first = 0, k_prev = 0;
    for (const Run& r : runs) {
      int64_t k = per_batch(r, cap);
      k = k_prev > 0 ? std::min(k, k_prev) : k;  // keep k non-increasing
      k_prev = k;
      int64_t rest = r.size;
      if (open > 0) {
        if (open >= k) {
          if (pieces) pieces->push_back({open_first, open, 1});
          ++count;
          open = 0;
        } else {
          const int64_t take = std::min(rest, k - open);
          open += take;
          rest -= take;
          position += take;
          if (open == k) {
            if (pieces) pieces->push_back({open_first, open, 1});
            ++count;
            open = 0;
          }
        }
      }
      if (rest > 0) {
        const int64_t full = rest / k;
        if (full > 0) {
          if (pieces) pieces->push_back({position, full * k, full});
          count += full;
          position += full * k;
        }
        open = rest % k;
        open_first = position;
        position += open;
      }
    }
    if (open > 0) {
      if (pieces) pieces->push_back({open_first, open, 1});
      ++count;
    }
    return count;
  };

  const int64_t n = static_cast<int64_t>(kept_lengths.size());
  const int64_t per_step = options.num_ranks * options.accumulation_steps;
  const int64_t total_batches = cut(top_cap, nullptr);
  const int64_t remainder = total_batches % per_step;
  double cap = top_cap;
  int64_t target = total_batches;
  if (options.drop_last) {
    if (total_batches < per_step) {
      return absl::FailedPreconditionError(absl::StrFormat(
          "drop_last: the data makes %d batches, fewer than one step of num_ranks x "
          "accumulation_steps = %d batches, so every sample would be dropped",
          total_batches, per_step));
    }
    sampler->num_batches_ = total_batches - remainder;
  } else {
    const int64_t missing = remainder == 0 ? 0 : per_step - remainder;
    target = total_batches + missing;
    if (n < target) {
      return absl::FailedPreconditionError(absl::StrFormat(
          "pad_last: %d samples cannot fill %d batches (num_ranks x accumulation_steps = %d per "
          "step) without repeating samples; use fewer ranks or accumulation steps",
          n, target, per_step));
    }
    if (missing > 0) {
      // Smallest cap T with count(T) <= target; count(0) = n >= target.
      double hi = top_cap;
      if (!std::isfinite(hi)) {
        hi = 0;
        for (const Run& r : runs) hi = std::max(hi, static_cast<double>(r.cap) * r.cost);
      }
      double lo = 0;
      for (int iteration = 0; iteration < 100 && hi - lo > hi * 1e-12; ++iteration) {
        const double mid = lo + (hi - lo) / 2;
        (cut(mid, nullptr) <= target ? hi : lo) = mid;
      }
      cap = hi;
    }
    sampler->num_batches_ = target;
  }
  sampler->cost_cap_ = std::isfinite(cap) ? cap : 0;
  cut(cap, &sampler->pieces_);
  int64_t cut_batches = 0;
  for (const Piece& p : sampler->pieces_) cut_batches += p.batches;
  // Still short of the target (the count jumps over it): one more batch for
  // the piece with the most batches, its batches shrink by the smallest
  // fraction. Ties by piece order.
  for (; !options.drop_last && cut_batches < target; ++cut_batches) {
    size_t pick = sampler->pieces_.size();
    for (size_t q = 0; q < sampler->pieces_.size(); ++q) {
      const Piece& p = sampler->pieces_[q];
      if (p.items <= p.batches) continue;
      if (pick == sampler->pieces_.size() || p.batches > sampler->pieces_[pick].batches) pick = q;
    }
    ++sampler->pieces_[pick].batches;  // exists: n >= target
  }
  sampler->num_steps_ = sampler->num_batches_ / per_step;

  if (sampler->model_ != nullptr) {
    absl::StatusOr<double> one = sampler->model_->SequenceCost({&longest, 1});
    if (!one.ok()) return one.status();
    sampler->largest_item_cost_ = *one;
  } else {
    sampler->largest_item_cost_ = static_cast<double>(longest);
  }
  return sampler;
}

absl::StatusOr<double> BucketSampler::BatchCost(absl::Span<const int64_t> members,
                                                int64_t longest) const {
  if (model_ == nullptr) {
    return static_cast<double>(members.size()) * static_cast<double>(longest);
  }
  // CostModel::PaddedBatchCost's definition: n * SequenceCost({longest}).
  absl::StatusOr<double> one = model_->SequenceCost({&longest, 1});
  if (!one.ok()) return one.status();
  const double cost = static_cast<double>(members.size()) * *one;
  if (!std::isfinite(cost)) {
    return absl::OutOfRangeError(absl::StrFormat(
        "batch cost: %u samples x sequence cost %g overflows a double; rescale the costs",
        members.size(), *one));
  }
  return cost;
}

absl::StatusOr<std::shared_ptr<const BucketSampler::Layout>> BucketSampler::BuildLayout(
    uint64_t epoch) const {
  const uint64_t epoch_seed = util::DeriveSeed(seed_, epoch);
  const size_t num_buckets = bucket_items_.size();

  // Shuffle every bucket and cut it into its batches (bucket-major ids).
  std::vector<int64_t> pool;
  pool.reserve(lengths_.size());
  std::vector<int64_t> batch_start, batch_size, batch_longest, batch_tokens;
  std::vector<double> batch_cost;
  batch_start.reserve(num_batches_ + bucket_items_.size());
  // Padded tokens of every batch, summed into the plan's computed_tokens:
  // checked, since samples x longest (and their total) can pass int64
  // with a budget near INT64_MAX or a cost budget.
  int64_t padded_total = 0;
  for (size_t b = 0; b < num_buckets; ++b) {
    const std::vector<int64_t>& items = bucket_items_[b];
    if (items.empty()) continue;
    const size_t first = pool.size();
    pool.insert(pool.end(), items.begin(), items.end());
    util::Rng rng(util::DeriveSeed(epoch_seed, b));
    rng.Shuffle(absl::MakeSpan(pool).subspan(first));
  }
  for (const Piece& piece : pieces_) {
    const int64_t m = piece.batches;
    const int64_t size = piece.items;
    int64_t at = piece.first;
    for (int64_t j = 0; j < m; ++j) {
      const int64_t count = size / m + (j < size % m ? 1 : 0);
      int64_t longest = 0, tokens = 0;
      for (int64_t k = at; k < at + count; ++k) {
        longest = std::max(longest, lengths_[pool[k]]);
        tokens += lengths_[pool[k]];
      }
      int64_t padded = 0;
      if (!util::MulInt64(count, longest, &padded) ||
          !util::AddInt64(padded_total, padded, &padded_total)) {
        return absl::OutOfRangeError(absl::StrFormat(
            "padded tokens: the epoch's batches (samples x longest sample) total more than "
            "int64 at a batch of %d samples of up to %d tokens",
            count, longest));
      }
      absl::StatusOr<double> cost =
          BatchCost(absl::MakeConstSpan(pool).subspan(at, count), longest);
      if (!cost.ok()) return cost.status();
      batch_start.push_back(at);
      batch_size.push_back(count);
      batch_longest.push_back(longest);
      batch_tokens.push_back(tokens);
      batch_cost.push_back(*cost);
      at += count;
    }
  }
  const size_t total = batch_start.size();
  // Every rank, step and epoch cost is a sum of batch costs.
  if (absl::StatusOr<double> sum = util::CheckedCostSum("batch cost", batch_cost); !sum.ok()) {
    return sum.status();
  }

  auto layout = std::make_shared<Layout>();
  // Drop-last: the batches with the fewest real tokens, ties by batch id.
  std::vector<char> dropped(total, 0);
  const size_t to_drop = total - static_cast<size_t>(num_batches_);
  if (to_drop > 0) {
    std::vector<size_t> ids(total);
    for (size_t i = 0; i < total; ++i) ids[i] = i;
    std::partial_sort(ids.begin(), ids.begin() + to_drop, ids.end(), [&](size_t a, size_t b) {
      return batch_tokens[a] != batch_tokens[b] ? batch_tokens[a] < batch_tokens[b] : a < b;
    });
    for (size_t k = 0; k < to_drop; ++k) {
      const size_t id = ids[k];
      dropped[id] = 1;
      for (int64_t p = batch_start[id]; p < batch_start[id] + batch_size[id]; ++p) {
        layout->dropped.push_back(pool[p]);
        layout->dropped_tokens += lengths_[pool[p]];
      }
    }
    std::sort(layout->dropped.begin(), layout->dropped.end());
  }
  std::vector<size_t> kept;
  kept.reserve(num_batches_);
  for (size_t i = 0; i < total; ++i) {
    if (!dropped[i]) kept.push_back(i);
  }

  // Systematic arrangement: stratum k = kept[k*S .. (k+1)*S), step t takes
  // kept[t + k*S]; then the steps are visited in a shuffled order.
  const size_t steps = static_cast<size_t>(num_steps_);
  const size_t per_step = static_cast<size_t>(batches_per_step());
  const size_t ranks = static_cast<size_t>(num_ranks_);
  const size_t accumulation = static_cast<size_t>(accumulation_);
  std::vector<size_t> order(steps);
  for (size_t t = 0; t < steps; ++t) order[t] = t;
  util::Rng step_rng(util::DeriveSeed(epoch_seed, kStepOrderStream));
  step_rng.Shuffle(absl::MakeSpan(order));

  layout->members.reserve(pool.size() - layout->dropped.size());
  layout->offsets.reserve(num_batches_ + 1);
  layout->longest.reserve(num_batches_);
  layout->costs.reserve(num_batches_);
  std::vector<size_t> step_batches(per_step), placed(per_step);
  std::vector<double> step_costs(per_step);
  std::vector<int32_t> group(per_step);
  for (size_t position = 0; position < steps; ++position) {
    const size_t t = order[position];
    for (size_t k = 0; k < per_step; ++k) {
      step_batches[k] = kept[t + k * steps];
      step_costs[k] = batch_cost[step_batches[k]];
    }
    // LPT with exactly A batches per rank (every slot is filled: per_step =
    // ranks x A).
    const std::vector<int32_t> slot =
        AssignLptSlots(step_costs, static_cast<int32_t>(ranks), static_cast<int64_t>(accumulation));
    for (size_t k = 0; k < per_step; ++k) placed[k] = static_cast<size_t>(slot[k]) / accumulation;
    if (accumulation > 1) {
      // LPT leaves up to a third of a batch on the table when a few coarse
      // batches (one or two long samples) meet many full ones; swaps between
      // the slowest rank and the lighter ones keep A batches per rank.
      for (size_t k = 0; k < per_step; ++k) group[k] = static_cast<int32_t>(placed[k]);
      GroupLimits limits;
      limits.equal_count = true;
      Refine(step_costs, static_cast<int32_t>(ranks), limits, absl::MakeSpan(group),
             kStepRefineSteps);
      for (size_t k = 0; k < per_step; ++k) placed[k] = static_cast<size_t>(group[k]);
    }
    // Emit rank by rank; a rank's batches in stratum order (ascending length).
    for (size_t r = 0; r < ranks; ++r) {
      for (size_t k = 0; k < per_step; ++k) {
        if (placed[k] != r) continue;
        const size_t id = step_batches[k];
        const int64_t start = batch_start[id];
        layout->members.insert(layout->members.end(), pool.begin() + start,
                               pool.begin() + start + batch_size[id]);
        layout->offsets.push_back(static_cast<int64_t>(layout->members.size()));
        layout->longest.push_back(batch_longest[id]);
        layout->costs.push_back(batch_cost[id]);
      }
    }
  }
  return std::shared_ptr<const Layout>(std::move(layout));
}

absl::StatusOr<std::shared_ptr<const BucketSampler::Layout>> BucketSampler::GetLayout(
    uint64_t epoch) const {
  std::lock_guard<std::mutex> lock(cache_mutex_);
  if (cache_ != nullptr && cache_epoch_ == epoch) return cache_;
  absl::StatusOr<std::shared_ptr<const Layout>> layout = BuildLayout(epoch);
  if (!layout.ok()) return layout.status();
  cache_ = *layout;
  cache_epoch_ = epoch;
  return cache_;
}

void BucketSampler::AddGroups(const Layout& layout, size_t first_group, size_t end_group,
                              Plan& plan) const {
  std::vector<int64_t> tokens;
  for (size_t g = first_group; g < end_group; ++g) {
    absl::Span<const int64_t> members =
        absl::MakeConstSpan(layout.members)
            .subspan(layout.offsets[g], layout.offsets[g + 1] - layout.offsets[g]);
    tokens.resize(members.size());
    for (size_t k = 0; k < members.size(); ++k) tokens[k] = lengths_[members[k]];
    plan.AddGroup(members, tokens, static_cast<int64_t>(members.size()) * layout.longest[g],
                  layout.costs[g]);
  }
}

absl::StatusOr<Plan> BucketSampler::Epoch(uint64_t epoch) const {
  absl::StatusOr<std::shared_ptr<const Layout>> layout = GetLayout(epoch);
  if (!layout.ok()) return layout.status();
  const Layout& l = **layout;
  const size_t groups = l.costs.size();
  Plan plan;
  plan.Reserve(groups, l.members.size());
  AddGroups(l, 0, groups, plan);
  std::vector<int64_t> ranks(groups), slots(groups);
  const int64_t per_step = batches_per_step();
  for (size_t g = 0; g < groups; ++g) {
    const int64_t step = static_cast<int64_t>(g) / per_step;
    const int64_t within = static_cast<int64_t>(g) % per_step;
    ranks[g] = within / accumulation_;
    slots[g] = step * accumulation_ + within % accumulation_;
  }
  plan.SetSlots(std::move(ranks), std::move(slots));
  plan.dropped() = l.dropped;
  ComputeGroupMetrics(plan, lengths_.size(), largest_item_cost_, budget_tokens_);
  ComputeRankMetrics(plan, num_ranks_, num_steps_ * accumulation_, largest_item_cost_);
  absl::StatusOr<std::vector<DiversityDistance>> steps =
      ComputeStepMetrics(plan, reference_, num_ranks_, accumulation_);
  if (!steps.ok()) return steps.status();
  plan.deferred() = deferred_;
  PlanMetrics& m = plan.metrics();
  m.dropped_items = l.dropped.size();
  m.dropped_tokens = l.dropped_tokens;
  m.deferred_items = deferred_.size();
  m.deferred_tokens = deferred_tokens_;
  m.truncated_items = truncated_items_;
  m.truncated_tokens = truncated_tokens_;
  return plan;
}

absl::StatusOr<BucketDiagnostics> BucketSampler::Diagnose(uint64_t epoch,
                                                          const BucketTargets& targets) const {
  for (auto [name, value] : {std::pair<const char*, double>{"balance", targets.balance},
                             {"padding", targets.padding},
                             {"diversity", targets.diversity}}) {
    if (!(value >= 0 && value <= 1)) {
      return absl::InvalidArgumentError(
          absl::StrFormat("%s target = %g: targets are shares in [0, 1]", name, value));
    }
  }
  absl::StatusOr<Plan> plan = Epoch(epoch);
  if (!plan.ok()) return plan.status();
  const PlanMetrics& m = plan->metrics();
  BucketDiagnostics d;
  d.balance = m.balance_efficiency;
  d.padding = m.padding_efficiency;
  d.diversity = m.diversity_distance;
  // Balance bound: the batches grouped into steps by cost (descending), a
  // step's slowest rank carrying at least max(mean, costliest batch).
  const size_t per_step = static_cast<size_t>(batches_per_step());
  std::vector<double> costs(plan->group_costs().begin(), plan->group_costs().end());
  std::sort(costs.begin(), costs.end(), std::greater<double>());
  double sum_mean = 0, sum_bound = 0;
  for (size_t first = 0; first + per_step <= costs.size(); first += per_step) {
    double total = 0;
    for (size_t g = first; g < first + per_step; ++g) total += costs[g];
    const double mean = total / static_cast<double>(num_ranks_);
    sum_mean += mean;
    sum_bound += std::max(mean, costs[first]);
  }
  d.balance_bound = sum_bound > 0 ? sum_mean / sum_bound : 1.0;
  // Padding bound: the same cut over the samples sorted by length (sorted
  // batching with these batch sizes), which no shuffle within buckets beats
  // by more than the order inside a bucket.
  std::vector<int64_t> sorted;
  sorted.reserve(lengths_.size());
  for (const std::vector<int64_t>& items : bucket_items_) {
    for (int64_t i : items) sorted.push_back(lengths_[i]);
  }
  std::sort(sorted.begin(), sorted.end());
  double real = 0, padded = 0;
  for (const Piece& piece : pieces_) {
    int64_t at = piece.first;
    for (int64_t j = 0; j < piece.batches; ++j) {
      const int64_t count = piece.items / piece.batches + (j < piece.items % piece.batches ? 1 : 0);
      for (int64_t k = at; k < at + count; ++k) real += static_cast<double>(sorted[k]);
      padded += static_cast<double>(count) * static_cast<double>(sorted[at + count - 1]);
      at += count;
    }
  }
  d.padding_bound = padded > 0 ? real / padded : 1.0;
  d.diversity_floor = 0.5 / static_cast<double>(per_step);
  if (d.balance < targets.balance) {
    d.unmet |= kBalanceTarget;
    d.balance_shortfall = targets.balance - d.balance;
  }
  if (d.padding < targets.padding) {
    d.unmet |= kPaddingTarget;
    d.padding_shortfall = targets.padding - d.padding;
  }
  if (d.diversity > targets.diversity) {
    d.unmet |= kDiversityTarget;
    d.diversity_excess = d.diversity - targets.diversity;
  }
  d.batch_cost_cap = cost_cap_;
  d.implied_cost_budget = implied_cost_budget_;
  d.truncated_items = truncated_items_;
  d.truncated_tokens = truncated_tokens_;
  d.deferred_items = deferred_.size();
  d.deferred_tokens = deferred_tokens_;
  return d;
}

absl::StatusOr<Plan> BucketSampler::Step(uint64_t epoch, uint64_t step) const {
  if (step >= static_cast<uint64_t>(num_steps_)) {
    return absl::OutOfRangeError(
        absl::StrFormat("step %u is out of range: an epoch has %d steps", step, num_steps_));
  }
  absl::StatusOr<std::shared_ptr<const Layout>> layout = GetLayout(epoch);
  if (!layout.ok()) return layout.status();
  const size_t per_step = static_cast<size_t>(batches_per_step());
  const size_t first = static_cast<size_t>(step) * per_step;
  Plan plan;
  AddGroups(**layout, first, first + per_step, plan);
  // Metrics with step-local slots, then the epoch's slot numbers.
  std::vector<int64_t> ranks(per_step), local(per_step), global(per_step);
  for (size_t k = 0; k < per_step; ++k) {
    ranks[k] = static_cast<int64_t>(k) / accumulation_;
    local[k] = static_cast<int64_t>(k) % accumulation_;
    global[k] = static_cast<int64_t>(step) * accumulation_ + local[k];
  }
  plan.SetSlots(ranks, local);
  ComputeGroupMetrics(plan, lengths_.size(), largest_item_cost_, budget_tokens_);
  ComputeRankMetrics(plan, num_ranks_, accumulation_, largest_item_cost_);
  absl::StatusOr<std::vector<DiversityDistance>> steps =
      ComputeStepMetrics(plan, reference_, num_ranks_, accumulation_);
  if (!steps.ok()) return steps.status();
  plan.SetSlots(std::move(ranks), std::move(global));
  return plan;
}

absl::StatusOr<std::vector<DiversityDistance>> ComputeStepMetrics(Plan& plan,
                                                                  const LengthReference& reference,
                                                                  int64_t num_ranks,
                                                                  int64_t accumulation_steps) {
  if (num_ranks < 1 || accumulation_steps < 1) {
    return absl::InvalidArgumentError(
        absl::StrFormat("num_ranks = %d, accumulation_steps = %d: both must be at least 1",
                        num_ranks, accumulation_steps));
  }
  absl::StatusOr<std::vector<DiversityDistance>> distances =
      StepDistances(plan, reference, accumulation_steps);
  if (!distances.ok()) return distances.status();
  int64_t num_steps = 0;
  for (size_t g = 0; g < plan.group_count(); ++g) {
    const int64_t rank = plan.group_rank(g);
    if (rank < 0 || rank >= num_ranks) {
      return absl::InvalidArgumentError(
          absl::StrFormat("group %u has rank %d, outside [0, num_ranks = %d)", g, rank, num_ranks));
    }
    num_steps = std::max(num_steps, plan.group_slot(g) / accumulation_steps + 1);
  }
  std::vector<double> cost(static_cast<size_t>(num_steps * num_ranks), 0.0);
  for (size_t g = 0; g < plan.group_count(); ++g) {
    const int64_t step = plan.group_slot(g) / accumulation_steps;
    cost[static_cast<size_t>(step * num_ranks + plan.group_rank(g))] += plan.group_cost(g);
  }
  double sum_mean = 0, sum_max = 0;
  for (int64_t s = 0; s < num_steps; ++s) {
    double total = 0, largest = 0;
    for (int64_t r = 0; r < num_ranks; ++r) {
      total += cost[s * num_ranks + r];
      largest = std::max(largest, cost[s * num_ranks + r]);
    }
    sum_mean += total / static_cast<double>(num_ranks);
    sum_max += largest;
  }
  PlanMetrics& m = plan.metrics();
  m.num_steps = static_cast<uint64_t>(num_steps);
  m.balance_efficiency = sum_max > 0 ? sum_mean / sum_max : 1.0;
  const DiversityDistance mean = MeanDistance(*distances);
  m.diversity_distance = mean.tokens;
  m.diversity_distance_samples = mean.samples;
  return distances;
}

}  // namespace flopspack::pack
