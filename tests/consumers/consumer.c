/* A downstream program: links flopspack however the build found it and
 * checks that header and library agree. */
#include <flopspack/flopspack.h>
#include <stdio.h>

int main(void) {
  flopspack_cost_model* model = NULL;
  const int64_t docs[2] = {10, 20};
  double cost = 0;
  if (flopspack_version_number() != FLOPSPACK_VERSION_NUMBER) return 1;
  if (flopspack_cost_model_tokens(&model) != FLOPSPACK_OK) return 2;
  if (flopspack_cost_model_sequence_cost(model, docs, 2, &cost) != FLOPSPACK_OK) return 3;
  flopspack_cost_model_destroy(model);
  if (cost != 30.0) return 4;
  printf("consumer ok: flopspack %s\n", flopspack_version_string());
  return 0;
}
