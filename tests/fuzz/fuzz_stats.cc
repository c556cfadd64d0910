// Fuzzes the statistics entry points: create (lengths with non-positive and
// huge values, with or without a model, a failing callback), from a
// histogram, merge, summarize, quantiles, CDF, histogram (both binnings,
// every weighting, arbitrary widths, a newer caller's larger options
// struct), tail share, expected maximum, KS distances, compare, entries.
// Invariants against a brute-force model of the dataset: count, tokens,
// min, max and distinct lengths; quantiles and CDF values; histogram
// weights summing to the count or token total; the expected maximum
// between the mean and the maximum and non-decreasing in draws; merging
// two halves gives the statistics of the whole; entries round-trip through
// create_from_histogram; a dataset is at KS distance 0 from itself.
#include <cmath>
#include <map>

#include "fuzz_util.h"

using fuzz::Require;

namespace {

flopspack_stats_summary Summary(const flopspack_stats* s) {
  flopspack_stats_summary out;
  std::memset(&out, 0, sizeof(out));
  out.struct_size = sizeof(out);
  Require(flopspack_stats_summarize(s, &out) == FLOPSPACK_OK, "summarize");
  return out;
}

std::vector<std::pair<int64_t, uint64_t>> Entries(const flopspack_stats* s) {
  size_t n = 0;
  Require(flopspack_stats_entries(s, nullptr, nullptr, 0, &n) == FLOPSPACK_OK, "entries size");
  std::vector<int64_t> lengths(n);
  std::vector<uint64_t> counts(n);
  if (n > 0) {
    size_t small = 0;
    Require(flopspack_stats_entries(s, lengths.data(), counts.data(), n - 1, &small) ==
                FLOPSPACK_BUFFER_TOO_SMALL,
            "entries: short buffer");
  }
  Require(flopspack_stats_entries(s, lengths.data(), counts.data(), n, &n) == FLOPSPACK_OK,
          "entries");
  std::vector<std::pair<int64_t, uint64_t>> out;
  for (size_t i = 0; i < n; ++i) out.emplace_back(lengths[i], counts[i]);
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider in(data, size);
  fuzz::FailingCallback callback;
  bool can_fail = false;
  flopspack_cost_model* model =
      in.ConsumeBool() ? fuzz::ConsumeModel(in, &callback, &can_fail) : nullptr;
  std::vector<int64_t> lengths = fuzz::ConsumeLengths(in, 150, in.ConsumeIntegralInRange(1, 5000));
  if (!lengths.empty() && in.ConsumeIntegralInRange(0, 15) == 0) {
    lengths[0] = std::numeric_limits<int64_t>::max() / in.ConsumeIntegralInRange<int64_t>(1, 4);
  }
  flopspack_stats* stats = reinterpret_cast<flopspack_stats*>(fuzz::Sentinel());
  const flopspack_status status =
      flopspack_stats_create(lengths.data(), lengths.size(), model, &stats);
  bool bad = false;
  std::map<int64_t, uint64_t> truth;
  int64_t tokens = 0;
  bool token_overflow = false;
  for (int64_t l : lengths) {
    bad |= l <= 0;
    if (l > 0) {
      ++truth[l];
      token_overflow |= __builtin_add_overflow(tokens, l, &tokens);
    }
  }
  if (status != FLOPSPACK_OK) {
    Require(stats == reinterpret_cast<flopspack_stats*>(fuzz::Sentinel()), "out untouched");
    Require(bad || token_overflow || (status == FLOPSPACK_CALLBACK_FAILED && can_fail) ||
                (model != nullptr && status == FLOPSPACK_INVALID_ARGUMENT),
            "only bad input is rejected");
    flopspack_cost_model_destroy(model);
    return 0;
  }
  Require(!bad && !token_overflow, "bad input is never accepted");
  const size_t n = lengths.size();
  const flopspack_stats_summary s = Summary(stats);
  Require(s.count == n && s.tokens == tokens && s.distinct_lengths == truth.size(),
          "count, tokens, distinct lengths");
  std::vector<int64_t> sorted(lengths);
  std::sort(sorted.begin(), sorted.end());
  if (n > 0) {
    Require(s.min == sorted.front() && s.max == sorted.back(), "min and max");
    // Lower empirical quantile: the smallest length whose CDF >= q.
    const double q = in.ConsumeProbability<double>();
    double got = -1;
    Require(flopspack_stats_quantile(stats, q, &got) == FLOPSPACK_OK, "quantile");
    size_t k = 0;
    // The CDF as the library defines it, count / n in double: comparing
    // k + 1 with q * n instead disagrees where q * n rounds (q = 0.3, n = 10).
    while (k + 1 < n && static_cast<double>(k + 1) / static_cast<double>(n) < q) ++k;
    Require(got == static_cast<double>(sorted[k]), "quantile = brute force");
    const int64_t at = in.ConsumeIntegralInRange<int64_t>(0, sorted.back());
    double cdf = -1;
    Require(flopspack_stats_cdf(stats, FLOPSPACK_STATS_WEIGHT_COUNT, at, &cdf) == FLOPSPACK_OK,
            "cdf");
    const size_t below = std::upper_bound(sorted.begin(), sorted.end(), at) - sorted.begin();
    Require(fuzz::Near(cdf, static_cast<double>(below) / static_cast<double>(n)),
            "cdf = brute force");
    double e1 = 0, e2 = 0;
    const uint64_t draws = in.ConsumeIntegralInRange<uint64_t>(1, 1u << 20);
    if (model == nullptr) {
      Require(flopspack_stats_expected_max(stats, draws, &e1) == FLOPSPACK_OK &&
                  flopspack_stats_expected_max(stats, draws + 1, &e2) == FLOPSPACK_OK,
              "expected_max");
      Require(e1 >= s.mean * (1 - 1e-9) && e1 <= static_cast<double>(s.max) * (1 + 1e-9),
              "mean <= E[max] <= max");
      Require(e2 >= e1 * (1 - 1e-9), "E[max] non-decreasing in draws");
    }
  }
  double e = -1;
  Require(flopspack_stats_expected_max(stats, 0, &e) == FLOPSPACK_INVALID_ARGUMENT && e == -1,
          "draws = 0 rejected");

  // Histogram.
  flopspack_histogram_options h;
  flopspack_histogram_options_init(&h);
  h.binning = in.ConsumeIntegralInRange<int32_t>(-1, 2);
  h.weighting = in.ConsumeIntegralInRange<int32_t>(-1, 3);
  h.normalized = in.ConsumeIntegralInRange<int32_t>(0, 1);
  h.width = in.ConsumeBool() ? 0 : in.ConsumeIntegralInRange<int64_t>(-1, 1 << 20);
  const fuzz::Versioned<flopspack_histogram_options> hv(h, fuzz::ConsumeTail(in),
                                                        in.ConsumeIntegralInRange<size_t>(1, 64));
  size_t bins = 0;
  const flopspack_status hs =
      flopspack_stats_histogram(stats, hv.get(), nullptr, nullptr, 0, &bins);
  if (hs == FLOPSPACK_OK && bins <= 100000) {
    std::vector<int64_t> edges(bins);
    std::vector<double> weights(bins);
    Require(flopspack_stats_histogram(stats, hv.get(), edges.data(), weights.data(), bins, &bins) ==
                FLOPSPACK_OK,
            "histogram fill");
    double sum = 0;
    for (double w : weights) {
      Require(w >= 0, "weights >= 0");
      sum += w;
    }
    Require(std::is_sorted(edges.begin(), edges.end()), "edges ascending");
    if (n > 0) Require(edges.back() >= s.max, "the last bin holds the longest");
    if (h.normalized == 1 && n > 0) {
      Require(fuzz::Near(sum, 1.0) || sum == 0, "normalized weights sum to 1");
    } else if (h.weighting == FLOPSPACK_STATS_WEIGHT_COUNT) {
      Require(fuzz::Near(sum, static_cast<double>(n)), "count weights sum to n");
    } else if (h.weighting == FLOPSPACK_STATS_WEIGHT_TOKENS) {
      Require(fuzz::Near(sum, static_cast<double>(tokens)), "token weights sum to tokens");
    }
  } else if (hs != FLOPSPACK_OK) {
    Require(hs == FLOPSPACK_INVALID_ARGUMENT || hs == FLOPSPACK_OUT_OF_RANGE, "histogram status");
    Require(hv.tail() == fuzz::Tail::kNonZero || h.binning < 0 || h.binning > 1 ||
                h.weighting < 0 || h.weighting > 2 || h.width < 0 ||
                (h.weighting == FLOPSPACK_STATS_WEIGHT_COST && model == nullptr) ||
                hs == FLOPSPACK_OUT_OF_RANGE,
            "only bad histogram options are rejected");
  }

  // Entries round-trip, and the two halves merge into the whole (without a
  // failing model, which may fail in the second create).
  const auto entries = Entries(stats);
  Require(entries.size() == truth.size(), "one entry per distinct length");
  for (const auto& [length, count] : entries) Require(truth[length] == count, "entry counts");
  if (!can_fail) {
    std::vector<int64_t> el;
    std::vector<uint64_t> ec;
    for (const auto& [length, count] : entries) {
      el.push_back(length);
      ec.push_back(count);
    }
    flopspack_stats* again = nullptr;
    Require(flopspack_stats_create_from_histogram(el.data(), ec.data(), el.size(), model, &again) ==
                FLOPSPACK_OK,
            "create_from_histogram of the entries");
    Require(Entries(again) == entries, "entries round-trip");
    const size_t half = in.ConsumeIntegralInRange<size_t>(0, n);
    flopspack_stats* a = nullptr;
    flopspack_stats* b = nullptr;
    flopspack_stats* merged = nullptr;
    Require(flopspack_stats_create(lengths.data(), half, model, &a) == FLOPSPACK_OK &&
                flopspack_stats_create(lengths.data() + half, n - half, model, &b) == FLOPSPACK_OK,
            "halves");
    Require(flopspack_stats_merge(a, b, &merged) == FLOPSPACK_OK, "merge");
    Require(Entries(merged) == entries, "merge of the halves = the whole");
    const flopspack_stats_summary ms = Summary(merged);
    Require(ms.count == s.count && ms.tokens == s.tokens && ms.max == s.max, "merged summary");
    double ks = -1;
    if (n == 0) {
      Require(
          flopspack_stats_ks_distance(stats, merged, &ks) == FLOPSPACK_INVALID_ARGUMENT && ks == -1,
          "KS distance of empty datasets is rejected");
    } else {
      Require(flopspack_stats_ks_distance(stats, merged, &ks) == FLOPSPACK_OK && ks == 0,
              "KS distance of equal datasets is 0");
      flopspack_stats_comparison c;
      c.struct_size = sizeof(c);
      Require(flopspack_stats_compare(stats, again, &c) == FLOPSPACK_OK && c.ks_distance == 0,
              "compare equal datasets");
    }
    flopspack_stats_destroy(a);
    flopspack_stats_destroy(b);
    flopspack_stats_destroy(merged);
    flopspack_stats_destroy(again);
  }
  flopspack_stats_tail tail;
  tail.struct_size = sizeof(tail);
  const int64_t threshold = in.ConsumeIntegralInRange<int64_t>(-1, 6000);
  if (flopspack_stats_tail_share(stats, threshold, &tail) == FLOPSPACK_OK) {
    uint64_t docs = 0;
    for (int64_t l : lengths) docs += l > threshold ? 1 : 0;
    Require(tail.documents == docs, "tail documents = brute force");
  }
  flopspack_stats_destroy(stats);
  flopspack_cost_model_destroy(model);
  return 0;
}
