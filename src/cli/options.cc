#include "options.h"

#include <CLI/CLI.hpp>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "flopspack/flopspack.h"
#include "progress.h"
#include "simulate_data.h"

namespace flopspack::cli {

CLI::Validator AtLeast(int64_t min) {
  return CLI::Validator(
      [min](std::string& text) -> std::string {
        int64_t value = 0;
        if (!absl::SimpleAtoi(text, &value) || value >= min) return "";
        return absl::StrCat(text, ": must be >= ", min);
      },
      "", "AtLeast");
}

CLI::Validator AtLeastReal(double min) {
  return CLI::Validator(
      [min](std::string& text) -> std::string {
        double value = 0;
        if (!absl::SimpleAtod(text, &value) || value >= min) return "";
        return absl::StrCat(text, ": must be >= ", min);
      },
      "", "AtLeastReal");
}

CLI::Validator Positive(const std::string& what) {
  return CLI::Validator(
      [what](std::string& text) -> std::string {
        int64_t value = 0;
        if (!absl::SimpleAtoi(text, &value) || value >= 1) return "";
        return absl::StrCat(text, ": must be a positive ", what);
      },
      "", "Positive");
}

CLI::Validator OneOf(std::vector<std::string> names) {
  return CLI::Validator(
      [names](std::string& text) -> std::string {
        for (const std::string& name : names) {
          if (text == name) return "";
        }
        return absl::StrCat(text, ": expected ", absl::StrJoin(names, ", "));
      },
      "", "OneOf");
}

CLI::Option* AddSwitch(CLI::App& app, const std::string& name, bool& value,
                       const std::string& help) {
  CLI::Option* option = app.add_flag(absl::StrCat("--", name, ",!--no", name), value, help);
  if (value) option->default_str("true");
  return option;
}

void AddInputOptions(CLI::App& app, InputOptions& o) {
  app.add_option("--column", o.column,
                 "CSV column holding the lengths: a header name or a 1-based index (default: the "
                 "only column, or one named length, lengths, num_tokens, tokens or len)")
      ->type_name("NAME");
}

void AddExtraCostsOption(CLI::App& app, std::string& path) {
  app.add_option("--extra-costs", path,
                 "a text file of per-document extra costs (one finite, non-negative number per "
                 "line, in the order of LENGTHS, in the cost model's unit: a vision encoder's "
                 "work on a document's images, say), added to each document's model cost")
      ->type_name("FILE");
}

void AddOutputOptions(CLI::App& app, OutputOptions& o, bool formats) {
  if (formats) {
    AddSwitch(app, "json", o.json,
              "print JSON (schema flopspack-cli/1, docs/cli.md) instead of a table");
    AddSwitch(app, "csv", o.csv, "print the table as CSV");
  }
  app.add_option("-o,--output", o.output,
                 "write the result to this file instead of standard output")
      ->type_name("FILE");
}

void AddProgressOption(CLI::App& app) {
  app.add_flag_function(
         "--progress,!--noprogress", [](int64_t count) { EnableProgress(count > 0); },
         "progress bar on stderr when stderr is a terminal")
      ->default_str("true");
}

void AddShapeOptions(CLI::App& app, ShapeOptions& o) {
  app.add_option("--model", o.model,
                 "model shape preset (flopspack models lists them); default llama3-8b unless "
                 "--layers, --hidden, --heads and --ffn give the whole shape")
      ->type_name("NAME");
  app.add_option("--layers", o.layers, "number of transformer layers (overrides the preset)")
      ->check(AtLeast(1));
  app.add_option("--hidden", o.hidden, "hidden size d (overrides the preset)")->check(AtLeast(1));
  app.add_option("--heads", o.heads, "query heads (overrides the preset)")->check(AtLeast(1));
  app.add_option("--kv-heads", o.kv_heads,
                 "key/value heads for grouped-query attention (default: the preset's, or --heads)")
      ->check(AtLeast(1));
  app.add_option("--head-dim", o.head_dim,
                 "size of one head (default: the preset's, or hidden / heads)")
      ->check(AtLeast(1));
  app.add_option("--ffn", o.ffn, "FFN width (overrides the preset)")->check(AtLeast(1));
  app.add_option("--vocab", o.vocab,
                 "vocabulary size, 0 = no LM head (default: the preset's, or 0)")
      ->check(AtLeast(0));
  app.add_flag_function(
      "--gated,!--nogated", [&o](int64_t count) { o.gated = count > 0; },
      "gated FFN with three matrices, SwiGLU (default: the preset's; off without a preset)");
  AddSwitch(app, "causal", o.causal, "count only the causal half of the attention scores");
  AddSwitch(app, "recompute", o.recompute, "full activation recompute: 4x forward instead of 3x");
  app.add_option("--attention", o.attention,
                 "attention span in a packed sequence: document (varlen masking) or sequence")
      ->type_name("NAME")
      ->capture_default_str()
      ->check(OneOf({"document", "sequence"}));
}

void AddCostOptions(CLI::App& app, CostOptions& o) {
  app.add_option("--cost", o.cost,
                 "cost of a document: tokens, quadratic (l + c*l^2) or transformer (training "
                 "FLOPs) (default: transformer)")
      ->type_name("NAME")
      ->check(OneOf({"tokens", "quadratic", "transformer"}));
  app.add_option("--cost-file", o.cost_file,
                 "a cost-model file (from `flopspack fit` or flopspack.torch.calibrate): cost "
                 "documents with its fitted polynomial instead of --cost")
      ->type_name("FILE");
  app.add_option("--quadratic-coef", o.quadratic_coef,
                 "c of --cost quadratic; 0 (default) = the shape's attention/dense FLOPs ratio")
      ->check(AtLeastReal(0));
  AddShapeOptions(app, o.shape);
}

void AddSeed(CLI::App& app, uint64_t& seed) {
  app.add_option("--seed", seed, "seed of every random choice: the same seed gives the same plan")
      ->capture_default_str();
}

void AddCapacity(CLI::App& app, int64_t& capacity, const std::string& help) {
  app.add_option("--capacity", capacity, help)
      ->capture_default_str()
      ->check(Positive("number of tokens"));
}

void AddRanks(CLI::App& app, std::string& ranks, const std::string& help) {
  app.add_option("--ranks", ranks, help)->type_name("N")->capture_default_str();
}

void AddMicrobatches(CLI::App& app, uint64_t& microbatches, uint64_t min, const std::string& help) {
  CLI::Option* option = app.add_option("--microbatches", microbatches, help)
                            ->check(AtLeast(static_cast<int64_t>(min)));
  if (microbatches > 0) option->capture_default_str();
}

void AddMaxTokens(CLI::App& app, int64_t& max_tokens, const std::string& help) {
  app.add_option("--max-tokens", max_tokens, help)->check(AtLeast(0));
}

void AddAlgorithm(CLI::App& app, std::string& algorithm, const std::vector<std::string>& names,
                  const std::string& help) {
  app.add_option("--algorithm", algorithm, help)
      ->type_name("NAME")
      ->capture_default_str()
      ->check(OneOf(names));
}

void AddOverflow(CLI::App& app, std::string& overflow, const std::vector<std::string>& accepted) {
  app.add_option("--overflow", overflow,
                 absl::StrCat("what happens to a document over the capacity: ",
                              absl::StrJoin(accepted, ", ")))
      ->type_name("NAME")
      ->capture_default_str()
      ->check(OneOf(accepted));
}

void AddPlanSwitch(CLI::App& app, bool& plan) {
  AddSwitch(app, "plan", plan, "print the plan's groups themselves, not only its metrics");
}

void AddCompareSwitch(CLI::App& app, bool& compare) {
  AddSwitch(app, "compare", compare, "also run every algorithm on the same input and compare them");
}

void AddResampleSwitch(CLI::App& app, bool& resample) {
  AddSwitch(app, "resample", resample,
            "run a point whose step needs more documents than the file holds on documents drawn "
            "with replacement from it (off: the point reads n/a: needs N documents)");
}

void AddSyncOptions(CLI::App& app, std::string& sync, uint64_t& pipeline_stages,
                    const std::string& sync_help, const std::string& stages_help) {
  app.add_option("--sync", sync, sync_help)
      ->type_name("NAME")
      ->capture_default_str()
      ->check(OneOf({"step", "microbatch"}));
  app.add_option("--pipeline-stages", pipeline_stages, stages_help)
      ->type_name("N")
      ->capture_default_str()
      ->check(CLI::Validator(
          [](std::string& text) -> std::string {
            uint64_t value = 0;
            if (!absl::SimpleAtoi(text, &value) || value <= 1024) return "";
            return absl::StrCat(text, ": at most 1024 stages (0 or 1 = none)");
          },
          "", "Stages"));
}

int32_t SyncValue(const std::string& name) {
  return name == "microbatch" ? FLOPSPACK_SYNC_MICROBATCH : FLOPSPACK_SYNC_STEP;
}

void AddSimulationOptions(CLI::App& app, SimSettings& sim, const SimulationHelp& help) {
  AddCapacity(app, sim.tokens_per_microbatch, "tokens per microbatch");
  AddMaxTokens(app, sim.max_tokens_per_microbatch, help.max_tokens);
  AddMicrobatches(app, sim.microbatches, 1, help.microbatches);
  app.add_option(help.steps_flag, sim.steps, help.steps)->capture_default_str()->check(AtLeast(1));
  AddSeed(app, sim.seed);
  AddResampleSwitch(app, sim.resample);
  AddSyncOptions(app, sim.sync, sim.pipeline_stages,
                 "how the trainer synchronizes: step (once per optimizer step, DDP / ZeRO-1/2: "
                 "a step waits for the slowest rank) or microbatch (FSDP / ZeRO-3: every "
                 "microbatch slot waits for its slowest rank); the planner policies plan for it",
                 "pipeline stages per data-parallel replica (0 or 1 = none, at most 1024): a step "
                 "then lasts the slowest replica's 1F1B makespan, bubbles included");
  app.add_option("--cp", sim.cp,
                 "context-parallel size: every rank is a group of this many GPUs sharing each "
                 "microbatch (which then holds this many times the tokens per microbatch) and "
                 "waiting for its slowest CP rank (default: 0 = no context parallelism, at most "
                 "65536)")
      ->check(CLI::Range(uint64_t{0}, uint64_t{65536}));
  app.add_option("--cp-layout", sim.cp_layout,
                 "with --cp: sequence (head-tail of the packed sequence), document (head-tail of "
                 "every document) or adaptive (per microbatch, the lower maximum CP-rank cost)")
      ->capture_default_str()
      ->type_name("NAME")
      ->check(OneOf({"sequence", "document", "adaptive"}));
}

int32_t OverflowValue(const std::string& name) {
  if (name == "error") return FLOPSPACK_OVERFLOW_ERROR;
  if (name == "truncate") return FLOPSPACK_OVERFLOW_TRUNCATE;
  if (name == "defer") return FLOPSPACK_OVERFLOW_DEFER;
  return FLOPSPACK_OVERFLOW_SPLIT;
}

const char* OverflowName(int32_t overflow) {
  switch (overflow) {
    case FLOPSPACK_OVERFLOW_ERROR:
      return "error";
    case FLOPSPACK_OVERFLOW_TRUNCATE:
      return "truncate";
    case FLOPSPACK_OVERFLOW_SPLIT:
      return "split";
    case FLOPSPACK_OVERFLOW_DEFER:
      return "defer";
  }
  return "unknown";
}

}  // namespace flopspack::cli
