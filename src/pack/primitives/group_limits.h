// The constraints list scheduling, refinement and the balancers honour, and
// the bookkeeping of the two count limits: "equal counts" (every group holds
// floor(n/k) or ceil(n/k) items, so exactly n mod k groups hold the larger
// count) and "slots" (at most max_items items per group: a rank with M
// microbatch slots, a rank taking A batches per step).
#ifndef FLOPSPACK_PACK_PRIMITIVES_GROUP_LIMITS_H_
#define FLOPSPACK_PACK_PRIMITIVES_GROUP_LIMITS_H_

#include <cstdint>

#include "absl/types/span.h"

namespace flopspack::pack {

struct GroupLimits {
  bool equal_count = false;
  // Hard cap on the sum of tokens in a group; 0 = none. When > 0, tokens
  // holds one count per item.
  int64_t max_tokens = 0;
  absl::Span<const int64_t> tokens;
  // Slots: at most this many items per group; 0 = no limit.
  int64_t max_items = 0;
  // List scheduling leaves an item that no group may take unplaced (group
  // -1) instead of failing.
  bool allow_unplaced = false;

  bool has_token_cap() const { return max_tokens > 0; }
  int64_t item_tokens(size_t i) const { return tokens.empty() ? 0 : tokens[i]; }
};

// The count limits of n items over k groups: with equal counts, tracks how
// many groups already hold the larger count, so that a group may take one
// more item only while the final counts can still come out equal; with
// slots, a group may hold at most max_items.
class CountQuota {
 public:
  CountQuota(size_t n, size_t k, bool enabled, size_t max_items = 0)
      : enabled_(enabled),
        max_items_(max_items),
        low_(k ? n / k : 0),
        high_slots_(k ? n % k : 0),
        high_(low_ + (high_slots_ > 0 ? 1 : 0)) {}

  // May a group holding `count` items take one more?
  bool CanAdd(size_t count) const {
    if (max_items_ > 0 && count >= max_items_) return false;
    if (!enabled_) return true;
    if (count < low_) return true;
    return count == low_ && high_used_ < high_slots_;
  }
  // Records that a group went from `count` to count + 1 items.
  void Added(size_t count) {
    if (enabled_ && count == low_ && high_ > low_) ++high_used_;
  }
  // May an item move from a group of from_count items to one of to_count?
  bool CanMove(size_t from_count, size_t to_count) const {
    if (max_items_ > 0 && to_count >= max_items_) return false;
    return !enabled_ || from_count == to_count + 1;
  }
  size_t low() const { return low_; }
  size_t high() const { return high_; }

 private:
  bool enabled_;
  size_t max_items_;
  size_t low_;
  size_t high_slots_;
  size_t high_;
  size_t high_used_ = 0;
};

}  // namespace flopspack::pack

#endif  // FLOPSPACK_PACK_PRIMITIVES_GROUP_LIMITS_H_
