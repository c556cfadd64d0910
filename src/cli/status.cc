#include "status.h"

#include <cctype>
#include <map>

namespace flopspack::cli {
namespace {

std::map<std::string, std::string>& Fields() {
  static std::map<std::string, std::string> fields = {
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
  return fields;
}

bool IsWord(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

}  // namespace

void NameField(const std::string& field, const std::string& flag) { Fields()[field] = flag; }

std::string FlagTerms(const std::string& message) {
  std::string out;
  size_t i = 0;
  while (i < message.size()) {
    if (!IsWord(message[i])) {
      out += message[i++];
      continue;
    }
    size_t end = i;
    while (end < message.size() && IsWord(message[end])) ++end;
    const std::string word = message.substr(i, end - i);
    const auto it = Fields().find(word);
    out += it == Fields().end() ? word : it->second;
    i = end;
  }
  return out;
}

void Check(flopspack_status status, const std::string& doing) {
  if (status == FLOPSPACK_OK) return;
  const std::string message = doing + ": " + FlagTerms(flopspack_last_error_message()) + " (" +
                              flopspack_status_string(status) + ")";
  if (status == FLOPSPACK_INTERNAL || status == FLOPSPACK_OUT_OF_MEMORY) {
    throw CliError(kExitInternal, message);
  }
  throw InputError(message);
}

}  // namespace flopspack::cli
