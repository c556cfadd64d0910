#include "stats_data.h"

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "status.h"

namespace flopspack::cli {

StatsPtr MakeStats(const Context& context, int64_t cost_capacity) {
  flopspack_stats_options options;
  flopspack_stats_options_init(&options);
  options.cost_capacity = cost_capacity;
  flopspack_stats* stats = nullptr;
  Check(flopspack_stats_create_with_options(context.lengths.values.data(), nullptr,
                                            context.lengths.values.size(), context.model.get(),
                                            &options, &stats),
        context.lengths.source);
  return StatsPtr(stats);
}

std::string CostConvention(int64_t cost_capacity) {
  if (cost_capacity <= 0) return "whole documents";
  return absl::StrFormat("as trained: cut into pieces of %s tokens", Cell(cost_capacity));
}

std::vector<int64_t> ParseThresholds(const std::string& list) {
  std::vector<int64_t> out;
  for (absl::string_view part : absl::StrSplit(list, ',', absl::SkipWhitespace())) {
    int64_t value = 0;
    if (!absl::SimpleAtoi(part, &value) || value < 0) {
      throw UsageError(absl::StrFormat("--thresholds: '%s' is not a length", part));
    }
    out.push_back(value);
  }
  return out;
}

namespace {

std::vector<double> Histogram(const flopspack_stats* stats, bool linear, int64_t width,
                              flopspack_stats_weighting weighting, bool normalized,
                              std::vector<int64_t>* edges) {
  flopspack_histogram_options options;
  flopspack_histogram_options_init(&options);
  options.binning = linear ? FLOPSPACK_STATS_BINS_LINEAR : FLOPSPACK_STATS_BINS_LOG2;
  options.weighting = weighting;
  options.normalized = normalized ? 1 : 0;
  options.width = width;
  size_t bins = 0;
  Check(flopspack_stats_histogram(stats, &options, nullptr, nullptr, 0, &bins), "histogram size");
  std::vector<double> weights(bins);
  std::vector<int64_t> upper(bins);
  Check(flopspack_stats_histogram(stats, &options, upper.data(), weights.data(), bins, &bins),
        "histogram");
  if (edges != nullptr) *edges = upper;
  return weights;
}

}  // namespace

DatasetStats ComputeDatasetStats(const flopspack_stats* stats, bool linear, int64_t bin_width,
                                 const std::vector<int64_t>& thresholds, int64_t cost_capacity) {
  DatasetStats data;
  data.cost_capacity = cost_capacity;
  data.summary = {};
  data.summary.struct_size = sizeof(data.summary);
  Check(flopspack_stats_summarize(stats, &data.summary), "summary");
  Check(flopspack_stats_weighted_quantile(stats, FLOPSPACK_STATS_WEIGHT_TOKENS, 0.5,
                                          &data.token_median),
        "token-weighted median");
  if (data.summary.has_cost) {
    Check(flopspack_stats_weighted_quantile(stats, FLOPSPACK_STATS_WEIGHT_COST, 0.5,
                                            &data.cost_median),
          "cost-weighted median");
  }
  data.binning = linear ? "linear" : "log2";
  data.counts =
      Histogram(stats, linear, bin_width, FLOPSPACK_STATS_WEIGHT_COUNT, false, &data.upper_edges);
  data.document_share =
      Histogram(stats, linear, bin_width, FLOPSPACK_STATS_WEIGHT_COUNT, true, nullptr);
  data.token_share =
      Histogram(stats, linear, bin_width, FLOPSPACK_STATS_WEIGHT_TOKENS, true, nullptr);
  if (data.summary.has_cost) {
    data.cost_share =
        Histogram(stats, linear, bin_width, FLOPSPACK_STATS_WEIGHT_COST, true, nullptr);
  }
  for (int64_t threshold : thresholds) {
    TailRow row{threshold, {}};
    row.tail.struct_size = sizeof(row.tail);
    Check(flopspack_stats_tail_share(stats, threshold, &row.tail), "tail");
    data.tail.push_back(row);
  }
  // The expected longest *length* among n draws: statistics without a model.
  std::vector<int64_t> lengths;
  std::vector<uint64_t> counts;
  size_t n = 0;
  Check(flopspack_stats_entries(stats, nullptr, nullptr, 0, &n), "entries size");
  lengths.resize(n);
  counts.resize(n);
  Check(flopspack_stats_entries(stats, lengths.data(), counts.data(), n, &n), "entries");
  flopspack_stats* plain = nullptr;
  Check(flopspack_stats_create_from_histogram(lengths.data(), counts.data(), n, nullptr, &plain),
        "statistics of lengths");
  StatsPtr owned(plain);
  for (uint64_t draws : {uint64_t{1}, uint64_t{16}, uint64_t{256}, uint64_t{4096}, uint64_t{65536},
                         uint64_t{1048576}}) {
    double expected = 0;
    Check(flopspack_stats_expected_max(plain, draws, &expected), "expected max");
    data.expected_max.emplace_back(draws, expected);
  }
  return data;
}

void DatasetStatsJson(const DatasetStats& d, Json& out) {
  const flopspack_stats_summary& s = d.summary;
  Json summary = Json::Object();
  summary.Set("count", s.count);
  summary.Set("distinct_lengths", s.distinct_lengths);
  summary.Set("tokens", s.tokens);
  summary.Set("mean", s.mean);
  summary.Set("stddev", s.stddev);
  summary.Set("min", s.min);
  summary.Set("p50", s.p50);
  summary.Set("p90", s.p90);
  summary.Set("p99", s.p99);
  summary.Set("p999", s.p999);
  summary.Set("max", s.max);
  summary.Set("has_cost", s.has_cost != 0);
  out.Set("cost_capacity", d.cost_capacity);
  out.Set("cost_convention", CostConvention(d.cost_capacity));
  summary.Set("total_cost", s.total_cost);
  summary.Set("mean_cost", s.mean_cost);
  summary.Set("max_cost", s.max_cost);
  out.Set("summary", std::move(summary));
  Json medians = Json::Object();
  medians.Set("tokens", d.token_median);
  medians.Set("cost", s.has_cost ? Json(d.cost_median) : Json());
  out.Set("weighted_medians", std::move(medians));
  Json histogram = Json::Object();
  histogram.Set("binning", d.binning);
  histogram.Set("upper_edges", Json::ArrayOf(d.upper_edges));
  histogram.Set("counts", Json::ArrayOf(d.counts));
  histogram.Set("document_share", Json::ArrayOf(d.document_share));
  histogram.Set("token_share", Json::ArrayOf(d.token_share));
  histogram.Set("cost_share", s.has_cost ? Json::ArrayOf(d.cost_share) : Json());
  out.Set("histogram", std::move(histogram));
  Json tail = Json::Array();
  for (const TailRow& row : d.tail) {
    Json t = Json::Object();
    t.Set("threshold", row.threshold);
    t.Set("documents", row.tail.documents);
    t.Set("tokens", row.tail.tokens);
    t.Set("cost", s.has_cost ? Json(row.tail.cost) : Json());
    t.Set("document_share", row.tail.document_share);
    t.Set("token_share", row.tail.token_share);
    t.Set("cost_share", s.has_cost ? Json(row.tail.cost_share) : Json());
    tail.Push(std::move(t));
  }
  out.Set("tail", std::move(tail));
  Json expected = Json::Array();
  for (const auto& [draws, length] : d.expected_max) {
    Json e = Json::Object();
    e.Set("draws", draws);
    e.Set("length", length);
    expected.Push(std::move(e));
  }
  out.Set("expected_max_length", std::move(expected));
}

Table SummaryTable(const DatasetStats& d, const std::string& unit) {
  const flopspack_stats_summary& s = d.summary;
  Table t({"<statistic", "value"});
  t.AddRow({"documents", Cell(static_cast<int64_t>(s.count))});
  t.AddRow({"distinct lengths", Cell(static_cast<int64_t>(s.distinct_lengths))});
  t.AddRow({"tokens", Cell(s.tokens)});
  t.AddRow({"mean length (stddev)", absl::StrFormat("%.1f (%.1f)", s.mean, s.stddev)});
  t.AddRow(
      {"min / median / max", absl::StrCat(Cell(s.min), " / ", Cell(s.p50), " / ", Cell(s.max))});
  t.AddRow(
      {"p90 / p99 / p99.9", absl::StrCat(Cell(s.p90), " / ", Cell(s.p99), " / ", Cell(s.p999))});
  t.AddRow(
      {"half the tokens are in documents longer than", Cell(static_cast<int64_t>(d.token_median))});
  if (s.has_cost) {
    t.AddRow({"costs of documents", CostConvention(d.cost_capacity)});
    t.AddRow(
        {"half the cost is in documents longer than", Cell(static_cast<int64_t>(d.cost_median))});
    t.AddRow({absl::StrCat("total cost (", unit, ")"), Si(s.total_cost)});
    t.AddRow({absl::StrCat("mean / max document cost (", unit, ")"),
              absl::StrCat(Si(s.mean_cost), " / ", Si(s.max_cost))});
  }
  return t;
}

Table HistogramTable(const DatasetStats& d, const std::string& unit) {
  const bool cost = d.summary.has_cost != 0;
  std::vector<std::string> columns = {"<length", "documents", "%documents", "%tokens"};
  if (cost) columns.push_back(absl::StrCat("%cost (", unit, ")"));
  Table t(columns);
  for (size_t k = 0; k < d.upper_edges.size(); ++k) {
    int64_t lower = 1;
    if (k > 0) lower = d.upper_edges[k - 1] + 1;
    const std::string range = lower == d.upper_edges[k]
                                  ? Cell(lower)
                                  : absl::StrCat(Cell(lower), "-", Cell(d.upper_edges[k]));
    std::vector<std::string> row = {range, Cell(static_cast<int64_t>(d.counts[k])),
                                    Percent(d.document_share[k], 2), Percent(d.token_share[k], 2)};
    if (cost) row.push_back(Percent(d.cost_share[k], 2));
    t.AddRow(std::move(row));
  }
  return t;
}

Table TailTable(const DatasetStats& d) {
  const bool cost = d.summary.has_cost != 0;
  std::vector<std::string> columns = {"longer than", "documents", "%documents", "%tokens"};
  if (cost) columns.push_back("%cost");
  Table t(columns);
  for (const TailRow& row : d.tail) {
    std::vector<std::string> cells = {
        Cell(row.threshold), Cell(static_cast<int64_t>(row.tail.documents)),
        Percent(row.tail.document_share, 2), Percent(row.tail.token_share, 2)};
    if (cost) cells.push_back(Percent(row.tail.cost_share, 2));
    t.AddRow(std::move(cells));
  }
  return t;
}

Table ExpectedMaxTable(const DatasetStats& d) {
  Table t({"n", "expected longest"});
  for (const auto& [draws, length] : d.expected_max) {
    t.AddRow({Cell(static_cast<int64_t>(draws)), Cell(static_cast<int64_t>(length + 0.5))});
  }
  return t;
}

}  // namespace flopspack::cli
