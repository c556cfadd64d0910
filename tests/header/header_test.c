/* The public header must compile as strict C99 (-pedantic -Werror) and be
 * usable from C: build a model, cost a sequence, read the version. */
#include <flopspack/flopspack.h>
#include <stdio.h>
#include <string.h>

int main(void) {
  flopspack_transformer_config config;
  flopspack_cost_model* model = NULL;
  double cost = 0;
  const int64_t docs[2] = {1000, 3000};
  if (flopspack_version_number() != FLOPSPACK_VERSION_NUMBER) return 1;
  if (strcmp(flopspack_version_string(), FLOPSPACK_VERSION_STRING) != 0) return 2;
  flopspack_transformer_config_init(&config);
  config.num_layers = 2;
  config.hidden_size = 64;
  config.num_attention_heads = 4;
  config.num_key_value_heads = 4;
  config.intermediate_size = 256;
  if (flopspack_cost_model_transformer(&config, &model) != FLOPSPACK_OK) return 3;
  if (flopspack_cost_model_sequence_cost(model, docs, 2, &cost) != FLOPSPACK_OK) return 4;
  if (!(cost > 0)) return 5;
  flopspack_cost_model_destroy(model);
  flopspack_cost_model_destroy(NULL);
  if (flopspack_cost_model_tokens(NULL) != FLOPSPACK_INVALID_ARGUMENT) return 6;
  if (strlen(flopspack_last_error_message()) == 0) return 7;
  printf("ok: flopspack %s from C\n", flopspack_version_string());
  return 0;
}
