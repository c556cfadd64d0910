// The cost-model interface: what one packed sequence costs to train on.
//
// Implementations are immutable after creation and safe to share between
// threads. Additive models satisfy
//   SequenceCost(docs) == SequenceOverhead() + sum of DocumentCost(doc)
// (up to floating-point rounding), which lets packers and balancers work with
// per-document costs; non-additive models (attention across the whole
// sequence, custom callbacks) are evaluated on whole sequences.
#ifndef FLOPSPACK_COST_COST_MODEL_H_
#define FLOPSPACK_COST_COST_MODEL_H_

#include <cstdint>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"

namespace flopspack::cost {

class CostModel {
 public:
  virtual ~CostModel() = default;

  // Cost of one packed sequence holding these documents; 0 for no documents.
  // Precondition: every length > 0 (callers validate once, not per call).
  virtual absl::StatusOr<double> SequenceCost(absl::Span<const int64_t> lengths) const = 0;

  // Cost of one document alone, without the per-sequence overhead.
  virtual absl::StatusOr<double> DocumentCost(int64_t length) const = 0;

  // The constant a non-empty sequence adds on top of its documents.
  virtual double SequenceOverhead() const { return 0.0; }

  virtual bool IsAdditive() const = 0;

  // DocumentCost of each length into out (out.size() == lengths.size()).
  absl::Status DocumentCosts(absl::Span<const int64_t> lengths, absl::Span<double> out) const;

  // n samples padded to the longest, each its own sequence:
  // n * SequenceCost({max}). 0 for an empty batch.
  absl::StatusOr<double> PaddedBatchCost(absl::Span<const int64_t> lengths) const;

  // Cost of one document as training with a sequence length of `capacity`
  // sees it: a document longer than the capacity is cut as overflow SPLIT
  // cuts it, into floor(length / capacity) pieces of the capacity and the
  // remainder (if any), each attending within itself, so its cost is
  // floor(length / capacity) * DocumentCost(capacity) + DocumentCost(rest).
  // capacity = 0: the document whole (DocumentCost). O(1) model calls.
  absl::StatusOr<double> DocumentCostAsTrained(int64_t length, int64_t capacity) const;

  // Cost of the tokens [begin, end) of one document of `length` tokens, the
  // document attending within itself (a context-parallel chunk: its queries
  // attend to the document's keys wherever they sit). Preconditions:
  // 0 <= begin <= end <= length, length > 0. The default is the prefix rule
  // DocumentCost(end) - DocumentCost(begin) with DocumentCost(0) = 0, exact
  // for any model whose document cost is a sum over tokens t of a work w(t)
  // that depends only on t (causal attention: token t attends to t + 1
  // keys); the per-document constant falls on the chunk holding token 0.
  // Models with a closed form override it (no cancellation, and the
  // transformer without a causal mask, where every token attends to all
  // `length` keys). Chunks that tile [0, length) sum to DocumentCost(length).
  virtual absl::StatusOr<double> DocumentChunkCost(int64_t length, int64_t begin,
                                                   int64_t end) const;
};

}  // namespace flopspack::cost

#endif  // FLOPSPACK_COST_COST_MODEL_H_
