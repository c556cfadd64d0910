// flopspack stats: how long-tailed a dataset is, by documents, tokens and
// cost: summary, log2 (or linear) histogram, the tail beyond thresholds, and
// the expected longest document in a batch of n.
#include <CLI/CLI.hpp>
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "commands.h"
#include "context.h"
#include "options.h"
#include "output.h"
#include "stats_data.h"
#include "status.h"

namespace flopspack::cli {
namespace {

struct StatsOptions {
  std::string bins = "log2";
  int64_t bin_width = 0;
  std::string thresholds = "4096,8192,16384,32768,65536,131072";
  // The training sequence length: costs as trained (a longer document as the
  // pieces SPLIT cuts it into). Unset: whole documents.
  std::optional<int64_t> capacity;
  InputOptions input;
  CostOptions cost;
  OutputOptions output;
};

void Run(const StatsOptions& o, const std::string& path) {
  const Format format = OutputFormat(o.output, "stats", true);
  const std::vector<int64_t> thresholds = ParseThresholds(o.thresholds);
  const int64_t cost_capacity = o.capacity.value_or(0);
  const Context context = LoadContext(o.input, o.cost, path);
  const StatsPtr stats = MakeStats(context, cost_capacity);
  const DatasetStats data =
      ComputeDatasetStats(stats.get(), o.bins == "linear", o.bin_width, thresholds, cost_capacity);
  const std::string& unit = context.spec.unit;

  if (format == Format::kJson) {
    Json out = Envelope("stats");
    out.Set("input", InputJson(context));
    out.Set("model", ModelJson(context.spec));
    DatasetStatsJson(data, out);
    Emit(o.output, out.Dump());
    return;
  }
  const Table histogram = HistogramTable(data, unit);
  if (format == Format::kCsv) {
    Emit(o.output, histogram.Csv());
    return;
  }
  std::string text = TableHeader(context);
  text += SummaryTable(data, unit).Text();
  text += "\nlength histogram (share of each total per bin)\n";
  text += histogram.Text();
  text += "\ntail: documents longer than each threshold\n";
  text += TailTable(data).Text();
  text += "\nexpected longest document among n drawn at random\n";
  text += ExpectedMaxTable(data).Text();
  Emit(o.output, text);
}

Runner DefineStats(CLI::App& app) {
  auto o = std::make_shared<StatsOptions>();
  app.add_option("--bins", o->bins, "histogram bins: log2 (1, 2, 3-4, 5-8, ...) or linear")
      ->type_name("NAME")
      ->capture_default_str()
      ->check(OneOf({"log2", "linear"}));
  app.add_option("--bin-width", o->bin_width,
                 "--bins=linear: tokens per bin; 0 (default) = the smallest power of two giving "
                 "at most 64 bins")
      ->check(AtLeast(0));
  app.add_option("--thresholds", o->thresholds,
                 "comma-separated lengths for the tail table (documents longer than each)")
      ->type_name("LIST")
      ->capture_default_str();
  app.add_option("--capacity", o->capacity,
                 "the training sequence length: cost a longer document as the pieces training "
                 "sees (default: none, documents are costed whole)")
      ->check(Positive("sequence length"));
  AddInputOptions(app, o->input);
  AddCostOptions(app, o->cost);
  AddOutputOptions(app, o->output);
  return [o](const std::vector<std::string>& args) { Run(*o, args[0]); };
}

}  // namespace

Command StatsCommand() {
  return {"stats",
          "how long-tailed the lengths are, by documents, tokens and cost",
          "[flags] LENGTHS",
          "Prints the length distribution: count, tokens, mean, quantiles (by documents and\n"
          "by tokens), the total cost under the cost model; a histogram with the share of\n"
          "documents, tokens and cost per bin; the tail beyond each --thresholds length; and\n"
          "the expected longest document among n drawn at random (the tail a batch of n\n"
          "documents meets). --csv prints the histogram.\n"
          "Costs are of whole documents unless --capacity N (the training sequence length)\n"
          "is given: then a document longer than N is costed as the pieces training sees\n"
          "(floor(length / N) pieces of N and the remainder, each attending within itself).",
          1,
          1,
          DefineStats};
}

}  // namespace flopspack::cli
