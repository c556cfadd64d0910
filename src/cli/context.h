// What most subcommands start from: the lengths read from LENGTHS and the
// cost model from the model flags.
#ifndef FLOPSPACK_CLI_CONTEXT_H_
#define FLOPSPACK_CLI_CONTEXT_H_

#include <string>
#include <vector>

#include "handles.h"
#include "input.h"
#include "json.h"
#include "model.h"
#include "options.h"

namespace flopspack::cli {

struct Context {
  Lengths lengths;
  ModelSpec spec;
  CostModelPtr model;
  int64_t tokens = 0;  // sum of the lengths
  // --extra-costs (simulate, report): one per length, or empty = none.
  std::vector<double> extra_costs;
  std::string extra_costs_source;
};

// Reads --extra-costs FILE into the context (path empty = none).
void LoadExtraCosts(Context& context, const std::string& path);

// Resolves the cost options and reads path (with --column).
Context LoadContext(const InputOptions& input, const CostOptions& cost, const std::string& path);

// For --overflow=error: an input error naming the line of the first
// document longer than capacity (rather than the library's array index).
void RequireWithinCapacity(const Context& context, int64_t capacity);

// A library message in the user's terms: "lengths[16]" becomes the file and
// line ("data.txt:17") and option fields become the flags that set them
// (max_tokens_per_microbatch -> --max-tokens, num_ranks -> --ranks, ...).
std::string InUserTerms(const Context& context, const std::string& message);
// Check() with the message in the user's terms.
void CheckInput(const Context& context, flopspack_status status, const std::string& doing);

// {"source", "format", "column", "count", "tokens"} for --json.
Json InputJson(const Context& context);

// --model etc. header lines for tables: "# 100,000 documents, ... from x.txt".
std::string TableHeader(const Context& context);

}  // namespace flopspack::cli

#endif  // FLOPSPACK_CLI_CONTEXT_H_
