// The JSON writer: escaping, number round trips, layout.
#include "json.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>

#include "flopspack/flopspack.h"
#include "output.h"

namespace flopspack::cli {
namespace {

TEST(JsonTest, EscapesStrings) {
  EXPECT_EQ(JsonQuote("a\"b\\c\n\t\x01"), "\"a\\\"b\\\\c\\n\\t\\u0001\"");
  EXPECT_EQ(JsonQuote("naïve"), "\"naïve\"");
}

TEST(JsonTest, NumbersRoundTripShortest) {
  EXPECT_EQ(FormatShortest(0.1), "0.1");
  EXPECT_EQ(FormatShortest(3), "3");
  EXPECT_EQ(FormatShortest(421651971833856.0), "421651971833856");
  // Every double reads back exactly.
  uint64_t state = 12345;
  for (int i = 0; i < 10000; ++i) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    double value;
    uint64_t bits = state;
    std::memcpy(&value, &bits, sizeof value);
    if (!std::isfinite(value)) continue;
    EXPECT_EQ(std::strtod(FormatShortest(value).c_str(), nullptr), value) << bits;
  }
}

TEST(JsonTest, Layout) {
  Json o = Json::Object();
  o.Set("a", 1);
  o.Set("b", Json::ArrayOf(std::vector<double>{0.5, 2}));
  o.Set("c", std::numeric_limits<double>::quiet_NaN());
  o.Set("d", Json());
  o.Set("a", true);  // replaces in place, keeps order
  Json nested = Json::Array();
  Json inner = Json::Object();
  inner.Set("x", "y");
  nested.Push(std::move(inner));
  o.Set("e", std::move(nested));
  o.Set("f", uint64_t{18446744073709551615ull});
  EXPECT_EQ(o.Dump(-1),
            "{\"a\": true, \"b\": [0.5, 2], \"c\": null, \"d\": null, \"e\": [{\"x\": \"y\"}], "
            "\"f\": 18446744073709551616}");
  EXPECT_EQ(o.Dump(2),
            "{\n  \"a\": true,\n  \"b\": [0.5, 2],\n  \"c\": null,\n  \"d\": null,\n  \"e\": [\n"
            "    {\n      \"x\": \"y\"\n    }\n  ],\n  \"f\": 18446744073709551616\n}\n");
}

TEST(JsonTest, EnvelopeNamesSchemaAndVersion) {
  EXPECT_EQ(Envelope("stats").Dump(-1),
            std::string("{\"schema\": \"flopspack-cli/1\", \"command\": \"stats\", "
                        "\"flopspack_version\": \"") +
                flopspack_version_string() + "\"}");
}

}  // namespace
}  // namespace flopspack::cli
