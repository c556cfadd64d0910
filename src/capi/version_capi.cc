// Version and status entry points.
#include <cstring>

#include "capi/capi_util.h"
#include "flopspack/flopspack.h"
#include "util/random.h"

extern "C" {

uint32_t flopspack_version_number(void) { return FLOPSPACK_VERSION_NUMBER; }

const char* flopspack_version_string(void) { return FLOPSPACK_VERSION_STRING; }

uint64_t flopspack_derive_seed(uint64_t seed, uint64_t stream) {
  return flopspack::util::DeriveSeed(seed, stream);
}

const char* flopspack_status_string(flopspack_status status) {
  // A C caller may pass any int: read the bits as an int, since loading an
  // enum object that holds a value outside the enum's range is undefined in
  // C++ (clang's UBSan reports it).
  int code = 0;
  static_assert(sizeof code == sizeof status, "flopspack_status is an int");
  std::memcpy(&code, &status, sizeof code);
  switch (code) {
    case FLOPSPACK_OK:
      return "FLOPSPACK_OK";
    case FLOPSPACK_INVALID_ARGUMENT:
      return "FLOPSPACK_INVALID_ARGUMENT";
    case FLOPSPACK_OUT_OF_RANGE:
      return "FLOPSPACK_OUT_OF_RANGE";
    case FLOPSPACK_INFEASIBLE:
      return "FLOPSPACK_INFEASIBLE";
    case FLOPSPACK_OUT_OF_MEMORY:
      return "FLOPSPACK_OUT_OF_MEMORY";
    case FLOPSPACK_INTERNAL:
      return "FLOPSPACK_INTERNAL";
    case FLOPSPACK_CALLBACK_FAILED:
      return "FLOPSPACK_CALLBACK_FAILED";
    case FLOPSPACK_CANCELLED:
      return "FLOPSPACK_CANCELLED";
    case FLOPSPACK_BUFFER_TOO_SMALL:
      return "FLOPSPACK_BUFFER_TOO_SMALL";
  }
  return "FLOPSPACK_UNKNOWN_STATUS";
}

}  // extern "C"
