// The cost model a subcommand uses, from --cost, --model (a preset) and the
// shape flags (--layers --hidden --heads --kv-heads --head-dim --ffn --vocab
// --gated --causal --recompute --attention --quadratic-coef).
//
// Rules (docs/cli.md, "Cost models"): a preset fills the whole shape and any
// shape flag given overrides one field of it; without a preset, shape flags
// must give at least --layers --hidden --heads --ffn; with neither, the shape
// is llama3-8b. --cost tokens ignores the shape; --cost quadratic uses
// l + c*l^2 with c the shape's attention/dense FLOPs ratio unless
// --quadratic-coef gives c. --cost-file FILE (instead of --cost) uses the
// fitted polynomial of a cost-model file (docs/cost-models.md), in its unit.
#ifndef FLOPSPACK_CLI_MODEL_H_
#define FLOPSPACK_CLI_MODEL_H_

#include <string>
#include <vector>

#include "cost_file.h"
#include "flopspack/flopspack.h"
#include "handles.h"
#include "json.h"
#include "options.h"

namespace flopspack::cli {

// A published model shape (dense decoder, as in its config.json or paper).
struct Preset {
  const char* name;
  const char* reference;
  int64_t layers, hidden, heads, kv_heads, head_dim, ffn, vocab;
  bool gated;
};

const std::vector<Preset>& Presets();
const Preset* FindPreset(const std::string& name);

// Attention FLOPs per l^2 over dense FLOPs per token of a shape: the c with
// which l + c*l^2 is proportional to the transformer's training FLOPs for
// large l (causal halves it). Exposed for the tests.
double QuadraticCoefficient(const flopspack_transformer_config& config);

struct ModelSpec {
  std::string cost;    // "tokens", "quadratic", "transformer" or "file"
  std::string preset;  // the preset the shape came from, "" if all by flags
  flopspack_transformer_config config;
  double quadratic_coef = 0;  // for "quadratic"
  std::string unit;           // "tokens", "token-equivalents", "FLOPs" or the file's unit
  std::string cost_file;      // for "file": its path and what it holds
  CostFile file;
};

// Resolves the cost options; throws a usage CliError for an unknown preset,
// an incomplete shape, or --cost with --cost-file.
ModelSpec ResolveModel(const CostOptions& options);

// Builds the cost model through the C API; throws if the library rejects it.
CostModelPtr MakeCostModel(const ModelSpec& spec);
CostModelPtr MakeTransformer(const flopspack_transformer_config& config);

// {"cost": ..., "unit": ..., "preset": ..., "shape": {...}} for --json.
Json ModelJson(const ModelSpec& spec);
// Prediction-quality rows (a cost-model file's "quality") for --json.
Json QualityRowsJson(const std::vector<QualityRow>& rows);
// One line for tables: "transformer FLOPs, llama3-8b (causal, document attention)".
std::string ModelSummary(const ModelSpec& spec);

}  // namespace flopspack::cli

#endif  // FLOPSPACK_CLI_MODEL_H_
