// The opaque handle types of the C ABI: thin owners of core objects.
#ifndef FLOPSPACK_CAPI_HANDLES_H_
#define FLOPSPACK_CAPI_HANDLES_H_

#include <memory>
#include <utility>

#include "cost/cost_model.h"
#include "flopspack/flopspack.h"
#include "pack/primitives/plan.h"

struct flopspack_cost_model {
  std::shared_ptr<const flopspack::cost::CostModel> model;
};

// Every plan handed out has its piece offsets (flopspack_plan_group_offsets):
// the ones the algorithm set, or the plan-order convention
// (Plan::FillPieceOffsets), filled once here so concurrent readers never
// write.
struct flopspack_plan {
  explicit flopspack_plan(flopspack::pack::Plan p) : plan(std::move(p)) { plan.FillPieceOffsets(); }
  flopspack::pack::Plan plan;
};

#endif  // FLOPSPACK_CAPI_HANDLES_H_
