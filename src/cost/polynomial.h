// Polynomial cost: per document of length l, per_document + linear·l +
// quadratic·l², plus per_sequence once per non-empty sequence. Tokens are the
// special case (0, 0, 1, 0); a fitted model (cost/fit.h) is one too.
#ifndef FLOPSPACK_COST_POLYNOMIAL_H_
#define FLOPSPACK_COST_POLYNOMIAL_H_

#include <memory>

#include "cost/cost_model.h"

namespace flopspack::cost {

struct PolynomialCoefficients {
  double per_sequence = 0;
  double per_document = 0;
  double linear = 0;
  double quadratic = 0;
};

class PolynomialModel final : public CostModel {
 public:
  // Every coefficient finite and non-negative, else InvalidArgument.
  static absl::StatusOr<std::unique_ptr<PolynomialModel>> Create(PolynomialCoefficients c);
  static std::unique_ptr<PolynomialModel> Tokens();

  absl::StatusOr<double> SequenceCost(absl::Span<const int64_t> lengths) const override;
  absl::StatusOr<double> DocumentCost(int64_t length) const override { return Document(length); }
  double SequenceOverhead() const override { return c_.per_sequence; }
  bool IsAdditive() const override { return true; }
  // The prefix rule in closed form: the quadratic term read as causal
  // attention, quadratic * (end^2 - begin^2) = quadratic * (end - begin) *
  // (end + begin), per_document on the chunk holding token 0.
  absl::StatusOr<double> DocumentChunkCost(int64_t length, int64_t begin,
                                           int64_t end) const override;

  const PolynomialCoefficients& coefficients() const { return c_; }

  // The cost of one document, inlined for hot loops.
  double Document(int64_t length) const {
    const double l = static_cast<double>(length);
    return c_.per_document + l * (c_.linear + l * c_.quadratic);
  }

 private:
  explicit PolynomialModel(PolynomialCoefficients c) : c_(c) {}
  PolynomialCoefficients c_;
};

}  // namespace flopspack::cost

#endif  // FLOPSPACK_COST_POLYNOMIAL_H_
