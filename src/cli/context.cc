#include "context.h"

#include <cctype>
#include <string>
#include <utility>

#include "absl/flags/flag.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_format.h"
#include "flags.h"
#include "output.h"
#include "status.h"

namespace flopspack::cli {

Context LoadContext(const Invocation& invocation, const std::string& path) {
  Context context;
  // Flags first: a usage error should not wait for a large file to load.
  context.spec = ResolveModel(invocation);
  context.model = MakeCostModel(context.spec);
  context.lengths = ReadLengths(path, absl::GetFlag(FLAGS_column));
  for (int64_t length : context.lengths.values) {
    if (__builtin_add_overflow(context.tokens, length, &context.tokens)) {
      throw InputError(context.lengths.source + ": the total number of tokens overflows int64");
    }
  }
  return context;
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
  static const std::pair<const char*, const char*> kFields[] = {
      {"max_tokens_per_microbatch", "--max-tokens"},
      {"tokens_per_microbatch", "--capacity"},
      {"microbatches_per_rank", "--microbatches"},
      {"accumulation_steps", "--microbatches"},
      {"max_padded_tokens", "--max-padded-tokens"},
      {"max_batch_cost", "--max-batch-cost"},
      {"num_ranks", "--ranks"},
      {"num_steps", "--steps"},
      {"num_buckets", "--buckets"},
  };
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
    bool replaced = false;
    for (const auto& [field, flag] : kFields) {
      const size_t len = std::char_traits<char>::length(field);
      const bool word_start =
          i == 0 ||
          !(std::isalnum(static_cast<unsigned char>(message[i - 1])) || message[i - 1] == '_');
      if (word_start && message.compare(i, len, field) == 0) {
        out += flag;
        i += len;
        replaced = true;
        break;
      }
    }
    if (!replaced) out += message[i++];
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
  return out;
}

std::string TableHeader(const Context& context) {
  return absl::StrFormat("# %s documents, %s tokens from %s\n# cost: %s\n\n",
                         Cell(static_cast<int64_t>(context.lengths.values.size())),
                         Cell(context.tokens), context.lengths.source, ModelSummary(context.spec));
}

}  // namespace flopspack::cli
