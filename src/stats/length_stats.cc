#include "stats/length_stats.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <utility>

#include "absl/strings/str_format.h"
#include "stats/histogram.h"
#include "stats/order_statistics.h"
#include "util/validate.h"

namespace flopspack::stats {
namespace {

// Lengths at which two models are compared on merge: spread over the range
// real datasets use, so polynomial and transformer models (three unknowns)
// that agree on all of them are the same model.
constexpr int64_t kProbeLengths[] = {1, 2, 3, 7, 100, 1000, 4096, 10000, 65536, 1 << 20};

bool SameCost(double a, double b) { return (std::isnan(a) && std::isnan(b)) || a == b; }

// Log2 bin of a length: the smallest b with 2^b >= length (b <= 63).
size_t Log2Bin(int64_t length) {
  size_t b = 0;
  while (b < 63 && (int64_t{1} << b) < length) ++b;
  return b;
}

int64_t Log2Edge(size_t b) {
  return b >= 63 ? std::numeric_limits<int64_t>::max() : (int64_t{1} << b);
}

// The linear width: as given, or the smallest power of two giving <= 64 bins.
int64_t LinearWidth(int64_t width, int64_t top) {
  if (width > 0) return width;
  width = 1;
  while ((top - 1) / width + 1 > 64) width *= 2;
  return width;
}

absl::Status CheckCostCapacity(int64_t cost_capacity) {
  if (cost_capacity >= 0) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrFormat(
      "cost_capacity = %d: must be 0 (documents costed whole) or a positive sequence length",
      cost_capacity));
}

}  // namespace

absl::StatusOr<LengthStats> LengthStats::Create(absl::Span<const int64_t> lengths,
                                                const cost::CostModel* model,
                                                int64_t cost_capacity) {
  if (absl::Status s = CheckCostCapacity(cost_capacity); !s.ok()) return s;
  absl::StatusOr<int64_t> total = util::CheckLengths("lengths", lengths);
  if (!total.ok()) return total.status();
  LengthHistogram h = CountLengths(lengths);
  std::vector<uint64_t> counts(h.counts.begin(), h.counts.end());
  return FromSortedMap(std::move(h.values), std::move(counts), model, cost_capacity);
}

absl::StatusOr<LengthStats> LengthStats::FromHistogram(absl::Span<const int64_t> lengths,
                                                       absl::Span<const uint64_t> counts,
                                                       const cost::CostModel* model,
                                                       int64_t cost_capacity) {
  if (absl::Status s = CheckCostCapacity(cost_capacity); !s.ok()) return s;
  if (lengths.size() != counts.size()) {
    return absl::InvalidArgumentError(
        absl::StrFormat("lengths has %u entries but counts has %u", lengths.size(), counts.size()));
  }
  std::vector<std::pair<int64_t, uint64_t>> entries;
  entries.reserve(lengths.size());
  for (size_t i = 0; i < lengths.size(); ++i) {
    if (lengths[i] <= 0) {
      return absl::InvalidArgumentError(
          absl::StrFormat("lengths[%u] = %d: every length must be positive", i, lengths[i]));
    }
    if (counts[i] > 0) entries.emplace_back(lengths[i], counts[i]);
  }
  std::sort(entries.begin(), entries.end());
  std::vector<int64_t> distinct;
  std::vector<uint64_t> merged;
  for (const auto& [length, count] : entries) {
    if (!distinct.empty() && distinct.back() == length) {
      if (merged.back() > std::numeric_limits<uint64_t>::max() - count) {
        return absl::OutOfRangeError(
            absl::StrFormat("the count of length %d overflows 64 bits", length));
      }
      merged.back() += count;
    } else {
      distinct.push_back(length);
      merged.push_back(count);
    }
  }
  return FromSortedMap(std::move(distinct), std::move(merged), model, cost_capacity);
}

absl::StatusOr<LengthStats> LengthStats::FromSortedMap(std::vector<int64_t> lengths,
                                                       std::vector<uint64_t> counts,
                                                       const cost::CostModel* model,
                                                       int64_t cost_capacity) {
  LengthStats s;
  s.lengths_ = std::move(lengths);
  s.counts_ = std::move(counts);
  if (model != nullptr) {
    s.has_cost_ = true;
    s.cost_capacity_ = cost_capacity;
    s.costs_.resize(s.lengths_.size());
    for (size_t i = 0; i < s.lengths_.size(); ++i) {
      absl::StatusOr<double> c = model->DocumentCostAsTrained(s.lengths_[i], cost_capacity);
      if (!c.ok()) return c.status();
      if (!std::isfinite(*c) || *c < 0) {
        return absl::InvalidArgumentError(absl::StrFormat(
            "the cost model gave %g for a document of length %d: costs must be finite and "
            "non-negative",
            *c, s.lengths_[i]));
      }
      s.costs_[i] = *c;
    }
    for (int64_t probe : kProbeLengths) {
      absl::StatusOr<double> c = model->DocumentCostAsTrained(probe, cost_capacity);
      s.fingerprint_.push_back(c.ok() ? *c : std::numeric_limits<double>::quiet_NaN());
    }
  }
  if (absl::Status status = s.Finish(); !status.ok()) return status;
  return s;
}

absl::Status LengthStats::Finish() {
  const size_t k = lengths_.size();
  cum_counts_.resize(k);
  cum_tokens_.resize(k);
  cum_costs_.assign(has_cost_ ? k : 0, 0.0);
  uint64_t count = 0;
  int64_t tokens = 0;
  double cost = 0;
  max_cost_ = 0;
  for (size_t i = 0; i < k; ++i) {
    if (counts_[i] > std::numeric_limits<uint64_t>::max() - count) {
      return absl::OutOfRangeError("the number of documents overflows 64 bits");
    }
    count += counts_[i];
    int64_t add = 0;
    if (__builtin_mul_overflow(static_cast<int64_t>(counts_[i]), lengths_[i], &add) ||
        counts_[i] > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) ||
        __builtin_add_overflow(tokens, add, &tokens)) {
      return absl::OutOfRangeError(
          absl::StrFormat("the total number of tokens overflows int64 at length %d", lengths_[i]));
    }
    cum_counts_[i] = count;
    cum_tokens_[i] = tokens;
    if (has_cost_) {
      cost += static_cast<double>(counts_[i]) * costs_[i];
      // Finite costs whose total is not would make every cost share,
      // weighted quantile and CDF NaN.
      if (!std::isfinite(cost)) {
        return absl::OutOfRangeError(absl::StrFormat(
            "the total cost of the documents overflows a double at length %d (cost %g each); "
            "rescale the costs",
            lengths_[i], costs_[i]));
      }
      cum_costs_[i] = cost;
      max_cost_ = std::max(max_cost_, costs_[i]);
    }
  }
  count_ = count;
  tokens_ = tokens;
  total_cost_ = cost;
  // Second pass around the exact mean: no cancellation.
  const double m = mean();
  sum_squared_deviation_ = 0;
  for (size_t i = 0; i < k; ++i) {
    const double d = static_cast<double>(lengths_[i]) - m;
    sum_squared_deviation_ += static_cast<double>(counts_[i]) * d * d;
  }
  return absl::OkStatus();
}

absl::StatusOr<LengthStats> LengthStats::Merge(const LengthStats& a, const LengthStats& b) {
  if (a.has_cost_ != b.has_cost_) {
    return absl::InvalidArgumentError(
        absl::StrFormat("cannot merge statistics built with a cost model (%s) and without one (%s)",
                        a.has_cost_ ? "a" : "b", a.has_cost_ ? "b" : "a"));
  }
  if (a.has_cost_ && a.cost_capacity_ != b.cost_capacity_) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "cannot merge statistics costed for different sequence lengths: cost_capacity %d in a "
        "and %d in b",
        a.cost_capacity_, b.cost_capacity_));
  }
  if (a.has_cost_) {
    for (size_t i = 0; i < a.fingerprint_.size(); ++i) {
      if (!SameCost(a.fingerprint_[i], b.fingerprint_[i])) {
        return absl::InvalidArgumentError(absl::StrFormat(
            "cannot merge statistics built with different cost models: a document of length %d "
            "costs %g in a and %g in b",
            kProbeLengths[i], a.fingerprint_[i], b.fingerprint_[i]));
      }
    }
  }
  LengthStats s;
  s.has_cost_ = a.has_cost_;
  s.cost_capacity_ = a.cost_capacity_;
  s.fingerprint_ = a.fingerprint_;
  const size_t ka = a.lengths_.size(), kb = b.lengths_.size();
  s.lengths_.reserve(ka + kb);
  s.counts_.reserve(ka + kb);
  if (s.has_cost_) s.costs_.reserve(ka + kb);
  size_t i = 0, j = 0;
  while (i < ka || j < kb) {
    const bool take_a = j == kb || (i < ka && a.lengths_[i] <= b.lengths_[j]);
    const bool take_b = i == ka || (j < kb && b.lengths_[j] <= a.lengths_[i]);
    const int64_t length = take_a ? a.lengths_[i] : b.lengths_[j];
    uint64_t count = 0;
    double cost = 0;
    if (take_a && take_b) {
      if (s.has_cost_ && !SameCost(a.costs_[i], b.costs_[j])) {
        return absl::InvalidArgumentError(absl::StrFormat(
            "cannot merge statistics built with different cost models: a document of length %d "
            "costs %g in a and %g in b",
            length, a.costs_[i], b.costs_[j]));
      }
      if (a.counts_[i] > std::numeric_limits<uint64_t>::max() - b.counts_[j]) {
        return absl::OutOfRangeError(
            absl::StrFormat("the count of length %d overflows 64 bits", length));
      }
      count = a.counts_[i] + b.counts_[j];
      if (s.has_cost_) cost = a.costs_[i];
      ++i;
      ++j;
    } else if (take_a) {
      count = a.counts_[i];
      if (s.has_cost_) cost = a.costs_[i];
      ++i;
    } else {
      count = b.counts_[j];
      if (s.has_cost_) cost = b.costs_[j];
      ++j;
    }
    s.lengths_.push_back(length);
    s.counts_.push_back(count);
    if (s.has_cost_) s.costs_.push_back(cost);
  }
  if (absl::Status status = s.Finish(); !status.ok()) return status;
  return s;
}

double LengthStats::mean() const {
  return count_ == 0 ? 0.0 : static_cast<double>(tokens_) / static_cast<double>(count_);
}

double LengthStats::stddev() const {
  return count_ == 0 ? 0.0 : std::sqrt(sum_squared_deviation_ / static_cast<double>(count_));
}

absl::Status LengthStats::Weigh(Weighting w) const {
  if (w != Weighting::kCount && w != Weighting::kTokens && w != Weighting::kCost) {
    return absl::InvalidArgumentError(
        absl::StrFormat("weighting = %d is not count (0), tokens (1) or cost (2)", int(w)));
  }
  if (w == Weighting::kCost && !has_cost_) {
    return absl::InvalidArgumentError(
        "weighting by cost needs statistics built with a cost model (model was NULL)");
  }
  return absl::OkStatus();
}

double LengthStats::TotalWeight(Weighting w) const {
  switch (w) {
    case Weighting::kCount:
      return static_cast<double>(count_);
    case Weighting::kTokens:
      return static_cast<double>(tokens_);
    case Weighting::kCost:
      return total_cost_;
  }
  return 0;
}

double LengthStats::CumWeight(size_t i, Weighting w) const {
  switch (w) {
    case Weighting::kCount:
      return static_cast<double>(cum_counts_[i]);
    case Weighting::kTokens:
      return static_cast<double>(cum_tokens_[i]);
    case Weighting::kCost:
      return has_cost_ ? cum_costs_[i] : 0.0;
  }
  return 0;
}

double LengthStats::Cdf(int64_t x, Weighting w) const {
  const double total = TotalWeight(w);
  if (count_ == 0 || !(total > 0)) return 0.0;
  // Index of the last distinct length <= x.
  const size_t upper = std::upper_bound(lengths_.begin(), lengths_.end(), x) - lengths_.begin();
  if (upper == 0) return 0.0;
  if (upper == lengths_.size()) return 1.0;
  return CumWeight(upper - 1, w) / total;
}

absl::StatusOr<int64_t> LengthStats::Quantile(double q, Weighting w) const {
  if (absl::Status s = Weigh(w); !s.ok()) return s;
  if (!(q >= 0 && q <= 1)) {
    return absl::InvalidArgumentError(absl::StrFormat("q = %g: must be in [0, 1]", q));
  }
  if (count_ == 0) {
    return absl::InvalidArgumentError("the quantile of an empty dataset is undefined");
  }
  const double total = TotalWeight(w);
  if (!(total > 0)) return lengths_.front();  // all-zero costs: every length has CDF 1
  // Smallest i with cum_i / total >= q; the CDF is non-decreasing in i.
  size_t lo = 0, hi = lengths_.size() - 1;
  while (lo < hi) {
    const size_t mid = lo + (hi - lo) / 2;
    const double cdf = mid + 1 == lengths_.size() ? 1.0 : CumWeight(mid, w) / total;
    if (cdf >= q) {
      hi = mid;
    } else {
      lo = mid + 1;
    }
  }
  return lengths_[lo];
}

TailShare LengthStats::Above(int64_t threshold) const {
  TailShare t;
  if (count_ == 0) return t;
  const size_t upper =
      std::upper_bound(lengths_.begin(), lengths_.end(), threshold) - lengths_.begin();
  const uint64_t below_count = upper == 0 ? 0 : cum_counts_[upper - 1];
  const int64_t below_tokens = upper == 0 ? 0 : cum_tokens_[upper - 1];
  t.documents = count_ - below_count;
  t.tokens = tokens_ - below_tokens;
  t.document_share = static_cast<double>(t.documents) / static_cast<double>(count_);
  t.token_share = static_cast<double>(t.tokens) / static_cast<double>(tokens_);
  if (has_cost_) {
    // Summed over the tail itself (not total - prefix) so a tiny tail keeps
    // its precision.
    for (size_t i = upper; i < lengths_.size(); ++i) {
      t.cost += static_cast<double>(counts_[i]) * costs_[i];
    }
    t.cost_share = total_cost_ > 0 ? t.cost / total_cost_ : 0.0;
  }
  return t;
}

absl::StatusOr<double> LengthStats::ExpectedMax(uint64_t draws) const {
  if (count_ == 0) {
    return absl::InvalidArgumentError(
        "the expected maximum of an empty dataset is undefined: no documents");
  }
  if (draws == 0) {
    return absl::InvalidArgumentError("draws = 0: the maximum of no draws is undefined");
  }
  std::vector<double> values(lengths_.size());
  std::vector<uint64_t> counts(counts_);
  if (!has_cost_) {
    for (size_t i = 0; i < lengths_.size(); ++i) values[i] = static_cast<double>(lengths_[i]);
  } else {
    // A model's cost need not grow with length (custom callbacks): sort by
    // cost, ties by length, for a fixed order.
    std::vector<size_t> order(lengths_.size());
    std::iota(order.begin(), order.end(), size_t{0});
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t x, size_t y) { return costs_[x] < costs_[y]; });
    for (size_t i = 0; i < order.size(); ++i) {
      values[i] = costs_[order[i]];
      counts[i] = counts_[order[i]];
    }
  }
  return ExpectedMaxSorted(values, counts, draws);
}

absl::StatusOr<size_t> LengthStats::BinCount(const HistogramSpec& spec) const {
  if (absl::Status s = Weigh(spec.weighting); !s.ok()) return s;
  if (spec.binning != Binning::kLinear && spec.binning != Binning::kLog2) {
    return absl::InvalidArgumentError(absl::StrFormat("binning = %d is not linear (0) or log2 (1)",
                                                      static_cast<int>(spec.binning)));
  }
  if (spec.width < 0) {
    return absl::InvalidArgumentError(
        absl::StrFormat("width = %d: must be >= 0 (0 = automatic)", spec.width));
  }
  if (count_ == 0) return size_t{0};
  const int64_t top = max();
  if (spec.binning == Binning::kLog2) return Log2Bin(top) + 1;
  return static_cast<size_t>((top - 1) / LinearWidth(spec.width, top) + 1);
}

absl::Status LengthStats::FillHistogram(const HistogramSpec& spec, absl::Span<int64_t> upper_edges,
                                        absl::Span<double> weights) const {
  absl::StatusOr<size_t> bins = BinCount(spec);
  if (!bins.ok()) return bins.status();
  if (upper_edges.size() < *bins || weights.size() < *bins) {
    return absl::OutOfRangeError(absl::StrFormat("the histogram needs %u bins", *bins));
  }
  const int64_t width = LinearWidth(spec.width, max());
  for (size_t b = 0; b < *bins; ++b) {
    int64_t edge = 0;
    if (spec.binning == Binning::kLog2) {
      edge = Log2Edge(b);
    } else if (__builtin_mul_overflow(static_cast<int64_t>(b + 1), width, &edge)) {
      edge = std::numeric_limits<int64_t>::max();
    }
    upper_edges[b] = edge;
    weights[b] = 0;
  }
  for (size_t i = 0; i < lengths_.size(); ++i) {
    const size_t b = spec.binning == Binning::kLog2
                         ? Log2Bin(lengths_[i])
                         : static_cast<size_t>((lengths_[i] - 1) / width);
    const double count = static_cast<double>(counts_[i]);
    switch (spec.weighting) {
      case Weighting::kCount:
        weights[b] += count;
        break;
      case Weighting::kTokens:
        weights[b] += count * static_cast<double>(lengths_[i]);
        break;
      case Weighting::kCost:
        weights[b] += count * costs_[i];
        break;
    }
  }
  if (spec.normalized) {
    const double total = TotalWeight(spec.weighting);
    if (total > 0) {
      for (size_t b = 0; b < *bins; ++b) weights[b] /= total;
    }
  }
  return absl::OkStatus();
}

}  // namespace flopspack::stats
