// Model flags and presets to a cost model through the C API.
#include "model.h"

#include <gtest/gtest.h>

#include "args.h"
#include "options.h"
#include "status.h"

namespace flopspack::cli {
namespace {

// The cost options a command parsed from args.
CostOptions parsed;
Runner DefineModel(CLI::App& app) {
  auto o = std::make_shared<CostOptions>();
  AddCostOptions(app, *o);
  return [o](const std::vector<std::string>&) { parsed = *o; };
}

ModelSpec Resolve(const std::vector<std::string>& args) {
  static const Command command = {"t", "", "", "", 0, 0, DefineModel};
  CommandLine line(command);
  line.Parse(args);
  line.Run();
  return ResolveModel(parsed);
}

double Cost(const ModelSpec& spec, int64_t length) {
  CostModelPtr model = MakeCostModel(spec);
  double cost = 0;
  EXPECT_EQ(flopspack_cost_model_sequence_cost(model.get(), &length, 1, &cost), FLOPSPACK_OK);
  return cost;
}

TEST(ModelTest, DefaultIsLlama3_8BTransformer) {
  const ModelSpec spec = Resolve({});
  EXPECT_EQ(spec.preset, "llama3-8b");
  EXPECT_EQ(spec.unit, "FLOPs");
  // The hand-computed value of docs/cost-models.md.
  EXPECT_DOUBLE_EQ(Cost(spec, 8192), 421651971833856.0);
}

TEST(ModelTest, FlagsGiveTheSameShapeAsThePreset) {
  const ModelSpec spec = Resolve({"--layers=32", "--hidden=4096", "--heads=32", "--kv-heads=8",
                                  "--ffn=14336", "--vocab=128256", "--gated"});
  EXPECT_EQ(spec.preset, "");
  EXPECT_DOUBLE_EQ(Cost(spec, 8192), 421651971833856.0);
}

TEST(ModelTest, FlagsOverrideOneFieldOfThePreset) {
  const ModelSpec base = Resolve({"--model=llama3-8b"});
  const ModelSpec deeper = Resolve({"--model=llama3-8b", "--layers=64"});
  EXPECT_EQ(deeper.config.num_layers, 64);
  EXPECT_EQ(deeper.config.num_key_value_heads, 8);
  EXPECT_EQ(deeper.config.vocab_size, 128256);
  // Layers double, the LM head does not: cost(64 layers) = 2 cost(32) - head.
  const double head = 3.0 * 2 * 4096 * 128256 * 1000;
  EXPECT_NEAR(Cost(deeper, 1000), 2 * Cost(base, 1000) - head, 1e-9 * Cost(deeper, 1000));
}

TEST(ModelTest, CausalAndRecomputeFlags) {
  const ModelSpec causal = Resolve({"--model=gpt3-175b", "--vocab=0"});
  const ModelSpec full = Resolve({"--model=gpt3-175b", "--nocausal", "--recompute", "--vocab=0"});
  // Megatron: 72*s*L*d^2*(1 + s/(6d)) for 3x; recompute makes it 4x (96).
  const double s = 2048, L = 96, d = 12288;
  const double megatron = 96 * s * L * d * d * (1 + s / (6 * d));
  EXPECT_NEAR(Cost(full, 2048), megatron, 1e-12 * megatron);
  EXPECT_LT(Cost(causal, 2048), Cost(full, 2048));
}

TEST(ModelTest, QuadraticUsesTheShapesRatio) {
  const ModelSpec spec = Resolve({"--cost=quadratic"});
  // Attention's share of a 16K Llama-3-8B document is 22% (docs/cost-models.md).
  const double c = spec.quadratic_coef;
  EXPECT_NEAR(c * 16384 / (1 + c * 16384), 0.2226, 5e-4);
  EXPECT_DOUBLE_EQ(Cost(spec, 1000), 1000 + c * 1e6);
  // And it is the transformer's FLOPs ratio: cost_T(l) / cost_T(1-token dense)
  // matches l + c*l^2 up to the causal diagonal (l(l+1)/2 vs l^2/2).
  const ModelSpec flops = Resolve({"--cost=transformer"});
  // cost_T(l) = 3D(l + c*l(l+1)) with D the dense FLOPs per token, so
  // cost_T(1) = 3D(1 + 2c).
  const double three_d = Cost(flops, 1) / (1 + 2 * c);
  EXPECT_NEAR(Cost(flops, 30000) / three_d, 30000 + c * 30000.0 * 30001, 1e-9 * 30000);
  EXPECT_DOUBLE_EQ(Resolve({"--cost=quadratic", "--quadratic-coef=0.5"}).quadratic_coef, 0.5);
}

TEST(ModelTest, TokensCostIsLength) {
  EXPECT_DOUBLE_EQ(Cost(Resolve({"--cost=tokens"}), 1234), 1234);
}

TEST(ModelTest, UsageAndLibraryErrors) {
  auto code = [](const std::vector<std::string>& args) {
    try {
      MakeCostModel(Resolve(args));
    } catch (const CliError& e) {
      return e.code();
    }
    return kExitOk;
  };
  EXPECT_EQ(code({"--cost=cubic"}), kExitUsage);
  EXPECT_EQ(code({"--model=gpt5"}), kExitUsage);
  EXPECT_EQ(code({"--layers=4"}), kExitUsage);  // incomplete shape
  EXPECT_EQ(code({"--attention=global"}), kExitUsage);
  // The library rejects a shape: bad input, with its message.
  EXPECT_EQ(code({"--model=llama3-8b", "--heads=7"}), kExitBadInput);
  EXPECT_EQ(code({"--layers=2", "--hidden=64", "--heads=4", "--ffn=256"}), kExitOk);
}

TEST(ModelTest, PresetsAreValidAndUnique) {
  for (const Preset& p : Presets()) {
    const ModelSpec spec = Resolve({std::string("--model=") + p.name});
    EXPECT_GT(Cost(spec, 4096), 0) << p.name;
    EXPECT_EQ(FindPreset(p.name), &p);
  }
}

}  // namespace
}  // namespace flopspack::cli
