#include "pack/context_parallel/context_parallel.h"

#include <algorithm>
#include <numeric>

#include "absl/strings/str_format.h"

namespace flopspack::pack {
namespace {

// A chunk of entry `entry`: tokens [begin, end) of its piece.
struct Chunk {
  size_t entry;
  int64_t begin, end;
};

// One sequence under one layout.
struct Candidate {
  std::vector<std::vector<Chunk>> ranks;  // C
  std::vector<double> costs;              // C
  std::vector<int64_t> kv;                // C
  double max_cost = 0;
};

// `total` tokens into 2C chunks of total / 2C tokens; the total % 2C
// remainder tokens go one per CP rank, to the CP ranks in `order` (a rank's
// first extra token to its head chunk, a second to its tail).
std::vector<int64_t> SplitHeadTail(int64_t total, int64_t c, absl::Span<const int64_t> order) {
  const int64_t chunks = 2 * c;
  std::vector<int64_t> sizes(static_cast<size_t>(chunks), total / chunks);
  const int64_t extra = total % chunks;
  for (int64_t k = 0; k < extra; ++k) {
    // k < 2C, so rank p's first extra comes at k < C and its second at k >= C.
    const int64_t p = order[static_cast<size_t>(k % c)];
    ++sizes[static_cast<size_t>(k < c ? p : chunks - 1 - p)];
  }
  return sizes;
}

// Costs and key/value traffic of a candidate whose chunks are filled.
absl::Status Evaluate(absl::Span<const int64_t> tokens, const cost::CostModel& model,
                      bool non_empty, Candidate& candidate) {
  const size_t c = candidate.ranks.size();
  candidate.costs.assign(c, 0.0);
  candidate.kv.assign(c, 0);
  candidate.max_cost = 0;
  std::vector<int64_t> last_end(tokens.size(), 0), held(tokens.size(), 0);
  std::vector<size_t> touched;
  for (size_t r = 0; r < c; ++r) {
    double cost = non_empty ? model.SequenceOverhead() : 0.0;
    touched.clear();
    for (const Chunk& chunk : candidate.ranks[r]) {
      absl::StatusOr<double> chunk_cost =
          model.DocumentChunkCost(tokens[chunk.entry], chunk.begin, chunk.end);
      if (!chunk_cost.ok()) return chunk_cost.status();
      cost += *chunk_cost;
      if (last_end[chunk.entry] == 0 && held[chunk.entry] == 0) touched.push_back(chunk.entry);
      last_end[chunk.entry] = std::max(last_end[chunk.entry], chunk.end);
      held[chunk.entry] += chunk.end - chunk.begin;
    }
    int64_t kv = 0;
    for (size_t entry : touched) {
      kv += last_end[entry] - held[entry];
      last_end[entry] = held[entry] = 0;
    }
    candidate.costs[r] = cost;
    candidate.kv[r] = kv;
    candidate.max_cost = std::max(candidate.max_cost, cost);
  }
  return absl::OkStatus();
}

// The chunk pairs of a document hold equal attention work; what differs is
// where the remainder tokens go. They go to the CP ranks that have cost the
// least so far in this sequence (ties by rank), so the remainders of many
// documents even out instead of piling up on one CP rank.
absl::Status DocumentHeadTail(absl::Span<const int64_t> tokens, int64_t c,
                              const cost::CostModel& model, Candidate& out) {
  out.ranks.assign(static_cast<size_t>(c), {});
  std::vector<double> load(static_cast<size_t>(c), 0.0);
  std::vector<int64_t> order(static_cast<size_t>(c));
  for (size_t k = 0; k < tokens.size(); ++k) {
    if (tokens[k] == 0) continue;
    std::iota(order.begin(), order.end(), 0);
    const int64_t extra = std::min(tokens[k] % (2 * c), c);
    std::partial_sort(order.begin(), order.begin() + extra, order.end(), [&](int64_t a, int64_t b) {
      const auto aa = static_cast<size_t>(a), bb = static_cast<size_t>(b);
      return load[aa] != load[bb] ? load[aa] < load[bb] : a < b;
    });
    const std::vector<int64_t> sizes = SplitHeadTail(tokens[k], c, order);
    std::vector<int64_t> start(sizes.size() + 1, 0);
    std::partial_sum(sizes.begin(), sizes.end(), start.begin() + 1);
    for (int64_t p = 0; p < c; ++p) {
      for (int64_t j : {p, 2 * c - 1 - p}) {
        const auto jj = static_cast<size_t>(j);
        if (sizes[jj] == 0) continue;
        out.ranks[static_cast<size_t>(p)].push_back({k, start[jj], start[jj + 1]});
        absl::StatusOr<double> cost = model.DocumentChunkCost(tokens[k], start[jj], start[jj + 1]);
        if (!cost.ok()) return cost.status();
        load[static_cast<size_t>(p)] += *cost;
      }
    }
  }
  return absl::OkStatus();
}

void SequenceHeadTail(absl::Span<const int64_t> tokens, int64_t c, Candidate& out) {
  out.ranks.assign(static_cast<size_t>(c), {});
  // entry_start[k]: where entry k starts in the packed sequence.
  std::vector<int64_t> entry_start(tokens.size() + 1, 0);
  std::partial_sum(tokens.begin(), tokens.end(), entry_start.begin() + 1);
  std::vector<int64_t> order(static_cast<size_t>(c));
  std::iota(order.begin(), order.end(), 0);
  const std::vector<int64_t> sizes = SplitHeadTail(entry_start.back(), c, order);
  std::vector<int64_t> start(sizes.size() + 1, 0);
  std::partial_sum(sizes.begin(), sizes.end(), start.begin() + 1);
  for (int64_t p = 0; p < c; ++p) {
    for (int64_t j : {p, 2 * c - 1 - p}) {
      const int64_t lo = start[static_cast<size_t>(j)], hi = start[static_cast<size_t>(j) + 1];
      if (lo == hi) continue;
      // The first entry ending after lo, then every entry starting before hi.
      size_t k =
          static_cast<size_t>(std::upper_bound(entry_start.begin() + 1, entry_start.end(), lo) -
                              entry_start.begin() - 1);
      for (; k < tokens.size() && entry_start[k] < hi; ++k) {
        const int64_t begin = std::max(lo, entry_start[k]) - entry_start[k];
        const int64_t end = std::min(hi, entry_start[k + 1]) - entry_start[k];
        if (begin < end) out.ranks[static_cast<size_t>(p)].push_back({k, begin, end});
      }
    }
  }
}

}  // namespace

absl::Status ShardSequence(absl::Span<const int64_t> items, absl::Span<const int64_t> tokens,
                           absl::Span<const int64_t> piece_offsets, const cost::CostModel& model,
                           CpLayout layout, CpShard& out) {
  const int64_t c = out.context_parallel_size;
  if (c < 1 || c > kMaxContextParallelSize) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "context_parallel_size = %d must be in [1, %d]", c, kMaxContextParallelSize));
  }
  if (items.size() != tokens.size() || piece_offsets.size() != tokens.size()) {
    return absl::InvalidArgumentError("items, tokens and piece offsets differ in size");
  }
  bool non_empty = false;
  for (size_t k = 0; k < tokens.size(); ++k) {
    if (tokens[k] < 0 || piece_offsets[k] < 0) {
      return absl::InvalidArgumentError(
          absl::StrFormat("entry %d: tokens = %d, offset = %d must be non-negative", k, tokens[k],
                          piece_offsets[k]));
    }
    non_empty |= tokens[k] > 0;
  }
  Candidate by_sequence, by_document;
  const Candidate* chosen = nullptr;
  CpLayout used = layout;
  if (layout != CpLayout::kDocumentHeadTail) {
    SequenceHeadTail(tokens, c, by_sequence);
    absl::Status status = Evaluate(tokens, model, non_empty, by_sequence);
    if (!status.ok()) return status;
    chosen = &by_sequence;
    used = CpLayout::kSequenceHeadTail;
  }
  if (layout != CpLayout::kSequenceHeadTail) {
    absl::Status status = DocumentHeadTail(tokens, c, model, by_document);
    if (status.ok()) status = Evaluate(tokens, model, non_empty, by_document);
    if (!status.ok()) return status;
    if (chosen == nullptr || by_document.max_cost < chosen->max_cost) {
      chosen = &by_document;
      used = CpLayout::kDocumentHeadTail;
    }
  }
  double sum = 0;
  for (int64_t r = 0; r < c; ++r) {
    const auto rr = static_cast<size_t>(r);
    for (const Chunk& chunk : chosen->ranks[rr]) {
      out.items.push_back(items[chunk.entry]);
      out.chunk_offsets.push_back(piece_offsets[chunk.entry] + chunk.begin);
      out.lengths.push_back(chunk.end - chunk.begin);
    }
    out.offsets.push_back(static_cast<int64_t>(out.items.size()));
    out.costs.push_back(chosen->costs[rr]);
    out.kv_tokens.push_back(chosen->kv[rr]);
    sum += chosen->costs[rr];
  }
  out.layouts.push_back(used);
  const double mean = sum / static_cast<double>(c);
  out.balances.push_back(chosen->max_cost > 0 ? mean / chosen->max_cost : 1.0);
  return absl::OkStatus();
}

absl::StatusOr<CpShard> ShardContextParallel(const Plan& plan, const cost::CostModel& model,
                                             int64_t context_parallel_size, CpLayout layout) {
  if (context_parallel_size < 1 || context_parallel_size > kMaxContextParallelSize) {
    return absl::InvalidArgumentError(
        absl::StrFormat("context_parallel_size = %d must be in [1, %d]", context_parallel_size,
                        kMaxContextParallelSize));
  }
  if (!model.IsAdditive()) {
    return absl::InvalidArgumentError(
        "context-parallel sharding needs an additive cost model (attention within documents): "
        "a model whose attention spans the whole sequence, or a custom callback, gives no cost "
        "per document chunk");
  }
  const Plan* source = &plan;
  Plan filled;
  if (!plan.has_piece_offsets()) {
    filled = plan;
    filled.FillPieceOffsets();
    source = &filled;
  }
  CpShard out;
  out.context_parallel_size = context_parallel_size;
  const size_t groups = source->group_count();
  out.layouts.reserve(groups);
  out.balances.reserve(groups);
  out.costs.reserve(groups * static_cast<size_t>(context_parallel_size));
  out.kv_tokens.reserve(out.costs.capacity());
  out.offsets.reserve(out.costs.capacity() + 1);
  for (size_t g = 0; g < groups; ++g) {
    absl::Status status = ShardSequence(source->group_items(g), source->group_tokens(g),
                                        source->group_piece_offsets(g), model, layout, out);
    if (!status.ok()) return status;
  }
  CpMetrics& m = out.metrics;
  m.context_parallel_size = context_parallel_size;
  m.num_groups = groups;
  m.num_chunks = out.items.size();
  double sum_mean = 0, sum_max = 0, total = 0;
  for (size_t g = 0; g < groups; ++g) {
    double group_sum = 0, group_max = 0;
    for (int64_t r = 0; r < context_parallel_size; ++r) {
      const double cost = out.costs[out.Index(g, r)];
      group_sum += cost;
      group_max = std::max(group_max, cost);
      m.kv_tokens += out.kv_tokens[out.Index(g, r)];
    }
    total += group_sum;
    sum_mean += group_sum / static_cast<double>(context_parallel_size);
    sum_max += group_max;
    m.max_cp_rank_cost = std::max(m.max_cp_rank_cost, group_max);
    m.worst_balance = std::min(m.worst_balance, out.balances[g]);
    (out.layouts[g] == CpLayout::kSequenceHeadTail ? m.sequence_layout_groups
                                                   : m.document_layout_groups)++;
  }
  m.balance_efficiency = sum_max > 0 ? sum_mean / sum_max : 1.0;
  m.mean_cp_rank_cost =
      groups > 0 ? total / static_cast<double>(groups * static_cast<size_t>(context_parallel_size))
                 : 0.0;
  return out;
}

}  // namespace flopspack::pack
