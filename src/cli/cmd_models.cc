// flopspack models: the model-shape presets --model accepts, with what each
// costs per token and how much of a long document's cost is attention.
#include <CLI/CLI.hpp>
#include "absl/strings/str_format.h"
#include "commands.h"
#include "model.h"
#include "options.h"
#include "output.h"
#include "status.h"

namespace flopspack::cli {
namespace {

constexpr int64_t kPerTokenAt = 4096;
constexpr int64_t kAttentionAt = 32768;

void Run(const OutputOptions& output) {
  const Format format = OutputFormat(output, "models", true);
  Table table({"<preset", "layers", "hidden", "heads", "kv_heads", "head_dim", "ffn", "vocab",
               "gated", "GFLOPs/token@4K", "quadratic_coef", "attention@32K", "<source"});
  Json presets = Json::Array();
  for (const Preset& p : Presets()) {
    flopspack_transformer_config c;
    flopspack_transformer_config_init(&c);
    c.num_layers = p.layers;
    c.hidden_size = p.hidden;
    c.num_attention_heads = p.heads;
    c.num_key_value_heads = p.kv_heads;
    c.head_dim = p.head_dim;
    c.intermediate_size = p.ffn;
    c.vocab_size = p.vocab;
    c.gated_mlp = p.gated;
    CostModelPtr model = MakeTransformer(c);
    double cost = 0;
    Check(flopspack_cost_model_sequence_cost(model.get(), &kPerTokenAt, 1, &cost),
          absl::StrFormat("cost of preset %s", p.name));
    const double per_token = cost / kPerTokenAt;
    const double coef = QuadraticCoefficient(c);
    const double share = coef * kAttentionAt / (1 + coef * kAttentionAt);
    const int64_t head_dim = p.head_dim > 0 ? p.head_dim : p.hidden / p.heads;
    table.AddRow({p.name, Cell(p.layers), Cell(p.hidden), Cell(p.heads), Cell(p.kv_heads),
                  Cell(head_dim), Cell(p.ffn), Cell(p.vocab), p.gated ? "yes" : "no",
                  Cell(per_token / 1e9, 4), Cell(coef, 4), Percent(share), p.reference});
    Json row = Json::Object();
    row.Set("name", p.name);
    row.Set("layers", p.layers);
    row.Set("hidden", p.hidden);
    row.Set("heads", p.heads);
    row.Set("kv_heads", p.kv_heads);
    row.Set("head_dim", head_dim);
    row.Set("ffn", p.ffn);
    row.Set("vocab", p.vocab);
    row.Set("gated", p.gated);
    row.Set("training_flops_per_token_at_4096", per_token);
    row.Set("quadratic_coef", coef);
    row.Set("attention_share_at_32768", share);
    row.Set("source", p.reference);
    presets.Push(std::move(row));
  }
  if (format == Format::kJson) {
    Json out = Envelope("models");
    out.Set("presets", std::move(presets));
    Emit(output, out.Dump());
  } else {
    Emit(output, format == Format::kCsv ? table.Csv() : table.Text());
  }
}

Runner DefineModels(CLI::App& app) {
  auto output = std::make_shared<OutputOptions>();
  AddOutputOptions(app, *output);
  return [output](const std::vector<std::string>&) { Run(*output); };
}

}  // namespace

Command ModelsCommand() {
  return {"models",
          "list the model-shape presets that --model accepts",
          "[flags]",
          "Lists every preset with its published shape, its training FLOPs per token for a\n"
          "4096-token document (causal, document attention), the coefficient c that\n"
          "--cost=quadratic uses (cost = l + c*l^2), and attention's share of a 32K-token\n"
          "document's FLOPs.",
          0,
          0,
          DefineModels};
}

}  // namespace flopspack::cli
