// Fuzzes flopspack_buckets_optimize and flopspack_buckets_padding: lengths
// with non-positive and huge values (n x longest overflowing int64),
// num_buckets from 0 up, arbitrary (also descending or too short) bounds.
// Invariants on success: num_buckets non-decreasing bounds ending at the
// longest length, strictly increasing while there are enough distinct
// lengths; their padding is what a direct count gives, and with few
// distinct lengths it equals the brute-force optimum over every choice of
// bounds; padding of arbitrary bounds matches the direct count or fails
// with the status docs/errors.md gives.
#include <limits>
#include <set>

#include "fuzz_util.h"

using fuzz::Require;

namespace {

// Padding with each length padded to the first bound >= it; -1 if a length
// exceeds every bound.
int64_t DirectPadding(const std::vector<int64_t>& lengths, const std::vector<int64_t>& bounds) {
  int64_t padding = 0;
  for (int64_t l : lengths) {
    auto it = std::lower_bound(bounds.begin(), bounds.end(), l);
    if (it == bounds.end()) return -1;
    padding += *it - l;
  }
  return padding;
}

// The least padding over every set of at most b bounds drawn from the
// distinct lengths (always including the longest).
int64_t BruteForce(const std::vector<int64_t>& lengths, const std::vector<int64_t>& distinct,
                   size_t b) {
  const size_t d = distinct.size();
  int64_t best = std::numeric_limits<int64_t>::max();
  for (uint32_t mask = 0; mask < (1u << (d - 1)); ++mask) {
    if (static_cast<size_t>(__builtin_popcount(mask)) + 1 > b) continue;
    std::vector<int64_t> bounds;
    for (size_t i = 0; i + 1 < d; ++i) {
      if (mask & (1u << i)) bounds.push_back(distinct[i]);
    }
    bounds.push_back(distinct.back());
    best = std::min(best, DirectPadding(lengths, bounds));
  }
  return best;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider in(data, size);
  std::vector<int64_t> lengths = fuzz::ConsumeLengths(in, 200, in.ConsumeIntegralInRange(1, 600));
  if (!lengths.empty() && in.ConsumeIntegralInRange(0, 15) == 0) {  // overflow n x longest
    lengths[0] = std::numeric_limits<int64_t>::max() - in.ConsumeIntegralInRange(0, 3);
  }
  const size_t num_buckets = in.ConsumeIntegralInRange<size_t>(0, 12);
  bool bad = lengths.empty() || num_buckets == 0;
  int64_t longest = 0;
  for (int64_t l : lengths) {
    bad |= l <= 0;
    longest = std::max(longest, l);
  }
  const bool overflow =
      !bad && static_cast<uint64_t>(longest) >
                  static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) / lengths.size();

  std::vector<int64_t> bounds(num_buckets, -7);
  const std::vector<int64_t> untouched = bounds;
  const flopspack_status status =
      flopspack_buckets_optimize(lengths.data(), lengths.size(), num_buckets, bounds.data());
  if (status != FLOPSPACK_OK) {
    Require(bounds == untouched, "bounds untouched on failure");
    Require(status == (overflow ? FLOPSPACK_OUT_OF_RANGE : FLOPSPACK_INVALID_ARGUMENT),
            "status matches the input class");
    Require(bad || overflow, "only bad input is rejected");
  } else {
    Require(!bad && !overflow, "bad input is never accepted");
    const std::set<int64_t> set(lengths.begin(), lengths.end());
    const std::vector<int64_t> distinct(set.begin(), set.end());
    Require(std::is_sorted(bounds.begin(), bounds.end()), "bounds non-decreasing");
    Require(bounds.back() == longest, "last bound = longest length");
    for (size_t i = 1; i < std::min(num_buckets, distinct.size()); ++i) {
      Require(bounds[i] > bounds[i - 1], "strictly increasing while lengths allow");
    }
    for (int64_t b : bounds) Require(set.count(b) == 1, "every bound is a length");
    int64_t padding = -1;
    Require(flopspack_buckets_padding(lengths.data(), lengths.size(), bounds.data(), num_buckets,
                                      &padding) == FLOPSPACK_OK,
            "padding of optimal bounds");
    Require(padding == DirectPadding(lengths, bounds), "padding = direct count");
    if (distinct.size() <= 10) {
      Require(padding == BruteForce(lengths, distinct, num_buckets), "bounds are optimal");
    }
  }

  // Padding of arbitrary bounds.
  std::vector<int64_t> arbitrary(in.ConsumeIntegralInRange<size_t>(0, 8));
  for (int64_t& b : arbitrary) b = in.ConsumeIntegralInRange<int64_t>(-1, 700);
  if (in.ConsumeBool()) std::sort(arbitrary.begin(), arbitrary.end());
  int64_t padding = -5;
  const flopspack_status s = flopspack_buckets_padding(
      lengths.data(), lengths.size(), arbitrary.data(), arbitrary.size(), &padding);
  bool bad_bounds = arbitrary.empty() || !std::is_sorted(arbitrary.begin(), arbitrary.end());
  for (int64_t b : arbitrary) bad_bounds |= b <= 0;
  bool bad_lengths = false;
  for (int64_t l : lengths) bad_lengths |= l <= 0;
  const int64_t direct = bad_bounds || bad_lengths ? -1 : DirectPadding(lengths, arbitrary);
  if (s == FLOPSPACK_OK) {
    Require(!bad_bounds && !bad_lengths && direct >= 0 && padding == direct,
            "padding = direct count");
  } else {
    Require(padding == -5, "out untouched on failure");
    Require(s == FLOPSPACK_INVALID_ARGUMENT || s == FLOPSPACK_OUT_OF_RANGE, "status class");
    Require(bad_bounds || bad_lengths || direct < 0 || s == FLOPSPACK_OUT_OF_RANGE,
            "only bad input is rejected");
  }
  return 0;
}
