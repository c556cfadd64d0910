#include "stats/histogram.h"

#include <algorithm>
#include <limits>

#include "absl/strings/str_format.h"

namespace flopspack::stats {

LengthHistogram CountLengths(absl::Span<const int64_t> lengths) {
  LengthHistogram h;
  if (lengths.empty()) return h;
  const int64_t longest = *std::max_element(lengths.begin(), lengths.end());
  if (longest <= std::max<int64_t>(kMaxCountingRange, static_cast<int64_t>(lengths.size()))) {
    std::vector<int64_t> count(static_cast<size_t>(longest) + 1, 0);
    for (int64_t l : lengths) ++count[l];
    for (int64_t l = 1; l <= longest; ++l) {
      if (count[l] == 0) continue;
      h.values.push_back(l);
      h.counts.push_back(count[l]);
    }
    return h;
  }
  std::vector<int64_t> sorted(lengths.begin(), lengths.end());
  std::sort(sorted.begin(), sorted.end());
  for (int64_t l : sorted) {
    if (!h.values.empty() && h.values.back() == l) {
      ++h.counts.back();
    } else {
      h.values.push_back(l);
      h.counts.push_back(1);
    }
  }
  return h;
}

absl::StatusOr<LengthHistogram> BuildLengthHistogram(absl::Span<const int64_t> lengths) {
  LengthHistogram h;
  if (lengths.empty()) return h;
  int64_t longest = 0;
  for (size_t i = 0; i < lengths.size(); ++i) {
    if (lengths[i] <= 0) {
      return absl::InvalidArgumentError(
          absl::StrFormat("lengths[%u] = %d: every length must be positive", i, lengths[i]));
    }
    longest = std::max(longest, lengths[i]);
  }
  // Every padding total is at most n * longest; refuse inputs where that
  // could overflow rather than return a wrong optimum.
  if (static_cast<uint64_t>(longest) >
      static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) / lengths.size()) {
    return absl::OutOfRangeError(
        absl::StrFormat("lengths: %u samples x longest length %d overflows int64 padding totals",
                        lengths.size(), longest));
  }
  return CountLengths(lengths);
}

}  // namespace flopspack::stats
