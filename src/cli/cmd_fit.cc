// flopspack fit SAMPLES: fits the polynomial cost model to measured packed
// sequences and says how well it, the FLOPs formula (when a shape is given)
// and tokens predict them: the recipe of docs/cost-models.md (every fourth
// sample held out unless the input marks them; the fitted model rated as is,
// the others with a scale and offset fitted on the training part), the same
// figures flopspack.torch.calibrate prints. --save writes a cost-model file
// that --cost-file, CostModel.load and the Go/Rust readers take.
#include <CLI/CLI.hpp>
#include <cmath>
#include <sstream>

#include "absl/strings/numbers.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "commands.h"
#include "cost_file.h"
#include "input.h"
#include "model.h"
#include "options.h"
#include "output.h"
#include "status.h"

namespace flopspack::cli {
namespace {

struct FitOptions {
  std::string save;
  CostOptions cost;  // only the shape: the FLOPs formula rated beside the fit
  OutputOptions output;
};

// Samples in the library's layout (flopspack_cost_model_fit).
struct SampleSet {
  std::vector<int64_t> lengths;
  std::vector<size_t> offsets{0};
  std::vector<double> seconds;
  size_t size() const { return seconds.size(); }
  void Add(const CalibrationSample& s) {
    lengths.insert(lengths.end(), s.lengths.begin(), s.lengths.end());
    offsets.push_back(lengths.size());
    seconds.push_back(s.seconds);
  }
};

int64_t ParseSampleLength(const std::string& word, const std::string& where) {
  int64_t value = 0;
  if (!absl::SimpleAtoi(word, &value) || value < 1) {
    throw InputError(
        absl::StrFormat("%s: \"%s\" is not a document length (an integer >= 1)", where, word));
  }
  return value;
}

// A text file of samples: one per line, "SECONDS LENGTH [LENGTH ...]"
// (spaces, tabs or commas between), '#' starts a comment.
std::vector<CalibrationSample> ParseSampleLines(const std::string& text, const std::string& path) {
  std::vector<CalibrationSample> samples;
  std::istringstream in(text);
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    const std::string where = absl::StrFormat("%s:%d", path, number);
    line = line.substr(0, line.find('#'));
    std::vector<std::string> words =
        absl::StrSplit(line, absl::ByAnyChar(" \t,\r"), absl::SkipEmpty());
    if (words.empty()) continue;
    if (words.size() < 2) {
      throw InputError(where + ": a sample needs its time in seconds and at least one length");
    }
    CalibrationSample sample;
    if (!absl::SimpleAtod(words[0], &sample.seconds) || !std::isfinite(sample.seconds) ||
        sample.seconds <= 0) {
      throw InputError(
          absl::StrFormat("%s: \"%s\" is not a time in seconds (finite, > 0)", where, words[0]));
    }
    for (size_t i = 1; i < words.size(); ++i)
      sample.lengths.push_back(ParseSampleLength(words[i], where));
    sample.held_out = samples.size() % 4 == 3;  // the documented split
    samples.push_back(std::move(sample));
  }
  return samples;
}

std::vector<CalibrationSample> ReadSamples(const std::string& path, std::string& input_kind) {
  const std::string text = ReadTextFile(path, "(a file of samples is expected)");
  const size_t first = text.find_first_not_of(" \t\r\n");
  if (first != std::string::npos && text[first] == '{') {
    input_kind = "calibration report";
    CostFile report;
    try {
      report = ParseCostFile(text);
    } catch (const std::invalid_argument& e) {
      throw InputError(path + ": " + e.what());
    }
    if (report.samples.empty()) {
      throw InputError(path + ": a cost-model file without \"samples\": nothing to fit");
    }
    return report.samples;
  }
  input_kind = "sample lines";
  return ParseSampleLines(text, path);
}

flopspack_prediction_quality Rate(const flopspack_cost_model* model, const SampleSet& samples,
                                  bool fit_scale, double scale, double offset) {
  flopspack_evaluate_options options;
  flopspack_evaluate_options_init(&options);
  options.fit_scale = fit_scale ? 1 : 0;
  options.scale = scale;
  options.offset = offset;
  flopspack_prediction_quality q{};
  q.struct_size = sizeof(q);
  Check(
      flopspack_cost_model_evaluate(model, &options, samples.lengths.data(), samples.offsets.data(),
                                    samples.seconds.data(), samples.size(), &q),
      "rating a cost model");
  return q;
}

const char* RowTitle(const std::string& model) {
  if (model == "fitted") return "fitted (per sequence + per document + linear + quadratic)";
  if (model == "flops") return "FLOPs formula, scaled (a*FLOPs + b)";
  if (model == "tokens") return "tokens, scaled (a*tokens + b)";
  return model.c_str();
}

void Run(const FitOptions& o, const std::string& path) {
  const Format format = OutputFormat(o.output, "fit", true);
  std::string input_kind;
  std::vector<CalibrationSample> samples = ReadSamples(path, input_kind);
  SampleSet train, held_out;
  for (const CalibrationSample& s : samples) (s.held_out ? held_out : train).Add(s);
  if (train.size() < 4) {
    throw InputError(absl::StrFormat(
        "%s: %d samples to fit are too few for the 4 terms (give at least 8 samples: every "
        "fourth is held out)",
        path, train.size()));
  }
  flopspack_cost_model* fitted_raw = nullptr;
  Check(flopspack_cost_model_fit(nullptr, train.lengths.data(), train.offsets.data(),
                                 train.seconds.data(), train.size(), nullptr, &fitted_raw),
        "fitting the samples");
  CostModelPtr fitted(fitted_raw);
  flopspack_polynomial_coefficients c;
  c.struct_size = sizeof(c);
  Check(flopspack_cost_model_coefficients(fitted.get(), &c), "reading the fitted coefficients");

  // The FLOPs formula is rated only for a shape the user named: the default
  // shape would rate some other model's FLOPs.
  const ShapeOptions& shape = o.cost.shape;
  const bool shape_given =
      !shape.model.empty() || shape.layers || shape.hidden || shape.heads || shape.ffn;
  std::vector<std::pair<std::string, CostModelPtr>> models;
  models.emplace_back("fitted", std::move(fitted));
  if (shape_given) models.emplace_back("flops", MakeTransformer(ResolveModel(o.cost).config));
  flopspack_cost_model* tokens = nullptr;
  Check(flopspack_cost_model_tokens(&tokens), "tokens model");
  models.emplace_back("tokens", CostModelPtr(tokens));

  CostFile file;
  file.per_sequence = c.per_sequence;
  file.per_document = c.per_document;
  file.linear = c.linear;
  file.quadratic = c.quadratic;
  for (auto& [name, model] : models) {
    const bool scaled = name != "fitted";
    QualityRow row{name, Rate(model.get(), train, scaled, 1, 0), std::nullopt};
    if (held_out.size() > 0) {
      row.held_out = Rate(model.get(), held_out, false, row.train.scale, row.train.offset);
    }
    file.quality.push_back(row);
  }
  file.samples = samples;
  file.provenance = {{"source", "flopspack fit"},
                     {"input", path},
                     {"samples", std::to_string(samples.size())},
                     {"library", flopspack_version_string()}};
  const std::string& save = o.save;
  if (!save.empty()) WriteCostFile(file, save);

  Table table({"<cost model", "R2 train", "R2 held out", "RMS held out", "mean rel err held out",
               "max rel err held out"});
  for (const QualityRow& row : file.quality) {
    const auto& h = row.held_out;
    table.AddRow({RowTitle(row.model), Cell(row.train.r_squared, 3),
                  h ? Cell(h->r_squared, 3) : "-", h ? Cell(h->rms_residual, 3) : "-",
                  h ? Percent(h->mean_relative_error) : "-",
                  h ? Percent(h->max_relative_error) : "-"});
  }
  if (format == Format::kJson) {
    Json out = Envelope("fit");
    out.Set("input", path);
    out.Set("samples", static_cast<uint64_t>(samples.size()));
    out.Set("held_out", static_cast<uint64_t>(held_out.size()));
    Json coefficients = Json::Object();
    coefficients.Set("per_sequence", c.per_sequence);
    coefficients.Set("per_document", c.per_document);
    coefficients.Set("linear", c.linear);
    coefficients.Set("quadratic", c.quadratic);
    out.Set("coefficients", std::move(coefficients));
    out.Set("quality", QualityRowsJson(file.quality));
    out.Set("cost_file", save.empty() ? Json() : Json(save));
    Emit(o.output, out.Dump());
    return;
  }
  if (format == Format::kCsv) {
    Emit(o.output, table.Csv());
    return;
  }
  std::string text =
      absl::StrFormat("calibration: %d samples from %s (%s): %d fitted, %d held out\n\n",
                      samples.size(), path, input_kind, train.size(), held_out.size());
  text += table.Text();
  text += absl::StrFormat(
      "\nfitted: %.4g s per sequence + %.4g s per document + %.4g s/token + %.4g s/token^2 per "
      "document\n",
      c.per_sequence, c.per_document, c.linear, c.quadratic);
  if (!shape_given) {
    text += "(give --model or the shape flags to rate the FLOPs formula of your model too)\n";
  }
  text += save.empty() ? "(--save FILE writes the model for --cost-file)\n"
                       : absl::StrFormat("saved to %s: use it with --cost-file %s\n", save, save);
  Emit(o.output, text);
}

Runner DefineFit(CLI::App& app) {
  auto o = std::make_shared<FitOptions>();
  app.add_option("--save", o->save,
                 "write the fitted model, its quality table and the samples to this cost-model "
                 "file")
      ->type_name("FILE");
  AddShapeOptions(app, o->cost.shape);
  AddOutputOptions(app, o->output);
  return [o](const std::vector<std::string>& args) { Run(*o, args[0]); };
}

}  // namespace

Command FitCommand() {
  return {"fit",
          "fit the cost model to measured times and rate it against the FLOPs formula and tokens",
          "[flags] SAMPLES",
          "SAMPLES is a text file with one measured packed sequence per line, \"SECONDS LENGTH\n"
          "[LENGTH ...]\" (the time of its forward + backward and its documents' lengths), or a\n"
          "calibration report saved by flopspack.torch.calibrate. Every fourth sample is held\n"
          "out (a report keeps its own split); the polynomial is fitted on the others and every\n"
          "model is rated on both parts: R^2, RMS and relative errors (docs/cost-models.md).\n"
          "--save FILE writes a cost-model file that every subcommand takes as --cost-file.",
          1,
          1,
          DefineFit};
}

}  // namespace flopspack::cli
