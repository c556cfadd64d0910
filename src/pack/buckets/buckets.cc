#include "pack/buckets/buckets.h"

#include <algorithm>
#include <limits>

#include "absl/strings/str_format.h"

namespace flopspack::pack {
namespace {

// The layer-by-layer DP of the file comment. prefix_count[i] and
// prefix_sum[i] cover distinct lengths [0, i).
class BoundaryDp {
 public:
  BoundaryDp(const LengthHistogram& h, absl::Span<const int64_t> price) : price_(price) {
    const size_t d = h.values.size();
    prefix_count_.assign(d + 1, 0);
    for (size_t i = 0; i < d; ++i) prefix_count_[i + 1] = prefix_count_[i] + h.counts[i];
  }

  // Price of one bucket holding distinct lengths [i, j), i < j. With price =
  // lengths this is its padding plus the (partition-independent) sum of its
  // lengths, so the argmin is the same.
  int64_t Cost(size_t i, size_t j) const {
    return price_[j - 1] * (prefix_count_[j] - prefix_count_[i]);
  }

  // Cuts the D distinct lengths into exactly b_total runs (b_total < D) and
  // returns the end index (exclusive) of each run.
  std::vector<size_t> Solve(size_t b_total) {
    const size_t d = price_.size();
    prev_.assign(d + 1, kInf);
    cur_.assign(d + 1, kInf);
    for (size_t j = 1; j <= d; ++j) prev_[j] = Cost(0, j);
    // split_[b][j]: start of the last run in the best b+1-run cover of [0, j).
    split_.assign(b_total, std::vector<uint32_t>());
    for (size_t b = 1; b < b_total; ++b) {
      // With b+1 runs, j ranges over [b+1, d - (b_total - 1 - b)]: the
      // remaining runs each need one distinct length.
      const size_t lo = b + 1, hi = d - (b_total - 1 - b);
      split_[b].assign(d + 1, 0);
      std::fill(cur_.begin(), cur_.end(), kInf);
      if (b + 1 == b_total) {
        Best(b, d, b, d - 1);  // the last layer only needs j = d
      } else {
        Layer(b, lo, hi, b, hi - 1);
      }
      std::swap(prev_, cur_);
    }
    std::vector<size_t> ends(b_total);
    size_t j = d;
    for (size_t b = b_total; b-- > 0;) {
      ends[b] = j;
      j = b == 0 ? 0 : split_[b][j];
    }
    return ends;
  }

 private:
  static constexpr int64_t kInf = std::numeric_limits<int64_t>::max();

  // Computes cur_[j] with the split searched in [opt_lo, min(opt_hi, j-1)],
  // leftmost minimum; returns the chosen split.
  size_t Best(size_t b, size_t j, size_t opt_lo, size_t opt_hi) {
    int64_t best = kInf;
    size_t arg = opt_lo;
    const size_t last = std::min(opt_hi, j - 1);
    for (size_t i = opt_lo; i <= last; ++i) {
      if (prev_[i] == kInf) continue;
      const int64_t value = prev_[i] + Cost(i, j);
      if (value < best) {
        best = value;
        arg = i;
      }
    }
    cur_[j] = best;
    split_[b][j] = static_cast<uint32_t>(arg);
    return arg;
  }

  // Divide and conquer over j in [lo, hi] using the monotone split point.
  void Layer(size_t b, size_t lo, size_t hi, size_t opt_lo, size_t opt_hi) {
    if (lo > hi) return;
    const size_t mid = lo + (hi - lo) / 2;
    const size_t arg = Best(b, mid, opt_lo, opt_hi);
    if (mid > lo) Layer(b, lo, mid - 1, opt_lo, arg);
    Layer(b, mid + 1, hi, arg, opt_hi);
  }

  absl::Span<const int64_t> price_;
  std::vector<int64_t> prefix_count_;
  std::vector<int64_t> prev_, cur_;
  std::vector<std::vector<uint32_t>> split_;
};

}  // namespace

std::vector<int64_t> OptimalUpperBounds(const LengthHistogram& histogram, int64_t num_buckets) {
  return OptimalUpperBoundsForPrice(histogram, num_buckets, histogram.values);
}

std::vector<int64_t> OptimalUpperBoundsForPrice(const LengthHistogram& histogram,
                                                int64_t num_buckets,
                                                absl::Span<const int64_t> price) {
  const size_t d = histogram.values.size();
  const size_t b = static_cast<size_t>(num_buckets);
  std::vector<int64_t> bounds;
  bounds.reserve(b);
  if (b >= d) {
    bounds = histogram.values;
    bounds.resize(b, histogram.values.back());
    return bounds;
  }
  BoundaryDp dp(histogram, price);
  for (size_t end : dp.Solve(b)) bounds.push_back(histogram.values[end - 1]);
  return bounds;
}

absl::StatusOr<std::vector<int64_t>> OptimalUpperBounds(absl::Span<const int64_t> lengths,
                                                        int64_t num_buckets) {
  if (num_buckets < 1) {
    return absl::InvalidArgumentError(
        absl::StrFormat("num_buckets = %d: need at least one bucket", num_buckets));
  }
  if (lengths.empty()) {
    return absl::InvalidArgumentError(
        "lengths is empty: bucket boundaries need at least one length");
  }
  absl::StatusOr<LengthHistogram> histogram = BuildLengthHistogram(lengths);
  if (!histogram.ok()) return histogram.status();
  return OptimalUpperBounds(*histogram, num_buckets);
}

absl::Status CheckUpperBounds(absl::Span<const int64_t> upper_bounds) {
  if (upper_bounds.empty()) {
    return absl::InvalidArgumentError("upper_bounds is empty: need at least one bucket");
  }
  for (size_t i = 0; i < upper_bounds.size(); ++i) {
    if (upper_bounds[i] <= 0) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "upper_bounds[%u] = %d: every upper bound must be positive", i, upper_bounds[i]));
    }
    if (i > 0 && upper_bounds[i] < upper_bounds[i - 1]) {
      return absl::InvalidArgumentError(
          absl::StrFormat("upper_bounds[%u] = %d is below upper_bounds[%u] = %d: upper bounds "
                          "must be ascending",
                          i, upper_bounds[i], i - 1, upper_bounds[i - 1]));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<int64_t> PaddingToUpperBounds(absl::Span<const int64_t> lengths,
                                             absl::Span<const int64_t> upper_bounds) {
  if (absl::Status s = CheckUpperBounds(upper_bounds); !s.ok()) return s;
  int64_t padding = 0;
  for (size_t i = 0; i < lengths.size(); ++i) {
    const int64_t l = lengths[i];
    if (l <= 0) {
      return absl::InvalidArgumentError(
          absl::StrFormat("lengths[%u] = %d: every length must be positive", i, l));
    }
    auto it = std::lower_bound(upper_bounds.begin(), upper_bounds.end(), l);
    if (it == upper_bounds.end()) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "lengths[%u] = %d exceeds the largest upper bound %d", i, l, upper_bounds.back()));
    }
    const int64_t pad = *it - l;
    if (pad > std::numeric_limits<int64_t>::max() - padding) {
      return absl::OutOfRangeError("total padding overflows int64");
    }
    padding += pad;
  }
  return padding;
}

}  // namespace flopspack::pack
