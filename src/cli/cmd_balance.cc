// flopspack balance: documents (with their costs and tokens) into K groups
// so that the costliest group is as cheap as possible.
#include <CLI/CLI.hpp>
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "commands.h"
#include "context.h"
#include "options.h"
#include "output.h"
#include "plan_output.h"
#include "status.h"

namespace flopspack::cli {
namespace {

struct BalanceOptions {
  int64_t groups = 8;
  std::string algorithm = "auto";
  bool equal_count = false;
  bool refine = true;
  int64_t max_tokens = 0;  // 0 = no cap
  uint64_t seed = 0;
  bool compare = false;
  bool plan = false;
  InputOptions input;
  CostOptions cost;
  OutputOptions output;
};

struct BalanceAlgorithm {
  const char* name;
  const char* label;
  int32_t value;
};

const std::vector<BalanceAlgorithm>& BalanceAlgorithms() {
  static const std::vector<BalanceAlgorithm> algorithms = {
      {"auto", "auto (Karmarkar-Karp or LPT)", FLOPSPACK_BALANCE_AUTO},
      {"greedy", "greedy in input order", FLOPSPACK_BALANCE_GREEDY},
      {"lpt", "LPT (costliest first)", FLOPSPACK_BALANCE_LPT},
      {"kk", "Karmarkar-Karp", FLOPSPACK_BALANCE_KARMARKAR_KARP},
  };
  return algorithms;
}

std::vector<std::string> AlgorithmNames() {
  std::vector<std::string> names;
  for (const BalanceAlgorithm& a : BalanceAlgorithms()) names.push_back(a.name);
  return names;
}

// The --algorithm validator admits only the names above.
const BalanceAlgorithm& FindAlgorithm(const std::string& name) {
  for (const BalanceAlgorithm& a : BalanceAlgorithms()) {
    if (name == a.name) return a;
  }
  return BalanceAlgorithms().front();
}

PlanPtr Balance(const BalanceOptions& o, const std::vector<double>& costs,
                const std::vector<int64_t>& tokens, const BalanceAlgorithm& algorithm) {
  flopspack_balance_options options;
  flopspack_balance_options_init(&options);
  options.algorithm = algorithm.value;
  options.num_groups = o.groups;
  options.equal_count = o.equal_count ? 1 : 0;
  options.refine = o.refine ? 1 : 0;
  options.max_tokens_per_group = o.max_tokens;
  options.seed = o.seed;
  flopspack_plan* plan = nullptr;
  Check(flopspack_balance(&options, costs.data(), tokens.data(), costs.size(), &plan),
        absl::StrFormat("balance (%s, %d groups)", algorithm.name, options.num_groups));
  return PlanPtr(plan);
}

void Run(const BalanceOptions& o, const std::string& path) {
  const Format format = OutputFormat(o.output, "balance", true);
  const BalanceAlgorithm& algorithm = FindAlgorithm(o.algorithm);
  const bool compare = o.compare;
  const bool show_plan = o.plan;
  const Context context = LoadContext(o.input, o.cost, path);
  const std::vector<int64_t>& lengths = context.lengths.values;
  const int64_t cap = o.max_tokens;
  for (size_t i = 0; cap > 0 && i < lengths.size(); ++i) {
    if (lengths[i] > cap) {
      throw InputError(
          absl::StrFormat("%s: length %d exceeds --max-tokens=%d: no group can hold it",
                          context.lengths.Where(i), lengths[i], cap));
    }
  }
  std::vector<double> costs(lengths.size());
  Check(flopspack_cost_model_document_costs(context.model.get(), lengths.data(), lengths.size(),
                                            costs.data()),
        "document costs");

  const PlanPtr plan = Balance(o, costs, lengths, algorithm);
  const struct flopspack_plan_metrics metrics = PlanMetrics(plan.get());
  Table comparison({"<algorithm", "balance", "max group cost", "gap to bound", "max tokens"});
  Json comparison_json = Json::Array();
  if (compare) {
    for (const BalanceAlgorithm& a : BalanceAlgorithms()) {
      const PlanPtr other = Balance(o, costs, lengths, a);
      const struct flopspack_plan_metrics m = PlanMetrics(other.get());
      int64_t max_tokens = 0;
      for (size_t g = 0; g < flopspack_plan_group_count(other.get()); ++g) {
        int64_t real = 0;
        Check(flopspack_plan_group_info(other.get(), g, &real, nullptr, nullptr), "group info");
        max_tokens = std::max(max_tokens, real);
      }
      comparison.AddRow({a.label, Percent(m.balance_efficiency, 3), Si(m.max_group_cost),
                         Percent(m.gap_to_lower_bound, 3), Cell(max_tokens)});
      Json j = Json::Object();
      j.Set("algorithm", a.name);
      j.Set("label", a.label);
      j.Set("metrics", PlanMetricsJson(m));
      comparison_json.Push(std::move(j));
    }
  }
  if (format == Format::kJson) {
    Json out = Envelope("balance");
    out.Set("input", InputJson(context));
    out.Set("model", ModelJson(context.spec));
    Json options = Json::Object();
    options.Set("algorithm", algorithm.name);
    options.Set("groups", o.groups);
    options.Set("equal_count", o.equal_count);
    options.Set("refine", o.refine);
    options.Set("max_tokens", o.max_tokens);
    options.Set("seed", o.seed);
    out.Set("options", std::move(options));
    out.Set("metrics", PlanMetricsJson(metrics));
    if (compare) out.Set("comparison", std::move(comparison_json));
    if (show_plan) out.Set("groups", PlanGroupsJson(plan.get(), false));
    Emit(o.output, out.Dump());
    return;
  }
  const Table groups = PlanGroupsTable(plan.get(), false);
  if (format == Format::kCsv) {
    Emit(o.output, show_plan ? PlanGroupsCsvTable(plan.get(), false).Csv()
                   : compare ? comparison.Csv()
                             : groups.Csv());
    return;
  }
  std::string text = TableHeader(context);
  text += absl::StrFormat(
      "balance: %s into %d groups%s%s\n\n", algorithm.label, o.groups,
      o.equal_count ? ", equal counts" : "",
      o.max_tokens > 0 ? absl::StrCat(", at most ", Cell(o.max_tokens), " tokens each") : "");
  text += PlanMetricsTable(metrics, context.spec.unit).Text();
  if (compare) text += "\nevery algorithm on these documents\n" + comparison.Text();
  if (show_plan || groups.rows() <= 64) text += "\ngroups\n" + groups.Text();
  Emit(o.output, text);
}

Runner DefineBalance(CLI::App& app) {
  auto o = std::make_shared<BalanceOptions>();
  app.add_option("--groups", o->groups, "number of groups (ranks) to balance over")
      ->capture_default_str()
      ->check(AtLeast(1));
  AddAlgorithm(app, o->algorithm, AlgorithmNames(),
               "auto (Karmarkar-Karp when groups get >= 8 documents each, else LPT), greedy, "
               "lpt or kk");
  AddSwitch(app, "equal-count", o->equal_count, "group sizes differ by at most one document");
  AddSwitch(app, "refine", o->refine, "local search after the algorithm");
  AddMaxTokens(app, o->max_tokens, "hard token cap per group (default: 0 = no cap)");
  AddSeed(app, o->seed);
  AddCompareSwitch(app, o->compare);
  AddPlanSwitch(app, o->plan);
  AddInputOptions(app, o->input);
  AddCostOptions(app, o->cost);
  AddOutputOptions(app, o->output);
  return [o](const std::vector<std::string>& args) { Run(*o, args[0]); };
}

}  // namespace

Command BalanceCommand() {
  return {"balance",
          "spread documents over K groups so the costliest group is as cheap as possible",
          "[flags] LENGTHS",
          "Costs each document with the cost model and balances the documents over --groups\n"
          "groups (e.g. ranks) with the library's multiway partitioning, optionally under a\n"
          "--max-tokens cap per group (memory). Prints the metrics (balance = mean / max group\n"
          "cost, gap to the lower bound max(total / K, largest document)) and the groups;\n"
          "--compare lists every algorithm; --plan prints each group's documents.\n"
          "--algorithm: auto (default: Karmarkar-Karp when groups get >= 8 documents each,\n"
          "else LPT), greedy (input order, cheapest group), lpt, kk.",
          1,
          1,
          DefineBalance};
}

}  // namespace flopspack::cli
