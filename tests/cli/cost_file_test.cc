// The CLI's cost-model file reader on the shared vectors
// tests/golden/cost_model_files.json (the Python, Go, Rust and C readers are
// checked on the same cases): every valid file gives the same coefficients to
// the last bit, every invalid one is rejected naming what is wrong; and what
// the writer writes reads back bit for bit.
#include "cost_file.h"

#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

namespace flopspack::cli {
namespace {

bool SameBits(double a, double b) { return std::memcmp(&a, &b, sizeof(a)) == 0; }

nlohmann::json Golden(const std::string& name) {
  std::ifstream in(std::string(FLOPSPACK_GOLDEN_DIR) + "/" + name);
  return nlohmann::json::parse(in);
}

TEST(CostFileTest, GoldenFilesGiveTheSameModelOrTheSameRejection) {
  size_t valid = 0, invalid = 0;
  const nlohmann::json golden = Golden("cost_model_files.json");
  for (const auto& c : golden["cases"]) {
    SCOPED_TRACE(c["name"].get<std::string>());
    const std::string text = c["text"].get<std::string>();
    if (c.contains("error")) {
      ++invalid;
      try {
        ParseCostFile(text);
        ADD_FAILURE() << "accepted";
      } catch (const std::invalid_argument& e) {
        const std::string message = e.what();
        EXPECT_EQ(message.rfind("cost model file: ", 0), 0u) << message;
        EXPECT_NE(message.find(c["error"].get<std::string>()), std::string::npos) << message;
      }
      continue;
    }
    ++valid;
    const CostFile file = ParseCostFile(text);
    EXPECT_EQ(file.unit, c["unit"].get<std::string>());
    const auto& want = c["coefficients"];
    EXPECT_TRUE(SameBits(file.per_sequence, want["per_sequence"].get<double>()));
    EXPECT_TRUE(SameBits(file.per_document, want["per_document"].get<double>()));
    EXPECT_TRUE(SameBits(file.linear, want["linear"].get<double>()));
    EXPECT_TRUE(SameBits(file.quadratic, want["quadratic"].get<double>()));
  }
  EXPECT_GE(valid, 3u);
  EXPECT_GE(invalid, 12u);
}

TEST(CostFileTest, WrittenFileReadsBackBitForBit) {
  CostFile file;
  file.per_sequence = 0.1 + 0.2;  // not a short decimal: needs all 17 digits
  file.per_document = 1.0 / 3.0;
  file.linear = 9.400482702534579e-08;
  file.quadratic = 5e-324;  // the smallest subnormal
  file.unit = "seconds";
  file.provenance = {{"source", "test"}};
  flopspack_prediction_quality q{};
  q.struct_size = sizeof(q);
  q.r_squared = -0.25;  // held-out R^2 may be negative
  q.num_samples = 7;
  file.quality.push_back({"fitted", q, q});
  file.samples.push_back({{3, 4096}, 0.125, true});
  const CostFile back = ParseCostFile(CostFileText(file));
  EXPECT_TRUE(SameBits(back.per_sequence, file.per_sequence));
  EXPECT_TRUE(SameBits(back.per_document, file.per_document));
  EXPECT_TRUE(SameBits(back.linear, file.linear));
  EXPECT_TRUE(SameBits(back.quadratic, file.quadratic));
  EXPECT_EQ(back.provenance, file.provenance);
  ASSERT_EQ(back.quality.size(), 1u);
  EXPECT_EQ(back.quality[0].model, "fitted");
  EXPECT_EQ(back.quality[0].train.r_squared, -0.25);
  ASSERT_TRUE(back.quality[0].held_out.has_value());
  EXPECT_EQ(back.quality[0].held_out->num_samples, 7u);
  ASSERT_EQ(back.samples.size(), 1u);
  EXPECT_EQ(back.samples[0].lengths, (std::vector<int64_t>{3, 4096}));
  EXPECT_EQ(back.samples[0].seconds, 0.125);
  EXPECT_TRUE(back.samples[0].held_out);
}

TEST(CostFileTest, BadSamplesAreRejectedNamingTheSample) {
  const std::string head =
      R"({"format": "flopspack-cost-model", "version": 1, "kind": "polynomial",
          "attention": "document", "coefficients": {"per_sequence": 0, "per_document": 0,
          "linear": 1, "quadratic": 0}, "samples": )";
  for (const auto& [samples, fragment] : std::vector<std::pair<std::string, std::string>>{
           {R"([{"lengths": [], "seconds": 1}])", "samples[0].lengths"},
           {R"([{"lengths": [5, 0], "seconds": 1}])", "samples[0].lengths: 0"},
           {R"([{"lengths": [5], "seconds": -1}])", "samples[0].seconds"},
           {R"([{"lengths": [5], "seconds": 0}])", "samples[0].seconds must be > 0"},
           {R"([{"lengths": [5], "seconds": 1}, {"lengths": [5]}])", "samples[1].seconds"},
           {R"({})", "\"samples\" must be an array"}}) {
    SCOPED_TRACE(samples);
    try {
      ParseCostFile(head + samples + "}");
      ADD_FAILURE() << "accepted";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace flopspack::cli
