// Diversity of a plan: the distance of every optimizer step's length mix
// from the whole dataset's, token- and sample-weighted, as docs/buckets.md
// ("Metrics") defines. One step's distance is stats/length_reference.h (the
// Kolmogorov–Smirnov distance against a tabulated reference); this file
// groups a plan's items by step and averages.
// Complexity: O(items + steps) to group, plus O(k log k) per step of k items.
#ifndef FLOPSPACK_PACK_BUCKETS_DIVERSITY_H_
#define FLOPSPACK_PACK_BUCKETS_DIVERSITY_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "pack/primitives/plan.h"
#include "stats/length_reference.h"

namespace flopspack::pack {

// The dataset a step is compared with, and the two distances of one step,
// live in stats/length_reference.h.
using stats::DiversityDistance;
using stats::LengthReference;

// Per-step distances of a plan whose groups carry (rank, slot): the step of
// a group is slot / slots_per_step and holds every rank's groups of that
// step. Steps without items are skipped. Errors: a plan without slots, an
// item outside the reference, slots_per_step < 1.
absl::StatusOr<std::vector<DiversityDistance>> StepDistances(const Plan& plan,
                                                             const LengthReference& reference,
                                                             int64_t slots_per_step);

// Means of per-step distances (fixed summation order); {0, 0} when empty.
DiversityDistance MeanDistance(absl::Span<const DiversityDistance> distances);

}  // namespace flopspack::pack

#endif  // FLOPSPACK_PACK_BUCKETS_DIVERSITY_H_
