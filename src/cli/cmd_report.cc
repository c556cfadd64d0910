// flopspack report: everything about a dataset in one HTML page. The numbers
// are computed here through the library and written to DIR/report.json
// (schema flopspack-cli/1, command "report"); report.py draws the figures
// and the page from that file (renderer.h).
#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "buckets_data.h"
#include "commands.h"
#include "context.h"
#include "flags.h"
#include "output.h"
#include "plan_output.h"
#include "progress.h"
#include "renderer.h"
#include "simulate_data.h"
#include "simulate_ranks.h"
#include "stats_data.h"
#include "status.h"
#include "step_data.h"

ABSL_FLAG(std::string, out, "", "directory for index.html, the figures and report.json");
ABSL_FLAG(uint64_t, report_steps, 30, "optimizer steps simulated per point of the rank sweep");

namespace flopspack::cli {
namespace {

constexpr uint32_t kStepRanks = 64;
constexpr uint32_t kStepMicrobatches = 4;
constexpr int64_t kReportCapacity = 16384;
const std::vector<uint64_t> kSweepRanks = {64, 128, 256, 512, 1024, 2048, 4096, 8192};

void MakeDirectories(const std::string& path) {
  for (size_t slash = path.find('/', 1);; slash = path.find('/', slash + 1)) {
    const std::string prefix = slash == std::string::npos ? path : path.substr(0, slash);
    if (!prefix.empty() && mkdir(prefix.c_str(), 0777) != 0 && errno != EEXIST) {
      throw InputError(
          absl::StrFormat("--out=%s: cannot create %s: %s", path, prefix, std::strerror(errno)));
    }
    if (slash == std::string::npos) break;
  }
}

void WriteFile(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (!out) {
    throw InputError(absl::StrFormat("cannot write %s: %s", path, std::strerror(errno)));
  }
}

// The policy with the highest throughput at the largest rank count, and its
// gain over random dealing (what most pipelines do).
struct Choice {
  size_t best = 0, baseline = 0;
  double gain = 0;
};

Choice Choose(const std::vector<SimPolicy>& policies, const std::vector<SweepResult>& sweeps) {
  Choice c;
  for (size_t p = 0; p < policies.size(); ++p) {
    if (std::string(policies[p].name) == "random") c.baseline = p;
    if (sweeps[p].relative_throughput.back() > sweeps[c.best].relative_throughput.back()) {
      c.best = p;
    }
  }
  c.gain =
      sweeps[c.best].relative_throughput.back() / sweeps[c.baseline].relative_throughput.back() - 1;
  return c;
}

std::string RecommendationText(const std::vector<SimPolicy>& policies,
                               const std::vector<SweepResult>& sweeps,
                               const std::vector<uint64_t>& ranks) {
  const Choice c = Choose(policies, sweeps);
  const uint64_t at = ranks.back();
  std::string text = absl::StrFormat(
      "use %s: at %s GPUs it keeps %s of the ideal throughput, against %s with %s",
      policies[c.best].label, Cell(static_cast<int64_t>(at)),
      Percent(sweeps[c.best].relative_throughput.back(), 1),
      Percent(sweeps[c.baseline].relative_throughput.back(), 1), policies[c.baseline].label);
  if (c.best != c.baseline) {
    absl::StrAppend(
        &text,
        absl::StrFormat(": %s more throughput, the work of about %s GPUs", Percent(c.gain, 1),
                        Cell(static_cast<int64_t>(double(at) * c.gain / (1 + c.gain) + 0.5))));
  }
  return text + ".";
}

Json Recommend(const std::vector<SimPolicy>& policies, const std::vector<SweepResult>& sweeps,
               const std::vector<uint64_t>& ranks) {
  const Choice c = Choose(policies, sweeps);
  Json out = Json::Object();
  out.Set("policy", policies[c.best].name);
  out.Set("label", policies[c.best].label);
  out.Set("ranks", ranks.back());
  out.Set("relative_throughput", sweeps[c.best].relative_throughput.back());
  out.Set("baseline", policies[c.baseline].name);
  out.Set("baseline_relative_throughput", sweeps[c.baseline].relative_throughput.back());
  out.Set("expected_gain", c.gain);
  std::string text = RecommendationText(policies, sweeps, ranks);
  text[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(text[0])));
  out.Set("text", text);
  out.Set(
      "details",
      absl::StrFormat(
          "The recommended policy has the highest simulated throughput at the largest rank count "
          "of the sweep (%s GPUs); the gain is its throughput over random dealing's, minus one, "
          "and the GPU figure is the share of the cluster that gain frees: ranks x gain / (1 + "
          "gain). Each figure comes from the straggler emulator on this dataset with this cost "
          "model; see the sweep table for every scale.",
          Cell(static_cast<int64_t>(ranks.back()))));
  return out;
}

void Run(const Invocation& invocation) {
  std::string dir = absl::GetFlag(FLAGS_out);
  if (dir.empty()) throw UsageError("--out=DIR is required: where to write the report");
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  const Context context = LoadContext(invocation, invocation.positional[0]);
  MakeDirectories(dir);

  // The training setup the report assumes (docs/cli.md, "report").
  SimSettings sim;
  sim.microbatches = invocation.Given("microbatches") ? absl::GetFlag(FLAGS_microbatches) : 4;
  sim.tokens_per_microbatch =
      invocation.Given("capacity") ? absl::GetFlag(FLAGS_capacity) : kReportCapacity;
  sim.max_tokens_per_microbatch = invocation.Given("max_tokens")
                                      ? absl::GetFlag(FLAGS_max_tokens)
                                      : sim.tokens_per_microbatch + sim.tokens_per_microbatch / 4;
  sim.steps = absl::GetFlag(FLAGS_report_steps);
  sim.seed = absl::GetFlag(FLAGS_seed);
  if (sim.microbatches == 0 || sim.steps == 0 || sim.tokens_per_microbatch <= 0) {
    throw UsageError("--microbatches, --report-steps and --capacity must be positive");
  }
  const std::vector<uint64_t> ranks =
      invocation.Given("ranks") ? RankCounts(invocation, 0) : kSweepRanks;
  const std::vector<SimPolicy> policies = ParsePolicies("random,token-balanced,buckets,planner");

  Progress progress("report", 2 + 8 + 2 + policies.size());
  Json doc = Envelope("report");
  doc.Set("input", InputJson(context));
  doc.Set("model", ModelJson(context.spec));

  const int64_t longest =
      *std::max_element(context.lengths.values.begin(), context.lengths.values.end());
  // Costs as trained: a document longer than a microbatch is costed as the
  // pieces of --capacity tokens it is trained in (the emulator's figures
  // below cost microbatch pieces already).
  const StatsPtr stats = MakeStats(context, sim.tokens_per_microbatch);
  Json stats_json = Json::Object();
  DatasetStatsJson(
      ComputeDatasetStats(stats.get(), false, 0, {4096, 8192, 16384, 32768, 65536, 131072},
                          sim.tokens_per_microbatch),
      stats_json);
  doc.Set("stats", std::move(stats_json));
  progress.Advance();

  // Padded policies: the bucket sampler from one bucket (a random shuffle
  // into padded batches) to many.
  {
    BucketSettings settings;
    settings.seed = absl::GetFlag(FLAGS_seed);
    settings.max_padded_tokens = std::max<int64_t>(settings.max_padded_tokens, 2 * longest);
    Json points = Json::Array();
    for (uint32_t k : {1u, 2u, 4u, 8u, 16u, 32u, 64u, 128u}) {
      settings.num_buckets = k;
      const TradeoffPoint p = Tradeoff(context, settings, 0);
      Json j = Json::Object();
      j.Set("policy", absl::StrCat("buckets-", k));
      j.Set("label",
            k == 1 ? std::string("random shuffle (1 bucket)") : absl::StrCat(k, " length buckets"));
      j.Set("short_label", k == 1 ? std::string("1 bucket (random)") : absl::StrCat(k, " buckets"));
      j.Set("num_buckets", static_cast<uint64_t>(k));
      j.Set("padding_efficiency", p.padding_efficiency);
      j.Set("diversity_distance", p.diversity_distance);
      j.Set("diversity_distance_samples", p.diversity_distance_samples);
      j.Set("balance_efficiency", p.balance_efficiency);
      points.Push(std::move(j));
      progress.Advance();
    }
    Json padding = Json::Object();
    padding.Set("settings", BucketSettingsJson(settings));
    padding.Set("points", std::move(points));
    padding.Set(
        "note",
        absl::StrFormat(
            "Bucket sampler, epoch 0: batches of at most %s padded tokens, %d ranks; the "
            "diversity distance is the token-weighted KS distance of each step's lengths to the "
            "dataset's, averaged over steps.",
            Cell(settings.max_padded_tokens), settings.num_ranks));
    doc.Set("padding", std::move(padding));
  }

  // One step, rank by rank: a global batch from the head of the file (the
  // dataset's order is taken as the pipeline's), under random dealing and
  // under the planner.
  {
    StepSettings settings;
    settings.num_ranks = kStepRanks;
    settings.microbatches = kStepMicrobatches;
    settings.capacity = sim.max_tokens_per_microbatch;
    settings.seed = absl::GetFlag(FLAGS_seed);
    const double budget =
        double(kStepRanks) * kStepMicrobatches * double(sim.tokens_per_microbatch);
    std::vector<int64_t> batch;
    int64_t tokens = 0;
    for (int64_t length : context.lengths.values) {
      if (!batch.empty() && double(tokens + length) > budget) break;
      batch.push_back(length);
      tokens += length;
    }
    Json step_policies = Json::Array();
    for (const char* name : {"random", "documents"}) {
      const StepAlgorithm& algorithm = FindStepAlgorithm(name);
      const PlanPtr plan = PlanStep(batch, context.model.get(), algorithm, settings);
      const struct flopspack_plan_metrics m = PlanMetrics(plan.get());
      std::vector<double> costs;
      for (const RankLoad& load : RankLoads(plan.get(), m.num_ranks)) costs.push_back(load.cost);
      Json j = Json::Object();
      j.Set("policy", algorithm.name);
      j.Set("label", algorithm.label);
      j.Set("rank_costs", Json::ArrayOf(costs));
      j.Set("max_over_mean", m.max_rank_cost / m.mean_rank_cost);
      j.Set("metrics", PlanMetricsJson(m));
      step_policies.Push(std::move(j));
      progress.Advance();
    }
    Json step = Json::Object();
    step.Set("ranks", static_cast<uint64_t>(kStepRanks));
    step.Set("settings", StepSettingsJson(settings));
    step.Set("documents", static_cast<uint64_t>(batch.size()));
    step.Set("tokens", tokens);
    step.Set("policies", std::move(step_policies));
    step.Set(
        "note",
        absl::StrFormat(
            "One global batch: the first %s documents of the file (%s tokens, at most %d ranks x "
            "%d "
            "microbatches x %s tokens), planned by flopspack_plan_step with a cap of %s tokens per "
            "microbatch.",
            Cell(static_cast<int64_t>(batch.size())), Cell(tokens), kStepRanks, kStepMicrobatches,
            Cell(sim.tokens_per_microbatch), Cell(settings.capacity)));
    doc.Set("step", std::move(step));
  }

  // Balance and throughput versus GPUs: the straggler emulator's sweep.
  Json sweep_policies = Json::Array();
  std::vector<SweepResult> sweeps;
  for (const SimPolicy& policy : policies) {
    sweeps.push_back(Sweep(context, policy, ranks, sim, ""));
    Json j = Json::Object();
    j.Set("policy", policy.name);
    j.Set("label", policy.label);
    j.Set("balance_efficiency", Json::ArrayOf(sweeps.back().sampled_efficiency));
    j.Set("relative_throughput", Json::ArrayOf(sweeps.back().relative_throughput));
    j.Set("predicted_efficiency", Json::ArrayOf(sweeps.back().predicted_efficiency));
    sweep_policies.Push(std::move(j));
    progress.Advance();
  }
  Json sweep = Json::Object();
  sweep.Set("ranks", Json::ArrayOf(ranks));
  sweep.Set("settings", SettingsJson(sim));
  sweep.Set("policies", std::move(sweep_policies));
  sweep.Set(
      "note",
      absl::StrFormat(
          "flopspack_simulate_sweep: %d steps per point, each rank %d microbatches of %s tokens "
          "(planner cap %s tokens per microbatch), seed %d. Throughput is useful work / time "
          "relative "
          "to a perfectly balanced run without padding, so it also charges the bucket sampler's "
          "padding.",
          sim.steps, sim.microbatches, Cell(sim.tokens_per_microbatch),
          Cell(sim.max_tokens_per_microbatch), sim.seed));
  doc.Set("sweep", std::move(sweep));
  Json recommendation = Recommend(policies, sweeps, ranks);
  const std::string recommendation_text = RecommendationText(policies, sweeps, ranks);
  doc.Set("recommendation", std::move(recommendation));

  const std::string json_path = dir + "/report.json";
  WriteFile(json_path, doc.Dump());
  RunRenderer(json_path, dir);
  progress.Advance();
  Emit(absl::StrCat("recommendation: ", recommendation_text, "\nreport: ", dir, "/index.html\n"));
}

}  // namespace

Command ReportCommand() {
  return {
      "report",
      "an HTML page with plots: distribution, tail, balance, padding, a recommendation",
      "[flags] LENGTHS --out DIR",
      "Everything about a dataset in one page: the length distribution by documents,\n"
      "tokens and cost; the tail; balance and throughput versus number of GPUs for random\n"
      "dealing, token balancing, the bucket sampler and the flopspack planner (the\n"
      "straggler emulator, --report-steps steps per point); one step rank by rank;\n"
      "padding versus step diversity for padded batches; and a recommendation.\n"
      "The training setup it assumes, unless given: --ranks 64,128,...,8192, each rank\n"
      "--microbatches 4 of --capacity 16384 tokens, planner cap --max-tokens 1.25 x\n"
      "capacity. Numbers go to DIR/report.json; report.py (matplotlib) draws\n"
      "DIR/index.html and its SVG figures (FLOPSPACK_PYTHON, FLOPSPACK_REPORT_SCRIPT:\n"
      "docs/cli.md). Prints the recommendation and the page's path.",
      Concat({{"out", "ranks", "capacity", "max_tokens", "microbatches", "report_steps", "seed"},
              InputFlags(),
              ModelFlags(),
              {"output", "progress"}}),
      1,
      1,
      Run};
}

}  // namespace flopspack::cli
