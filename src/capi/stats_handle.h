// The flopspack_stats handle: a thin owner of stats::LengthStats, shared by
// stats_capi.cc and simulate_capi.cc (which hands out the sub-sequence
// length statistics of a simulation).
#ifndef FLOPSPACK_CAPI_STATS_HANDLE_H_
#define FLOPSPACK_CAPI_STATS_HANDLE_H_

#include "flopspack/flopspack.h"
#include "stats/length_stats.h"

struct flopspack_stats {
  flopspack::stats::LengthStats stats;
};

#endif  // FLOPSPACK_CAPI_STATS_HANDLE_H_
