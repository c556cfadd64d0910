// flopspack simulate: the straggler emulator. How much throughput does the
// dataset lose to stragglers and padding at N GPUs, under each policy?
#include <CLI/CLI.hpp>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "commands.h"
#include "context.h"
#include "options.h"
#include "output.h"
#include "resample.h"
#include "simulate_data.h"
#include "simulate_ranks.h"
#include "status.h"

namespace flopspack::cli {
namespace {

struct SimulateOptions {
  std::string ranks = "1024";
  std::string policies = "all";
  SimSettings sim;  // its initial values are the defaults --help shows
  InputOptions input;
  std::string extra_costs;  // --extra-costs FILE
  CostOptions cost;
  OutputOptions output;
};

void CheckSettings(const SimSettings& settings) {
  if (settings.max_tokens_per_microbatch != 0 &&
      settings.max_tokens_per_microbatch < settings.tokens_per_microbatch) {
    throw UsageError(
        absl::StrFormat("--max-tokens=%d: the planner's memory cap per microbatch must be at least "
                        "--capacity=%d (or 0 = --capacity)",
                        settings.max_tokens_per_microbatch, settings.tokens_per_microbatch));
  }
}

// After Ctrl-C: the results so far are printed, then this ends the command.
void EndIfInterrupted(bool interrupted) {
  if (interrupted) {
    throw CliError(kExitInterrupted, "interrupted: the results above are the points finished");
  }
}

void RunOne(const Context& context, const std::vector<SimPolicy>& policies, uint64_t ranks,
            const SimSettings& settings, Format format, const OutputOptions& output) {
  Json results = Json::Array();
  Table t({"<policy", "throughput", "balance mean", "p5", "p50", "p95", "fill", "padding eff",
           "predicted", "step time"});
  bool any_resampled = false, any_missing = false, interrupted = false;
  for (const SimPolicy& policy : policies) {
    const SimPoint point = Simulate(context, policy, ranks, settings);
    const flopspack_simulate_summary& s = point.summary;
    Json r = Json::Object();
    r.Set("policy", policy.name);
    r.Set("label", policy.label);
    const bool ran = point.state == PointState::kRun || point.state == PointState::kResampled;
    r.Set("summary", ran ? SummaryJson(s) : Json());
    r.Set("status", PointStateName(point.state));
    r.Set("documents_needed", point.documents_needed);
    r.Set("pool_documents", point.pool_documents);
    results.Push(std::move(r));
    any_resampled = any_resampled || point.state == PointState::kResampled;
    any_missing = any_missing || point.state == PointState::kNeedsDocuments;
    interrupted = interrupted || point.state == PointState::kInterrupted;
    if (!ran) {
      t.AddRow({policy.label, PointCell(point.state, point.documents_needed, ""), "", "", "", "",
                "", "", "", ""});
      continue;
    }
    t.AddRow({policy.label, PointCell(point.state, 0, Percent(s.relative_throughput, 2)),
              Percent(s.mean_balance_efficiency, 2), Percent(s.p5_balance_efficiency, 2),
              Percent(s.p50_balance_efficiency, 2), Percent(s.p95_balance_efficiency, 2),
              Percent(s.mean_fill, 2), Percent(s.mean_padding_efficiency, 2),
              std::isnan(s.predicted_efficiency) ? "-" : Percent(s.predicted_efficiency, 2),
              Si(s.mean_step_time)});
  }
  if (format == Format::kJson) {
    Json out = Envelope("simulate");
    out.Set("input", InputJson(context));
    out.Set("model", ModelJson(context.spec));
    Json settings_json = SettingsJson(settings);
    settings_json.Set("ranks", ranks);
    out.Set("settings", std::move(settings_json));
    out.Set("results", std::move(results));
    Emit(output, out.Dump());
  } else if (format == Format::kCsv) {
    Emit(output, t.Csv());
  } else {
    Emit(output,
         TableHeader(context) +
             absl::StrFormat("%d ranks x %d microbatches of %s tokens, %d steps, seed %d\n", ranks,
                             settings.microbatches, Cell(settings.tokens_per_microbatch),
                             settings.steps, settings.seed) +
             "assumed: " + TopologyText(settings) + "\n\n" + t.Text() +
             "\nthroughput: useful work / time, relative to a perfectly balanced run without "
             "padding;"
             "\nbalance: mean / max rank cost per step; predicted: order-statistics estimate.\n" +
             ResampleNote(context, any_resampled, any_missing));
  }
  EndIfInterrupted(interrupted);
}

void RunSweep(const Context& context, const std::vector<SimPolicy>& policies,
              const std::vector<uint64_t>& ranks, const SimSettings& settings, Format format,
              const OutputOptions& output) {
  std::vector<SweepResult> sweeps;
  bool any_resampled = false, any_missing = false, interrupted = false;
  for (const SimPolicy& policy : policies) {
    sweeps.push_back(Sweep(context, policy, ranks, settings, absl::StrCat("sweep ", policy.name)));
    for (PointState state : sweeps.back().state) {
      any_resampled = any_resampled || state == PointState::kResampled;
      any_missing = any_missing || state == PointState::kNeedsDocuments;
    }
    interrupted = interrupted || sweeps.back().interrupted;
  }
  std::vector<std::string> columns = {"ranks"};
  for (const SimPolicy& policy : policies) columns.push_back(policy.label);
  Table t(columns);
  for (size_t i = 0; i < ranks.size(); ++i) {
    std::vector<std::string> row = {Cell(static_cast<int64_t>(ranks[i]))};
    for (const SweepResult& sweep : sweeps) {
      row.push_back(PointCell(sweep.state[i], sweep.documents_needed[i],
                              Percent(sweep.relative_throughput[i], 2)));
    }
    t.AddRow(std::move(row));
  }
  if (format == Format::kJson) {
    Json out = Envelope("simulate");
    out.Set("input", InputJson(context));
    out.Set("model", ModelJson(context.spec));
    out.Set("settings", SettingsJson(settings));
    Json sweep = Json::Object();
    sweep.Set("ranks", Json::ArrayOf(ranks));
    Json list = Json::Array();
    for (size_t p = 0; p < policies.size(); ++p) {
      Json j = Json::Object();
      j.Set("policy", policies[p].name);
      j.Set("label", policies[p].label);
      j.Set("sampled_efficiency", Json::ArrayOf(sweeps[p].sampled_efficiency));
      j.Set("predicted_efficiency", Json::ArrayOf(sweeps[p].predicted_efficiency));
      j.Set("relative_throughput", Json::ArrayOf(sweeps[p].relative_throughput));
      j.Set("status", StatusJson(sweeps[p]));
      j.Set("documents_needed", Json::ArrayOf(sweeps[p].documents_needed));
      j.Set("pool_documents", Json::ArrayOf(sweeps[p].pool_documents));
      list.Push(std::move(j));
    }
    sweep.Set("policies", std::move(list));
    out.Set("sweep", std::move(sweep));
    Emit(output, out.Dump());
  } else if (format == Format::kCsv) {
    Emit(output, t.Csv());
  } else {
    Emit(output, TableHeader(context) +
                     absl::StrFormat(
                         "relative throughput by number of ranks (%d microbatches of %s tokens, "
                         "%d steps, seed %d)\n",
                         settings.microbatches, Cell(settings.tokens_per_microbatch),
                         settings.steps, settings.seed) +
                     "assumed: " + TopologyText(settings) + "\n\n" + t.Text() +
                     (any_resampled || any_missing ? "\n" : "") +
                     ResampleNote(context, any_resampled, any_missing));
  }
  EndIfInterrupted(interrupted);
}

void Run(const SimulateOptions& o, const std::string& path) {
  const Format format = OutputFormat(o.output, "simulate", true);
  const std::vector<uint64_t> ranks = ParseRanks(o.ranks);
  const std::vector<SimPolicy> policies = ParsePolicies(o.policies);
  const SimSettings& settings = o.sim;
  CheckSettings(settings);
  Context context = LoadContext(o.input, o.cost, path);
  LoadExtraCosts(context, o.extra_costs);
  InstallInterruptHandler();
  if (ranks.size() == 1) {
    RunOne(context, policies, ranks[0], settings, format, o.output);
  } else {
    RunSweep(context, policies, ranks, settings, format, o.output);
  }
}

Runner DefineSimulate(CLI::App& app) {
  auto o = std::make_shared<SimulateOptions>();
  SimSettings& sim = o->sim;
  AddRanks(app, o->ranks, "data-parallel ranks (GPUs); a comma-separated list sweeps them");
  app.add_option("--policies", o->policies, "comma-separated policies to simulate, or all")
      ->type_name("LIST")
      ->capture_default_str();
  AddSimulationOptions(
      app, sim,
      {"the planner policies' memory cap per microbatch, >= --capacity (default: "
       "0 = --capacity, no slack)",
       "microbatches per rank and optimizer step", "--steps", "optimizer steps to simulate"});
  AddInputOptions(app, o->input);
  AddExtraCostsOption(app, o->extra_costs);
  AddCostOptions(app, o->cost);
  AddOutputOptions(app, o->output);
  AddProgressOption(app);
  return [o](const std::vector<std::string>& args) { Run(*o, args[0]); };
}

}  // namespace

Command SimulateCommand() {
  return {"simulate",
          "predict throughput lost to stragglers and padding at N GPUs, per policy",
          "[flags] LENGTHS",
          "Runs the straggler emulator: samples --steps optimizer steps of --ranks ranks x\n"
          "--microbatches microbatches of --capacity tokens from the dataset under each\n"
          "policy, costs every microbatch with the cost model, and reports the throughput\n"
          "relative to a perfectly balanced, unpadded run, the balance efficiency (mean /\n"
          "max rank cost) and fill. With several --ranks it sweeps them: the curve shows\n"
          "where the tail starts to cost.",
          1,
          1,
          DefineSimulate};
}

}  // namespace flopspack::cli
