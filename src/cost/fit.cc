#include "cost/fit.h"

#include <array>
#include <cmath>
#include <vector>

#include "absl/strings/str_format.h"
#include "util/validate.h"

namespace flopspack::cost {
namespace {

constexpr int kTerms = 4;

// Least squares on the columns in `support` by Householder QR of the
// column-scaled design. Returns false if the columns are (numerically)
// dependent.
bool SolveSubset(const std::vector<std::array<double, kTerms>>& rows, const std::vector<double>& y,
                 const std::array<double, kTerms>& scale, uint32_t support,
                 std::array<double, kTerms>* solution) {
  std::vector<int> columns;
  for (int t = 0; t < kTerms; ++t) {
    if (support & (1u << t)) columns.push_back(t);
  }
  const size_t n = rows.size();
  const size_t k = columns.size();
  std::vector<std::vector<double>> a(k, std::vector<double>(n));  // column-major
  for (size_t j = 0; j < k; ++j) {
    for (size_t i = 0; i < n; ++i) a[j][i] = rows[i][columns[j]] / scale[columns[j]];
  }
  std::vector<double> b = y;
  double largest_diagonal = 0;
  std::vector<double> diagonal(k);
  for (size_t j = 0; j < k; ++j) {
    double norm = 0;
    for (size_t i = j; i < n; ++i) norm += a[j][i] * a[j][i];
    norm = std::sqrt(norm);
    if (norm == 0) return false;
    const double alpha = a[j][j] > 0 ? -norm : norm;
    std::vector<double> v(a[j].begin() + j, a[j].end());
    v[0] -= alpha;
    double vnorm2 = 0;
    for (double x : v) vnorm2 += x * x;
    if (vnorm2 > 0) {
      auto reflect = [&](std::vector<double>& column) {
        double dot = 0;
        for (size_t i = j; i < n; ++i) dot += v[i - j] * column[i];
        const double factor = 2 * dot / vnorm2;
        for (size_t i = j; i < n; ++i) column[i] -= factor * v[i - j];
      };
      for (size_t c = j; c < k; ++c) reflect(a[c]);
      reflect(b);
    }
    diagonal[j] = a[j][j];
    largest_diagonal = std::max(largest_diagonal, std::fabs(a[j][j]));
  }
  for (size_t j = 0; j < k; ++j) {
    if (std::fabs(diagonal[j]) <= 1e-10 * largest_diagonal) return false;
  }
  std::array<double, kTerms> x{};
  for (size_t jj = k; jj-- > 0;) {
    double sum = b[jj];
    for (size_t c = jj + 1; c < k; ++c) sum -= a[c][jj] * x[c];
    x[jj] = sum / a[jj][jj];
  }
  solution->fill(0);
  for (size_t j = 0; j < k; ++j) (*solution)[columns[j]] = x[j] / scale[columns[j]];
  return true;
}

double SumSquaredResiduals(const std::vector<std::array<double, kTerms>>& rows,
                           const std::vector<double>& y, const std::array<double, kTerms>& x) {
  double total = 0;
  for (size_t i = 0; i < rows.size(); ++i) {
    double predicted = 0;
    for (int t = 0; t < kTerms; ++t) predicted += rows[i][t] * x[t];
    const double residual = y[i] - predicted;
    total += residual * residual;
  }
  return total;
}

}  // namespace

absl::StatusOr<FitResult> FitPolynomial(absl::Span<const int64_t> document_lengths,
                                        absl::Span<const size_t> offsets,
                                        absl::Span<const double> seconds, uint32_t terms) {
  if (terms == 0 || terms > kFitAll) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "fit: terms = %u must be a non-empty combination of the FitTerm flags (1..15)", terms));
  }
  const size_t num_samples = seconds.size();
  const int num_terms = __builtin_popcount(terms);
  if (num_samples < static_cast<size_t>(num_terms)) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "fit: %u samples are too few to fit %d terms (need at least one sample per term)",
        num_samples, num_terms));
  }
  if (offsets.size() != num_samples + 1 || offsets[0] != 0 ||
      offsets.back() != document_lengths.size()) {
    return absl::InvalidArgumentError(
        "fit: sample_offsets must have num_samples + 1 entries, start at 0 and end at the "
        "number of document lengths");
  }
  absl::StatusOr<int64_t> tokens = util::CheckLengths("document_lengths", document_lengths);
  if (!tokens.ok()) return tokens.status();
  absl::Status costs_ok = util::CheckCosts("seconds", seconds);
  if (!costs_ok.ok()) return costs_ok;

  std::vector<std::array<double, kTerms>> rows(num_samples);
  std::array<double, kTerms> scale{};
  for (size_t i = 0; i < num_samples; ++i) {
    if (offsets[i + 1] <= offsets[i]) {
      return absl::InvalidArgumentError(
          absl::StrFormat("fit: sample %u is empty or sample_offsets decreases there (%u -> %u)", i,
                          offsets[i], offsets[i + 1]));
    }
    double docs = 0, sum = 0, sum_squares = 0;
    for (size_t j = offsets[i]; j < offsets[i + 1]; ++j) {
      const double l = static_cast<double>(document_lengths[j]);
      docs += 1;
      sum += l;
      sum_squares += l * l;
    }
    rows[i] = {1.0, docs, sum, sum_squares};
    for (int t = 0; t < kTerms; ++t) {
      if (terms & (1u << t)) scale[t] = std::max(scale[t], rows[i][t]);
    }
    for (int t = 0; t < kTerms; ++t) {
      if (!(terms & (1u << t))) rows[i][t] = 0;
    }
  }
  std::vector<double> y(seconds.begin(), seconds.end());

  std::array<double, kTerms> best{};
  double best_ssr = SumSquaredResiduals(rows, y, best);  // the empty support
  int best_size = 0;
  for (uint32_t support = 1; support <= kFitAll; ++support) {
    if ((support & terms) != support) continue;
    std::array<double, kTerms> x;
    if (!SolveSubset(rows, y, scale, support, &x)) continue;
    bool feasible = true;
    for (int t = 0; t < kTerms; ++t) feasible &= x[t] >= 0;
    if (!feasible) continue;
    const double ssr = SumSquaredResiduals(rows, y, x);
    const int size = __builtin_popcount(support);
    // Relative tolerance so that collinear supports tie instead of winning by
    // rounding noise.
    const double tolerance = 1e-12 * (best_ssr + 1e-300);
    if (ssr < best_ssr - tolerance ||
        (std::fabs(ssr - best_ssr) <= tolerance && size < best_size)) {
      best = x;
      best_ssr = ssr;
      best_size = size;
    }
  }

  double mean = 0;
  for (double v : y) mean += v;
  mean /= static_cast<double>(num_samples);
  double total_ss = 0;
  for (double v : y) total_ss += (v - mean) * (v - mean);

  FitResult result;
  result.coefficients = {best[0], best[1], best[2], best[3]};
  result.num_samples = num_samples;
  result.rms_residual = std::sqrt(best_ssr / static_cast<double>(num_samples));
  if (total_ss > 0) {
    result.r_squared = 1 - best_ssr / total_ss;
  } else {
    result.r_squared = best_ssr == 0 ? 1.0 : 0.0;
  }
  return result;
}

}  // namespace flopspack::cost
