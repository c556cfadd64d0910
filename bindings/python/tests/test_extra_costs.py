"""plan_step(..., extra_costs=): documents whose cost is the model's cost of
their tokens plus their own extra cost (flopspack_plan_step_with_extra_costs)."""

import math
import re

import numpy as np
import pytest

import flopspack

TOKENS = flopspack.CostModel.tokens()


def test_none_is_plan_step_bit_for_bit():
    docs = np.random.default_rng(3).integers(1, 1500, size=200)
    model = flopspack.CostModel.polynomial(0, 0, 1, 1.0 / 1024)
    kwargs = dict(num_ranks=8, max_tokens_per_microbatch=1024)
    a = flopspack.plan_step(docs, model, **kwargs)
    b = flopspack.plan_step(docs, model, extra_costs=None, **kwargs)
    assert [g.items.tolist() for g in a] == [g.items.tolist() for g in b]
    assert [g.cost for g in a] == [g.cost for g in b]


def test_a_short_document_with_a_huge_extra_cost_ends_alone():
    docs = [100, 100, 100, 100, 10, 100]
    extra = [0, 0, 0, 0, 1e6, 0]
    plan = flopspack.plan_step(docs, TOKENS, num_ranks=2, microbatches_per_rank=1,
                               max_tokens_per_microbatch=4096, extra_costs=extra)
    groups = sorted((len(g.items), g.items.tolist(), g.cost) for g in plan)
    assert groups[0] == (1, [4], 10 + 1e6)
    assert groups[1][0] == 5 and groups[1][2] == 500
    assert max(g.cost for g in plan) == 10 + 1e6
    assert plan.metrics.total_cost == 510 + 1e6


def test_split_pieces_share_the_extra_cost_by_tokens():
    docs = [4000, 300, 500]
    extra = np.array([8000.0, 0.0, 50.0])
    plan = flopspack.plan_step(docs, TOKENS, num_ranks=2, max_tokens_per_microbatch=1024,
                               extra_costs=extra)
    for g in plan:
        want = g.tokens.sum() + sum(extra[i] * t / docs[i] for i, t in zip(g.items, g.tokens))
        assert g.cost == pytest.approx(want, rel=1e-12)
    assert plan.metrics.total_cost == pytest.approx(4800 + 8050)


@pytest.mark.parametrize("extra, error, fragment", [
    ([0, -1, 0], flopspack.InvalidArgumentError, "extra_costs[1] = -1"),
    ([0, 0, math.nan], flopspack.InvalidArgumentError, "extra_costs[2] = nan"),
    ([math.inf, 0, 0], flopspack.InvalidArgumentError, "extra_costs[0] = inf"),
    ([1e308, 1e308, 0], flopspack.OutOfRangeError, "extra_costs"),
    ([0, 0], flopspack.InvalidArgumentError, "extra_costs has 2 entries for 3 lengths"),
    ([], flopspack.InvalidArgumentError, "extra_costs has 0 entries for 3 lengths"),
])
def test_bad_extra_costs(extra, error, fragment):
    before = list(extra)
    with pytest.raises(error, match=None) as info:
        flopspack.plan_step([10, 20, 30], TOKENS, num_ranks=2, microbatches_per_rank=1,
                            max_tokens_per_microbatch=64, extra_costs=extra)
    assert fragment in str(info.value)
    assert extra == before or (math.isnan(extra[2]) and before[:2] == extra[:2])


def test_multimodal_costs_feed_plan_step():
    vit = flopspack.CostModel.transformer(num_layers=24, hidden_size=1024, num_attention_heads=16,
                                          num_key_value_heads=16, intermediate_size=4096,
                                          causal=False, vocab_size=0)
    tokens, extra = flopspack.multimodal_costs(vit, [1500, 200, 0], [0, 3, 1], [0, 576, 256])
    d = 1024.0

    def image(p):
        return 3 * (24 * 24 * d * d * p + 24 * 4 * d * p * p)

    assert tokens.tolist() == [1500, 200 + 3 * 576, 256]
    assert extra[0] == 0
    assert extra[1] == pytest.approx(3 * image(576), rel=1e-12)
    assert extra[2] == pytest.approx(image(256), rel=1e-12)
    plan = flopspack.plan_step(tokens, TOKENS, num_ranks=2, max_tokens_per_microbatch=4096,
                               extra_costs=extra)
    assert plan.metrics.total_cost == pytest.approx(tokens.sum() + extra.sum(), rel=1e-12)
    with pytest.raises(flopspack.InvalidArgumentError, match="document 1: multimodal document"):
        flopspack.multimodal_costs(vit, [5, 5], [0, 2], [0, 0])
    with pytest.raises(flopspack.InvalidArgumentError, match="for 2 text_tokens"):
        flopspack.multimodal_costs(vit, [5, 5], [0], [0, 0])


def test_pack_extra_costs_none_and_zeros_are_pack():
    model = flopspack.CostModel.polynomial(0, 0, 1, 1 / 1024)
    lengths = np.array([1 + (i * 7919) % 1500 for i in range(150)], dtype=np.int64)
    plain = flopspack.pack(lengths, 1024, overflow=flopspack.Overflow.SPLIT, model=model)
    for extra in (None, np.zeros(len(lengths))):
        plan = flopspack.pack(
            lengths, 1024, overflow=flopspack.Overflow.SPLIT, model=model, extra_costs=extra
        )
        assert len(plan) == len(plain)
        for a, b in zip(plain, plan):
            assert list(a.items) == list(b.items)
            assert list(a.tokens) == list(b.tokens)
            assert a.cost == b.cost


def test_pack_extra_costs_by_hand_and_bad_input():
    extra = [1.5, 0.0, 1000.0, 0.25]
    before = list(extra)
    plan = flopspack.pack(
        [60, 40, 100, 30], 100, algorithm=flopspack.PackAlgorithm.NEXT_FIT, extra_costs=extra
    )
    assert [g.cost for g in plan] == [101.5, 1100.0, 30.25]
    assert extra == before
    for bad, error, fragment in [
        ([0, -1, 0], flopspack.InvalidArgumentError, "extra_costs[1] = -1"),
        ([0, 0, math.nan], flopspack.InvalidArgumentError, "extra_costs[2] = nan"),
        ([1e308, 1e308, 0], flopspack.OutOfRangeError, "extra_costs"),
        ([0, 0], flopspack.InvalidArgumentError, "extra_costs has 2 entries for 3 lengths"),
    ]:
        with pytest.raises(error, match=re.escape(fragment)):
            flopspack.pack([10, 20, 30], 64, extra_costs=bad)


# ---- StepPlanner.push(..., extra_costs=): the stateful planner -------------

QUADRATIC = flopspack.CostModel.polynomial(0, 0, 1, 1.0 / 1024)
PLANNER = dict(num_ranks=4, microbatches_per_rank=4, max_tokens_per_microbatch=1024)


def same_plan(a, b):
    for x, y in zip(a.to_csr(), b.to_csr()):
        np.testing.assert_array_equal(x, y)
    assert [g.cost for g in a] == [g.cost for g in b]
    assert list(a.deferred) == list(b.deferred)
    assert a.metrics == b.metrics


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_step_planner_push_with_extra_costs_is_plan_step(seed):
    rng = np.random.default_rng(seed)
    docs = rng.integers(1, 800, size=int(rng.integers(10, 20)))  # one step holds them
    extra = np.where(rng.random(docs.size) < 0.3, 0.0, rng.random(docs.size) * 1e5)
    planner = flopspack.StepPlanner(QUADRATIC, **PLANNER)
    assert planner.push(docs, extra_costs=extra) == 0
    same_plan(planner.next(), flopspack.plan_step(docs, QUADRATIC, extra_costs=extra, **PLANNER))
    # None is push: the same state, the same plan as plan_step.
    a, b = flopspack.StepPlanner(QUADRATIC, **PLANNER), flopspack.StepPlanner(QUADRATIC, **PLANNER)
    a.push(docs)
    b.push(docs, extra_costs=None)
    assert a.save() == b.save()
    same_plan(b.next(), flopspack.plan_step(docs, QUADRATIC, **PLANNER))


def test_step_planner_mixed_pushes_fill_in_zeros():
    rng = np.random.default_rng(7)
    parts = [rng.integers(1, 700, size=n) for n in (9, 7, 5)]  # one step holds them
    extra = rng.random(7) * 5e4
    planner = flopspack.StepPlanner(QUADRATIC, **PLANNER)
    assert planner.push(parts[0]) == 0
    assert planner.push(parts[1], extra_costs=extra) == 9
    assert planner.push(parts[2]) == 16
    docs = np.concatenate(parts)
    filled = np.concatenate([np.zeros(9), extra, np.zeros(5)])
    same_plan(planner.next(), flopspack.plan_step(docs, QUADRATIC, extra_costs=filled, **PLANNER))


@pytest.mark.parametrize("extra", [
    [0, -1, 0], [0, 0, math.nan], [math.inf, 0, 0], [1e308, 1e308, 0], [0, 0], [],
])
def test_step_planner_bad_extra_costs_change_nothing(extra):
    planner = flopspack.StepPlanner(QUADRATIC, **PLANNER)
    planner.push([40, 50], extra_costs=[2.5, 0])
    before = planner.save()
    with pytest.raises(flopspack.Error) as want:
        flopspack.plan_step([10, 20, 30], QUADRATIC, extra_costs=extra, **PLANNER)
    with pytest.raises(type(want.value)) as got:
        planner.push([10, 20, 30], extra_costs=extra)
    assert str(got.value) == str(want.value)
    assert planner.save() == before
    assert planner.pending == (2, 90, 0)


def test_step_planner_save_restore_keeps_extra_costs():
    rng = np.random.default_rng(11)
    docs = rng.integers(1, 1024, size=240)
    extra = np.where(np.arange(240) % 3 == 0, 0.0, 5000.0 + 37.0 * np.arange(240))
    planner = flopspack.StepPlanner(QUADRATIC, num_ranks=4, microbatches_per_rank=2,
                                    max_tokens_per_microbatch=1024, tokens_per_step=7000,
                                    outlier_min_tokens=900, max_outliers_per_step=1)
    planner.push(docs[:120], extra_costs=extra[:120])
    planner.next()
    planner.next()
    state = planner.save()
    twin = flopspack.StepPlanner.restore(state, QUADRATIC)
    assert twin.save() == state
    for p in (planner, twin):
        p.push(docs[120:180])
        p.push(docs[180:], extra_costs=extra[180:])
    for _ in range(30):  # ~17 steps drain the queue
        same_plan(planner.next(), twin.next())
    assert planner.pending.documents == 0


# ---- simulate(..., extra_costs=) and simulate_sweep(..., extra_costs=) ----

SIM_DOCS = np.random.default_rng(5).integers(1, 3000, size=2000)


@pytest.mark.parametrize("policy", list(flopspack.SimPolicy))
def test_simulate_zero_extra_costs_is_the_plain_call_bit_for_bit(policy):
    model = flopspack.CostModel.polynomial(0, 0, 1, 1.0 / 1024)
    kwargs = dict(policy=policy, num_ranks=8, num_steps=6, record_steps=True,
                  tokens_per_microbatch=4096)
    if policy >= flopspack.SimPolicy.PLANNER_DOCUMENTS:
        kwargs["max_tokens_per_microbatch"] = 5000
    a = flopspack.simulate(SIM_DOCS, model, **kwargs)
    b = flopspack.simulate(SIM_DOCS, model, extra_costs=np.zeros(SIM_DOCS.size), **kwargs)
    assert repr(a.summary) == repr(b.summary)  # exact floats; NaN where no prediction
    for kind in flopspack.SimSeries:
        assert a.series(kind).tolist() == b.series(kind).tolist()


def test_simulate_extra_costs_by_hand_and_in_the_sweep():
    # One rank, token cost: 3 + 5 tokens plus extra costs 10 + 100.
    for policy in (flopspack.SimPolicy.RANDOM, flopspack.SimPolicy.TOKEN_BALANCED):
        sim = flopspack.simulate([3, 5], TOKENS, policy=policy, num_ranks=1,
                                 tokens_per_microbatch=8, num_steps=3, record_steps=True,
                                 extra_costs=[10, 100])
        assert sim.series(flopspack.SimSeries.STEP_TIME).tolist() == [118.0] * 3
    # 64 equal documents, one image-heavy: every rank count loses balance.
    docs = [128] * 64
    extra = [0.0] * 64
    extra[5] = 1e4
    kwargs = dict(policy=flopspack.SimPolicy.TOKEN_BALANCED, tokens_per_microbatch=1024,
                  num_steps=4)
    plain = flopspack.simulate_sweep(docs, TOKENS, [2, 8], **kwargs)
    heavy = flopspack.simulate_sweep(docs, TOKENS, [2, 8], extra_costs=extra, **kwargs)
    zero = flopspack.simulate_sweep(docs, TOKENS, [2, 8], extra_costs=[0] * 64, **kwargs)
    assert plain.sampled_efficiency.tolist() == [1.0, 1.0]
    assert zero.sampled_efficiency.tolist() == plain.sampled_efficiency.tolist()
    assert all(e < 0.9 for e in heavy.sampled_efficiency)
    # The planner balances the full cost: better than token balancing.
    planned = flopspack.simulate_sweep(docs, TOKENS, [2], extra_costs=extra, num_steps=4,
                                       policy=flopspack.SimPolicy.PLANNER_DOCUMENTS,
                                       tokens_per_microbatch=1024,
                                       max_tokens_per_microbatch=4096)
    assert planned.relative_throughput[0] > heavy.relative_throughput[0]


@pytest.mark.parametrize("extra,error,fragment", [
    ([0, -1, 0], flopspack.InvalidArgumentError, "extra_costs[1] = -1"),
    ([0, 0, math.nan], flopspack.InvalidArgumentError, "extra_costs[2] = nan"),
    ([math.inf, 0, 0], flopspack.InvalidArgumentError, "extra_costs[0] = inf"),
    ([1e308, 1e308, 0], flopspack.OutOfRangeError, "extra_costs"),
    ([0, 0], flopspack.InvalidArgumentError, "extra_costs has 2 entries for 3 lengths"),
])
def test_simulate_bad_extra_costs(extra, error, fragment):
    with pytest.raises(error) as info:
        flopspack.simulate([5, 6, 7], TOKENS, num_ranks=2, num_steps=1, extra_costs=extra)
    assert fragment in str(info.value)
    with pytest.raises(error) as info:
        flopspack.simulate_sweep([5, 6, 7], TOKENS, [2], num_steps=1, extra_costs=extra)
    assert fragment in str(info.value)
