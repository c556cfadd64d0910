// The opaque handle types of the C ABI: thin owners of core objects.
#ifndef FLOPSPACK_CAPI_HANDLES_H_
#define FLOPSPACK_CAPI_HANDLES_H_

#include <memory>

#include "cost/cost_model.h"
#include "flopspack/flopspack.h"
#include "pack/primitives/plan.h"

struct flopspack_cost_model {
  std::shared_ptr<const flopspack::cost::CostModel> model;
};

struct flopspack_plan {
  flopspack::pack::Plan plan;
};

#endif  // FLOPSPACK_CAPI_HANDLES_H_
