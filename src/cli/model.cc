#include "model.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "status.h"

namespace flopspack::cli {

const std::vector<Preset>& Presets() {
  // The table lives in model_presets.def, shared with the Python binding.
  static const std::vector<Preset> presets = {
#define FLOPSPACK_PRESET(...) {__VA_ARGS__},
#include "model_presets.def"
#undef FLOPSPACK_PRESET
  };
  return presets;
}

const Preset* FindPreset(const std::string& name) {
  for (const Preset& preset : Presets()) {
    if (name == preset.name) return &preset;
  }
  return nullptr;
}

double QuadraticCoefficient(const flopspack_transformer_config& c) {
  const double head_dim =
      c.head_dim > 0 ? c.head_dim : double(c.hidden_size) / c.num_attention_heads;
  const double q = c.num_attention_heads * head_dim;
  const double kv = c.num_key_value_heads * head_dim;
  const double d = c.hidden_size;
  const double mlp = c.gated_mlp ? 3 : 2;
  const double dense =
      c.num_layers * (2 * d * (q + 2 * kv) + 2 * q * d + 2 * d * c.intermediate_size * mlp) +
      2 * d * c.vocab_size;
  // Attention forward per layer: 4*q*l^2, halved by the causal mask.
  const double attention = c.num_layers * 4 * q * (c.causal ? 0.5 : 1.0);
  return attention / dense;
}

ModelSpec ResolveModel(const CostOptions& o) {
  ModelSpec spec;
  if (!o.cost_file.empty()) {
    if (o.cost) {
      throw UsageError("--cost-file and --cost both say how to cost a document: give one");
    }
    spec.cost = "file";
    spec.cost_file = o.cost_file;
    spec.file = ReadCostFile(spec.cost_file);
    spec.unit = spec.file.unit;
    flopspack_transformer_config_init(&spec.config);
    return spec;
  }
  spec.cost = o.cost.value_or("transformer");
  const ShapeOptions& shape = o.shape;
  flopspack_transformer_config& c = spec.config;
  flopspack_transformer_config_init(&c);
  spec.preset = shape.model;
  const bool any_shape = shape.layers || shape.hidden || shape.heads || shape.ffn;
  if (spec.preset.empty() && !any_shape) spec.preset = "llama3-8b";
  if (!spec.preset.empty()) {
    const Preset* preset = FindPreset(spec.preset);
    if (preset == nullptr) {
      std::vector<std::string> names;
      for (const Preset& p : Presets()) names.push_back(p.name);
      throw UsageError(absl::StrFormat("--model=%s: unknown preset; known: %s", spec.preset,
                                       absl::StrJoin(names, ", ")));
    }
    c.num_layers = preset->layers;
    c.hidden_size = preset->hidden;
    c.num_attention_heads = preset->heads;
    c.num_key_value_heads = preset->kv_heads;
    c.head_dim = preset->head_dim;
    c.intermediate_size = preset->ffn;
    c.vocab_size = preset->vocab;
    c.gated_mlp = preset->gated ? 1 : 0;
  } else {
    const std::pair<const char*, bool> required[] = {{"layers", shape.layers.has_value()},
                                                     {"hidden", shape.hidden.has_value()},
                                                     {"heads", shape.heads.has_value()},
                                                     {"ffn", shape.ffn.has_value()}};
    for (const auto& [name, given] : required) {
      if (!given) {
        throw UsageError(absl::StrFormat(
            "a model shape by flags needs --layers, --hidden, --heads and --ffn (missing --%s), "
            "or a preset with --model",
            name));
      }
    }
    c.vocab_size = 0;
  }
  if (shape.layers) c.num_layers = *shape.layers;
  if (shape.hidden) c.hidden_size = *shape.hidden;
  if (shape.heads) c.num_attention_heads = *shape.heads;
  if (shape.kv_heads) {
    c.num_key_value_heads = *shape.kv_heads;
  } else if (spec.preset.empty() || shape.heads) {
    // Without --kv-heads, a changed head count keeps multi-head attention
    // only when the preset had it.
    const Preset* preset = spec.preset.empty() ? nullptr : FindPreset(spec.preset);
    if (preset == nullptr || preset->kv_heads == preset->heads) {
      c.num_key_value_heads = c.num_attention_heads;
    }
  }
  if (shape.head_dim) c.head_dim = *shape.head_dim;
  if (shape.ffn) c.intermediate_size = *shape.ffn;
  if (shape.vocab) c.vocab_size = *shape.vocab;
  if (shape.gated) c.gated_mlp = *shape.gated ? 1 : 0;
  c.causal = shape.causal ? 1 : 0;
  c.recompute = shape.recompute ? 1 : 0;
  c.attention_span =
      shape.attention == "sequence" ? FLOPSPACK_ATTENTION_SEQUENCE : FLOPSPACK_ATTENTION_DOCUMENT;
  if (spec.cost == "tokens") {
    spec.unit = "tokens";
  } else if (spec.cost == "quadratic") {
    spec.unit = "token-equivalents";
    spec.quadratic_coef = o.quadratic_coef;
    if (spec.quadratic_coef == 0) {
      // Validate the shape through the library before deriving c from it.
      MakeTransformer(c);
      spec.quadratic_coef = QuadraticCoefficient(c);
    }
  } else {
    spec.unit = "FLOPs";
  }
  return spec;
}

CostModelPtr MakeTransformer(const flopspack_transformer_config& config) {
  flopspack_cost_model* model = nullptr;
  Check(flopspack_cost_model_transformer(&config, &model), "model shape");
  return CostModelPtr(model);
}

CostModelPtr MakeCostModel(const ModelSpec& spec) {
  flopspack_cost_model* model = nullptr;
  if (spec.cost == "file") {
    return CostModelPtr(MakeModelFromFile(spec.file));
  } else if (spec.cost == "tokens") {
    Check(flopspack_cost_model_tokens(&model), "--cost=tokens");
  } else if (spec.cost == "quadratic") {
    Check(flopspack_cost_model_polynomial(0, 0, 1, spec.quadratic_coef, &model),
          "--cost=quadratic");
  } else {
    return MakeTransformer(spec.config);
  }
  return CostModelPtr(model);
}

Json QualityRowsJson(const std::vector<QualityRow>& rows) {
  Json out = Json::Array();
  for (const QualityRow& row : rows) {
    Json entry = Json::Object();
    entry.Set("model", row.model);
    entry.Set("train", Json::From(QualityJson(row.train)));
    entry.Set("held_out", row.held_out ? Json::From(QualityJson(*row.held_out)) : Json());
    out.Push(std::move(entry));
  }
  return out;
}

Json ModelJson(const ModelSpec& spec) {
  Json out = Json::Object();
  out.Set("cost", spec.cost);
  out.Set("unit", spec.unit);
  out.Set("summary", ModelSummary(spec));
  if (spec.cost == "tokens") return out;
  if (spec.cost == "file") {
    out.Set("cost_file", spec.cost_file);
    Json coefficients = Json::Object();
    coefficients.Set("per_sequence", spec.file.per_sequence);
    coefficients.Set("per_document", spec.file.per_document);
    coefficients.Set("linear", spec.file.linear);
    coefficients.Set("quadratic", spec.file.quadratic);
    out.Set("coefficients", std::move(coefficients));
    // How well the file's models predicted its calibration samples, for the
    // report's cost-model section.
    out.Set("quality", QualityRowsJson(spec.file.quality));
    return out;
  }
  if (spec.cost == "quadratic") out.Set("quadratic_coef", spec.quadratic_coef);
  const flopspack_transformer_config& c = spec.config;
  out.Set("preset", spec.preset.empty() ? Json() : Json(spec.preset));
  Json shape = Json::Object();
  shape.Set("layers", c.num_layers);
  shape.Set("hidden", c.hidden_size);
  shape.Set("heads", c.num_attention_heads);
  shape.Set("kv_heads", c.num_key_value_heads);
  shape.Set("head_dim", c.head_dim > 0 ? c.head_dim : c.hidden_size / c.num_attention_heads);
  shape.Set("ffn", c.intermediate_size);
  shape.Set("vocab", c.vocab_size);
  shape.Set("gated", c.gated_mlp != 0);
  shape.Set("causal", c.causal != 0);
  shape.Set("recompute", c.recompute != 0);
  shape.Set("attention",
            c.attention_span == FLOPSPACK_ATTENTION_SEQUENCE ? "sequence" : "document");
  out.Set("shape", std::move(shape));
  return out;
}

std::string ModelSummary(const ModelSpec& spec) {
  if (spec.cost == "tokens") return "tokens (cost = length)";
  if (spec.cost == "file") {
    const CostFile& f = spec.file;
    return absl::StrFormat(
        "fitted polynomial from %s (%s): %.4g per sequence + %.4g + %.4g*l + %.4g*l^2 per "
        "document",
        spec.cost_file, f.unit, f.per_sequence, f.per_document, f.linear, f.quadratic);
  }
  const std::string shape =
      spec.preset.empty()
          ? absl::StrFormat("L=%d d=%d H=%d", spec.config.num_layers, spec.config.hidden_size,
                            spec.config.num_attention_heads)
          : spec.preset;
  const std::string flags = absl::StrCat(
      spec.config.causal ? "causal" : "full", ", ",
      spec.config.attention_span == FLOPSPACK_ATTENTION_SEQUENCE ? "sequence" : "document",
      " attention", spec.config.recompute ? ", recompute" : "");
  if (spec.cost == "quadratic") {
    return absl::StrFormat("quadratic l + %.4g*l^2 from %s (%s)", spec.quadratic_coef, shape,
                           flags);
  }
  return absl::StrFormat("transformer training FLOPs, %s (%s)", shape, flags);
}

}  // namespace flopspack::cli
