// A dataset's statistics through the library's flopspack_stats, gathered
// once for `stats`, `compare` and `report`, with their tables and JSON.
#ifndef FLOPSPACK_CLI_STATS_DATA_H_
#define FLOPSPACK_CLI_STATS_DATA_H_

#include <memory>
#include <string>
#include <vector>

#include "context.h"
#include "flopspack/flopspack.h"
#include "json.h"
#include "output.h"

namespace flopspack::cli {

struct StatsDeleter {
  void operator()(flopspack_stats* stats) const { flopspack_stats_destroy(stats); }
};
using StatsPtr = std::unique_ptr<flopspack_stats, StatsDeleter>;

// Statistics of the context's lengths with its cost model; cost_capacity >
// 0 costs each document as training with that sequence length sees it (a
// longer one as its pieces), 0 costs documents whole.
StatsPtr MakeStats(const Context& context, int64_t cost_capacity = 0);

// Which convention cost figures use, for people: "whole documents" or
// "as trained: cut into pieces of N tokens".
std::string CostConvention(int64_t cost_capacity);

struct TailRow {
  int64_t threshold;
  flopspack_stats_tail tail;
};

struct DatasetStats {
  flopspack_stats_summary summary;
  int64_t cost_capacity = 0;                 // the convention of every cost figure (CostConvention)
  double token_median = 0, cost_median = 0;  // weighted medians (cost: 0 without a model)
  std::string binning;
  std::vector<int64_t> upper_edges;
  std::vector<double> counts, document_share, token_share, cost_share;
  std::vector<TailRow> tail;
  std::vector<std::pair<uint64_t, double>> expected_max;  // draws -> expected longest length
};

// "4096,8192" -> {4096, 8192}; a usage error names a bad entry.
std::vector<int64_t> ParseThresholds(const std::string& list);

DatasetStats ComputeDatasetStats(const flopspack_stats* stats, bool linear, int64_t bin_width,
                                 const std::vector<int64_t>& thresholds, int64_t cost_capacity = 0);

// Adds "summary", "weighted_medians", "histogram", "tail", "expected_max_length",
// and "cost_capacity" / "cost_convention" (what the cost figures mean).
void DatasetStatsJson(const DatasetStats& data, Json& out);

Table SummaryTable(const DatasetStats& data, const std::string& unit);
Table HistogramTable(const DatasetStats& data, const std::string& unit);
Table TailTable(const DatasetStats& data);
Table ExpectedMaxTable(const DatasetStats& data);

}  // namespace flopspack::cli

#endif  // FLOPSPACK_CLI_STATS_DATA_H_
