// flopspack report: everything about a dataset in one HTML page. The numbers
// are computed here through the library and written to DIR/report.json
// (schema flopspack-cli/1, command "report"); report.py draws the figures
// and the page from that file (renderer.h).
#include <sys/stat.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "buckets_data.h"
#include "commands.h"
#include "context.h"
#include "options.h"
#include "output.h"
#include "plan_output.h"
#include "progress.h"
#include "renderer.h"
#include "resample.h"
#include "simulate_data.h"
#include "simulate_ranks.h"
#include "stats_data.h"
#include "status.h"
#include "step_data.h"

namespace flopspack::cli {
namespace {

// The training setup the report assumes unless told (docs/cli.md, "report").
struct ReportOptions {
  std::string out;
  std::string ranks = "64,128,256,512,1024,2048,4096,8192";
  std::string decide_at = "1024,8192";
  double min_gain = 0.5;  // percent
  SimSettings sim = [] {
    SimSettings s;
    s.microbatches = 4;
    s.tokens_per_microbatch = 16384;
    s.max_tokens_per_microbatch = 0;  // 0 = --capacity: every policy the same memory
    s.steps = 30;
    return s;
  }();
  InputOptions input;
  std::string extra_costs;  // --extra-costs FILE
  CostOptions cost;
  OutputOptions output;
};

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

// GPUs of `ranks` data-parallel ranks: with --cp C each rank is a group of
// C GPUs, so ranks x C.
uint64_t GpusPerRank(const SimSettings& sim) { return sim.cp >= 2 ? sim.cp : 1; }
std::string Gpus(uint64_t ranks, const SimSettings& sim) {
  return Cell(static_cast<int64_t>(ranks * GpusPerRank(sim)));
}

// The recommendation: the throughput each policy loses at the GPU counts of
// interest (--decide-at), whether the best one's gain over random dealing
// (what most pipelines do) is worth a change (--min-gain), the assumptions,
// and the setting to use.
struct Decision {
  size_t baseline = 0, best = 0;
  uint64_t at = 0;  // the GPU count the decision is made at (the largest of interest)
  double gain = 0;  // best / baseline - 1 at `at`
  bool change = false;
  std::string text, details, setting, python;
  std::string headline, scale, assumed;  // the text's parts, for the page
};

double At(const SweepResult& sweep, const std::vector<uint64_t>& ranks, uint64_t count) {
  for (size_t i = 0; i < ranks.size(); ++i) {
    if (ranks[i] == count) return sweep.relative_throughput[i];
  }
  return std::numeric_limits<double>::quiet_NaN();
}

std::string Loss(double throughput) {
  return std::isnan(throughput) ? std::string("n/a") : Percent(1 - throughput, 1);
}

Decision Decide(const std::vector<SimPolicy>& policies, const std::vector<SweepResult>& sweeps,
                const std::vector<uint64_t>& ranks, const std::vector<uint64_t>& decide_at,
                double min_gain, const SimSettings& sim) {
  Decision d;
  for (size_t p = 0; p < policies.size(); ++p) {
    if (std::string(policies[p].name) == "random") d.baseline = p;
  }
  d.at = decide_at.back();
  d.best = d.baseline;
  for (size_t p = 0; p < policies.size(); ++p) {
    const double v = At(sweeps[p], ranks, d.at);
    if (!std::isnan(v) &&
        (std::isnan(At(sweeps[d.best], ranks, d.at)) || v > At(sweeps[d.best], ranks, d.at))) {
      d.best = p;
    }
  }
  const double base = At(sweeps[d.baseline], ranks, d.at);
  d.gain = At(sweeps[d.best], ranks, d.at) / base - 1;
  if (std::isnan(d.gain)) d.gain = 0;
  d.change = d.best != d.baseline && d.gain >= min_gain;

  // 1. The throughput lost at each GPU count of interest, per policy.
  std::string losses;
  for (uint64_t count : decide_at) {
    std::vector<std::string> parts;
    for (size_t p = 0; p < policies.size(); ++p) {
      parts.push_back(
          absl::StrFormat("%s %s", policies[p].label, Loss(At(sweeps[p], ranks, count))));
    }
    absl::StrAppend(&losses, absl::StrFormat("At %s GPUs the throughput lost is: %s. ",
                                             Gpus(count, sim), absl::StrJoin(parts, ", ")));
  }
  // 2. How the loss changes between the smallest and the largest count.
  std::string scale;
  if (decide_at.size() > 1) {
    const double a = At(sweeps[d.baseline], ranks, decide_at.front());
    const double b = At(sweeps[d.baseline], ranks, decide_at.back());
    if (!std::isnan(a) && !std::isnan(b)) {
      const double delta = (1 - b) - (1 - a);
      scale =
          std::abs(delta) < min_gain
              ? absl::StrFormat(
                    "%s loses about the same at %s and at %s GPUs (%s and %s): the tail costs "
                    "no more at the larger scale. ",
                    policies[d.baseline].label, Gpus(decide_at.front(), sim),
                    Gpus(decide_at.back(), sim), Loss(a), Loss(b))
              : absl::StrFormat("%s loses %s at %s GPUs and %s at %s: %s %s points. ",
                                policies[d.baseline].label, Loss(a), Gpus(decide_at.front(), sim),
                                Loss(b), Gpus(decide_at.back(), sim),
                                delta > 0 ? "the loss grows by" : "the loss shrinks by",
                                absl::StrFormat("%.1f", 100 * std::abs(delta)));
    }
  }
  // 3. The decision.
  std::string decision;
  if (d.change) {
    decision = absl::StrFormat(
        "Use %s: %s more throughput than %s at %s GPUs, the work of about %s GPUs. ",
        policies[d.best].label, Percent(d.gain, 1), policies[d.baseline].label, Gpus(d.at, sim),
        Gpus(static_cast<uint64_t>(double(d.at) * d.gain / (1 + d.gain) + 0.5), sim));
  } else {
    decision = absl::StrFormat(
        "No change needed: no policy gains %s or more (--min-gain) over %s at %s GPUs%s. ",
        Percent(min_gain, 1), policies[d.baseline].label, Gpus(d.at, sim),
        d.best != d.baseline ? absl::StrFormat(" (the best, %s, gains %s)", policies[d.best].label,
                                               Percent(d.gain, 1))
                             : "");
  }
  // 4. The assumptions.
  const int64_t cap = sim.tokens_per_microbatch;
  const int64_t max = sim.max_tokens_per_microbatch;
  std::string memory =
      max == cap || max == 0
          ? absl::StrFormat(
                "every policy gets the same memory, %s tokens per microbatch (no "
                "slack; --max-tokens gives the planner more)",
                Cell(cap))
          : absl::StrFormat(
                "the planner may fill a microbatch up to %s tokens (--max-tokens: %.2fx memory "
                "slack) while the other policies get %s",
                Cell(max), double(max) / double(cap), Cell(cap));
  const std::string assumed = absl::StrFormat(
      "Assumed: each GPU runs %d microbatches of %s tokens per optimizer step; %s (--sync, "
      "--pipeline-stages); %s%s. ",
      sim.microbatches, Cell(cap), TopologyText(sim), memory,
      sim.cp >= 2 ? absl::StrFormat("; GPU counts are data-parallel ranks (--ranks, --decide-at) "
                                    "x %d (--cp)",
                                    sim.cp)
                  : "");
  // 5. The setting.
  const std::string name = policies[d.change ? d.best : d.baseline].name;
  const int64_t memory_cap = max == 0 ? cap : max;
  if (!d.change) {
    d.setting = "keep the current pipeline";
    d.python = "";
  } else if (name == "planner" || name == "token-balanced") {
    const char* algorithm = name == "planner" ? "documents" : "tokens";
    // The planner plans for the topology the figures assumed.
    std::string topology_flags, topology_kwargs;
    if (sim.sync == "microbatch") {
      topology_flags += " --sync microbatch";
      topology_kwargs += ", sync=flopspack.Sync.MICROBATCH";
    }
    if (sim.pipeline_stages >= 2) {
      topology_flags += absl::StrFormat(" --pipeline-stages %d", sim.pipeline_stages);
      topology_kwargs += absl::StrFormat(", pipeline_stages=%d", sim.pipeline_stages);
    }
    if (sim.cp >= 2) {
      topology_flags += absl::StrFormat(" --cp %d --cp-layout %s", sim.cp, sim.cp_layout);
      topology_kwargs += absl::StrFormat(
          ", context_parallel_size=%d, context_parallel_layout=flopspack.CpLayout.%s", sim.cp,
          sim.cp_layout == "sequence"   ? "SEQUENCE_HEAD_TAIL"
          : sim.cp_layout == "adaptive" ? "ADAPTIVE"
                                        : "DOCUMENT_HEAD_TAIL");
    }
    d.setting = absl::StrFormat(
        "flopspack plan BATCH --ranks %d --microbatches %d --capacity %d --algorithm %s%s", d.at,
        sim.microbatches, memory_cap, algorithm, topology_flags);
    d.python = absl::StrFormat(
        "flopspack.plan_step(lengths, model, num_ranks=%d, microbatches_per_rank=%d, "
        "max_tokens_per_microbatch=%d, algorithm=flopspack.StepAlgorithm.%s%s)",
        d.at, sim.microbatches, memory_cap, name == "planner" ? "DOCUMENTS" : "TOKENS",
        topology_kwargs);
  } else if (name == "buckets") {
    d.setting = absl::StrFormat(
        "flopspack buckets LENGTHS --max-padded-tokens %d --ranks %d --microbatches %d", cap, d.at,
        sim.microbatches);
    d.python = absl::StrFormat(
        "flopspack.BucketSampler(lengths, max_padded_tokens=%d, num_ranks=%d, "
        "accumulation_steps=%d)",
        cap, d.at, sim.microbatches);
  } else {
    d.setting = "keep the current pipeline";
  }
  if (!scale.empty())
    scale[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(scale[0])));
  d.headline = decision;
  d.scale = scale;
  d.assumed = assumed;
  d.text = decision + losses + scale + assumed + "Setting: " + d.setting +
           (d.python.empty() ? "" : "; in Python: " + d.python) + ".";
  d.details = absl::StrFormat(
      "Each figure comes from the straggler emulator on this dataset with this cost model (the "
      "sweep below). The throughput lost is 1 - the throughput relative to a perfectly "
      "balanced, unpadded run. The decision compares the best policy with random dealing at "
      "the largest GPU count of interest (--decide-at); below --min-gain = %s the change is not "
      "worth making. The GPU figure is the share of the cluster the gain frees: GPUs x gain / "
      "(1 + gain).",
      Percent(min_gain, 1));
  return d;
}

Json DecisionJson(const Decision& d, const std::vector<SimPolicy>& policies,
                  const std::vector<SweepResult>& sweeps, const std::vector<uint64_t>& ranks,
                  const std::vector<uint64_t>& decide_at, double min_gain) {
  Json out = Json::Object();
  out.Set("policy", policies[d.change ? d.best : d.baseline].name);
  out.Set("label", policies[d.change ? d.best : d.baseline].label);
  out.Set("ranks", d.at);
  out.Set("relative_throughput", At(sweeps[d.best], ranks, d.at));
  out.Set("baseline", policies[d.baseline].name);
  out.Set("baseline_relative_throughput", At(sweeps[d.baseline], ranks, d.at));
  out.Set("expected_gain", d.gain);
  out.Set("change_needed", d.change);
  out.Set("min_gain", min_gain);
  out.Set("decide_at", Json::ArrayOf(decide_at));
  Json losses = Json::Array();
  for (size_t p = 0; p < policies.size(); ++p) {
    Json j = Json::Object();
    j.Set("policy", policies[p].name);
    std::vector<double> lost;
    for (uint64_t count : decide_at) lost.push_back(1 - At(sweeps[p], ranks, count));
    j.Set("throughput_lost", Json::ArrayOf(lost));
    losses.Push(std::move(j));
  }
  out.Set("losses", std::move(losses));
  out.Set("setting", d.setting);
  out.Set("python", d.python);
  out.Set("text", d.text);
  out.Set("headline", d.headline);
  out.Set("scale", d.scale);
  out.Set("assumed", d.assumed);
  out.Set("details", d.details);
  return out;
}

void Run(const ReportOptions& o, const std::string& path) {
  std::string dir = o.out;
  if (dir.empty()) throw UsageError("--out=DIR is required: where to write the report");
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  const std::vector<uint64_t> decide_at = [&] {
    std::vector<uint64_t> v = ParseRankList("--decide-at", o.decide_at);
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
    return v;
  }();
  const double min_gain = o.min_gain / 100;

  SimSettings sim = o.sim;
  // Every policy gets the same memory unless --max-tokens grants the planner
  // slack (the page then says so).
  if (sim.max_tokens_per_microbatch == 0) {
    sim.max_tokens_per_microbatch = sim.tokens_per_microbatch;
  }
  if (sim.max_tokens_per_microbatch < sim.tokens_per_microbatch) {
    throw UsageError(absl::StrFormat("--max-tokens=%d: must be at least --capacity=%d",
                                     sim.max_tokens_per_microbatch, sim.tokens_per_microbatch));
  }
  std::vector<uint64_t> ranks = ParseRanks(o.ranks);
  // The counts the recommendation answers for are always in the sweep.
  for (uint64_t c : decide_at) {
    if (std::find(ranks.begin(), ranks.end(), c) == ranks.end()) ranks.push_back(c);
  }
  std::sort(ranks.begin(), ranks.end());
  ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
  // The bucket sampler's padded batches have no CP layout: left out with --cp.
  const std::vector<SimPolicy> policies = ParsePolicies(
      o.sim.cp >= 2 ? "random,token-balanced,planner" : "random,token-balanced,buckets,planner");
  Context context = LoadContext(o.input, o.cost, path);
  LoadExtraCosts(context, o.extra_costs);
  MakeDirectories(dir);
  InstallInterruptHandler();

  Progress progress("report", 2 + 8 + 2 + policies.size());
  Json doc = Envelope("report");
  doc.Set("input", InputJson(context));
  doc.Set("model", ModelJson(context.spec));
  // GPUs per data-parallel rank (--cp, else 1): the page's GPU counts are
  // ranks x this.
  doc.Set("gpus_per_rank", GpusPerRank(sim));

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

  // Balance and throughput versus GPUs: the straggler emulator's sweep.
  Json sweep_policies = Json::Array();
  std::vector<SweepResult> sweeps;
  bool interrupted = false, any_resampled = false;
  for (const SimPolicy& policy : policies) {
    sweeps.push_back(Sweep(context, policy, ranks, sim, ""));
    interrupted = interrupted || sweeps.back().interrupted;
    for (PointState state : sweeps.back().state) {
      any_resampled = any_resampled || state == PointState::kResampled;
    }
    Json j = Json::Object();
    j.Set("policy", policy.name);
    j.Set("label", policy.label);
    j.Set("balance_efficiency", Json::ArrayOf(sweeps.back().sampled_efficiency));
    j.Set("relative_throughput", Json::ArrayOf(sweeps.back().relative_throughput));
    j.Set("predicted_efficiency", Json::ArrayOf(sweeps.back().predicted_efficiency));
    j.Set("status", StatusJson(sweeps.back()));
    j.Set("documents_needed", Json::ArrayOf(sweeps.back().documents_needed));
    j.Set("pool_documents", Json::ArrayOf(sweeps.back().pool_documents));
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
          "flopspack_simulate_sweep: %d steps per point, each GPU %d microbatches of %s tokens "
          "(planner cap %s tokens per microbatch), seed %d. Throughput is useful work / time "
          "relative to a perfectly balanced run without padding, so it also charges the bucket "
          "sampler's padding.%s",
          sim.steps, sim.microbatches, Cell(sim.tokens_per_microbatch),
          Cell(sim.max_tokens_per_microbatch), sim.seed,
          any_resampled ? " Points marked * need more documents per step than the file holds: "
                          "they ran on documents drawn with replacement from it, so a curve "
                          "there shows the distribution, not a shortage of data."
                        : ""));
  doc.Set("sweep", std::move(sweep));

  // One step, rank by rank, at the sweep's smallest GPU count: the first
  // global batch of the file, each policy with the memory the sweep gives
  // it. The balance figures in the table are the sweep's own at that count
  // (the same numbers, not a second computation); the figure shows one step.
  if (!interrupted) {
    const uint64_t step_ranks = ranks.front();
    StepSettings settings;
    settings.num_ranks = static_cast<uint32_t>(std::min<uint64_t>(step_ranks, UINT32_MAX));
    settings.microbatches = static_cast<uint32_t>(sim.microbatches);
    settings.seed = sim.seed;
    const double budget =
        double(step_ranks) * double(sim.microbatches) * double(sim.tokens_per_microbatch);
    std::vector<int64_t> batch;
    int64_t tokens = 0;
    for (int64_t length : context.lengths.values) {
      if (!batch.empty() && double(tokens + length) > budget) break;
      batch.push_back(length);
      tokens += length;
    }
    Json step_policies = Json::Array();
    const std::pair<const char*, const char*> kStepPolicies[] = {{"random", "random"},
                                                                 {"documents", "planner"}};
    for (const auto& [name, sweep_name] : kStepPolicies) {
      const StepAlgorithm& algorithm = FindStepAlgorithm(name);
      settings.capacity =
          std::string(name) == "random" ? sim.tokens_per_microbatch : sim.max_tokens_per_microbatch;
      const PlanPtr plan = PlanStep(batch, context.model.get(), algorithm, settings);
      const struct flopspack_plan_metrics m = PlanMetrics(plan.get());
      std::vector<double> costs;
      for (const RankLoad& load : RankLoads(plan.get(), m.num_ranks)) costs.push_back(load.cost);
      size_t p = 0;
      while (p < policies.size() && std::string(policies[p].name) != sweep_name) ++p;
      Json j = Json::Object();
      j.Set("policy", algorithm.name);
      j.Set("label", algorithm.label);
      j.Set("sweep_policy", sweep_name);
      j.Set("max_tokens_per_microbatch", settings.capacity);
      j.Set("rank_costs", Json::ArrayOf(costs));
      j.Set("max_over_mean", m.max_rank_cost / m.mean_rank_cost);
      j.Set("balance_efficiency", sweeps[p].sampled_efficiency.front());
      j.Set("relative_throughput", sweeps[p].relative_throughput.front());
      j.Set("metrics", PlanMetricsJson(m));
      step_policies.Push(std::move(j));
    }
    progress.Advance();
    Json step = Json::Object();
    step.Set("ranks", step_ranks);
    step.Set("settings", StepSettingsJson(settings));
    step.Set("documents", static_cast<uint64_t>(batch.size()));
    step.Set("tokens", tokens);
    step.Set("policies", std::move(step_policies));
    step.Set("note",
             absl::StrFormat(
                 "The figure: one global batch, the first %s documents of the file (%s tokens, "
                 "at most %s GPUs x %d microbatches x %s tokens), planned by flopspack_plan_step; "
                 "random dealing cuts sequences of %s tokens, the planner may fill a microbatch "
                 "up to %s. The balance and throughput columns are the sweep's at %s GPUs (mean "
                 "over %d simulated steps), the same numbers as the sweep table.",
                 Cell(static_cast<int64_t>(batch.size())), Cell(tokens), Gpus(step_ranks, sim),
                 sim.microbatches, Cell(sim.tokens_per_microbatch), Cell(sim.tokens_per_microbatch),
                 Cell(sim.max_tokens_per_microbatch), Gpus(step_ranks, sim), sim.steps));
    doc.Set("step", std::move(step));
  }

  // Padded policies: the bucket sampler from one bucket (a random shuffle
  // into padded batches) to many, with the sweep's budget (--capacity padded
  // tokens per batch, samples clipped to it as in the sweep) at its smallest
  // GPU count, so a step mixes as many batches as the page's first column.
  if (!interrupted) {
    BucketSettings settings;
    settings.seed = sim.seed;
    settings.max_padded_tokens = sim.tokens_per_microbatch;
    settings.num_ranks = ranks.front();
    settings.accumulation = sim.microbatches;
    Context clipped;
    clipped.spec = context.spec;
    clipped.model = MakeCostModel(context.spec);
    clipped.lengths.source = context.lengths.source;
    for (int64_t l : context.lengths.values) {
      clipped.lengths.values.push_back(std::min(l, sim.tokens_per_microbatch));
      clipped.tokens += clipped.lengths.values.back();
    }
    const std::vector<uint32_t> counts = {1, 2, 4, 8, 16, 32, 64, 128};
    uint64_t pool = 0;
    std::string missing;  // --noresample and the file cannot fill a step
    try {
      pool = FitSampleToStep(clipped, settings, counts, sim.resample);
    } catch (const CliError& error) {
      if (sim.resample) throw;
      missing = error.what();
    }
    Json points = Json::Array();
    for (uint32_t k : missing.empty() ? counts : std::vector<uint32_t>{}) {
      settings.num_buckets = k;
      const TradeoffPoint p = Tradeoff(clipped, settings, 0);
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
    padding.Set("pool_documents", pool);
    padding.Set("points", std::move(points));
    padding.Set(
        "note",
        absl::StrFormat(
            "Bucket sampler, epoch 0, with the sweep's setup: batches of at most %s padded "
            "tokens (--capacity; longer samples clipped to it, as in the sweep), %s GPUs x %d "
            "batches per step (the sweep's smallest GPU count)%s. The diversity distance is the "
            "token-weighted KS distance of each step's lengths to the dataset's, averaged over "
            "steps.",
            Cell(settings.max_padded_tokens), Gpus(settings.num_ranks, SimSettings{}),
            settings.accumulation,
            pool > 0 ? absl::StrFormat("; the file cannot fill such a step, so %s documents "
                                       "were drawn with replacement from it",
                                       Cell(static_cast<int64_t>(pool)))
                     : ""));
    if (!missing.empty()) padding.Set("note", "n/a: " + missing);
    doc.Set("padding", std::move(padding));
  }

  const Decision decision = Decide(policies, sweeps, ranks, decide_at, min_gain, sim);
  doc.Set("recommendation", DecisionJson(decision, policies, sweeps, ranks, decide_at, min_gain));
  if (interrupted) doc.Set("interrupted", true);

  const std::string json_path = dir + "/report.json";
  WriteFile(json_path, doc.Dump());
  RunRenderer(json_path, dir);
  progress.Advance();
  Emit(o.output,
       absl::StrCat("recommendation: ", decision.text, "\nreport: ", dir, "/index.html\n"));
  if (interrupted) {
    throw CliError(kExitInterrupted,
                   "interrupted: the page holds the points finished (the others read "
                   "'interrupted')");
  }
}

Runner DefineReport(CLI::App& app) {
  auto o = std::make_shared<ReportOptions>();
  SimSettings& sim = o->sim;
  app.add_option("--out", o->out,
                 "directory for index.html, the figures and report.json (required)")
      ->type_name("DIR");
  AddRanks(app, o->ranks, "the GPU counts of the sweep, plus the --decide-at counts");
  AddSimulationOptions(app, sim,
                       {"the planner's memory cap per microbatch, >= --capacity (default: "
                        "--capacity, every policy the same memory)",
                        "microbatches per GPU and optimizer step", "--report-steps",
                        "optimizer steps simulated per point of the sweep"});
  app.add_option("--decide-at", o->decide_at,
                 "GPU counts the recommendation answers for (added to the sweep)")
      ->type_name("LIST")
      ->capture_default_str();
  app.add_option("--min-gain", o->min_gain,
                 "percent: a policy gaining less than this over random dealing is not worth a "
                 "change")
      ->capture_default_str()
      ->check(CLI::Validator(
          [](std::string& text) -> std::string {
            double value = 0;
            if (!absl::SimpleAtod(text, &value) || (value >= 0 && value < 100)) return "";
            return text + ": a percentage in [0, 100)";
          },
          "", "Percentage"));
  AddInputOptions(app, o->input);
  AddExtraCostsOption(app, o->extra_costs);
  AddCostOptions(app, o->cost);
  AddOutputOptions(app, o->output, false);
  AddProgressOption(app);
  return [o](const std::vector<std::string>& args) { Run(*o, args[0]); };
}

}  // namespace

Command ReportCommand() {
  return {"report",
          "an HTML page with plots: distribution, tail, balance, padding, a recommendation",
          "[flags] LENGTHS --out DIR",
          "Everything about a dataset in one page: the length distribution by documents,\n"
          "tokens and cost; the tail; balance and throughput versus number of GPUs for random\n"
          "dealing, token balancing, the bucket sampler and the flopspack planner (the\n"
          "straggler emulator, --report-steps steps per point); one step rank by rank;\n"
          "padding versus step diversity for padded batches; and a recommendation.\n"
          "The training setup it assumes, unless given: --ranks 64,128,...,8192, each rank\n"
          "--microbatches 4 of --capacity 16384 tokens, every policy the same memory\n"
          "(--max-tokens gives the planner slack). The recommendation answers at --decide-at\n"
          "(1024,8192): the throughput each policy loses, and no change below --min-gain.\n"
          "A file too small for a step is resampled (--noresample: n/a). Numbers go to\n"
          "DIR/report.json; report.py (matplotlib) draws\n"
          "DIR/index.html and its SVG figures (FLOPSPACK_PYTHON, FLOPSPACK_REPORT_SCRIPT:\n"
          "docs/cli.md). Prints the recommendation and the page's path.",
          1,
          1,
          DefineReport};
}

}  // namespace flopspack::cli
