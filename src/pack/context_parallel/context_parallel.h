// Context-parallel (CP) sharding of packed sequences: each sequence of a plan
// is shared by a CP group of C GPUs; this cuts it into chunks
// (item, offset, length) per CP rank and costs each CP rank exactly.
//
// Layouts (each for causal attention inside documents):
//   kSequenceHeadTail  the packed sequence of T tokens is cut into 2C chunks
//                      of T / 2C tokens (the remainder spread one token per
//                      CP rank); CP rank i gets chunks i and 2C-1-i, as
//                      Megatron-LM / Transformer Engine do (Liu et al.,
//                      "Ring Attention", 2023; the "zigzag" / load-balanced
//                      causal layout). Even for one document filling the
//                      sequence, uneven when documents are packed.
//   kDocumentHeadTail  every document (every plan entry: a piece attends
//                      within itself) is cut into 2C chunks the same way and
//                      CP rank i gets its chunks i and 2C-1-i (Transformer
//                      Engine's THD layout; WLB-LLM, Wang et al., OSDI 2025,
//                      per-document sharding). Chunk pairs hold equal
//                      attention work, so CP ranks differ only by the
//                      remainder tokens (length % 2C), which go to the CP
//                      ranks that cost least so far in the sequence.
//   kAdaptive          per sequence, whichever of the two gives the lower
//                      maximum CP-rank cost (ties: the per-sequence layout,
//                      which needs less key/value traffic), as WLB-LLM's
//                      adaptive sharding.
// Costs: a chunk [a, b) of a document of length l costs
// model.DocumentChunkCost(l, a, b), exact for causal attention (see
// cost/cost_model.h); each CP rank also pays the sequence overhead (it runs
// the sequence's kernels). Communication: a CP rank needs the keys and
// values [0, e) of each document whose chunks it holds, e the end of its
// last chunk there; the tokens of that range it does not hold itself are
// counted as its key/value tokens received.
//
// Complexity: O(entries x C) per sequence; chunks <= min(tokens, 2C x
// entries) for the per-document layout and <= entries + 2C for the
// per-sequence one; the model is called at most twice per chunk.
// Deterministic.
// Guarantee: the chunks of each sequence tile every entry's piece
// [offset, offset + tokens) exactly, no empty chunk.
#ifndef FLOPSPACK_PACK_CONTEXT_PARALLEL_CONTEXT_PARALLEL_H_
#define FLOPSPACK_PACK_CONTEXT_PARALLEL_CONTEXT_PARALLEL_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "cost/cost_model.h"
#include "pack/primitives/plan.h"

namespace flopspack::pack {

enum class CpLayout { kSequenceHeadTail = 0, kDocumentHeadTail = 1, kAdaptive = 2 };

// The largest context-parallel size accepted.
inline constexpr int64_t kMaxContextParallelSize = int64_t{1} << 16;

struct CpMetrics {
  int64_t context_parallel_size = 0;
  uint64_t num_groups = 0;
  uint64_t num_chunks = 0;
  // Σ over sequences of the mean CP-rank cost ÷ Σ of the max (each sequence
  // waits for its slowest CP rank); 1 = no CP straggler.
  double balance_efficiency = 1;
  // min over sequences of mean ÷ max CP-rank cost.
  double worst_balance = 1;
  double max_cp_rank_cost = 0;
  double mean_cp_rank_cost = 0;
  int64_t kv_tokens = 0;  // key/value tokens received, all sequences and CP ranks
  uint64_t sequence_layout_groups = 0, document_layout_groups = 0;
};

// The chunks of every (sequence, CP rank), CSR over g * C + r.
struct CpShard {
  int64_t context_parallel_size = 0;
  std::vector<int64_t> offsets{0};  // groups x C + 1
  std::vector<int64_t> items, chunk_offsets, lengths;
  std::vector<double> costs;       // groups x C
  std::vector<int64_t> kv_tokens;  // groups x C
  std::vector<CpLayout> layouts;   // per group: the layout used (never kAdaptive)
  std::vector<double> balances;    // per group: mean / max CP-rank cost
  CpMetrics metrics;

  size_t group_count() const { return layouts.size(); }
  size_t Index(size_t g, int64_t r) const {
    return g * static_cast<size_t>(context_parallel_size) + static_cast<size_t>(r);
  }
};

// One packed sequence: entry k is tokens[k] tokens of item items[k] from
// token piece_offsets[k] of the item, attending within itself. Appends its
// C CP ranks to `out` (context_parallel_size set). Every token count >= 0.
absl::Status ShardSequence(absl::Span<const int64_t> items, absl::Span<const int64_t> tokens,
                           absl::Span<const int64_t> piece_offsets, const cost::CostModel& model,
                           CpLayout layout, CpShard& out);

// Every group of the plan. InvalidArgument for C outside [1, 2^16] or a
// non-additive model (attention across a whole sequence, a custom callback:
// no per-document cost of a chunk exists). Callback errors pass through.
absl::StatusOr<CpShard> ShardContextParallel(const Plan& plan, const cost::CostModel& model,
                                             int64_t context_parallel_size, CpLayout layout);

}  // namespace flopspack::pack

#endif  // FLOPSPACK_PACK_CONTEXT_PARALLEL_CONTEXT_PARALLEL_H_
