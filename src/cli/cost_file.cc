#include "cost_file.h"

#include <cmath>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>

#include "absl/strings/str_format.h"
#include "status.h"

namespace flopspack::cli {
namespace {

using nlohmann::json;

constexpr const char* kFormat = "flopspack-cost-model";
constexpr int64_t kVersion = 1;
constexpr const char* kCoefficientNames[4] = {"per_sequence", "per_document", "linear",
                                              "quadratic"};

[[noreturn]] void Fail(const std::string& message) {
  throw std::invalid_argument("cost model file: " + message);
}

// How a value is written back in a message: compact JSON, or "missing".
std::string Shown(const json* value) { return value == nullptr ? "missing" : value->dump(); }

const json* Find(const json& object, const char* key) {
  auto it = object.find(key);
  return it == object.end() ? nullptr : &*it;
}

double Number(const json& value, const std::string& name, bool non_negative) {
  if (!value.is_number()) Fail(absl::StrFormat("%s = %s: must be a number", name, value.dump()));
  const double x = value.get<double>();
  if (!std::isfinite(x) || (non_negative && x < 0)) {
    Fail(absl::StrFormat("%s = %s: must be a finite number%s", name, value.dump(),
                         non_negative ? " >= 0" : ""));
  }
  return x;
}

flopspack_prediction_quality Quality(const json* value, const std::string& name) {
  if (value == nullptr || !value->is_object()) Fail(name + " must be an object");
  flopspack_prediction_quality q{};
  q.struct_size = sizeof(q);
  struct Field {
    const char* key;
    double* target;
  };
  const Field fields[] = {{"scale", &q.scale},
                          {"offset", &q.offset},
                          {"r_squared", &q.r_squared},
                          {"rms_residual", &q.rms_residual},
                          {"mean_relative_error", &q.mean_relative_error},
                          {"median_relative_error", &q.median_relative_error},
                          {"max_relative_error", &q.max_relative_error}};
  for (const Field& f : fields) {
    const json* v = Find(*value, f.key);
    if (v == nullptr) Fail(absl::StrFormat("%s.%s is missing", name, f.key));
    *f.target = Number(*v, name + "." + f.key, false);
  }
  const json* n = Find(*value, "num_samples");
  if (n == nullptr) Fail(name + ".num_samples is missing");
  if (!n->is_number_unsigned()) {  // nlohmann keeps non-negative integers unsigned
    Fail(absl::StrFormat("%s.num_samples = %s: must be an integer >= 0", name, n->dump()));
  }
  q.num_samples = n->get<uint64_t>();
  return q;
}

// "samples" of a calibration report; an absent key gives none.
std::vector<CalibrationSample> Samples(const json& file) {
  std::vector<CalibrationSample> out;
  const json* samples = Find(file, "samples");
  if (samples == nullptr) return out;
  if (!samples->is_array()) Fail("\"samples\" must be an array");
  for (size_t i = 0; i < samples->size(); ++i) {
    const json& entry = (*samples)[i];
    const std::string name = absl::StrFormat("samples[%d]", i);
    if (!entry.is_object()) Fail(name + " must be an object");
    const json* lengths = Find(entry, "lengths");
    if (lengths == nullptr || !lengths->is_array() || lengths->empty()) {
      Fail(name + ".lengths must be a non-empty array of document lengths");
    }
    CalibrationSample sample;
    for (const json& l : *lengths) {
      const bool is_length = l.is_number_unsigned()
                                 ? l.get<uint64_t>() >= 1 && l.get<uint64_t>() <= INT64_MAX
                                 : l.is_number_integer() && l.get<int64_t>() >= 1;
      if (!is_length) {
        Fail(absl::StrFormat("%s.lengths: %s is not a length (an integer >= 1)", name, l.dump()));
      }
      sample.lengths.push_back(l.get<int64_t>());
    }
    const json* seconds = Find(entry, "seconds");
    if (seconds == nullptr) Fail(name + ".seconds is missing");
    sample.seconds = Number(*seconds, name + ".seconds", true);
    if (sample.seconds <= 0) Fail(name + ".seconds must be > 0");
    const json* held_out = Find(entry, "held_out");
    if (held_out != nullptr && !held_out->is_boolean()) Fail(name + ".held_out must be a boolean");
    sample.held_out = held_out != nullptr && held_out->get<bool>();
    out.push_back(std::move(sample));
  }
  return out;
}

}  // namespace

nlohmann::ordered_json QualityJson(const flopspack_prediction_quality& q) {
  return nlohmann::ordered_json{{"scale", q.scale},
                                {"offset", q.offset},
                                {"r_squared", q.r_squared},
                                {"rms_residual", q.rms_residual},
                                {"mean_relative_error", q.mean_relative_error},
                                {"median_relative_error", q.median_relative_error},
                                {"max_relative_error", q.max_relative_error},
                                {"num_samples", q.num_samples}};
}

std::string ReadTextFile(const std::string& path, const std::string& what) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  if (in) text << in.rdbuf();
  if (!in || in.bad()) throw InputError(path + ": cannot read " + what);
  return text.str();
}

CostFile ParseCostFile(const std::string& text) {
  json file;
  try {
    file = json::parse(text);
  } catch (const json::exception& e) {  // a syntax error, or a number beyond a double
    Fail(std::string("not valid JSON: ") + e.what());
  }
  if (!file.is_object())
    Fail(absl::StrFormat("the top level is a JSON %s, not an object", file.type_name()));
  const json* format = Find(file, "format");
  if (format == nullptr || *format != kFormat) {
    Fail(absl::StrFormat("\"format\" is %s, not \"%s\"", Shown(format), kFormat));
  }
  const json* version = Find(file, "version");
  if (version == nullptr || !version->is_number_integer()) {
    Fail(absl::StrFormat("\"version\" is %s, not an integer", Shown(version)));
  }
  if (version->is_number_unsigned() ? version->get<uint64_t>() != uint64_t{kVersion}
                                    : version->get<int64_t>() != kVersion) {
    Fail(absl::StrFormat("version %s is not supported (this library reads version %d)",
                         version->dump(), kVersion));
  }
  const json* kind = Find(file, "kind");
  if (kind == nullptr || *kind != "polynomial") {
    Fail(absl::StrFormat("kind %s is not supported (version 1 holds \"polynomial\" models)",
                         Shown(kind)));
  }
  const json* attention = Find(file, "attention");
  if (attention == nullptr || *attention != "document") {
    Fail(
        absl::StrFormat("attention %s is not supported (version 1 models cost each document on "
                        "its own: \"document\")",
                        Shown(attention)));
  }
  const json* coefficients = Find(file, "coefficients");
  if (coefficients == nullptr || !coefficients->is_object()) {
    Fail("\"coefficients\" is missing or not an object");
  }
  CostFile out;
  double* targets[4] = {&out.per_sequence, &out.per_document, &out.linear, &out.quadratic};
  for (int i = 0; i < 4; ++i) {
    const std::string name = std::string("coefficients.") + kCoefficientNames[i];
    const json* value = Find(*coefficients, kCoefficientNames[i]);
    if (value == nullptr) Fail(name + " is missing");
    *targets[i] = Number(*value, name, true);
  }
  if (const json* unit = Find(file, "unit")) {
    if (!unit->is_string()) Fail(absl::StrFormat("\"unit\" is %s, not a string", unit->dump()));
    out.unit = unit->get<std::string>();
  }
  if (const json* provenance = Find(file, "provenance")) {
    if (!provenance->is_object()) Fail("\"provenance\" must be an object of strings");
    for (const auto& [key, value] : provenance->items()) {
      if (!value.is_string()) Fail("\"provenance\" must be an object of strings");
      out.provenance[key] = value.get<std::string>();
    }
  }
  if (const json* quality = Find(file, "quality")) {
    if (!quality->is_array()) Fail("\"quality\" must be an array");
    for (size_t i = 0; i < quality->size(); ++i) {
      const json& row = (*quality)[i];
      const std::string name = absl::StrFormat("quality[%d]", i);
      if (!row.is_object()) Fail(name + " must be an object");
      const json* model = Find(row, "model");
      if (model == nullptr || !model->is_string()) Fail(name + ".model must be a string");
      QualityRow parsed{model->get<std::string>(), Quality(Find(row, "train"), name + ".train"),
                        std::nullopt};
      const json* held_out = Find(row, "held_out");
      if (held_out != nullptr && !held_out->is_null()) {
        parsed.held_out = Quality(held_out, name + ".held_out");
      }
      out.quality.push_back(std::move(parsed));
    }
  }
  out.samples = Samples(file);
  return out;
}

CostFile ReadCostFile(const std::string& path) {
  const std::string text = ReadTextFile(path, "the cost model file");
  try {
    return ParseCostFile(text);
  } catch (const std::invalid_argument& e) {
    throw InputError(path + ": " + e.what());
  }
}

std::string CostFileText(const CostFile& file) {
  // nlohmann::ordered_json keeps the documented key order; doubles are
  // written in their shortest round-trip form.
  nlohmann::ordered_json out;
  out["format"] = kFormat;
  out["version"] = kVersion;
  out["kind"] = "polynomial";
  out["attention"] = "document";
  out["unit"] = file.unit;
  out["coefficients"] = {{"per_sequence", file.per_sequence},
                         {"per_document", file.per_document},
                         {"linear", file.linear},
                         {"quadratic", file.quadratic}};
  if (!file.provenance.empty()) out["provenance"] = file.provenance;
  if (!file.quality.empty()) {
    nlohmann::ordered_json rows = nlohmann::ordered_json::array();
    for (const QualityRow& row : file.quality) {
      nlohmann::ordered_json entry = {{"model", row.model}, {"train", QualityJson(row.train)}};
      if (row.held_out) entry["held_out"] = QualityJson(*row.held_out);
      rows.push_back(std::move(entry));
    }
    out["quality"] = std::move(rows);
  }
  if (!file.samples.empty()) {
    nlohmann::ordered_json samples = nlohmann::ordered_json::array();
    for (const CalibrationSample& s : file.samples) {
      samples.push_back({{"lengths", s.lengths}, {"seconds", s.seconds}, {"held_out", s.held_out}});
    }
    out["samples"] = std::move(samples);
  }
  return out.dump(2) + "\n";
}

void WriteCostFile(const CostFile& file, const std::string& path) {
  const std::string text = CostFileText(file);
  const std::string temporary = path + ".tmp";
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out << text;
    out.flush();
    if (!out) {
      std::remove(temporary.c_str());
      throw CliError(kExitInternal, path + ": cannot write the cost model file");
    }
  }
  if (std::rename(temporary.c_str(), path.c_str()) != 0) {
    std::remove(temporary.c_str());
    throw CliError(kExitInternal, path + ": cannot write the cost model file");
  }
}

flopspack_cost_model* MakeModelFromFile(const CostFile& file) {
  flopspack_cost_model* model = nullptr;
  Check(flopspack_cost_model_polynomial(file.per_sequence, file.per_document, file.linear,
                                        file.quadratic, &model),
        "--cost-file");
  return model;
}

}  // namespace flopspack::cli
