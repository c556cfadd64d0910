import itertools

import numpy as np
import pytest

import flopspack


@pytest.mark.parametrize("seed", range(10))
@pytest.mark.parametrize("algorithm", list(flopspack.PackAlgorithm))
def test_pack_places_every_token_once_within_capacity(seed, algorithm):
    docs = np.random.default_rng(seed).integers(1, 5000, size=300)
    plan = flopspack.pack(docs, 4096, algorithm=algorithm, overflow=flopspack.Overflow.SPLIT,
                          seed=seed)
    tokens = np.zeros(len(docs), dtype=np.int64)
    for g in plan:
        assert g.real_tokens == g.tokens.sum() <= 4096
        np.add.at(tokens, g.items, g.tokens)
    np.testing.assert_array_equal(tokens, docs)
    m = plan.metrics
    assert m.capacity == 4096 and m.fill == pytest.approx(docs.sum() / (len(plan) * 4096))
    assert m.split_items == int((docs > 4096).sum()) or algorithm == flopspack.PackAlgorithm.NEXT_FIT


def test_pack_errors_and_model():
    with pytest.raises(flopspack.InvalidArgumentError, match="capacity"):
        flopspack.pack([1, 2], 0)
    with pytest.raises(flopspack.InvalidArgumentError, match="5000"):
        flopspack.pack([10, 5000], 4096)  # overflow ERROR by default
    model = flopspack.CostModel.polynomial(1, 0, 1, 0)
    plan = flopspack.pack([100, 200, 300], 1000, model=model)
    assert len(plan) == 1 and plan[0].cost == 1 + 600


def brute_force_max(costs, k):
    best = None
    for labels in itertools.product(range(k), repeat=len(costs)):
        loads = [0.0] * k
        for c, l in zip(costs, labels):
            loads[l] += c
        best = max(loads) if best is None else min(best, max(loads))
    return best


@pytest.mark.parametrize("seed", range(20))
def test_balance_every_item_once_and_near_optimal(seed):
    rng = np.random.default_rng(seed)
    costs = rng.random(8) * 100
    plan = flopspack.balance(costs, 3)
    items = np.sort(np.concatenate([g.items for g in plan]))
    np.testing.assert_array_equal(items, np.arange(8))
    got = max(g.cost for g in plan)
    optimum = brute_force_max(costs.tolist(), 3)
    assert optimum <= got + 1e-9
    assert got <= optimum * 4 / 3 + 1e-9  # LPT's bound; refinement only improves it


def test_balance_token_cap_and_errors():
    costs = [5.0, 4.0, 3.0, 3.0, 2.0, 1.0]
    tokens = [50, 40, 30, 30, 20, 10]
    plan = flopspack.balance(costs, 2, tokens=tokens, max_tokens_per_group=95)
    for g in plan:
        assert np.asarray(tokens)[g.items].sum() <= 95
    with pytest.raises(flopspack.InvalidArgumentError, match="tokens has 2 entries for 6 costs"):
        flopspack.balance(costs, 2, tokens=[1, 2])
    with pytest.raises(flopspack.InvalidArgumentError, match="num_groups"):
        flopspack.balance(costs, 0)
    with pytest.raises(flopspack.InfeasibleError):
        flopspack.balance(costs, 2, tokens=tokens, max_tokens_per_group=60)
    equal = flopspack.balance(np.arange(1.0, 11.0), 3, equal_count=True)
    assert sorted(len(g.items) for g in equal) == [3, 3, 4]
