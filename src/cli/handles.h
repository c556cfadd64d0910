// Owning pointers for the library's opaque handles.
#ifndef FLOPSPACK_CLI_HANDLES_H_
#define FLOPSPACK_CLI_HANDLES_H_

#include <memory>

#include "flopspack/flopspack.h"

namespace flopspack::cli {

struct CostModelDeleter {
  void operator()(flopspack_cost_model* model) const { flopspack_cost_model_destroy(model); }
};
using CostModelPtr = std::unique_ptr<flopspack_cost_model, CostModelDeleter>;

struct PlanDeleter {
  void operator()(flopspack_plan* plan) const { flopspack_plan_destroy(plan); }
};
using PlanPtr = std::unique_ptr<flopspack_plan, PlanDeleter>;

struct CpShardDeleter {
  void operator()(flopspack_cp_shard* shard) const { flopspack_cp_shard_destroy(shard); }
};
using CpShardPtr = std::unique_ptr<flopspack_cp_shard, CpShardDeleter>;

}  // namespace flopspack::cli

#endif  // FLOPSPACK_CLI_HANDLES_H_
