// Definitions of the shared flags. Abseil spells multi-word flags with
// underscores (--kv_heads); the parser (args.cc) also accepts dashes
// (--kv-heads), which is how docs/cli.md writes them.
#include "flags.h"

#include "absl/flags/flag.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "args.h"
#include "flopspack/flopspack.h"
#include "status.h"

ABSL_FLAG(std::string, column, "",
          "CSV column holding the lengths: a header name or a 1-based index");

ABSL_FLAG(bool, json, false, "print JSON (schema flopspack-cli/1, docs/cli.md) instead of a table");
ABSL_FLAG(bool, csv, false, "print the table as CSV");
ABSL_FLAG(std::string, output, "", "write the result to this file instead of standard output");
ABSL_FLAG(bool, progress, true, "progress bar on stderr when stderr is a terminal");

ABSL_FLAG(std::string, cost, "transformer",
          "cost of a document: tokens, quadratic (l + c*l^2) or transformer (training FLOPs)");
ABSL_FLAG(std::string, cost_file, "",
          "a cost-model file (from `flopspack fit` or flopspack.torch.calibrate): cost documents "
          "with its fitted polynomial instead of --cost");
ABSL_FLAG(std::string, model, "",
          "model shape preset (flopspack models lists them); default llama3-8b unless "
          "--layers etc. give the whole shape");
ABSL_FLAG(int64_t, layers, 0, "number of transformer layers (overrides the preset)");
ABSL_FLAG(int64_t, hidden, 0, "hidden size d (overrides the preset)");
ABSL_FLAG(int64_t, heads, 0, "query heads (overrides the preset)");
ABSL_FLAG(int64_t, kv_heads, 0,
          "key/value heads for grouped-query attention (default: the preset's, or --heads)");
ABSL_FLAG(int64_t, head_dim, 0, "size of one head (default: the preset's, or hidden / heads)");
ABSL_FLAG(int64_t, ffn, 0, "FFN width (overrides the preset)");
ABSL_FLAG(int64_t, vocab, -1, "vocabulary size, 0 = no LM head (overrides the preset)");
ABSL_FLAG(bool, gated, false, "gated FFN with three matrices, SwiGLU (implied by presets)");
ABSL_FLAG(bool, causal, true, "count only the causal half of the attention scores");
ABSL_FLAG(bool, recompute, false, "full activation recompute: 4x forward instead of 3x");
ABSL_FLAG(std::string, attention, "document",
          "attention span in a packed sequence: document (varlen masking) or sequence");
ABSL_FLAG(double, quadratic_coef, 0,
          "c of --cost quadratic; 0 (default) = the shape's attention/dense FLOPs ratio");

ABSL_FLAG(uint64_t, seed, 0, "seed of every random choice: the same seed gives the same plan");
ABSL_FLAG(int64_t, capacity, 8192, "tokens per packed sequence (one microbatch)");
ABSL_FLAG(std::string, ranks, "", "data-parallel ranks (GPUs)");
ABSL_FLAG(uint64_t, microbatches, 1,
          "microbatches (gradient-accumulation steps) per rank and optimizer step");
ABSL_FLAG(bool, plan, false, "print the plan's groups themselves, not only its metrics");
ABSL_FLAG(std::string, algorithm, "",
          "the command's algorithm (see its description); default: the command's recommended one");
ABSL_FLAG(std::string, overflow, "",
          "documents over the capacity: split (into capacity-sized pieces), truncate, defer "
          "(plan only) or error; default split");
ABSL_FLAG(int64_t, max_tokens, 0,
          "hard token cap: per group (balance) or per microbatch for the planner policies "
          "(simulate, report; >= --capacity)");
ABSL_FLAG(bool, resample, true,
          "run a point whose step needs more documents than the file holds on documents drawn "
          "with replacement from it (off: the point reads n/a: needs N documents)");
ABSL_FLAG(bool, compare, false, "also run every algorithm on the same input and compare them");

namespace flopspack::cli {

int32_t ParseOverflow(const Invocation& invocation, const std::string& fallback,
                      const std::vector<std::string>& accepted) {
  const std::string name = invocation.Given("overflow") ? absl::GetFlag(FLAGS_overflow) : fallback;
  bool ok = false;
  for (const std::string& a : accepted) ok = ok || a == name;
  if (ok && name == "error") return FLOPSPACK_OVERFLOW_ERROR;
  if (ok && name == "truncate") return FLOPSPACK_OVERFLOW_TRUNCATE;
  if (ok && name == "split") return FLOPSPACK_OVERFLOW_SPLIT;
  if (ok && name == "defer") return FLOPSPACK_OVERFLOW_DEFER;
  throw UsageError(
      absl::StrFormat("--overflow=%s: expected %s", name, absl::StrJoin(accepted, ", ")));
}

const char* OverflowName(int32_t overflow) {
  switch (overflow) {
    case FLOPSPACK_OVERFLOW_ERROR:
      return "error";
    case FLOPSPACK_OVERFLOW_TRUNCATE:
      return "truncate";
    case FLOPSPACK_OVERFLOW_SPLIT:
      return "split";
    case FLOPSPACK_OVERFLOW_DEFER:
      return "defer";
  }
  return "unknown";
}

}  // namespace flopspack::cli
