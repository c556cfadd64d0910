#include "cost/nnls.h"

#include <algorithm>
#include <cmath>

namespace flopspack::cost {
namespace {

// Least squares on the columns in `support` by Householder QR of the
// column-scaled design. Returns false if the columns are (numerically)
// dependent.
bool SolveSubset(const std::vector<NnlsRow>& rows, const std::vector<double>& y,
                 const NnlsRow& scale, uint32_t support, NnlsRow* solution) {
  std::vector<int> columns;
  for (int t = 0; t < kNnlsColumns; ++t) {
    if (support & (1u << t)) columns.push_back(t);
  }
  const size_t n = rows.size();
  const size_t k = columns.size();
  if (n < k) return false;
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
  NnlsRow x{};
  for (size_t jj = k; jj-- > 0;) {
    double sum = b[jj];
    for (size_t c = jj + 1; c < k; ++c) sum -= a[c][jj] * x[c];
    x[jj] = sum / a[jj][jj];
  }
  solution->fill(0);
  for (size_t j = 0; j < k; ++j) (*solution)[columns[j]] = x[j] / scale[columns[j]];
  return true;
}

double SumSquaredResiduals(const std::vector<NnlsRow>& rows, const std::vector<double>& y,
                           const NnlsRow& x, uint32_t columns) {
  double total = 0;
  for (size_t i = 0; i < rows.size(); ++i) {
    double predicted = 0;
    for (int t = 0; t < kNnlsColumns; ++t) {
      if (columns & (1u << t)) predicted += rows[i][t] * x[t];
    }
    const double residual = y[i] - predicted;
    total += residual * residual;
  }
  return total;
}

}  // namespace

NnlsSolution SolveSmallNnls(const std::vector<NnlsRow>& rows, const std::vector<double>& y,
                            uint32_t columns) {
  columns &= (1u << kNnlsColumns) - 1;
  // Column scales (the largest magnitude) make the rank test meaningful when
  // columns differ by many orders of magnitude (1 vs Σl² ~ 1e9).
  NnlsRow scale{};
  for (const NnlsRow& row : rows) {
    for (int t = 0; t < kNnlsColumns; ++t) scale[t] = std::max(scale[t], std::fabs(row[t]));
  }
  for (double& s : scale) {
    if (s == 0) s = 1;
  }
  NnlsSolution best;
  best.sum_squared_residuals = SumSquaredResiduals(rows, y, best.x, columns);  // empty support
  int best_size = 0;
  for (uint32_t support = 1; support < (1u << kNnlsColumns); ++support) {
    if ((support & columns) != support) continue;
    NnlsRow x;
    if (!SolveSubset(rows, y, scale, support, &x)) continue;
    bool feasible = true;
    for (int t = 0; t < kNnlsColumns; ++t) feasible &= x[t] >= 0;
    if (!feasible) continue;
    const double ssr = SumSquaredResiduals(rows, y, x, columns);
    const int size = __builtin_popcount(support);
    // Relative tolerance so that collinear supports tie instead of winning by
    // rounding noise.
    const double tolerance = 1e-12 * (best.sum_squared_residuals + 1e-300);
    if (ssr < best.sum_squared_residuals - tolerance ||
        (std::fabs(ssr - best.sum_squared_residuals) <= tolerance && size < best_size)) {
      best.x = x;
      best.sum_squared_residuals = ssr;
      best_size = size;
    }
  }
  return best;
}

}  // namespace flopspack::cost
