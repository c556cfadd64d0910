// The opaque handle types of the C ABI: thin owners of core objects.
#ifndef FLOPSPACK_CAPI_HANDLES_H_
#define FLOPSPACK_CAPI_HANDLES_H_

#include <memory>
#include <utility>

#include "cost/cost_model.h"
#include "flopspack/flopspack.h"
#include "pack/primitives/plan.h"
#include "util/vector_pool.h"

struct flopspack_cost_model {
  std::shared_ptr<const flopspack::cost::CostModel> model;
};

// Every plan handed out has its piece offsets (flopspack_plan_group_offsets):
// the ones the algorithm set, or the plan-order convention
// (Plan::FillPieceOffsets), filled once here so concurrent readers never
// write.
// A plan made in a step context (flopspack_plan_step_in_context) holds the
// context's vector pool and gives its arrays back to it when destroyed.
struct flopspack_plan {
  explicit flopspack_plan(flopspack::pack::Plan p) : plan(std::move(p)) { plan.FillPieceOffsets(); }
  ~flopspack_plan() {
    if (pool != nullptr) plan.GiveStorage(*pool);
  }
  flopspack::pack::Plan plan;
  std::shared_ptr<flopspack::util::VectorPool> pool;
};

#endif  // FLOPSPACK_CAPI_HANDLES_H_
