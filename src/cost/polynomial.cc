#include "cost/polynomial.h"

#include "util/validate.h"

namespace flopspack::cost {

absl::StatusOr<std::unique_ptr<PolynomialModel>> PolynomialModel::Create(PolynomialCoefficients c) {
  for (auto [name, value] : {std::pair<const char*, double>{"per_sequence", c.per_sequence},
                             {"per_document", c.per_document},
                             {"linear", c.linear},
                             {"quadratic", c.quadratic}}) {
    absl::Status status = util::CheckNonNegativeFinite(name, value);
    if (!status.ok()) return status;
  }
  return std::unique_ptr<PolynomialModel>(new PolynomialModel(c));
}

std::unique_ptr<PolynomialModel> PolynomialModel::Tokens() {
  return std::unique_ptr<PolynomialModel>(new PolynomialModel({0, 0, 1, 0}));
}

absl::StatusOr<double> PolynomialModel::SequenceCost(absl::Span<const int64_t> lengths) const {
  if (lengths.empty()) return 0.0;
  double total = c_.per_sequence;
  for (int64_t length : lengths) total += Document(length);
  return total;
}

absl::StatusOr<double> PolynomialModel::DocumentChunkCost(int64_t /*length*/, int64_t begin,
                                                          int64_t end) const {
  if (begin >= end) return 0.0;
  const double b = static_cast<double>(begin), e = static_cast<double>(end);
  return (begin == 0 ? c_.per_document : 0.0) + (e - b) * (c_.linear + c_.quadratic * (e + b));
}

}  // namespace flopspack::cost
