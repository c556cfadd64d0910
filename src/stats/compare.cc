#include "stats/compare.h"

#include <cmath>
#include <cstdlib>

#include "absl/strings/str_format.h"

namespace flopspack::stats {
namespace {
__extension__ typedef __int128 Int128;
}  // namespace

absl::StatusOr<KsResult> KsDistance(const LengthStats& a, const LengthStats& b, Weighting w) {
  if (a.empty() || b.empty()) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "the KS distance needs two non-empty datasets (%s is empty)", a.empty() ? "a" : "b"));
  }
  if (w == Weighting::kCost && !(a.has_cost() && b.has_cost())) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "a cost-weighted KS distance needs both statistics built with a cost model (%s has none)",
        a.has_cost() ? "b" : "a"));
  }
  if (w != Weighting::kCount && w != Weighting::kTokens && w != Weighting::kCost) {
    return absl::InvalidArgumentError(
        absl::StrFormat("weighting = %d is not count (0), tokens (1) or cost (2)", int(w)));
  }
  const auto la = a.lengths(), lb = b.lengths();
  KsResult result;
  if (w != Weighting::kCost) {
    // Counts and tokens are integers: compare |cum_a T_b - cum_b T_a| exactly
    // in 128 bits, so equal gaps are equal and the smallest length wins.
    const bool tokens = w == Weighting::kTokens;
    auto iweight = [tokens](const LengthStats& s, size_t i) {
      return static_cast<Int128>(s.counts()[i]) * (tokens ? s.lengths()[i] : 1);
    };
    const Int128 total_a = tokens ? a.tokens() : static_cast<Int128>(a.count());
    const Int128 total_b = tokens ? b.tokens() : static_cast<Int128>(b.count());
    Int128 cum_a = 0, cum_b = 0, best = 0;
    size_t i = 0, j = 0;
    while (i < la.size() || j < lb.size()) {
      const int64_t x = j == lb.size() || (i < la.size() && la[i] <= lb[j]) ? la[i] : lb[j];
      if (i < la.size() && la[i] == x) cum_a += iweight(a, i++);
      if (j < lb.size() && lb[j] == x) cum_b += iweight(b, j++);
      Int128 gap = cum_a * total_b - cum_b * total_a;
      if (gap < 0) gap = -gap;
      if (gap > best) {
        best = gap;
        result.length = x;
      }
    }
    result.distance =
        static_cast<double>(static_cast<long double>(best) / (static_cast<long double>(total_a) *
                                                              static_cast<long double>(total_b)));
    return result;
  }
  const double total_a = a.total_cost(), total_b = b.total_cost();
  size_t i = 0, j = 0;
  double cum_a = 0, cum_b = 0;
  while (i < la.size() || j < lb.size()) {
    const int64_t x = j == lb.size() || (i < la.size() && la[i] <= lb[j]) ? la[i] : lb[j];
    if (i < la.size() && la[i] == x) {
      cum_a += static_cast<double>(a.counts()[i]) * a.costs()[i];
      ++i;
    }
    if (j < lb.size() && lb[j] == x) {
      cum_b += static_cast<double>(b.counts()[j]) * b.costs()[j];
      ++j;
    }
    // Shares at x; the last point of each is exactly 1.
    const double fa = i == la.size() ? 1.0 : (total_a > 0 ? cum_a / total_a : 1.0);
    const double fb = j == lb.size() ? 1.0 : (total_b > 0 ? cum_b / total_b : 1.0);
    const double d = std::fabs(fa - fb);
    if (d > result.distance) {
      result.distance = d;
      result.length = x;
    }
  }
  return result;
}

absl::StatusOr<Comparison> Compare(const LengthStats& a, const LengthStats& b) {
  Comparison c;
  absl::StatusOr<KsResult> count = KsDistance(a, b, Weighting::kCount);
  if (!count.ok()) return count.status();
  c.ks_count = *count;
  absl::StatusOr<KsResult> tokens = KsDistance(a, b, Weighting::kTokens);
  if (!tokens.ok()) return tokens.status();
  c.ks_tokens = *tokens;
  for (size_t l = 0; l < kComparisonLevels.size(); ++l) {
    c.quantiles_a[l] = *a.Quantile(kComparisonLevels[l]);
    c.quantiles_b[l] = *b.Quantile(kComparisonLevels[l]);
    const double qa = static_cast<double>(c.quantiles_a[l]);
    const double qb = static_cast<double>(c.quantiles_b[l]);
    if (c.first_divergent_level == 0 && std::fabs(qb - qa) > kDivergenceTolerance * qa) {
      c.first_divergent_level = kComparisonLevels[l];
    }
  }
  c.tail_threshold = *a.Quantile(0.99);
  const TailShare ta = a.Above(c.tail_threshold), tb = b.Above(c.tail_threshold);
  c.token_share_above_a = ta.token_share;
  c.token_share_above_b = tb.token_share;
  if (a.has_cost() && b.has_cost()) {
    c.cost_share_above_a = ta.cost_share;
    c.cost_share_above_b = tb.cost_share;
  }
  return c;
}

}  // namespace flopspack::stats
