// The opaque handle types of the C ABI: thin owners of core objects.
#ifndef FLOPSPACK_CAPI_HANDLES_H_
#define FLOPSPACK_CAPI_HANDLES_H_

#include <cstddef>
#include <memory>
#include <utility>

#include "absl/status/statusor.h"
#include "capi/capi_util.h"
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

namespace flopspack::capi {

// The step context of the plain calls (flopspack_plan_step,
// flopspack_plan_step_with_extra_costs and flopspack_pack's working
// arrays): one per thread, made on the thread's first call and freed when
// the thread exits, so a thread that plans step after step (or packs batch
// after batch) reuses memory it already faulted in, as a caller's own
// flopspack_step_context does. Its plans hold the pool too (a plan may
// be destroyed on another thread, after this one exited: the pool then
// lives until its last plan is gone). Bounded: calls of up to
// kThreadContextMaxDocuments documents use it, larger ones allocate and
// free as before; it keeps at most kThreadContextMaxBytes.
inline constexpr size_t kThreadContextMaxDocuments = size_t{1} << 21;
inline constexpr size_t kThreadContextMaxBytes = size_t{512} << 20;

inline std::shared_ptr<util::VectorPool> ThreadContextPool(size_t documents) {
  if (documents > kThreadContextMaxDocuments) return nullptr;
  thread_local const std::shared_ptr<util::VectorPool> pool =
      std::make_shared<util::VectorPool>(kThreadContextMaxBytes);
  return pool;
}

// Hands `plan` out as a new handle holding `pool` (null: none), whose
// arrays go back to that pool when the handle is destroyed; or maps the
// plan's error to its status.
inline flopspack_status EmitPlan(absl::StatusOr<pack::Plan> plan, flopspack_plan** out,
                                 std::shared_ptr<util::VectorPool> pool = nullptr) {
  if (!plan.ok()) return FromStatus(plan.status());
  auto handle = std::make_unique<flopspack_plan>(std::move(*plan));
  handle->pool = std::move(pool);
  *out = handle.release();
  return FLOPSPACK_OK;
}

}  // namespace flopspack::capi

#endif  // FLOPSPACK_CAPI_HANDLES_H_
