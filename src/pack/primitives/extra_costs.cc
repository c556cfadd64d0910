#include "pack/primitives/extra_costs.h"

#include <cmath>

#include "absl/status/statusor.h"
#include "absl/strings/str_format.h"
#include "util/checked.h"

namespace flopspack::pack {

absl::Status CheckExtraCosts(absl::Span<const double> extra_costs, size_t n) {
  if (extra_costs.empty()) return absl::OkStatus();
  if (extra_costs.size() != n) {
    return absl::InvalidArgumentError(
        absl::StrFormat("extra_costs has %u entries for %u lengths", extra_costs.size(), n));
  }
  for (size_t i = 0; i < extra_costs.size(); ++i) {
    if (!std::isfinite(extra_costs[i]) || extra_costs[i] < 0) {
      return absl::InvalidArgumentError(
          absl::StrFormat("extra_costs[%u] = %g: every extra cost must be finite and non-negative",
                          i, extra_costs[i]));
    }
  }
  absl::StatusOr<double> sum = util::CheckedCostSum("extra_costs", extra_costs);
  return sum.ok() ? absl::OkStatus() : sum.status();
}

}  // namespace flopspack::pack
