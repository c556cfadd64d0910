// flopspack buckets: padded batches from length buckets. Bucket boundaries
// of minimum padding, the bucket sampler's epoch plan and its metrics, and
// the padding/mixing trade-off as the number of buckets grows.
#include <CLI/CLI.hpp>
#include <algorithm>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "buckets_data.h"
#include "commands.h"
#include "context.h"
#include "options.h"
#include "output.h"
#include "plan_output.h"
#include "simulate_ranks.h"
#include "status.h"

namespace flopspack::cli {
namespace {

struct BucketsOptions {
  BucketSettings settings;  // its initial values are the defaults --help shows
  std::string ranks = "8";
  std::string overflow = "error";
  std::string tradeoff;
  uint64_t epoch = 0;
  bool plan = false;
  bool resample = true;
  InputOptions input;
  CostOptions cost;
  OutputOptions output;
};

std::vector<uint32_t> ParseCounts(const std::string& list) {
  std::vector<uint32_t> out;
  for (absl::string_view part : absl::StrSplit(list, ',', absl::SkipWhitespace())) {
    uint32_t value = 0;
    if (!absl::SimpleAtoi(part, &value) || value == 0) {
      throw UsageError(absl::StrFormat("--tradeoff: '%s' is not a positive bucket count", part));
    }
    out.push_back(value);
  }
  return out;
}

void Run(const BucketsOptions& o, const std::string& path) {
  const Format format = OutputFormat(o.output, "buckets", true);
  BucketSettings settings = o.settings;
  settings.num_ranks = SingleRankCount(o.ranks);
  settings.overflow = OverflowValue(o.overflow);
  const std::vector<uint32_t> tradeoff = ParseCounts(o.tradeoff);
  const uint64_t epoch = o.epoch;
  const bool show_plan = o.plan;
  Context context = LoadContext(o.input, o.cost, path);
  const Json input_json = InputJson(context);
  const std::string header = TableHeader(context);
  const uint64_t pool = FitSampleToStep(context, settings, tradeoff, o.resample);

  const BucketSamplerPtr sampler = MakeBucketSampler(context, settings);
  PlanPtr plan = BucketEpoch(sampler.get(), epoch);
  const struct flopspack_plan_metrics metrics = PlanMetrics(plan.get());
  const std::vector<BucketRow> rows = BucketRows(context, sampler.get());
  std::vector<TradeoffPoint> points;
  for (uint32_t k : tradeoff) {
    BucketSettings s = settings;
    s.num_buckets = k;
    points.push_back(Tradeoff(context, s, epoch));
  }

  // Padding to the bound is what flopspack_buckets_padding counts; the
  // sampler pads each batch only to its own longest sample, so the plan's
  // padding efficiency is at least the bound's.
  Table bounds(
      {"bucket", "upper bound", "documents", "tokens", "padding to bound", "efficiency at bound"});
  for (size_t b = 0; b < rows.size(); ++b) {
    const BucketRow& r = rows[b];
    bounds.AddRow(
        {absl::StrCat(b), Cell(r.upper_bound), Cell(r.documents), Cell(r.tokens), Cell(r.padding),
         r.tokens + r.padding == 0 ? "-"
                                   : Percent(double(r.tokens) / double(r.tokens + r.padding), 2)});
  }
  Table trade({"buckets", "padding eff", "diversity (tokens)", "diversity (samples)", "balance eff",
               "steps/epoch"});
  for (const TradeoffPoint& p : points) {
    trade.AddRow({absl::StrCat(p.num_buckets), Percent(p.padding_efficiency, 2),
                  absl::StrFormat("%.4f", p.diversity_distance),
                  absl::StrFormat("%.4f", p.diversity_distance_samples),
                  Percent(p.balance_efficiency, 2), Cell(static_cast<int64_t>(p.steps))});
  }

  if (format == Format::kJson) {
    Json out = Envelope("buckets");
    out.Set("input", input_json);
    out.Set("model", ModelJson(context.spec));
    Json options = BucketSettingsJson(settings);
    options.Set("epoch", epoch);
    options.Set("resample", o.resample);
    options.Set("pool_documents", pool);
    out.Set("options", std::move(options));
    Json buckets = Json::Array();
    for (const BucketRow& r : rows) {
      Json j = Json::Object();
      j.Set("upper_bound", r.upper_bound);
      j.Set("documents", r.documents);
      j.Set("tokens", r.tokens);
      j.Set("padding", r.padding);
      buckets.Push(std::move(j));
    }
    out.Set("buckets", std::move(buckets));
    out.Set("steps_per_epoch", StepsPerEpoch(sampler.get()));
    out.Set("metrics", PlanMetricsJson(metrics));
    if (!points.empty()) out.Set("tradeoff", TradeoffJson(points));
    if (show_plan) out.Set("groups", PlanGroupsJson(plan.get(), true));
    Emit(o.output, out.Dump());
    return;
  }
  if (format == Format::kCsv) {
    if (show_plan) {
      Emit(o.output, PlanGroupsCsvTable(plan.get(), true).Csv());
    } else {
      Emit(o.output, points.empty() ? bounds.Csv() : trade.Csv());
    }
    return;
  }
  std::string text = header;
  if (pool > 0) {
    text += absl::StrFormat(
        "resampled: the file cannot fill one step of %d x %d batches without repeating samples; "
        "these figures come from %s documents drawn with replacement from it (--noresample "
        "refuses)\n\n",
        settings.num_ranks, settings.accumulation, Cell(static_cast<int64_t>(pool)));
  }
  text += absl::StrFormat(
      "bucket sampler: %d buckets, %s per batch, %d ranks x %d batches per step, seed %d; "
      "epoch %d\n\n",
      rows.size(), BudgetSummary(settings), settings.num_ranks, settings.accumulation,
      settings.seed, epoch);
  text += PlanMetricsTable(metrics, context.spec.unit).Text();
  text += "\nbuckets\n" + bounds.Text();
  if (!points.empty()) text += "\npadding versus mixing by number of buckets\n" + trade.Text();
  if (show_plan) text += "\n" + PlanGroupsTable(plan.get(), true).Text();
  Emit(o.output, text);
}

Runner DefineBuckets(CLI::App& app) {
  auto o = std::make_shared<BucketsOptions>();
  BucketSettings& s = o->settings;
  app.add_option("--buckets", s.num_buckets, "number of length buckets")
      ->capture_default_str()
      ->check(AtLeast(1));
  app.add_option("--max-padded-tokens", s.max_padded_tokens,
                 "padded-batch budget: batch size x longest sample <= this many tokens")
      ->capture_default_str()
      ->check(AtLeast(1));
  app.add_option("--max-batch-cost", s.max_batch_cost,
                 "padded-batch budget in cost units instead (the cost model's padded-batch "
                 "cost); 0 (default) = use --max-padded-tokens")
      ->check(AtLeastReal(0));
  AddRanks(app, o->ranks, "data-parallel ranks, each drawing one batch per microbatch");
  AddMicrobatches(app, s.accumulation, 1, "batches per rank and optimizer step");
  AddSwitch(app, "drop-last", s.drop_last,
            "drop the surplus batches of an epoch instead of splitting batches to fill the last "
            "step");
  AddSeed(app, s.seed);
  app.add_option("--epoch", o->epoch,
                 "the epoch whose plan is reported (plans are a pure function of seed and epoch)")
      ->capture_default_str();
  app.add_option("--tradeoff", o->tradeoff,
                 "comma-separated bucket counts: print padding efficiency and step diversity for "
                 "each (e.g. 1,2,4,8,16,32,64)")
      ->type_name("LIST");
  AddPlanSwitch(app, o->plan);
  AddResampleSwitch(app, o->resample);
  AddOverflow(app, o->overflow, {"error", "truncate", "defer"});
  AddInputOptions(app, o->input);
  AddCostOptions(app, o->cost);
  AddOutputOptions(app, o->output);
  return [o](const std::vector<std::string>& args) { Run(*o, args[0]); };
}

}  // namespace

Command BucketsCommand() {
  return {"buckets",
          "padded batches from length buckets: boundaries, sampler plan, padding vs mixing",
          "[flags] LENGTHS",
          "For trainers that pad each batch to its longest sample. Builds the bucket sampler\n"
          "(bucket boundaries that minimise padding and unused budget, batches within\n"
          "--max-padded-tokens or --max-batch-cost, steps of --ranks x --microbatches\n"
          "batches that draw from every bucket) and prints the epoch's metrics (padding\n"
          "efficiency, balance of ranks, step diversity) and the buckets. --tradeoff lists\n"
          "padding efficiency against step diversity for several bucket counts; 1 bucket is a\n"
          "plain random shuffle. --plan prints the batches (--csv: group,rank,slot,item,tokens).",
          1,
          1,
          DefineBuckets};
}

}  // namespace flopspack::cli
