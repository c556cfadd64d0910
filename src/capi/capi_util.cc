#include "capi/capi_util.h"

#include <cstdint>

namespace flopspack::capi {
namespace {

thread_local std::string last_error;

}  // namespace

const char* last_error_message() { return last_error.c_str(); }

flopspack_status SetError(flopspack_status status, std::string message) {
  last_error = std::move(message);
  return status;
}

flopspack_status FromStatus(const absl::Status& status) {
  if (status.ok()) return FLOPSPACK_OK;
  flopspack_status code = FLOPSPACK_INTERNAL;
  switch (status.code()) {
    case absl::StatusCode::kInvalidArgument:
      code = FLOPSPACK_INVALID_ARGUMENT;
      break;
    case absl::StatusCode::kOutOfRange:
      code = FLOPSPACK_OUT_OF_RANGE;
      break;
    case absl::StatusCode::kFailedPrecondition:
      code = FLOPSPACK_INFEASIBLE;
      break;
    case absl::StatusCode::kResourceExhausted:
      code = FLOPSPACK_OUT_OF_MEMORY;
      break;
    case absl::StatusCode::kAborted:
      code = FLOPSPACK_CALLBACK_FAILED;
      break;
    case absl::StatusCode::kCancelled:
      code = FLOPSPACK_CANCELLED;
      break;
    default:
      code = FLOPSPACK_INTERNAL;
      break;
  }
  return SetError(code, std::string(status.message()));
}

flopspack_status RequireArray(const void* data, size_t n, size_t element_size, const char* name) {
  if (n > 0 && data == nullptr) {
    return SetError(FLOPSPACK_INVALID_ARGUMENT,
                    absl::StrFormat("%s is NULL but its length is %u", name, n));
  }
  if (n > static_cast<size_t>(PTRDIFF_MAX) / element_size) {
    return SetError(FLOPSPACK_OUT_OF_RANGE,
                    absl::StrFormat("%s: length %u overflows the address space", name, n));
  }
  return FLOPSPACK_OK;
}

}  // namespace flopspack::capi

extern "C" const char* flopspack_last_error_message(void) {
  return flopspack::capi::last_error_message();
}
