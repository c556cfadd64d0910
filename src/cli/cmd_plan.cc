// flopspack plan: one global batch onto ranks x microbatches with the step
// planner, and (--compare) how each algorithm would do on it.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "commands.h"
#include "context.h"
#include "handles.h"
#include "json.h"
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
  uint64_t cp = 0;                       // context-parallel size; 0 = no context parallelism
  std::optional<std::string> cp_layout;  // unset: adaptive
  std::string sync = "step";
  uint64_t pipeline_stages = 0;  // 0 or 1 = no pipeline
  InputOptions input;
  CostOptions cost;
  OutputOptions output;
};

struct CpLayoutName {
  const char* name;
  int value;
};
constexpr CpLayoutName kCpLayouts[] = {{"sequence", FLOPSPACK_CP_SEQUENCE_HEAD_TAIL},
                                       {"document", FLOPSPACK_CP_DOCUMENT_HEAD_TAIL},
                                       {"adaptive", FLOPSPACK_CP_ADAPTIVE}};

int CpLayoutValue(const std::string& name) {
  for (const CpLayoutName& l : kCpLayouts) {
    if (name == l.name) return l.value;
  }
  return FLOPSPACK_CP_ADAPTIVE;  // the --cp-layout validator admits only the names above
}

// The plan's microbatches sharded over `cp` CP ranks under every layout
// (the chosen one first): the CP-rank balance each gives.
struct CpResult {
  const char* layout;
  flopspack_cp_metrics metrics;
};

std::vector<CpResult> ShardEveryLayout(const flopspack_plan* plan,
                                       const flopspack_cost_model* model, uint64_t cp, int chosen) {
  CostModelPtr tokens;
  if (model == nullptr) {
    flopspack_cost_model* m = nullptr;
    Check(flopspack_cost_model_tokens(&m), "making the tokens model");
    tokens.reset(m);
    model = m;
  }
  std::vector<CpResult> out;
  for (int pass = 0; pass < 2; ++pass) {
    for (const CpLayoutName& l : kCpLayouts) {
      if ((pass == 0) != (l.value == chosen)) continue;
      flopspack_cp_shard* raw = nullptr;
      Check(flopspack_plan_shard_context_parallel(plan, model, cp, l.value, &raw),
            "sharding over the CP ranks");
      const CpShardPtr shard(raw);
      CpResult r{l.name, {}};
      r.metrics.struct_size = sizeof(r.metrics);
      Check(flopspack_cp_shard_metrics(shard.get(), &r.metrics), "reading the CP metrics");
      out.push_back(r);
    }
  }
  return out;
}

Json CpMetricsJson(const flopspack_cp_metrics& m) {
  Json j = Json::Object();
  j.Set("context_parallel_size", static_cast<int64_t>(m.context_parallel_size));
  j.Set("num_chunks", static_cast<int64_t>(m.num_chunks));
  j.Set("balance_efficiency", m.balance_efficiency);
  j.Set("worst_balance", m.worst_balance);
  j.Set("max_cp_rank_cost", m.max_cp_rank_cost);
  j.Set("mean_cp_rank_cost", m.mean_cp_rank_cost);
  j.Set("kv_tokens", m.kv_tokens);
  j.Set("sequence_layout_groups", static_cast<int64_t>(m.sequence_layout_groups));
  j.Set("document_layout_groups", static_cast<int64_t>(m.document_layout_groups));
  return j;
}

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
  s.sync = SyncValue(o.sync);
  s.pipeline_stages = static_cast<uint32_t>(o.pipeline_stages);
  // --cp plans with context parallelism: --capacity stays per GPU, a
  // microbatch holds --cp x --capacity tokens and costs its slowest CP rank.
  if (o.cp > 65536) throw UsageError(absl::StrFormat("--cp=%d: at most 65536 CP ranks", o.cp));
  s.context_parallel_size = static_cast<uint32_t>(o.cp);
  s.context_parallel_layout = CpLayoutValue(o.cp_layout.value_or("adaptive"));
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

  const uint64_t cp = o.cp;
  const int cp_layout = settings.context_parallel_layout;
  if (cp == 0 && o.cp_layout) {
    throw UsageError("--cp-layout needs --cp (the context-parallel size)");
  }

  const PlanPtr plan = PlanStep(context.lengths.values, context.model.get(), algorithm, settings);
  const struct flopspack_plan_metrics metrics = PlanMetrics(plan.get());
  const std::vector<CpResult> cp_results =
      cp > 0 ? ShardEveryLayout(plan.get(), context.model.get(), cp, cp_layout)
             : std::vector<CpResult>{};
  Table cp_table(
      {"<CP layout", "CP-rank balance", "worst microbatch", "KV tokens / CP rank", "per-document"});
  Json cp_json = Json::Array();
  for (const CpResult& r : cp_results) {
    const flopspack_cp_metrics& m = r.metrics;
    const double slots = static_cast<double>(m.num_groups) * static_cast<double>(cp);
    cp_table.AddRow(
        {absl::StrCat(r.layout, &r == &cp_results[0] ? " (chosen)" : ""),
         Percent(m.balance_efficiency, 3), Percent(m.worst_balance, 3),
         slots > 0 ? absl::StrFormat("%.1f", static_cast<double>(m.kv_tokens) / slots) : "-",
         absl::StrFormat("%d of %d", m.document_layout_groups, m.num_groups)});
    Json j = CpMetricsJson(m);
    j.Set("layout", r.layout);
    cp_json.Push(std::move(j));
  }
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
    if (cp > 0) options.Set("context_parallel_size", cp);
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
    if (cp > 0) out.Set("context_parallel", std::move(cp_json));
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
      "step plan: %s, %d ranks x %d microbatches of at most %s tokens, slots %s, sync %s%s\n\n",
      algorithm.label, metrics.num_ranks, metrics.microbatches_per_rank, Cell(settings.capacity),
      OrderName(settings.ordering),
      settings.sync == FLOPSPACK_SYNC_MICROBATCH ? "per microbatch" : "per step",
      settings.pipeline_stages >= 2
          ? absl::StrCat(", ", settings.pipeline_stages, "-stage 1F1B pipelines")
          : std::string());
  text += PlanMetricsTable(metrics, context.spec.unit).Text();
  if (compare) text += "\nevery algorithm on this batch\n" + comparison.Text();
  if (cp > 0) {
    text += absl::StrFormat(
        "\ncontext parallelism: planned for CP groups of %d GPUs (a microbatch holds up to %s "
        "tokens and costs its slowest CP rank); the plan sharded under each layout (CP-rank "
        "balance = sum of mean / sum of max CP-rank cost)\n",
        cp, Cell(settings.capacity * static_cast<int64_t>(cp)));
    text += cp_table.Text();
  }
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

Runner DefinePlan(CLI::App& app) {
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
  AddSyncOptions(app, o->sync, o->pipeline_stages,
                 "how the trainer synchronizes, i.e. what the planner balances: step (once per "
                 "optimizer step: rank totals) or microbatch (FSDP / ZeRO-3: every slot across "
                 "ranks)",
                 "pipeline stages per replica (0 or 1 = none, at most 1024): adds the 1F1B "
                 "makespan, its efficiency and its gap to the lower bound to the metrics");
  AddCompareSwitch(app, o->compare);
  AddPlanSwitch(app, o->plan);
  app.add_option("--cp", o->cp,
                 "context-parallel size: shard every microbatch over this many CP ranks and print "
                 "the CP-rank balance (default: 0 = no context parallelism)");
  app.add_option("--cp-layout", o->cp_layout,
                 "with --cp: sequence (head-tail of the packed sequence), document (head-tail of "
                 "every document) or adaptive (per microbatch, the lower maximum CP-rank cost) "
                 "(default: adaptive)")
      ->type_name("NAME")
      ->check(OneOf({"sequence", "document", "adaptive"}));
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
          "balance sequences). --overflow: split (default), defer or error.\n"
          "--sync: step (default: the trainer meets once per step, rank totals count) or\n"
          "microbatch (FSDP / ZeRO-3: every slot is balanced across ranks). --pipeline-stages N\n"
          "adds each rank's N-stage 1F1B makespan to the metrics.\n"
          "--cp C shards every microbatch over a context-parallel group of C GPUs and prints\n"
          "the CP-rank balance under each layout (--cp-layout: sequence, document or adaptive,\n"
          "the default, listed first; JSON: context_parallel).",
          1,
          1,
          DefinePlan};
}

}  // namespace flopspack::cli
