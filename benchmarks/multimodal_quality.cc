// Balancing multimodal documents by their full cost (issue 16): a mix of
// text-only and image-heavy documents, a 7B-class causal language model
// (planner_data.h) and a ViT-L-like vision encoder (24 layers, hidden 1024,
// 16 heads, FFN 4096, bidirectional; 256-2,048 patches per image). Each
// document is balanced over R ranks under a token cap of 1.1 x the mean
// rank tokens (the LM's memory), by LPT + refinement (pack/balance), once
// on the full cost (LM + encoder, cost/multimodal.h) and once on the LM cost
// alone, and on tokens; every assignment is then judged by the full cost.
// Figures of docs/multimodal.md:
//   build/dev/benchmarks/multimodal_quality [ranks documents_per_rank seed]
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "cost/multimodal.h"
#include "pack/balance/balance.h"
#include "planner_data.h"
#include "util/random.h"

namespace {

using flopspack::cost::MultimodalDocument;

std::unique_ptr<flopspack::cost::TransformerModel> VitL() {
  flopspack::cost::TransformerShape s;
  s.num_layers = 24;
  s.hidden_size = 1024;
  s.num_attention_heads = s.num_key_value_heads = 16;
  s.intermediate_size = 4096;
  s.causal = false;
  return *flopspack::cost::TransformerModel::Create(s);
}

int64_t LogNormal(flopspack::util::Rng& rng, double median, int64_t max) {
  const double u1 = 1 - rng.Uniform(), u2 = rng.Uniform();
  const double z = std::sqrt(-2 * std::log(u1)) * std::cos(2 * M_PI * u2);
  return std::min<int64_t>(max, std::max<int64_t>(1, std::llround(median * std::exp(z))));
}

// image_share of the documents carry 1-4 images of 256, 576, 1024 or 2048
// patches and a short caption-like text; the rest are text only.
std::vector<MultimodalDocument> Documents(size_t n, double image_share, uint64_t seed) {
  flopspack::util::Rng rng(seed);
  const int64_t patches[] = {256, 576, 1024, 2048};
  std::vector<MultimodalDocument> docs(n);
  for (MultimodalDocument& d : docs) {
    if (rng.Uniform() < image_share) {
      d.text_tokens = LogNormal(rng, 200, 4096);
      d.images = 1 + static_cast<int64_t>(rng.Below(4));
      d.patches_per_image = patches[rng.Below(4)];
    } else {
      d.text_tokens = LogNormal(rng, 1500, 8192);
    }
  }
  return docs;
}

struct Result {
  double balance;   // mean / max of the full rank costs
  double max_cost;  // the slowest rank, full cost
};

Result Judge(const std::vector<int32_t>& group, const std::vector<double>& full, int64_t ranks) {
  std::vector<double> load(static_cast<size_t>(ranks), 0.0);
  for (size_t i = 0; i < group.size(); ++i) load[static_cast<size_t>(group[i])] += full[i];
  double total = 0, max = 0;
  for (double l : load) {
    total += l;
    max = std::max(max, l);
  }
  return {total / static_cast<double>(ranks) / max, max};
}

}  // namespace

int main(int argc, char** argv) {
  const int64_t ranks = argc > 1 ? std::atoll(argv[1]) : 64;
  const int64_t per_rank = argc > 2 ? std::atoll(argv[2]) : 16;
  const uint64_t seed = argc > 3 ? std::strtoull(argv[3], nullptr, 10) : 1;
  const auto lm = flopspack::bench::SevenB();
  const auto vit = VitL();
  std::printf("%lld ranks, %lld documents per rank, token cap 1.1 x mean rank tokens\n",
              static_cast<long long>(ranks), static_cast<long long>(per_rank));
  std::printf("%-12s %-16s %14s %14s %12s\n", "image share", "balanced by", "full balance",
              "max rank cost", "vs full");
  for (double share : {0.0, 0.1, 0.3, 0.5}) {
    const auto docs = Documents(static_cast<size_t>(ranks * per_rank), share, seed);
    std::vector<int64_t> tokens;
    std::vector<double> full, lm_only, by_tokens;
    int64_t total_tokens = 0;
    for (const MultimodalDocument& d : docs) {
      const int64_t t = *flopspack::cost::MultimodalTokens(d);
      tokens.push_back(t);
      total_tokens += t;
      lm_only.push_back(lm->Document(t));
      full.push_back(*flopspack::cost::MultimodalCost(*lm, *vit, d));
      by_tokens.push_back(static_cast<double>(t));
    }
    flopspack::pack::BalanceOptions o;
    o.num_groups = ranks;
    o.max_tokens_per_group = std::max(
        *std::max_element(tokens.begin(), tokens.end()),
        static_cast<int64_t>(1.1 * static_cast<double>(total_tokens) / static_cast<double>(ranks)));
    double full_max = 0;
    const char* names[] = {"full cost", "LM cost only", "tokens"};
    const std::vector<double>* costs[] = {&full, &lm_only, &by_tokens};
    for (int k = 0; k < 3; ++k) {
      auto group = flopspack::pack::AssignBalanced(*costs[k], tokens, o);
      if (!group.ok()) {
        std::fprintf(stderr, "%s\n", group.status().ToString().c_str());
        return 1;
      }
      const Result r = Judge(*group, full, ranks);
      if (k == 0) full_max = r.max_cost;
      std::printf("%-12.0f %-16s %13.3f%% %14.4g %11.2f%%\n", 100 * share, names[k],
                  100 * r.balance, r.max_cost, 100 * (r.max_cost / full_max - 1));
    }
  }
  return 0;
}
