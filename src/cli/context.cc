#include "context.h"

#include <cctype>
#include <string>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_format.h"
#include "output.h"
#include "status.h"

namespace flopspack::cli {

Context LoadContext(const InputOptions& input, const CostOptions& cost, const std::string& path) {
  Context context;
  // Flags first: a usage error should not wait for a large file to load.
  context.spec = ResolveModel(cost);
  context.model = MakeCostModel(context.spec);
  context.lengths = ReadLengths(path, input.column);
  for (int64_t length : context.lengths.values) {
    if (__builtin_add_overflow(context.tokens, length, &context.tokens)) {
      throw InputError(context.lengths.source + ": the total number of tokens overflows int64");
    }
  }
  return context;
}

void LoadExtraCosts(Context& context, const std::string& path) {
  if (path.empty()) return;
  context.extra_costs = ReadExtraCosts(path, context.lengths.values.size());
  context.extra_costs_source = path == "-" ? "<stdin>" : path;
}

void RequireWithinCapacity(const Context& context, int64_t capacity) {
  const std::vector<int64_t>& v = context.lengths.values;
  for (size_t i = 0; i < v.size(); ++i) {
    if (v[i] > capacity) {
      throw InputError(absl::StrFormat(
          "%s: length %d exceeds --capacity=%d (--overflow=error; use --overflow=split to "
          "accept it)",
          context.lengths.Where(i), v[i], capacity));
    }
  }
}

std::string InUserTerms(const Context& context, const std::string& message) {
  std::string out;
  for (size_t i = 0; i < message.size();) {
    if (message.compare(i, 8, "lengths[") == 0) {
      const size_t close = message.find(']', i + 8);
      size_t index = 0;
      if (close != std::string::npos &&
          absl::SimpleAtoi(message.substr(i + 8, close - i - 8), &index) &&
          index < context.lengths.values.size()) {
        out += context.lengths.Where(index);
        i = close + 1;
        if (message.compare(i, 3, " = ") == 0) {
          out += ": length ";
          i += 3;
        }
        continue;
      }
    }
    out += message[i++];
  }
  return out;
}

void CheckInput(const Context& context, flopspack_status status, const std::string& doing) {
  try {
    Check(status, doing);
  } catch (const CliError& error) {
    throw CliError(error.code(), InUserTerms(context, error.what()));
  }
}

Json InputJson(const Context& context) {
  Json out = Json::Object();
  out.Set("source", context.lengths.source);
  const char* format = context.lengths.format == InputFormat::kNpy   ? "npy"
                       : context.lengths.format == InputFormat::kCsv ? "csv"
                                                                     : "text";
  out.Set("format", format);
  if (!context.lengths.column.empty()) out.Set("column", context.lengths.column);
  out.Set("count", static_cast<uint64_t>(context.lengths.values.size()));
  out.Set("tokens", context.tokens);
  if (!context.extra_costs.empty()) out.Set("extra_costs", context.extra_costs_source);
  return out;
}

std::string TableHeader(const Context& context) {
  const std::string extra =
      context.extra_costs.empty()
          ? ""
          : absl::StrFormat(" + per-document extra costs from %s", context.extra_costs_source);
  return absl::StrFormat("# %s documents, %s tokens from %s\n# cost: %s%s\n\n",
                         Cell(static_cast<int64_t>(context.lengths.values.size())),
                         Cell(context.tokens), context.lengths.source, ModelSummary(context.spec),
                         extra);
}

}  // namespace flopspack::cli
