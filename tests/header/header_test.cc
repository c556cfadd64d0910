// The public header compiles as C++11 with -pedantic -Werror and its types
// are usable without any C++ wrapper.
#include <flopspack/flopspack.h>

#include <cstdio>
#include <type_traits>

static_assert(std::is_standard_layout<flopspack_transformer_config>::value, "C layout");
static_assert(std::is_standard_layout<struct flopspack_plan_metrics>::value, "C layout");
static_assert(FLOPSPACK_OK == 0, "0 is OK");

int main() {
  flopspack_cost_model* model = nullptr;
  if (flopspack_cost_model_tokens(&model) != FLOPSPACK_OK) return 1;
  const int64_t docs[3] = {1, 2, 3};
  double cost = 0;
  if (flopspack_cost_model_sequence_cost(model, docs, 3, &cost) != FLOPSPACK_OK) return 2;
  flopspack_cost_model_destroy(model);
  if (cost != 6.0) return 3;
  std::printf("ok: flopspack %s from C++\n", flopspack_version_string());
  return 0;
}
