// Cost-model files (docs/cost-models.md, "Cost-model files") in the CLI:
// the reader behind --cost-file and the writer behind `flopspack fit`.
//
// The reader makes the format's checks in the format's order (valid JSON, an
// object, format, version, kind, attention, the four coefficients, unit,
// provenance, quality) and words its errors like the other languages'
// readers ("cost model file: coefficients.linear = -3: must be a finite
// number >= 0"); the shared vectors tests/golden/cost_model_files.json are
// checked against it. A calibration report (a cost-model file with
// "samples", written by flopspack.torch.calibrate or `flopspack fit`) also
// yields its samples. JSON is parsed and written with nlohmann-json.
#ifndef FLOPSPACK_CLI_COST_FILE_H_
#define FLOPSPACK_CLI_COST_FILE_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "flopspack/flopspack.h"
#include "json.h"

namespace flopspack::cli {

// One row of a prediction-quality table: how model `model` ("fitted",
// "flops", "tokens", or any name a writer chose) predicted the training
// samples and, when there were any, the held-out ones.
struct QualityRow {
  std::string model;
  flopspack_prediction_quality train;
  std::optional<flopspack_prediction_quality> held_out;
};

// One measured packed sequence: its documents' lengths and its time.
struct CalibrationSample {
  std::vector<int64_t> lengths;
  double seconds = 0;
  bool held_out = false;
};

struct CostFile {
  // The four numbers of flopspack_cost_model_polynomial, in its order.
  double per_sequence = 0, per_document = 0, linear = 0, quadratic = 0;
  std::string unit = "seconds";
  std::map<std::string, std::string> provenance;
  std::vector<QualityRow> quality;
  std::vector<CalibrationSample> samples;  // empty unless the file has "samples"
};

// Parses a file's text. Throws std::invalid_argument whose message starts
// with "cost model file: " and names the key at fault.
CostFile ParseCostFile(const std::string& text);

// The fields of one flopspack_prediction_quality, in the struct's order: the
// one serializer behind the file's "quality" rows and the CLI's --json.
nlohmann::ordered_json QualityJson(const flopspack_prediction_quality& quality);

// The whole file at path; an input CliError "PATH: cannot read <what>".
std::string ReadTextFile(const std::string& path, const std::string& what);

// Reads and parses path; throws an input CliError "PATH: cost model file: ...".
CostFile ReadCostFile(const std::string& path);

// The file's text: the fields above, numbers in their shortest exact form,
// "quality" and "samples" only when non-empty.
std::string CostFileText(const CostFile& file);

// Writes CostFileText to path through a temporary name and a rename, so a
// reader never sees half a file. Throws an internal CliError on failure.
void WriteCostFile(const CostFile& file, const std::string& path);

// The fitted model a file describes.
flopspack_cost_model* MakeModelFromFile(const CostFile& file);

}  // namespace flopspack::cli

#endif  // FLOPSPACK_CLI_COST_FILE_H_
