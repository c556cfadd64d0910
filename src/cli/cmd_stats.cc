// flopspack stats: how long-tailed a dataset is, by documents, tokens and
// cost: summary, log2 (or linear) histogram, the tail beyond thresholds, and
// the expected longest document in a batch of n.
#include "absl/flags/flag.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "commands.h"
#include "context.h"
#include "flags.h"
#include "output.h"
#include "stats_data.h"
#include "status.h"

ABSL_FLAG(std::string, bins, "log2", "histogram bins: log2 (1, 2, 3-4, 5-8, ...) or linear");
ABSL_FLAG(int64_t, bin_width, 0,
          "--bins=linear: tokens per bin; 0 (default) = the smallest power of two giving at most "
          "64 bins");
ABSL_FLAG(std::string, thresholds, "4096,8192,16384,32768,65536,131072",
          "comma-separated lengths for the tail table (documents longer than each)");

namespace flopspack::cli {
namespace {

void Run(const Invocation& invocation) {
  const Format format = OutputFormat("stats", true);
  const std::string bins = absl::GetFlag(FLAGS_bins);
  if (bins != "log2" && bins != "linear") {
    throw UsageError(absl::StrFormat("--bins=%s: expected log2 or linear", bins));
  }
  const std::vector<int64_t> thresholds = ParseThresholds(absl::GetFlag(FLAGS_thresholds));
  // --capacity: the training sequence length; costs as trained (a longer
  // document as the pieces SPLIT cuts it into). Without it, whole documents.
  int64_t cost_capacity = 0;
  if (invocation.Given("capacity")) {
    cost_capacity = absl::GetFlag(FLAGS_capacity);
    if (cost_capacity <= 0) {
      throw UsageError(
          absl::StrFormat("--capacity=%d: must be a positive sequence length", cost_capacity));
    }
  }
  const Context context = LoadContext(invocation, invocation.positional[0]);
  const StatsPtr stats = MakeStats(context, cost_capacity);
  const DatasetStats data = ComputeDatasetStats(
      stats.get(), bins == "linear", absl::GetFlag(FLAGS_bin_width), thresholds, cost_capacity);
  const std::string& unit = context.spec.unit;

  if (format == Format::kJson) {
    Json out = Envelope("stats");
    out.Set("input", InputJson(context));
    out.Set("model", ModelJson(context.spec));
    DatasetStatsJson(data, out);
    Emit(out.Dump());
    return;
  }
  const Table histogram = HistogramTable(data, unit);
  if (format == Format::kCsv) {
    Emit(histogram.Csv());
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
  Emit(text);
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
          Concat({{"bins", "bin_width", "thresholds", "capacity"},
                  InputFlags(),
                  ModelFlags(),
                  OutputFlags()}),
          1,
          1,
          Run};
}

}  // namespace flopspack::cli
