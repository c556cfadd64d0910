// flopspack pack: documents into sequences of a fixed token capacity.
#include <CLI/CLI.hpp>
#include <algorithm>

#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "commands.h"
#include "context.h"
#include "options.h"
#include "output.h"
#include "plan_output.h"
#include "progress.h"
#include "status.h"

namespace flopspack::cli {
namespace {

struct PackOptions {
  int64_t capacity = 8192;
  std::string algorithm = "bfd";
  std::string overflow = "split";
  uint64_t window = 10000;
  uint64_t seed = 0;
  bool plan = false;
  InputOptions input;
  CostOptions cost;
  OutputOptions output;
};

struct StreamPackerDeleter {
  void operator()(flopspack_stream_packer* p) const { flopspack_stream_packer_destroy(p); }
};

struct Packed {
  PlanPtr plan;
  flopspack_stream_totals totals = {};
};

struct PackAlgorithm {
  const char* name;
  int32_t value;  // flopspack_pack_algorithm; -1 = the streaming packer
};

const std::vector<PackAlgorithm>& PackAlgorithms() {
  static const std::vector<PackAlgorithm> algorithms = {
      {"bfd", FLOPSPACK_PACK_BEST_FIT_DECREASING},
      {"ffd", FLOPSPACK_PACK_FIRST_FIT_DECREASING},
      {"next-fit", FLOPSPACK_PACK_NEXT_FIT},
      {"shuffled", FLOPSPACK_PACK_SHUFFLED_FIRST_FIT},
      {"stream", -1},
  };
  return algorithms;
}

std::vector<std::string> PackAlgorithmNames() {
  std::vector<std::string> names;
  for (const PackAlgorithm& a : PackAlgorithms()) names.push_back(a.name);
  return names;
}

// The --algorithm validator admits only the names above.
const PackAlgorithm& FindPackAlgorithm(const std::string& name) {
  for (const PackAlgorithm& a : PackAlgorithms()) {
    if (name == a.name) return a;
  }
  return PackAlgorithms().front();
}

PlanPtr PackOffline(const PackOptions& o, const Context& context, const PackAlgorithm& algorithm,
                    int32_t overflow) {
  flopspack_pack_options options;
  flopspack_pack_options_init(&options);
  options.algorithm = algorithm.value;
  options.capacity = o.capacity;
  options.overflow = overflow;
  options.seed = o.seed;
  options.cost_model = context.model.get();
  flopspack_plan* plan = nullptr;
  Check(
      flopspack_pack(&options, context.lengths.values.data(), context.lengths.values.size(), &plan),
      absl::StrFormat("pack (%s)", algorithm.name));
  return PlanPtr(plan);
}

Packed PackStream(const PackOptions& o, const Context& context, int32_t overflow) {
  flopspack_stream_options options;
  flopspack_stream_options_init(&options);
  options.capacity = o.capacity;
  options.window = o.window;
  options.overflow = overflow;
  options.seed = o.seed;
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

void Run(const PackOptions& o, const std::string& path) {
  const Format format = OutputFormat(o.output, "pack", true);
  const PackAlgorithm& algorithm = FindPackAlgorithm(o.algorithm);
  const int32_t overflow = OverflowValue(o.overflow);
  const int64_t capacity = o.capacity;
  const Context context = LoadContext(o.input, o.cost, path);
  if (overflow == FLOPSPACK_OVERFLOW_ERROR) RequireWithinCapacity(context, capacity);
  const bool stream = algorithm.value < 0;
  Packed packed;
  if (stream) {
    packed = PackStream(o, context, overflow);
  } else {
    packed.plan = PackOffline(o, context, algorithm, overflow);
  }
  const PlanPtr& plan = packed.plan;
  const struct flopspack_plan_metrics metrics = PlanMetrics(plan.get());
  const flopspack_stream_totals& totals = packed.totals;
  const bool show_plan = o.plan;
  if (format == Format::kJson) {
    Json out = Envelope("pack");
    out.Set("input", InputJson(context));
    out.Set("model", ModelJson(context.spec));
    Json options = Json::Object();
    options.Set("algorithm", algorithm.name);
    options.Set("capacity", o.capacity);
    options.Set("overflow", OverflowName(overflow));
    if (stream) options.Set("window", o.window);
    options.Set("seed", o.seed);
    out.Set("options", std::move(options));
    out.Set("metrics", PlanMetricsJson(metrics));
    Json stream_json = Json::Object();
    stream_json.Set("documents_pushed", totals.documents_pushed);
    stream_json.Set("sequences_emitted", totals.sequences_emitted);
    stream_json.Set("tokens_emitted", totals.tokens_emitted);
    stream_json.Set("split_documents", totals.split_documents);
    stream_json.Set("truncated_documents", totals.truncated_documents);
    stream_json.Set("truncated_tokens", totals.truncated_tokens);
    if (stream) out.Set("stream", std::move(stream_json));
    if (show_plan) out.Set("groups", PlanGroupsJson(plan.get(), false));
    Emit(o.output, out.Dump());
  } else if (format == Format::kCsv) {
    Emit(o.output, show_plan ? PlanGroupsCsvTable(plan.get(), false).Csv()
                             : PlanMetricsTable(metrics, context.spec.unit).Csv());
  } else {
    std::string text = TableHeader(context);
    Table table = PlanMetricsTable(metrics, context.spec.unit);
    // The stream packer's plan covers its sequences; its totals count the
    // documents it split or truncated.
    if (stream) {
      table.AddRow(
          {"documents split across sequences", Cell(static_cast<int64_t>(totals.split_documents))});
    }
    if (stream && totals.truncated_documents > 0) {
      table.AddRow(
          {"documents truncated (tokens cut)",
           absl::StrFormat("%d (%s)", totals.truncated_documents, Cell(totals.truncated_tokens))});
    }
    text += table.Text();
    if (show_plan) text += "\n" + PlanGroupsTable(plan.get(), false).Text();
    Emit(o.output, text);
  }
}

Runner DefinePack(CLI::App& app) {
  auto o = std::make_shared<PackOptions>();
  AddCapacity(app, o->capacity, "tokens per packed sequence");
  AddAlgorithm(app, o->algorithm, PackAlgorithmNames(),
               "bfd (best fit decreasing), ffd, next-fit, shuffled or stream");
  AddOverflow(app, o->overflow, {"split", "truncate", "error"});
  app.add_option("--window", o->window, "--algorithm=stream: documents held at most")
      ->capture_default_str()
      ->check(AtLeast(1));
  AddSeed(app, o->seed);
  AddPlanSwitch(app, o->plan);
  AddInputOptions(app, o->input);
  AddCostOptions(app, o->cost);
  AddOutputOptions(app, o->output);
  AddProgressOption(app);
  return [o](const std::vector<std::string>& args) { Run(*o, args[0]); };
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
          "--algorithm: bfd (default; best fit decreasing), ffd (first fit decreasing),\n"
          "next-fit (input order, a new sequence when full), shuffled (first fit in a seeded\n"
          "random order, mixes lengths), stream (best fit over a window of --window\n"
          "documents, bounded memory). --overflow: split (default), truncate or error.",
          1,
          1,
          DefinePack};
}

}  // namespace flopspack::cli
