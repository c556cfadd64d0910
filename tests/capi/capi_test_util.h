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

#endif  // FLOPSPACK_TESTS_CAPI_CAPI_TEST_UTIL_H_
