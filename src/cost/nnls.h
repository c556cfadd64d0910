// Non-negative least squares with at most four unknowns, exactly.
//
// min ‖A·x − y‖² subject to x ≥ 0, where A has n rows and the columns chosen
// by a bit mask out of four. The NNLS optimum is the unconstrained least-
// squares solution on its support (Lawson & Hanson, "Solving Least Squares
// Problems", 1974, ch. 23), so with at most four columns every support is
// tried: at most 15 Householder QR solves on column-scaled data, O(16·n)
// time, no iteration and no tolerance on convergence. Ties (collinear
// columns give the same residual on several supports) go to the smaller
// support, then to the earlier support in mask order, so the answer is
// deterministic. Used by the polynomial fit (cost/fit.h) and by the affine
// scale of a model's predictions (cost/evaluate.h).
#ifndef FLOPSPACK_COST_NNLS_H_
#define FLOPSPACK_COST_NNLS_H_

#include <array>
#include <cstdint>
#include <vector>

namespace flopspack::cost {

inline constexpr int kNnlsColumns = 4;
using NnlsRow = std::array<double, kNnlsColumns>;

struct NnlsSolution {
  NnlsRow x{};  // 0 on columns outside the mask or outside the support
  double sum_squared_residuals = 0;
};

// Solves over the columns whose bit is set in `columns` (1..15); entries of
// the other columns are ignored. Every entry and y finite (callers validate).
// With no feasible non-empty support the answer is x = 0.
NnlsSolution SolveSmallNnls(const std::vector<NnlsRow>& rows, const std::vector<double>& y,
                            uint32_t columns);

}  // namespace flopspack::cost

#endif  // FLOPSPACK_COST_NNLS_H_
