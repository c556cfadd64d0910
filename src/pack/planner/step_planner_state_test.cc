#include "pack/planner/step_planner_state.h"

#include <algorithm>
#include <limits>
#include <map>
#include <vector>

#include "cost/polynomial.h"
#include "gtest/gtest.h"
#include "util/random.h"

namespace flopspack::pack {
namespace {

std::shared_ptr<const cost::CostModel> Quadratic() {
  return *cost::PolynomialModel::Create({0, 0, 1, 1.0 / 256});
}

StepOptions Step() {
  StepOptions o;
  o.num_ranks = 4;
  o.microbatches_per_rank = 2;
  o.max_tokens_per_microbatch = 256;
  return o;
}

std::vector<int64_t> Batch(util::Rng& rng, size_t n, double outlier_share) {
  std::vector<int64_t> lengths(n);
  for (int64_t& l : lengths) {
    l = rng.Uniform() < outlier_share ? 200 + static_cast<int64_t>(rng.Below(57))
                                      : 1 + static_cast<int64_t>(rng.Below(120));
  }
  return lengths;
}

bool SamePlan(const Plan& a, const Plan& b) {
  if (a.group_count() != b.group_count() || a.deferred() != b.deferred()) return false;
  for (size_t g = 0; g < a.group_count(); ++g) {
    const auto ia = a.group_items(g), ib = b.group_items(g);
    const auto ta = a.group_tokens(g), tb = b.group_tokens(g);
    if (!std::equal(ia.begin(), ia.end(), ib.begin(), ib.end())) return false;
    if (!std::equal(ta.begin(), ta.end(), tb.begin(), tb.end())) return false;
    if (a.group_cost(g) != b.group_cost(g)) return false;
  }
  return true;
}

TEST(StreamingStepPlannerTest, EveryDocumentPlannedOnceAndOutliersWithinTheBound) {
  util::Rng rng(77);
  for (int trial = 0; trial < 40; ++trial) {
    StepPlannerOptions stream;
    stream.tokens_per_step = 1500 + static_cast<int64_t>(rng.Below(548));
    stream.outlier_min_tokens = 200;
    stream.max_defer_steps = static_cast<int64_t>(rng.Below(4));
    stream.max_outliers_per_step = 1 + static_cast<int64_t>(rng.Below(3));
    auto planner = StreamingStepPlanner::Create(Step(), stream, Quadratic());
    ASSERT_TRUE(planner.ok()) << planner.status();
    std::map<int64_t, int64_t> length_of;
    std::map<int64_t, int> placed_pieces, times_deferred;
    std::map<int64_t, int64_t> placed_tokens;
    for (int step = 0; step < 60; ++step) {
      if (step < 40) {
        const std::vector<int64_t> lengths = Batch(rng, rng.Below(25), 0.1);
        absl::StatusOr<int64_t> first = (*planner)->Push(lengths);
        ASSERT_TRUE(first.ok());
        for (size_t i = 0; i < lengths.size(); ++i) length_of[*first + i] = lengths[i];
      }
      absl::StatusOr<Plan> plan = (*planner)->Next();
      ASSERT_TRUE(plan.ok()) << plan.status();
      int64_t outliers = 0, step_tokens = 0;
      for (size_t g = 0; g < plan->group_count(); ++g) {
        EXPECT_LE(plan->group_real_tokens(g), 256);
        step_tokens += plan->group_real_tokens(g);
        for (size_t k = 0; k < plan->group_items(g).size(); ++k) {
          const int64_t id = plan->group_items(g)[k];
          placed_tokens[id] += plan->group_tokens(g)[k];
          ++placed_pieces[id];
          outliers += length_of[id] >= 200 ? 1 : 0;
        }
      }
      EXPECT_LE(step_tokens, stream.tokens_per_step);
      for (int64_t id : plan->deferred()) {
        if (length_of[id] >= 200) {
          ++times_deferred[id];
          // The bound: never held back more than max_defer_steps steps.
          EXPECT_LE(times_deferred[id], stream.max_defer_steps) << "outlier " << id;
        }
      }
    }
    uint64_t docs = 0;
    EXPECT_EQ((*planner)->pending_documents(), 0);
    EXPECT_EQ((*planner)->pending_tokens(), 0);
    for (const auto& [id, length] : length_of) {
      EXPECT_EQ(placed_tokens[id], length) << "document " << id;
      ++docs;
    }
    EXPECT_EQ(static_cast<int64_t>(docs), (*planner)->next_id());
  }
}

TEST(StreamingStepPlannerTest, HoldsBackOutliersBeyondTheLimit) {
  StepPlannerOptions stream;
  stream.tokens_per_step = 2048;
  stream.outlier_min_tokens = 200;
  stream.max_defer_steps = 3;
  stream.max_outliers_per_step = 2;
  auto planner = *StreamingStepPlanner::Create(Step(), stream, Quadratic());
  ASSERT_TRUE(planner->Push({210, 220, 230, 240, 10, 10}).ok());
  Plan first = *planner->Next();
  // Two outliers per step: 2 and 3 wait.
  EXPECT_EQ(first.deferred(), (std::vector<int64_t>{2, 3}));
  Plan second = *planner->Next();
  EXPECT_TRUE(second.deferred().empty());
  EXPECT_EQ(second.metrics().real_tokens, 230 + 240);
  EXPECT_EQ(planner->pending_documents(), 0);
}

TEST(StreamingStepPlannerTest, SaveRestoreContinuesIdentically) {
  util::Rng rng(5);
  StepPlannerOptions stream;
  stream.tokens_per_step = 1800;
  stream.outlier_min_tokens = 200;
  StepOptions step = Step();
  step.algorithm = StepAlgorithm::kRandom;  // the seed matters per step
  for (StepAlgorithm algorithm : {StepAlgorithm::kRandom, StepAlgorithm::kDocuments}) {
    step.algorithm = algorithm;
    auto a = *StreamingStepPlanner::Create(step, stream, Quadratic());
    std::vector<std::vector<int64_t>> batches;
    for (int i = 0; i < 12; ++i) batches.push_back(Batch(rng, 30, 0.1));
    for (int i = 0; i < 5; ++i) {
      ASSERT_TRUE(a->Push(batches[i]).ok());
      ASSERT_TRUE(a->Next().ok());
    }
    const std::string saved = a->Save();
    auto b = StreamingStepPlanner::Restore(saved, Quadratic());
    ASSERT_TRUE(b.ok()) << b.status();
    EXPECT_EQ((*b)->Save(), saved);
    for (int i = 5; i < 12; ++i) {
      ASSERT_TRUE(a->Push(batches[i]).ok());
      ASSERT_TRUE((*b)->Push(batches[i]).ok());
      Plan pa = *a->Next(), pb = *(*b)->Next();
      EXPECT_TRUE(SamePlan(pa, pb)) << "step " << i;
    }
  }
}

TEST(StreamingStepPlannerTest, RejectsCorruptedState) {
  auto planner = *StreamingStepPlanner::Create(Step(), StepPlannerOptions{}, Quadratic());
  ASSERT_TRUE(planner->Push({5, 6, 7}).ok());
  const std::string saved = planner->Save();
  for (size_t i = 0; i < saved.size(); ++i) {
    std::string bad = saved;
    bad[i] = static_cast<char>(bad[i] ^ 0x20);
    absl::Status s = StreamingStepPlanner::Restore(bad, Quadratic()).status();
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << "byte " << i;
  }
  for (size_t n : {size_t{0}, size_t{7}, saved.size() - 1}) {
    EXPECT_EQ(StreamingStepPlanner::Restore(saved.substr(0, n), Quadratic()).status().code(),
              absl::StatusCode::kInvalidArgument);
  }
  EXPECT_EQ(StreamingStepPlanner::Restore(saved + "x", Quadratic()).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(StreamingStepPlannerTest, BadInput) {
  StepOptions step = Step();
  step.microbatches_per_rank = 0;
  EXPECT_EQ(StreamingStepPlanner::Create(step, StepPlannerOptions{}, Quadratic()).status().code(),
            absl::StatusCode::kInvalidArgument);
  StepPlannerOptions stream;
  stream.tokens_per_step = 4 * 2 * 256 + 1;
  EXPECT_EQ(StreamingStepPlanner::Create(Step(), stream, Quadratic()).status().code(),
            absl::StatusCode::kInvalidArgument);
  step = Step();
  step.overflow = Overflow::kError;
  auto planner = *StreamingStepPlanner::Create(step, StepPlannerOptions{}, Quadratic());
  absl::Status s = planner->Push({3, 300}).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("lengths[1] = 300"), absl::string_view::npos) << s;
  EXPECT_EQ(planner->next_id(), 0) << "a rejected push must not queue anything";
}

// Extra costs (issue 16): random finite, non-negative extra costs, some 0.
std::vector<double> Extras(util::Rng& rng, size_t n) {
  std::vector<double> extra(n);
  for (double& e : extra) e = rng.Uniform() < 0.3 ? 0.0 : 500 * rng.Uniform();
  return extra;
}

bool SameMetrics(const Plan& a, const Plan& b) {
  const PlanMetrics &x = a.metrics(), &y = b.metrics();
  return x.max_group_cost == y.max_group_cost && x.total_cost == y.total_cost &&
         x.max_rank_cost == y.max_rank_cost && x.rank_lower_bound == y.rank_lower_bound &&
         x.rank_balance_efficiency == y.rank_balance_efficiency &&
         x.deferred_items == y.deferred_items && x.deferred_tokens == y.deferred_tokens &&
         x.split_items == y.split_items;
}

// One step of everything pushed (tokens_per_step = R x M x cap holds it):
// the plan is PlanStepWithExtraCosts's on the same documents, bit for bit,
// for every algorithm (the random one with seed 0 only at step 0: the
// planner derives a seed per step, so it is compared at step 0 with that
// seed), with and without splitting.
TEST(StreamingStepPlannerTest, PushWithExtraCostsPlansLikePlanStepWithExtraCosts) {
  util::Rng rng(16);
  auto model = Quadratic();
  for (int trial = 0; trial < 24; ++trial) {
    StepOptions step = Step();
    step.microbatches_per_rank = 8;  // one step holds every document
    step.algorithm = static_cast<StepAlgorithm>(trial % 4);
    step.seed = rng.Below(1000);
    if (trial % 3 == 2) step.context_parallel_size = 2;
    const size_t n = 5 + rng.Below(20);
    std::vector<int64_t> lengths = Batch(rng, n, 0.2);
    if (trial % 2 == 1) lengths[0] = 300 + static_cast<int64_t>(rng.Below(200));  // split
    const std::vector<double> extra = Extras(rng, n);
    auto planner = *StreamingStepPlanner::Create(step, StepPlannerOptions{}, model);
    ASSERT_TRUE(planner->Push(lengths, extra).ok());
    absl::StatusOr<Plan> stepped = planner->Next();
    ASSERT_TRUE(stepped.ok()) << stepped.status();
    StepOptions once = step;
    once.seed = util::DeriveSeed(step.seed, 0);
    absl::StatusOr<Plan> direct = PlanStepWithExtraCosts(once, *model, lengths, extra);
    ASSERT_TRUE(direct.ok()) << direct.status();
    EXPECT_TRUE(SamePlan(*stepped, *direct)) << "trial " << trial;
    EXPECT_TRUE(SameMetrics(*stepped, *direct)) << "trial " << trial;
    // The extra costs count: without them the plan costs less.
    absl::StatusOr<Plan> plain = PlanStep(once, *model, lengths);
    ASSERT_TRUE(plain.ok());
    EXPECT_GT(stepped->metrics().total_cost, plain->metrics().total_cost) << "trial " << trial;
    EXPECT_EQ(planner->pending_documents(), 0);
  }
}

// Empty extra costs are Push; pushes with and without extra costs mixed plan
// as PlanStepWithExtraCosts with zeros for the documents pushed without.
TEST(StreamingStepPlannerTest, MixedPushesAreOneStepWithZerosFilledIn) {
  util::Rng rng(61);
  auto model = Quadratic();
  for (int trial = 0; trial < 12; ++trial) {
    StepOptions step = Step();
    step.microbatches_per_rank = 6;  // one step holds every document
    step.algorithm = trial % 2 == 0 ? StepAlgorithm::kDocuments : StepAlgorithm::kSequences;
    const std::vector<int64_t> a = Batch(rng, 8, 0.2), b = Batch(rng, 6, 0.2),
                               c = Batch(rng, 5, 0.2);
    const std::vector<double> eb = Extras(rng, b.size());
    auto plain = *StreamingStepPlanner::Create(step, StepPlannerOptions{}, model);
    auto empty = *StreamingStepPlanner::Create(step, StepPlannerOptions{}, model);
    auto mixed = *StreamingStepPlanner::Create(step, StepPlannerOptions{}, model);
    for (const std::vector<int64_t>* batch : {&a, &b, &c}) {
      ASSERT_TRUE(plain->Push(*batch).ok());
      ASSERT_TRUE(empty->Push(*batch, {}).ok());
    }
    ASSERT_TRUE(mixed->Push(a).ok());
    ASSERT_TRUE(mixed->Push(b, eb).ok());
    ASSERT_TRUE(mixed->Push(c).ok());
    EXPECT_EQ(plain->Save(), empty->Save());
    Plan p = *plain->Next(), e = *empty->Next(), m = *mixed->Next();
    EXPECT_TRUE(SamePlan(p, e));
    EXPECT_TRUE(SameMetrics(p, e));
    std::vector<int64_t> lengths = a;
    lengths.insert(lengths.end(), b.begin(), b.end());
    lengths.insert(lengths.end(), c.begin(), c.end());
    std::vector<double> extra(a.size(), 0.0);
    extra.insert(extra.end(), eb.begin(), eb.end());
    extra.resize(lengths.size(), 0.0);
    StepOptions once = step;
    once.seed = util::DeriveSeed(step.seed, 0);
    absl::StatusOr<Plan> direct = PlanStepWithExtraCosts(once, *model, lengths, extra);
    ASSERT_TRUE(direct.ok()) << direct.status();
    EXPECT_TRUE(SamePlan(m, *direct)) << "trial " << trial;
    EXPECT_TRUE(SameMetrics(m, *direct)) << "trial " << trial;
    // A step whose extra costs are all 0 is PlanStep's (zeros change nothing).
    auto zeros = *StreamingStepPlanner::Create(step, StepPlannerOptions{}, model);
    ASSERT_TRUE(zeros->Push(lengths, std::vector<double>(lengths.size(), 0.0)).ok());
    Plan z = *zeros->Next();
    absl::StatusOr<Plan> by_plan_step = PlanStep(once, *model, lengths);
    ASSERT_TRUE(by_plan_step.ok());
    EXPECT_TRUE(SamePlan(z, *by_plan_step));
    EXPECT_TRUE(SameMetrics(z, *by_plan_step));
  }
}

// Bad extra costs: the status and message of PlanStepWithExtraCosts, and the
// planner as it was (nothing queued, no id used, the same saved bytes).
TEST(StreamingStepPlannerTest, BadExtraCostsChangeNothing) {
  auto model = Quadratic();
  auto planner = *StreamingStepPlanner::Create(Step(), StepPlannerOptions{}, model);
  ASSERT_TRUE(planner->Push({30, 40}, {1.5, 0}).ok());
  const std::string before = planner->Save();
  const std::vector<int64_t> lengths = {5, 6, 7};
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  const std::vector<std::vector<double>> rows = {{0, -1, 2},        {0, 1, nan}, {inf, 0, 0},
                                                 {1e308, 1e308, 0}, {1, 2},      {-0.5, 0, 0}};
  for (const std::vector<double>& extra : rows) {
    const absl::Status want = PlanStepWithExtraCosts(Step(), *model, lengths, extra).status();
    ASSERT_FALSE(want.ok());
    const absl::Status got = planner->Push(lengths, extra).status();
    EXPECT_EQ(got, want);
    EXPECT_EQ(planner->next_id(), 2);
    EXPECT_EQ(planner->pending_documents(), 2);
    EXPECT_EQ(planner->pending_tokens(), 70);
    EXPECT_EQ(planner->Save(), before);
  }
  EXPECT_EQ(planner->Push(lengths, {0, -1, 2}).status().message(),
            "extra_costs[1] = -1: every extra cost must be finite and non-negative");
  EXPECT_EQ(planner->Push(lengths, {1e308, 1e308, 0}).status().code(),
            absl::StatusCode::kOutOfRange);
}

// A state holding extra costs (outliers waiting, documents carried over)
// saves them: the restored planner saves the same bytes and plans the same
// steps bit for bit; corrupted extra costs are refused.
TEST(StreamingStepPlannerTest, SaveRestoreKeepsTheExtraCosts) {
  util::Rng rng(8);
  auto model = Quadratic();
  StepPlannerOptions stream;
  stream.tokens_per_step = 1500;
  stream.outlier_min_tokens = 200;
  stream.max_outliers_per_step = 1;
  auto a = *StreamingStepPlanner::Create(Step(), stream, model);
  std::vector<std::vector<int64_t>> batches;
  std::vector<std::vector<double>> extras;
  for (int i = 0; i < 10; ++i) {
    batches.push_back(Batch(rng, 25, 0.15));
    extras.push_back(Extras(rng, 25));
  }
  for (int i = 0; i < 4; ++i) {
    ASSERT_TRUE(a->Push(batches[i], extras[i]).ok());
    ASSERT_TRUE(a->Next().ok());
  }
  ASSERT_GT(a->pending_documents(), 0);
  const std::string saved = a->Save();
  auto b = StreamingStepPlanner::Restore(saved, model);
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ((*b)->Save(), saved);
  // The same state with the extra costs forgotten plans differently: the
  // saved extra costs are what keeps the plans identical.
  auto forgetful = *StreamingStepPlanner::Create(Step(), stream, model);
  for (int i = 0; i < 4; ++i) {
    ASSERT_TRUE(forgetful->Push(batches[i]).ok());
    ASSERT_TRUE(forgetful->Next().ok());
  }
  bool differs = false;
  for (int i = 4; i < 10; ++i) {
    const bool with_extra = i % 2 == 0;  // mixed pushes after the restore too
    for (auto* p : {&a, &(*b)}) {
      ASSERT_TRUE(with_extra ? (*p)->Push(batches[i], extras[i]).ok()
                             : (*p)->Push(batches[i]).ok());
    }
    ASSERT_TRUE(forgetful->Push(batches[i]).ok());
    Plan pa = *a->Next(), pb = *(*b)->Next(), pf = *forgetful->Next();
    EXPECT_TRUE(SamePlan(pa, pb)) << "step " << i;
    EXPECT_TRUE(SameMetrics(pa, pb)) << "step " << i;
    differs = differs || !SamePlan(pa, pf);
  }
  EXPECT_TRUE(differs);
  EXPECT_EQ(a->Save(), (*b)->Save());
}

}  // namespace
}  // namespace flopspack::pack

namespace flopspack::pack {
namespace {

// Issue 13: the streaming planner plans each step with PlanStep, so it
// splits for balance too: one microbatch per rank, the cap 25% over the
// sequence length, a document of 12 caps in the stream.
TEST(StreamingStepPlannerTest, SplitsForBalanceLikePlanStep) {
  StepOptions step;
  step.num_ranks = 16;
  step.microbatches_per_rank = 1;
  step.max_tokens_per_microbatch = 320;  // 256 x 1.25
  StepPlannerOptions stream;
  stream.tokens_per_step = 16 * 256;
  auto model = Quadratic();
  auto planner = StreamingStepPlanner::Create(step, stream, model);
  ASSERT_TRUE(planner.ok()) << planner.status();
  util::Rng rng(13);
  std::vector<int64_t> lengths{12 * 320};
  while (lengths.size() < 200) lengths.push_back(1 + static_cast<int64_t>(rng.Below(256)));
  ASSERT_TRUE((*planner)->Push(lengths).ok());
  absl::StatusOr<Plan> plan = (*planner)->Next();
  ASSERT_TRUE(plan.ok()) << plan.status();
  // The long document is the first one taken: more pieces than the cap asks.
  int pieces = 0;
  std::map<int64_t, int64_t> tokens_of;
  for (size_t g = 0; g < plan->group_count(); ++g) {
    for (size_t k = 0; k < plan->group_items(g).size(); ++k) {
      pieces += plan->group_items(g)[k] == 0 ? 1 : 0;
      tokens_of[plan->group_items(g)[k]] += plan->group_tokens(g)[k];
    }
  }
  EXPECT_GT(pieces, 12);
  EXPECT_EQ(tokens_of[0], 12 * 320);
  // Balanced at least as well as the token-balanced planner on that step.
  std::vector<int64_t> taken;
  for (const auto& [id, tokens] : tokens_of) taken.push_back(lengths[id]);
  StepOptions tokens = step;
  tokens.algorithm = StepAlgorithm::kTokens;
  absl::StatusOr<Plan> baseline = PlanStep(tokens, *model, taken);
  ASSERT_TRUE(baseline.ok()) << baseline.status();
  EXPECT_GE(plan->metrics().rank_balance_efficiency, baseline->metrics().rank_balance_efficiency);
  EXPECT_GE(plan->metrics().rank_balance_efficiency, 0.99);
}

}  // namespace
}  // namespace flopspack::pack
