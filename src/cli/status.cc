#include "status.h"

namespace flopspack::cli {

void Check(flopspack_status status, const std::string& doing) {
  if (status == FLOPSPACK_OK) return;
  const std::string message =
      doing + ": " + flopspack_last_error_message() + " (" + flopspack_status_string(status) + ")";
  if (status == FLOPSPACK_INTERNAL || status == FLOPSPACK_OUT_OF_MEMORY) {
    throw CliError(kExitInternal, message);
  }
  throw InputError(message);
}

}  // namespace flopspack::cli
