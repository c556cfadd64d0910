// flopspack compare: two datasets side by side, and where their tails part.
#include <CLI/CLI.hpp>
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "commands.h"
#include "context.h"
#include "options.h"
#include "output.h"
#include "stats_data.h"
#include "status.h"

namespace flopspack::cli {
namespace {

struct CompareOptions {
  InputOptions input;
  CostOptions cost;
  OutputOptions output;
};

void Run(const CompareOptions& o, const std::string& path_a, const std::string& path_b) {
  const Format format = OutputFormat(o.output, "compare", true);
  const Context a = LoadContext(o.input, o.cost, path_a);
  Context b;
  b.spec = a.spec;
  b.model = MakeCostModel(b.spec);
  b.lengths = ReadLengths(path_b, o.input.column);
  for (int64_t length : b.lengths.values) b.tokens += length;
  const StatsPtr sa = MakeStats(a), sb = MakeStats(b);
  const std::vector<int64_t> thresholds = {4096, 8192, 16384, 32768, 65536, 131072};
  const DatasetStats da = ComputeDatasetStats(sa.get(), false, 0, thresholds);
  const DatasetStats db = ComputeDatasetStats(sb.get(), false, 0, thresholds);
  flopspack_stats_comparison c = {};
  c.struct_size = sizeof(c);
  Check(flopspack_stats_compare(sa.get(), sb.get(), &c), "compare");
  double ks_cost = 0;
  int64_t ks_cost_length = 0;
  Check(flopspack_stats_ks_distance_weighted(sa.get(), sb.get(), FLOPSPACK_STATS_WEIGHT_COST,
                                             &ks_cost, &ks_cost_length),
        "cost-weighted KS distance");

  if (format == Format::kJson) {
    Json out = Envelope("compare");
    Json inputs = Json::Array();
    inputs.Push(InputJson(a));
    inputs.Push(InputJson(b));
    out.Set("inputs", std::move(inputs));
    out.Set("model", ModelJson(a.spec));
    Json ja = Json::Object(), jb = Json::Object();
    DatasetStatsJson(da, ja);
    DatasetStatsJson(db, jb);
    Json datasets = Json::Array();
    datasets.Push(std::move(ja));
    datasets.Push(std::move(jb));
    out.Set("datasets", std::move(datasets));
    Json cmp = Json::Object();
    cmp.Set("ks_distance", c.ks_distance);
    cmp.Set("ks_length", c.ks_length);
    cmp.Set("ks_distance_tokens", c.ks_distance_tokens);
    cmp.Set("ks_length_tokens", c.ks_length_tokens);
    cmp.Set("ks_distance_cost", ks_cost);
    cmp.Set("ks_length_cost", ks_cost_length);
    Json levels = Json::Array();
    for (int i = 0; i < FLOPSPACK_STATS_COMPARE_LEVELS; ++i) {
      Json level = Json::Object();
      level.Set("level", c.levels[i]);
      level.Set("a", c.quantiles_a[i]);
      level.Set("b", c.quantiles_b[i]);
      levels.Push(std::move(level));
    }
    cmp.Set("quantiles", std::move(levels));
    cmp.Set("first_divergent_level", c.first_divergent_level);
    cmp.Set("tail_threshold", c.tail_threshold);
    cmp.Set("token_share_above_a", c.token_share_above_a);
    cmp.Set("token_share_above_b", c.token_share_above_b);
    cmp.Set("cost_share_above_a", c.cost_share_above_a);
    cmp.Set("cost_share_above_b", c.cost_share_above_b);
    out.Set("comparison", std::move(cmp));
    Emit(o.output, out.Dump());
    return;
  }
  const flopspack_stats_summary& x = da.summary;
  const flopspack_stats_summary& y = db.summary;
  Table t({"<", "A", "B"});
  t.AddRow({"documents", Cell(static_cast<int64_t>(x.count)), Cell(static_cast<int64_t>(y.count))});
  t.AddRow({"tokens", Cell(x.tokens), Cell(y.tokens)});
  t.AddRow({"mean length", Cell(x.mean, 5), Cell(y.mean, 5)});
  for (int i = 0; i < FLOPSPACK_STATS_COMPARE_LEVELS; ++i) {
    t.AddRow({absl::StrFormat("length at %g%% of documents", 100 * c.levels[i]),
              Cell(c.quantiles_a[i]), Cell(c.quantiles_b[i])});
  }
  t.AddRow({"max length", Cell(x.max), Cell(y.max)});
  t.AddRow({absl::StrFormat("%%tokens in documents > %s (A's p99)", Cell(c.tail_threshold)),
            Percent(c.token_share_above_a, 2), Percent(c.token_share_above_b, 2)});
  t.AddRow({absl::StrFormat("%%cost in documents > %s", Cell(c.tail_threshold)),
            Percent(c.cost_share_above_a, 2), Percent(c.cost_share_above_b, 2)});
  t.AddRow({absl::StrFormat("cost per token (%s)", a.spec.unit),
            Cell(x.total_cost / static_cast<double>(x.tokens), 5),
            Cell(y.total_cost / static_cast<double>(y.tokens), 5)});
  for (const auto& [draws, length] : da.expected_max) {
    if (draws < 256) continue;
    double other = 0;
    for (const auto& [d2, l2] : db.expected_max) {
      if (d2 == draws) other = l2;
    }
    t.AddRow(
        {absl::StrFormat("expected longest of %s documents", Cell(static_cast<int64_t>(draws))),
         Cell(static_cast<int64_t>(length + 0.5)), Cell(static_cast<int64_t>(other + 0.5))});
  }
  if (format == Format::kCsv) {
    Emit(o.output, t.Csv());
    return;
  }
  std::string text =
      absl::StrFormat("# A: %s documents from %s\n# B: %s documents from %s\n# cost: %s\n\n",
                      Cell(static_cast<int64_t>(x.count)), a.lengths.source,
                      Cell(static_cast<int64_t>(y.count)), b.lengths.source, ModelSummary(a.spec));
  text += t.Text();
  text += absl::StrFormat(
      "\nKolmogorov-Smirnov distance: %.4f by documents (at length %s), %.4f by tokens (at %s), "
      "%.4f by cost (at %s)\n",
      c.ks_distance, Cell(c.ks_length), c.ks_distance_tokens, Cell(c.ks_length_tokens), ks_cost,
      Cell(ks_cost_length));
  text += c.first_divergent_level > 0
              ? absl::StrFormat(
                    "The tails part at the %g%% quantile (lengths differ by more than "
                    "5%% there).\n",
                    100 * c.first_divergent_level)
              : "The quantiles agree within 5% at every level compared.\n";
  Emit(o.output, text);
}

Runner DefineCompare(CLI::App& app) {
  auto o = std::make_shared<CompareOptions>();
  AddInputOptions(app, o->input);
  AddCostOptions(app, o->cost);
  AddOutputOptions(app, o->output);
  return [o](const std::vector<std::string>& args) { Run(*o, args[0], args[1]); };
}

}  // namespace

Command CompareCommand() {
  return {"compare",
          "two datasets side by side: quantiles, tails, cost per token, KS distance",
          "[flags] LENGTHS_A LENGTHS_B",
          "Compares two length distributions under the same cost model: quantiles from the\n"
          "median to p99.99, the share of tokens and cost beyond A's p99, the cost per token,\n"
          "the expected longest document in batches of n, the Kolmogorov-Smirnov distance\n"
          "by documents, tokens and cost, and the quantile where the tails part. Two datasets\n"
          "with the same mean can differ exactly there.",
          2,
          2,
          DefineCompare};
}

}  // namespace flopspack::cli
