// Random dealing: the baseline most pipelines run. The shuffled documents
// are concatenated and cut into sequences of exactly tokens_per_microbatch
// tokens (a document crossing a boundary is split, its rest opens the next
// sequence, also across steps), and the step's sequences are dealt to
// (rank, slot) positions by a uniformly random permutation.
//
// This is FLOPSPACK_SIM_RANDOM. It differs from FLOPSPACK_SIM_PLANNER_RANDOM
// (the step planner's kRandom on each step's whole documents) only in where
// a step ends: here the stream is cut at exactly R x M sequences, a document
// may straddle two steps and every sequence is full; the planner's steps
// hold whole documents, so its last sequences may be part empty. Both cut
// with the planner's ConcatenateAndCut (pack/planner/planner_baselines.h).
//
// With extra costs, a piece carries its document's in proportion to its
// tokens (pack::ExtraCosts::Of); the cutting and the dealing do not look at
// them.
//
// Complexity: O(pieces + microbatches) per step. Guarantee: fill 1, no
// padding, every token of the stream used once in order; ranks draw their
// sequences independently of each other (up to the shared stream), so the
// step time is the maximum of R nearly iid rank costs.
// Reference: the "concat-and-chunk" packing of GPT-style pretraining
// (Brown et al., "Language Models are Few-Shot Learners", 2020, §2.3).
#ifndef FLOPSPACK_SIM_RANDOM_DEALING_H_
#define FLOPSPACK_SIM_RANDOM_DEALING_H_

#include <vector>

#include "sim/policy.h"
#include "util/random.h"

namespace flopspack::sim {

class RandomDealing final : public Policy {
 public:
  RandomDealing(const StepShape& shape, uint64_t seed, const pack::ExtraCosts& extra = {})
      : shape_(shape), rng_(seed), extra_(extra) {}
  absl::Status NextStep(DocumentStream& stream, StepBatch& batch) override;
  bool independent_ranks() const override { return true; }

 private:
  StepShape shape_;
  util::Rng rng_;
  pack::ExtraCosts extra_;
  int64_t carry_ = 0;      // tokens of the current document not yet placed
  int64_t carry_doc_ = 0;  // its index in the dataset
  // Scratch, reused across steps: the step's document parts and the
  // dataset index of each.
  std::vector<int64_t> lengths_, docs_;
};

}  // namespace flopspack::sim

#endif  // FLOPSPACK_SIM_RANDOM_DEALING_H_
