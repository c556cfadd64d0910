// flopspack plan: one global batch onto ranks x microbatches with the step
// planner, and (--compare) how each algorithm would do on it.
#include <CLI/CLI.hpp>
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "commands.h"
#include "context.h"
#include "options.h"
#include "output.h"
#include "plan_output.h"
#include "simulate_ranks.h"
#include "status.h"
#include "step_data.h"

namespace flopspack::cli {
namespace {

struct PlanOptions {
  std::string ranks = "8";
  int64_t capacity = 8192;
  uint64_t microbatches = 0;  // 0 = the fewest that hold the batch
  std::string algorithm = "documents";
  std::string order = "descending";
  std::string overflow = "split";
  uint64_t seed = 0;
  bool compare = false;
  bool plan = false;
  InputOptions input;
  CostOptions cost;
  OutputOptions output;
};

StepSettings Settings(const PlanOptions& o) {
  NameField("max_tokens_per_microbatch", "--capacity");
  StepSettings s;
  const uint64_t ranks = SingleRankCount(o.ranks);
  if (ranks > UINT32_MAX) throw UsageError("--ranks: at most 4294967295 ranks");
  s.num_ranks = static_cast<uint32_t>(ranks);
  if (o.microbatches > UINT32_MAX) throw UsageError("--microbatches: too large");
  s.microbatches = static_cast<uint32_t>(o.microbatches);
  s.capacity = o.capacity;
  s.seed = o.seed;
  s.ordering = o.order == "light-ends"   ? FLOPSPACK_SLOT_ORDER_LIGHT_ENDS
               : o.order == "as-planned" ? FLOPSPACK_SLOT_ORDER_AS_PLANNED
                                         : FLOPSPACK_SLOT_ORDER_DESCENDING;
  s.overflow = OverflowValue(o.overflow);
  return s;
}

void Run(const PlanOptions& o, const std::string& path) {
  const Format format = OutputFormat(o.output, "plan", true);
  const StepSettings settings = Settings(o);
  const StepAlgorithm& algorithm = FindStepAlgorithm(o.algorithm);
  const bool compare = o.compare;
  const bool show_plan = o.plan;
  const Context context = LoadContext(o.input, o.cost, path);
  if (settings.overflow == FLOPSPACK_OVERFLOW_ERROR) {
    RequireWithinCapacity(context, settings.capacity);
  }

  const PlanPtr plan = PlanStep(context.lengths.values, context.model.get(), algorithm, settings);
  const struct flopspack_plan_metrics metrics = PlanMetrics(plan.get());
  const std::vector<RankLoad> loads = RankLoads(plan.get(), metrics.num_ranks);

  Table ranks({"rank", "tokens", "cost", "cost / mean"});
  for (size_t r = 0; r < loads.size(); ++r) {
    ranks.AddRow({absl::StrCat(r), Cell(loads[r].tokens), Cell(loads[r].cost, 6),
                  metrics.mean_rank_cost > 0
                      ? absl::StrFormat("%.4f", loads[r].cost / metrics.mean_rank_cost)
                      : "-"});
  }
  Table comparison({"<algorithm", "rank balance", "max rank cost", "gap to bound", "worst slot",
                    "fill", "split", "deferred"});
  Json comparison_json = Json::Array();
  if (compare) {
    for (const StepAlgorithm& a : StepAlgorithms()) {
      const PlanPtr other = PlanStep(context.lengths.values, context.model.get(), a, settings);
      const struct flopspack_plan_metrics m = PlanMetrics(other.get());
      comparison.AddRow({a.label, Percent(m.rank_balance_efficiency, 2), Si(m.max_rank_cost),
                         Percent(m.rank_gap_to_lower_bound, 2), Percent(m.worst_slot_balance, 2),
                         Percent(m.fill, 2), Cell(static_cast<int64_t>(m.split_items)),
                         Cell(static_cast<int64_t>(m.deferred_items))});
      Json j = Json::Object();
      j.Set("algorithm", a.name);
      j.Set("label", a.label);
      j.Set("metrics", PlanMetricsJson(m));
      comparison_json.Push(std::move(j));
    }
  }

  if (format == Format::kJson) {
    Json out = Envelope("plan");
    out.Set("input", InputJson(context));
    out.Set("model", ModelJson(context.spec));
    Json options = StepSettingsJson(settings);
    options.Set("algorithm", algorithm.name);
    options.Set("overflow", OverflowName(settings.overflow));
    out.Set("options", std::move(options));
    out.Set("metrics", PlanMetricsJson(metrics));
    Json rank_json = Json::Array();
    for (const RankLoad& load : loads) {
      Json j = Json::Object();
      j.Set("tokens", load.tokens);
      j.Set("cost", load.cost);
      rank_json.Push(std::move(j));
    }
    out.Set("ranks", std::move(rank_json));
    if (compare) out.Set("comparison", std::move(comparison_json));
    if (show_plan) out.Set("groups", PlanGroupsJson(plan.get(), true));
    Emit(o.output, out.Dump());
    return;
  }
  if (format == Format::kCsv) {
    Emit(o.output, show_plan ? PlanGroupsCsvTable(plan.get(), true).Csv()
                   : compare ? comparison.Csv()
                             : ranks.Csv());
    return;
  }
  std::string text = TableHeader(context);
  text += absl::StrFormat(
      "step plan: %s, %d ranks x %d microbatches of at most %s tokens, slots %s\n\n",
      algorithm.label, metrics.num_ranks, metrics.microbatches_per_rank, Cell(settings.capacity),
      OrderName(settings.ordering));
  text += PlanMetricsTable(metrics, context.spec.unit).Text();
  if (compare) text += "\nevery algorithm on this batch\n" + comparison.Text();
  if (show_plan) {
    text += "\n" + PlanGroupsTable(plan.get(), true).Text();
  } else if (loads.size() <= 64) {
    text += "\nranks\n" + ranks.Text();
  }
  Emit(o.output, text);
}

std::vector<std::string> StepAlgorithmNames() {
  std::vector<std::string> names;
  for (const StepAlgorithm& a : StepAlgorithms()) names.push_back(a.name);
  return names;
}

Runner Define(CLI::App& app) {
  auto o = std::make_shared<PlanOptions>();
  AddRanks(app, o->ranks, "data-parallel ranks (GPUs) sharing the batch");
  AddCapacity(app, o->capacity,
              "the memory cap of one microbatch, in tokens (the planner's "
              "max_tokens_per_microbatch)");
  AddMicrobatches(app, o->microbatches, 0,
                  "microbatches (gradient-accumulation steps) per rank (default: the fewest that "
                  "hold the batch)");
  AddAlgorithm(app, o->algorithm, StepAlgorithmNames(),
               "documents (cost-balanced documents under the cap), random, tokens or sequences");
  app.add_option("--order", o->order,
                 "which microbatch runs in which slot: descending (heaviest first, even per-slot "
                 "cost), light-ends (lightest at both ends), as-planned")
      ->type_name("NAME")
      ->capture_default_str()
      ->check(OneOf({"descending", "light-ends", "as-planned"}));
  AddOverflow(app, o->overflow, {"split", "defer", "error"});
  AddSeed(app, o->seed);
  AddCompareSwitch(app, o->compare);
  AddPlanSwitch(app, o->plan);
  AddInputOptions(app, o->input);
  AddCostOptions(app, o->cost);
  AddOutputOptions(app, o->output);
  return [o](const std::vector<std::string>& args) { Run(*o, args[0]); };
}

}  // namespace

Command PlanCommand() {
  return {"plan",
          "plan one global batch onto ranks x microbatches, balanced by cost",
          "[flags] LENGTHS",
          "Treats LENGTHS as one global batch and plans it with the step planner: --ranks\n"
          "ranks (default 8) x --microbatches microbatches (default: the fewest that hold\n"
          "it) of at most --capacity tokens, so that the slowest rank is as fast as possible.\n"
          "Prints the plan's metrics (rank balance, gap to the lower bound, per-slot balance,\n"
          "fill) and each rank's load; --compare adds every algorithm side by side; --plan\n"
          "prints the microbatches (--csv: group,rank,slot,item,tokens).\n"
          "--algorithm: documents (default: cost-balanced documents under the cap), random\n"
          "(concatenate, cut, deal at random), tokens (balance tokens), sequences (pack, then\n"
          "balance sequences). --overflow: split (default), defer or error.",
          1,
          1,
          Define};
}

}  // namespace flopspack::cli
