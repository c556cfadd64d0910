// Per-document extra costs (issue 16): a cost a document carries beside the
// model's cost of its tokens (a vision encoder's work on its images, say:
// docs/multimodal.md). One rule for every entry point that takes them (the
// step planner, flopspack_pack): a piece of t tokens of document d carries
// extra[d] x t / lengths[d], so a split document's pieces share its extra
// cost in proportion to their tokens and a whole document carries exactly
// extra[d]. O(1) per piece; validation O(n).
#ifndef FLOPSPACK_PACK_PRIMITIVES_EXTRA_COSTS_H_
#define FLOPSPACK_PACK_PRIMITIVES_EXTRA_COSTS_H_

#include <cstddef>
#include <cstdint>

#include "absl/status/status.h"
#include "absl/types/span.h"

namespace flopspack::pack {

// extra_costs, when not empty, is finite and non-negative, one per length,
// with a sum that fits a double. InvalidArgument names the bad index;
// OutOfRange for an overflowing sum.
absl::Status CheckExtraCosts(absl::Span<const double> extra_costs, size_t n);

// Validated extra costs beside the document lengths (empty = none).
struct ExtraCosts {
  absl::Span<const double> extra;
  absl::Span<const int64_t> lengths;

  bool empty() const { return extra.empty(); }
  // The share of document `doc`'s extra cost carried by `tokens` of it.
  double Of(int64_t doc, int64_t tokens) const {
    const double e = extra[doc];
    const int64_t length = lengths[doc];
    return tokens == length ? e : e * (static_cast<double>(tokens) / static_cast<double>(length));
  }
};

}  // namespace flopspack::pack

#endif  // FLOPSPACK_PACK_PRIMITIVES_EXTRA_COSTS_H_
