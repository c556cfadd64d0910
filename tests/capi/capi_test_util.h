// Helpers for tests of the C ABI.
#ifndef FLOPSPACK_TESTS_CAPI_CAPI_TEST_UTIL_H_
#define FLOPSPACK_TESTS_CAPI_CAPI_TEST_UTIL_H_

#include <string>

#include "flopspack/flopspack.h"
#include "gtest/gtest.h"

// Asserts that a call failed with `status` and that the thread's error
// message contains `fragment`.
#define EXPECT_FLOPSPACK_ERROR(call, status, fragment)                                       \
  do {                                                                                       \
    EXPECT_EQ((call), (status));                                                             \
    EXPECT_NE(std::string(flopspack_last_error_message()).find(fragment), std::string::npos) \
        << "message: " << flopspack_last_error_message();                                    \
  } while (0)

namespace flopspack_test {

// A small transformer (4 layers, hidden 256, 4 heads, FFN 688, vocabulary
// 1,000): attention counts at a few thousand tokens, and plans are quick.
inline flopspack_cost_model* SmallTransformerModel() {
  flopspack_transformer_config c;
  flopspack_transformer_config_init(&c);
  c.num_layers = 4;
  c.hidden_size = 256;
  c.num_attention_heads = 4;
  c.num_key_value_heads = 4;
  c.intermediate_size = 688;
  c.vocab_size = 1000;
  flopspack_cost_model* model = nullptr;
  EXPECT_EQ(flopspack_cost_model_transformer(&c, &model), FLOPSPACK_OK);
  return model;
}

}  // namespace flopspack_test

#endif  // FLOPSPACK_TESTS_CAPI_CAPI_TEST_UTIL_H_
