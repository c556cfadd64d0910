// flopspack balance: documents (with their costs and tokens) into K groups
// so that the costliest group is as cheap as possible.
#include <algorithm>

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "commands.h"
#include "context.h"
#include "flags.h"
#include "output.h"
#include "plan_output.h"
#include "status.h"

ABSL_FLAG(int64_t, groups, 8, "number of groups (ranks) to balance over");
ABSL_FLAG(bool, equal_count, false, "group sizes differ by at most one document");
ABSL_FLAG(bool, refine, true, "local search after the algorithm");

namespace flopspack::cli {
namespace {

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

const BalanceAlgorithm& FindAlgorithm(const std::string& name) {
  std::vector<std::string> names;
  for (const BalanceAlgorithm& a : BalanceAlgorithms()) {
    if (name == a.name) return a;
    names.push_back(a.name);
  }
  throw UsageError(
      absl::StrFormat("--algorithm=%s: expected %s", name, absl::StrJoin(names, ", ")));
}

PlanPtr Balance(const std::vector<double>& costs, const std::vector<int64_t>& tokens,
                const BalanceAlgorithm& algorithm) {
  flopspack_balance_options options;
  flopspack_balance_options_init(&options);
  options.algorithm = algorithm.value;
  options.num_groups = absl::GetFlag(FLAGS_groups);
  options.equal_count = absl::GetFlag(FLAGS_equal_count) ? 1 : 0;
  options.refine = absl::GetFlag(FLAGS_refine) ? 1 : 0;
  options.max_tokens_per_group = absl::GetFlag(FLAGS_max_tokens);
  options.seed = absl::GetFlag(FLAGS_seed);
  flopspack_plan* plan = nullptr;
  Check(flopspack_balance(&options, costs.data(), tokens.data(), costs.size(), &plan),
        absl::StrFormat("balance (%s, %d groups)", algorithm.name, options.num_groups));
  return PlanPtr(plan);
}

void Run(const Invocation& invocation) {
  const Format format = OutputFormat("balance", true);
  const BalanceAlgorithm& algorithm =
      FindAlgorithm(invocation.Given("algorithm") ? absl::GetFlag(FLAGS_algorithm) : "auto");
  if (absl::GetFlag(FLAGS_groups) <= 0) {
    throw UsageError(
        absl::StrFormat("--groups=%d: must be at least 1", absl::GetFlag(FLAGS_groups)));
  }
  if (absl::GetFlag(FLAGS_max_tokens) < 0) throw UsageError("--max-tokens must be >= 0");
  const bool compare = absl::GetFlag(FLAGS_compare);
  const bool show_plan = absl::GetFlag(FLAGS_plan);
  const Context context = LoadContext(invocation, invocation.positional[0]);
  const std::vector<int64_t>& lengths = context.lengths.values;
  const int64_t cap = absl::GetFlag(FLAGS_max_tokens);
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

  const PlanPtr plan = Balance(costs, lengths, algorithm);
  const struct flopspack_plan_metrics metrics = PlanMetrics(plan.get());
  Table comparison({"<algorithm", "balance", "max group cost", "gap to bound", "max tokens"});
  Json comparison_json = Json::Array();
  if (compare) {
    for (const BalanceAlgorithm& a : BalanceAlgorithms()) {
      const PlanPtr other = Balance(costs, lengths, a);
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
    options.Set("groups", absl::GetFlag(FLAGS_groups));
    options.Set("equal_count", absl::GetFlag(FLAGS_equal_count));
    options.Set("refine", absl::GetFlag(FLAGS_refine));
    options.Set("max_tokens", absl::GetFlag(FLAGS_max_tokens));
    options.Set("seed", absl::GetFlag(FLAGS_seed));
    out.Set("options", std::move(options));
    out.Set("metrics", PlanMetricsJson(metrics));
    if (compare) out.Set("comparison", std::move(comparison_json));
    if (show_plan) out.Set("groups", PlanGroupsJson(plan.get(), false));
    Emit(out.Dump());
    return;
  }
  const Table groups = PlanGroupsTable(plan.get(), false);
  if (format == Format::kCsv) {
    Emit(show_plan ? PlanGroupsCsvTable(plan.get(), false).Csv()
         : compare ? comparison.Csv()
                   : groups.Csv());
    return;
  }
  std::string text = TableHeader(context);
  text += absl::StrFormat(
      "balance: %s into %d groups%s%s\n\n", algorithm.label, absl::GetFlag(FLAGS_groups),
      absl::GetFlag(FLAGS_equal_count) ? ", equal counts" : "",
      absl::GetFlag(FLAGS_max_tokens) > 0
          ? absl::StrCat(", at most ", Cell(absl::GetFlag(FLAGS_max_tokens)), " tokens each")
          : "");
  text += PlanMetricsTable(metrics, context.spec.unit).Text();
  if (compare) text += "\nevery algorithm on these documents\n" + comparison.Text();
  if (show_plan || groups.rows() <= 64) text += "\ngroups\n" + groups.Text();
  Emit(text);
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
          Concat({{"groups", "algorithm", "equal_count", "refine", "max_tokens", "seed", "compare",
                   "plan"},
                  InputFlags(),
                  ModelFlags(),
                  OutputFlags()}),
          1,
          1,
          Run};
}

}  // namespace flopspack::cli
