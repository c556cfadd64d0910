// flopspack plan: one global batch onto ranks x microbatches with the step
// planner, and (--compare) how each algorithm would do on it.
#include <algorithm>

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "commands.h"
#include "context.h"
#include "flags.h"
#include "output.h"
#include "plan_output.h"
#include "simulate_ranks.h"
#include "status.h"
#include "step_data.h"

ABSL_FLAG(std::string, order, "descending",
          "which microbatch runs in which slot: descending (heaviest first, even per-slot cost), "
          "light-ends (lightest at both ends), as-planned");

ABSL_FLAG(std::string, sync, "step",
          "how the trainer synchronizes, i.e. what the planner balances: step (once per "
          "optimizer step: rank totals) or microbatch (FSDP / ZeRO-3: every slot across ranks)");
ABSL_FLAG(uint64_t, pipeline_stages, 0,
          "pipeline stages per replica (0 or 1 = none, at most 1024): adds the 1F1B makespan, "
          "its efficiency and its gap to the lower bound to the metrics");

namespace flopspack::cli {
namespace {

StepSettings SettingsFromFlags(const Invocation& invocation) {
  NameField("max_tokens_per_microbatch", "--capacity");
  StepSettings s;
  const uint64_t ranks = SingleRankCount(invocation, 8);
  if (ranks > UINT32_MAX) throw UsageError("--ranks: at most 4294967295 ranks");
  s.num_ranks = static_cast<uint32_t>(ranks);
  // Unlike simulate, the planner picks the fewest microbatches that hold the
  // batch unless --microbatches is given.
  const uint64_t microbatches =
      invocation.Given("microbatches") ? absl::GetFlag(FLAGS_microbatches) : 0;
  if (microbatches > UINT32_MAX) throw UsageError("--microbatches: too large");
  s.microbatches = static_cast<uint32_t>(microbatches);
  s.capacity = absl::GetFlag(FLAGS_capacity);
  if (s.capacity <= 0) {
    throw UsageError(
        absl::StrFormat("--capacity=%d: must be a positive number of tokens", s.capacity));
  }
  s.seed = absl::GetFlag(FLAGS_seed);
  const std::string order = absl::GetFlag(FLAGS_order);
  if (order == "descending") {
    s.ordering = FLOPSPACK_SLOT_ORDER_DESCENDING;
  } else if (order == "light-ends") {
    s.ordering = FLOPSPACK_SLOT_ORDER_LIGHT_ENDS;
  } else if (order == "as-planned") {
    s.ordering = FLOPSPACK_SLOT_ORDER_AS_PLANNED;
  } else {
    throw UsageError(
        absl::StrFormat("--order=%s: expected descending, light-ends or as-planned", order));
  }
  s.overflow = ParseOverflow(invocation, "split", {"split", "defer", "error"});
  const std::string sync = absl::GetFlag(FLAGS_sync);
  if (sync == "step") {
    s.sync = FLOPSPACK_SYNC_STEP;
  } else if (sync == "microbatch") {
    s.sync = FLOPSPACK_SYNC_MICROBATCH;
  } else {
    throw UsageError(absl::StrFormat("--sync=%s: expected step or microbatch", sync));
  }
  const uint64_t stages = absl::GetFlag(FLAGS_pipeline_stages);
  if (stages > 1024) {
    throw UsageError(
        absl::StrFormat("--pipeline-stages=%d: at most 1024 stages (0 or 1 = none)", stages));
  }
  s.pipeline_stages = static_cast<uint32_t>(stages);
  return s;
}

void Run(const Invocation& invocation) {
  const Format format = OutputFormat("plan", true);
  const StepSettings settings = SettingsFromFlags(invocation);
  const StepAlgorithm& algorithm = FindStepAlgorithm(
      invocation.Given("algorithm") ? absl::GetFlag(FLAGS_algorithm) : "documents");
  const bool compare = absl::GetFlag(FLAGS_compare);
  const bool show_plan = absl::GetFlag(FLAGS_plan);
  const Context context = LoadContext(invocation, invocation.positional[0]);
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
                    "microbatch sync", "fill", "split", "deferred"});
  Json comparison_json = Json::Array();
  if (compare) {
    for (const StepAlgorithm& a : StepAlgorithms()) {
      const PlanPtr other = PlanStep(context.lengths.values, context.model.get(), a, settings);
      const struct flopspack_plan_metrics m = PlanMetrics(other.get());
      comparison.AddRow({a.label, Percent(m.rank_balance_efficiency, 2), Si(m.max_rank_cost),
                         Percent(m.rank_gap_to_lower_bound, 2), Percent(m.worst_slot_balance, 2),
                         Percent(m.microbatch_sync_efficiency, 2), Percent(m.fill, 2),
                         Cell(static_cast<int64_t>(m.split_items)),
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
    options.Set("sync", settings.sync == FLOPSPACK_SYNC_MICROBATCH ? "microbatch" : "step");
    options.Set("pipeline_stages", static_cast<uint64_t>(settings.pipeline_stages));
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
    Emit(out.Dump());
    return;
  }
  if (format == Format::kCsv) {
    Emit(show_plan ? PlanGroupsCsvTable(plan.get(), true).Csv()
         : compare ? comparison.Csv()
                   : ranks.Csv());
    return;
  }
  std::string text = TableHeader(context);
  text += absl::StrFormat(
      "step plan: %s, %d ranks x %d microbatches of at most %s tokens, slots %s, sync %s%s\n\n",
      algorithm.label, metrics.num_ranks, metrics.microbatches_per_rank, Cell(settings.capacity),
      OrderName(settings.ordering),
      settings.sync == FLOPSPACK_SYNC_MICROBATCH ? "per microbatch" : "per step",
      settings.pipeline_stages >= 2
          ? absl::StrCat(", ", settings.pipeline_stages, "-stage 1F1B pipelines")
          : std::string());
  text += PlanMetricsTable(metrics, context.spec.unit).Text();
  if (compare) text += "\nevery algorithm on this batch\n" + comparison.Text();
  if (show_plan) {
    text += "\n" + PlanGroupsTable(plan.get(), true).Text();
  } else if (loads.size() <= 64) {
    text += "\nranks\n" + ranks.Text();
  }
  Emit(text);
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
          "balance sequences). --overflow: split (default), defer or error.\n"
          "--sync: step (default: the trainer meets once per step, rank totals count) or\n"
          "microbatch (FSDP / ZeRO-3: every slot is balanced across ranks). --pipeline-stages N\n"
          "adds each rank's N-stage 1F1B makespan to the metrics.",
          Concat({{"ranks", "capacity", "microbatches", "algorithm", "order", "overflow", "seed",
                   "sync", "pipeline_stages", "compare", "plan"},
                  InputFlags(),
                  ModelFlags(),
                  OutputFlags()}),
          1,
          1,
          Run};
}

}  // namespace flopspack::cli
