import gc
import pickle

import numpy as np
import pytest

import flopspack


def lengths(n, seed, high=3000):
    return np.random.default_rng(seed).integers(1, high, size=n, dtype=np.int64)


def drain(packer, tokens):
    plan = packer.take()
    for group in plan:
        # A packed sequence computes its whole capacity (padding included).
        assert group.real_tokens == group.tokens.sum() <= group.computed_tokens
        assert group.computed_tokens == plan.metrics.capacity
        assert group.rank is None and group.slot is None
        for item, t in zip(group.items, group.tokens):
            tokens[int(item)] = tokens.get(int(item), 0) + int(t)
    return plan


@pytest.mark.parametrize("seed", range(20))
def test_every_token_is_placed_exactly_once(seed):
    docs = lengths(500, seed)
    packer = flopspack.StreamPacker(1024, window=32, seed=seed)
    tokens = {}
    for chunk in np.array_split(docs, 7):
        packer.push(chunk)
        drain(packer, tokens)
    packer.flush()
    plan = drain(packer, tokens)
    assert tokens == {i: int(l) for i, l in enumerate(docs)}
    t = packer.totals
    assert t.documents_pushed == 500 and t.pieces_held == 0
    assert t.tokens_emitted == int(docs.sum())
    assert plan.metrics.capacity == 1024


def test_plan_accessors_agree():
    packer = flopspack.StreamPacker(512, window=8)
    packer.push(lengths(40, 1, 700))
    packer.flush()
    plan = packer.take()
    assert len(plan) == plan.num_groups == plan.metrics.num_groups > 0
    offsets, items, tokens = plan.to_csr()
    assert offsets[-1] == len(items) == len(tokens)
    for g in range(len(plan)):
        np.testing.assert_array_equal(plan.items(g), items[offsets[g]:offsets[g + 1]])
        np.testing.assert_array_equal(plan[g].tokens, tokens[offsets[g]:offsets[g + 1]])
        real, computed, cost = plan.info(g)
        assert real == tokens[offsets[g]:offsets[g + 1]].sum()
    np.testing.assert_array_equal(plan[-1].items, plan[len(plan) - 1].items)
    assert plan.deferred.shape == (0,) and plan.dropped.shape == (0,)
    m = plan.metrics
    assert m.real_tokens == tokens.sum()
    assert m.max_group_cost == max(plan.info(g)[2] for g in range(len(plan)))
    assert "fill=" in repr(plan) and repr(m).startswith("PlanMetrics(num_groups=")
    with pytest.raises(flopspack.OutOfRangeError, match=f"group {len(plan)} is out of range"):
        plan.items(len(plan))
    with pytest.raises(flopspack.InvalidArgumentError, match="no ranks"):
        plan.slot(0)
    assert not plan.has_slots


def test_arrays_outlive_the_plan():
    packer = flopspack.StreamPacker(100)
    packer.push([60, 70, 80])
    packer.flush()
    plan = packer.take()
    items = plan.items(0)
    plan.close()
    gc.collect()
    assert items.flags.owndata and items.sum() >= 0  # a copy, not a view into the plan
    with pytest.raises(flopspack.ClosedError):
        plan.items(0)
    with pytest.raises(flopspack.ClosedError):
        len(plan)
    assert repr(plan) == "<flopspack.Plan closed>"


def test_save_restore_resumes_identically():
    docs = lengths(300, 5)
    a = flopspack.StreamPacker(2048, window=40, seed=9, overflow=flopspack.Overflow.TRUNCATE)
    a.push(docs[:150])
    a.take()
    state = a.save()
    b = flopspack.StreamPacker.restore(state)
    for p in (a, b):
        p.push(docs[150:])
        p.flush()
    pa, pb = a.take(), b.take()
    for x, y in zip(pa.to_csr(), pb.to_csr()):
        np.testing.assert_array_equal(x, y)
    assert pa.metrics == pb.metrics
    with pytest.raises(flopspack.InvalidArgumentError, match="corrupted"):
        flopspack.StreamPacker.restore(state[:-3])


def test_stream_bad_arguments_and_close():
    with pytest.raises(flopspack.InvalidArgumentError, match="capacity"):
        flopspack.StreamPacker(0)
    p = flopspack.StreamPacker(100, overflow=flopspack.Overflow.ERROR)
    with pytest.raises(flopspack.InvalidArgumentError) as info:
        p.push([50, 101])
    assert "101" in info.value.message
    assert p.totals.documents_pushed == 0  # none of the n is pushed
    p.close()
    with pytest.raises(flopspack.ClosedError):
        p.push([1])


def test_custom_model_outlives_its_close_inside_a_packer():
    calls = []

    def cost(lengths):
        calls.append(len(lengths))
        return float(lengths.sum())

    model = flopspack.CostModel.custom(cost)
    packer = flopspack.StreamPacker(100, window=4, model=model)
    model.close()
    del model, cost
    gc.collect()
    packer.push([30, 30, 30, 30, 30, 30])
    packer.flush()
    plan = packer.take()
    assert calls and plan.metrics.total_cost == 180.0


def test_errors_pickle():
    e = flopspack.InfeasibleError("no room", 3)
    e2 = pickle.loads(pickle.dumps(e))
    assert type(e2) is flopspack.InfeasibleError and e2.status == 3 and e2.message == "no room"
    assert flopspack.status_string(3) == "FLOPSPACK_INFEASIBLE"
