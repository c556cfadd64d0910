// flopspack pack: documents into sequences of a fixed token capacity.
#include <algorithm>

#include "absl/flags/flag.h"
#include "absl/strings/str_format.h"
#include "commands.h"
#include "context.h"
#include "flags.h"
#include "output.h"
#include "plan_output.h"
#include "progress.h"
#include "status.h"

ABSL_FLAG(uint64_t, window, 10000, "--algorithm=stream: documents held at most");

namespace flopspack::cli {
namespace {

struct StreamPackerDeleter {
  void operator()(flopspack_stream_packer* p) const { flopspack_stream_packer_destroy(p); }
};

struct Packed {
  PlanPtr plan;
  flopspack_stream_totals totals = {};
};

Packed PackStream(const Context& context, int32_t overflow) {
  flopspack_stream_options options;
  flopspack_stream_options_init(&options);
  options.capacity = absl::GetFlag(FLAGS_capacity);
  options.window = absl::GetFlag(FLAGS_window);
  options.overflow = overflow;
  options.seed = absl::GetFlag(FLAGS_seed);
  flopspack_stream_packer* raw = nullptr;
  Check(flopspack_stream_packer_create(&options, context.model.get(), &raw), "stream packer");
  std::unique_ptr<flopspack_stream_packer, StreamPackerDeleter> packer(raw);
  const std::vector<int64_t>& lengths = context.lengths.values;
  constexpr size_t kChunk = 1 << 16;
  Progress progress("pack", lengths.size());
  for (size_t start = 0; start < lengths.size(); start += kChunk) {
    const size_t n = std::min(kChunk, lengths.size() - start);
    Check(flopspack_stream_packer_push(packer.get(), lengths.data() + start, n),
          absl::StrFormat("%s: documents %d..%d", context.lengths.source, start, start + n - 1));
    progress.Set(start + n);
  }
  Check(flopspack_stream_packer_flush(packer.get()), "stream packer flush");
  flopspack_plan* plan = nullptr;
  Check(flopspack_stream_packer_take(packer.get(), &plan), "stream packer take");
  Packed packed;
  packed.plan.reset(plan);
  packed.totals.struct_size = sizeof(packed.totals);
  Check(flopspack_stream_packer_totals(packer.get(), &packed.totals), "stream packer totals");
  return packed;
}

void Run(const Invocation& invocation) {
  const Format format = OutputFormat("pack", true);
  const std::string algorithm =
      invocation.Given("algorithm") ? absl::GetFlag(FLAGS_algorithm) : "stream";
  const int32_t overflow = ParseOverflow(invocation, "split", {"split", "truncate", "error"});
  if (algorithm != "stream") {
    throw UsageError(absl::StrFormat("--algorithm=%s: expected stream", algorithm));
  }
  const int64_t capacity = absl::GetFlag(FLAGS_capacity);
  if (capacity <= 0) {
    throw UsageError(
        absl::StrFormat("--capacity=%d: must be a positive number of tokens", capacity));
  }
  const Context context = LoadContext(invocation, invocation.positional[0]);
  if (overflow == FLOPSPACK_OVERFLOW_ERROR) RequireWithinCapacity(context, capacity);
  const Packed packed = PackStream(context, overflow);
  const PlanPtr& plan = packed.plan;
  const struct flopspack_plan_metrics metrics = PlanMetrics(plan.get());
  const flopspack_stream_totals& totals = packed.totals;
  const bool show_plan = absl::GetFlag(FLAGS_plan);
  if (format == Format::kJson) {
    Json out = Envelope("pack");
    out.Set("input", InputJson(context));
    out.Set("model", ModelJson(context.spec));
    Json options = Json::Object();
    options.Set("algorithm", algorithm);
    options.Set("capacity", absl::GetFlag(FLAGS_capacity));
    options.Set("overflow", OverflowName(overflow));
    options.Set("window", absl::GetFlag(FLAGS_window));
    options.Set("seed", absl::GetFlag(FLAGS_seed));
    out.Set("options", std::move(options));
    out.Set("metrics", PlanMetricsJson(metrics));
    Json stream = Json::Object();
    stream.Set("documents_pushed", totals.documents_pushed);
    stream.Set("sequences_emitted", totals.sequences_emitted);
    stream.Set("tokens_emitted", totals.tokens_emitted);
    stream.Set("split_documents", totals.split_documents);
    stream.Set("truncated_documents", totals.truncated_documents);
    stream.Set("truncated_tokens", totals.truncated_tokens);
    out.Set("stream", std::move(stream));
    if (show_plan) out.Set("groups", PlanGroupsJson(plan.get(), false));
    Emit(out.Dump());
  } else if (format == Format::kCsv) {
    Emit(show_plan ? PlanGroupsCsvTable(plan.get(), false).Csv()
                   : PlanMetricsTable(metrics, context.spec.unit).Csv());
  } else {
    std::string text = TableHeader(context);
    Table table = PlanMetricsTable(metrics, context.spec.unit);
    table.AddRow(
        {"documents split across sequences", Cell(static_cast<int64_t>(totals.split_documents))});
    if (totals.truncated_documents > 0) {
      table.AddRow(
          {"documents truncated (tokens cut)",
           absl::StrFormat("%d (%s)", totals.truncated_documents, Cell(totals.truncated_tokens))});
    }
    text += table.Text();
    if (show_plan) text += "\n" + PlanGroupsTable(plan.get(), false).Text();
    Emit(text);
  }
}

}  // namespace

Command PackCommand() {
  return {"pack",
          "pack documents into sequences of a fixed token capacity",
          "[flags] LENGTHS",
          "Packs the documents into sequences of --capacity tokens and prints the plan's\n"
          "metrics: sequences, fill (real tokens / sequences x capacity), split or truncated\n"
          "documents, and the spread of sequence costs. --plan prints the sequences too\n"
          "(--csv then gives one row per document piece: group,item,tokens).\n"
          "--algorithm: stream (default; best fit decreasing over a window of --window\n"
          "documents, bounded memory). --overflow: split (default), truncate or error.",
          Concat({{"capacity", "algorithm", "overflow", "window", "seed", "plan"},
                  InputFlags(),
                  ModelFlags(),
                  OutputFlags(),
                  {"progress"}}),
          1,
          1,
          Run};
}

}  // namespace flopspack::cli
