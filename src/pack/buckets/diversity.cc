#include "pack/buckets/diversity.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_format.h"

namespace flopspack::pack {

absl::StatusOr<std::vector<DiversityDistance>> StepDistances(const Plan& plan,
                                                             const LengthReference& reference,
                                                             int64_t slots_per_step) {
  if (slots_per_step < 1) {
    return absl::InvalidArgumentError(
        absl::StrFormat("slots_per_step = %d: must be at least 1", slots_per_step));
  }
  if (!plan.has_slots()) {
    return absl::InvalidArgumentError(
        "the plan has no ranks and slots: step diversity needs a step or sampler plan");
  }
  const size_t groups = plan.group_count();
  int64_t num_steps = 0;
  for (size_t g = 0; g < groups; ++g) {
    if (plan.group_slot(g) < 0) {
      return absl::InvalidArgumentError(
          absl::StrFormat("group %u has a negative slot %d", g, plan.group_slot(g)));
    }
    num_steps = std::max(num_steps, plan.group_slot(g) / slots_per_step + 1);
    for (int64_t item : plan.group_items(g)) {
      if (item < 0 || static_cast<size_t>(item) >= reference.num_items()) {
        return absl::InvalidArgumentError(
            absl::StrFormat("group %u holds item %d but the lengths have %u items", g, item,
                            reference.num_items()));
      }
    }
  }
  // Bucket the items by step (counting sort keeps group order within a step).
  std::vector<size_t> start(static_cast<size_t>(num_steps) + 1, 0);
  for (size_t g = 0; g < groups; ++g) {
    start[plan.group_slot(g) / slots_per_step + 1] += plan.group_items(g).size();
  }
  for (size_t s = 0; s < static_cast<size_t>(num_steps); ++s) start[s + 1] += start[s];
  std::vector<int64_t> items(start.back());
  std::vector<size_t> fill(start.begin(), start.end() - 1);
  for (size_t g = 0; g < groups; ++g) {
    size_t& at = fill[plan.group_slot(g) / slots_per_step];
    for (int64_t item : plan.group_items(g)) items[at++] = item;
  }
  std::vector<DiversityDistance> out;
  out.reserve(static_cast<size_t>(num_steps));
  std::vector<uint32_t> scratch;
  for (size_t s = 0; s < static_cast<size_t>(num_steps); ++s) {
    if (start[s] == start[s + 1]) continue;
    out.push_back(reference.Distance(
        absl::MakeConstSpan(items).subspan(start[s], start[s + 1] - start[s]), scratch));
  }
  return out;
}

DiversityDistance MeanDistance(absl::Span<const DiversityDistance> distances) {
  DiversityDistance mean{0, 0};
  if (distances.empty()) return mean;
  for (const DiversityDistance& d : distances) {
    mean.tokens += d.tokens;
    mean.samples += d.samples;
  }
  mean.tokens /= static_cast<double>(distances.size());
  mean.samples /= static_cast<double>(distances.size());
  return mean;
}

}  // namespace flopspack::pack
