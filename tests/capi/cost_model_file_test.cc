// Cost-model files (docs/cost-models.md) read as a C or C++ program reads
// them: parse the JSON, check the header fields, then
// flopspack_cost_model_polynomial from the four coefficients. Checked on the
// shared vectors tests/golden/cost_model_files.json (every valid file gives
// the same coefficients and costs to the last bit, every invalid one is
// rejected with a message naming what is wrong) and prediction_quality.json
// (flopspack_cost_model_evaluate's figures), which the Python, Go and Rust
// tests read too.
#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "../golden/golden_io.h"
#include "capi_test_util.h"

namespace {

using golden::Value;

Value LoadModelFile(const std::string& file) {
  std::ifstream in(std::string(FLOPSPACK_GOLDEN_DIR) + "/" + file);
  std::stringstream text;
  text << in.rdbuf();
  return golden::Parse(text.str());
}

bool SameBits(double a, double b) { return std::memcmp(&a, &b, sizeof(a)) == 0; }

struct CostModelFile {
  std::string error;  // empty when the file is valid
  double coefficients[4] = {0, 0, 0, 0};
  std::string unit = "seconds";
};

const char* const kNames[4] = {"per_sequence", "per_document", "linear", "quadratic"};

// The reader the format asks for, in a few lines: unknown keys ignored.
CostModelFile Read(const std::string& text) {
  CostModelFile out;
  Value file;
  try {
    file = golden::Parse(text);
  } catch (const std::exception& e) {
    out.error = std::string("not valid JSON: ") + e.what();
    return out;
  }
  auto text_field = [&](const char* key) {
    return file.has(key) && file[key].kind == Value::kString ? file[key].text : std::string();
  };
  if (file.kind != Value::kObject) {
    out.error = "the top level is not an object";
  } else if (text_field("format") != "flopspack-cost-model") {
    out.error = "\"format\" is not \"flopspack-cost-model\"";
  } else if (!file.has("version") || file["version"].kind != Value::kInt) {
    out.error = "\"version\" is not an integer";
  } else if (file["version"].integer != 1) {
    out.error = "version " + std::to_string(file["version"].integer) + " is not supported";
  } else if (text_field("kind") != "polynomial") {
    out.error = "kind is not \"polynomial\"";
  } else if (text_field("attention") != "document") {
    out.error = "attention is not \"document\"";
  } else if (!file.has("coefficients") || file["coefficients"].kind != Value::kObject) {
    out.error = "\"coefficients\" is missing";
  } else if (file.has("unit") && file["unit"].kind != Value::kString) {
    out.error = "\"unit\" is not a string";
  }
  for (int i = 0; i < 4 && out.error.empty(); ++i) {
    const Value& c = file["coefficients"];
    const std::string name = std::string("coefficients.") + kNames[i];
    if (!c.has(kNames[i])) {
      out.error = name + " is missing";
    } else if (c[kNames[i]].kind != Value::kInt && c[kNames[i]].kind != Value::kDouble) {
      out.error = name + " is not a number";
    } else {
      const double v = c[kNames[i]].AsDouble();
      if (!std::isfinite(v) || v < 0) out.error = name + " must be finite and >= 0";
      out.coefficients[i] = v;
    }
  }
  if (out.error.empty() && file.has("provenance")) {
    for (const auto& [key, value] : file["provenance"].fields) {
      if (value.kind != Value::kString) out.error = "provenance." + key + " is not a string";
    }
  }
  if (out.error.empty() && file.has("quality")) {
    for (const Value& row : file["quality"].items) {
      if (row.kind != Value::kObject || !row.has("model") || !row.has("train")) {
        out.error = "quality rows need \"model\" and \"train\"";
      }
    }
  }
  if (out.error.empty() && file.has("unit")) out.unit = file["unit"].text;
  return out;
}

TEST(CostModelFileTest, GoldenFilesGiveTheSameModelOrTheSameRejection) {
  const Value golden = LoadModelFile("cost_model_files.json");
  size_t valid = 0, invalid = 0;
  for (const Value& c : golden["cases"].items) {
    SCOPED_TRACE(c["name"].text);
    const CostModelFile file = Read(c["text"].text);
    if (c.has("error")) {
      ++invalid;
      EXPECT_FALSE(file.error.empty()) << "accepted";
      EXPECT_NE(file.error.find(c["error"].text), std::string::npos) << file.error;
      continue;
    }
    ++valid;
    ASSERT_EQ(file.error, "");
    EXPECT_EQ(file.unit, c["unit"].text);
    flopspack_cost_model* model = nullptr;
    ASSERT_EQ(flopspack_cost_model_polynomial(file.coefficients[0], file.coefficients[1],
                                              file.coefficients[2], file.coefficients[3], &model),
              FLOPSPACK_OK);
    flopspack_polynomial_coefficients back;
    back.struct_size = sizeof(back);
    ASSERT_EQ(flopspack_cost_model_coefficients(model, &back), FLOPSPACK_OK);
    const double got[4] = {back.per_sequence, back.per_document, back.linear, back.quadratic};
    for (int i = 0; i < 4; ++i) {
      EXPECT_TRUE(SameBits(got[i], c["coefficients"][kNames[i]].AsDouble())) << kNames[i];
    }
    for (const Value& q : c["queries"].items) {
      const std::vector<int64_t> lengths = q["lengths"].AsInts();
      double cost = 0;
      ASSERT_EQ(flopspack_cost_model_sequence_cost(model, lengths.data(), lengths.size(), &cost),
                FLOPSPACK_OK);
      EXPECT_TRUE(SameBits(cost, q["sequence_cost"].AsDouble()));
    }
    flopspack_cost_model_destroy(model);
  }
  EXPECT_GE(valid, 3u);
  EXPECT_GE(invalid, 12u);
}

TEST(CostModelFileTest, GoldenPredictionQuality) {
  const Value golden = LoadModelFile("prediction_quality.json");
  ASSERT_GE(golden["cases"].items.size(), 4u);
  for (const Value& c : golden["cases"].items) {
    SCOPED_TRACE(c["name"].text);
    flopspack_cost_model* model = golden::MakeModel(c["model"]);
    const std::vector<int64_t> lengths = c["lengths"].AsInts();
    std::vector<size_t> offsets;
    for (int64_t o : c["offsets"].AsInts()) offsets.push_back(static_cast<size_t>(o));
    const std::vector<double> seconds = c["seconds"].AsDoubles();
    flopspack_evaluate_options options;
    flopspack_evaluate_options_init(&options);
    options.fit_scale = static_cast<int32_t>(c["fit_scale"].AsInt());
    options.scale = c["scale"].AsDouble();
    options.offset = c["offset"].AsDouble();
    flopspack_prediction_quality q;
    q.struct_size = sizeof(q);
    ASSERT_EQ(flopspack_cost_model_evaluate(model, &options, lengths.data(), offsets.data(),
                                            seconds.data(), seconds.size(), &q),
              FLOPSPACK_OK)
        << flopspack_last_error_message();
    const Value& want = c["quality"];
    EXPECT_EQ(want.fields.size(), 8u);
    EXPECT_TRUE(SameBits(q.scale, want["scale"].AsDouble()));
    EXPECT_TRUE(SameBits(q.offset, want["offset"].AsDouble()));
    EXPECT_TRUE(SameBits(q.r_squared, want["r_squared"].AsDouble()));
    EXPECT_TRUE(SameBits(q.rms_residual, want["rms_residual"].AsDouble()));
    EXPECT_TRUE(SameBits(q.mean_relative_error, want["mean_relative_error"].AsDouble()));
    EXPECT_TRUE(SameBits(q.median_relative_error, want["median_relative_error"].AsDouble()));
    EXPECT_TRUE(SameBits(q.max_relative_error, want["max_relative_error"].AsDouble()));
    EXPECT_EQ(int64_t(q.num_samples), want["num_samples"].AsInt());
    flopspack_cost_model_destroy(model);
  }
}

}  // namespace
