"""Context-parallel sharding from Python: chunks tile the plan, CP-rank costs
add up to the group costs, layouts, metrics, bad input."""

import numpy as np
import pytest

import flopspack


def _model():
    return flopspack.CostModel.transformer(
        num_layers=4, hidden_size=256, num_attention_heads=8, num_key_value_heads=8,
        intermediate_size=1024, vocab_size=1000)


def _plan(model):
    lengths = np.array([1 + (i * 7919) % 700 for i in range(60)], dtype=np.int64)
    return flopspack.plan_step(lengths, model, num_ranks=4, microbatches_per_rank=2,
                               max_tokens_per_microbatch=4096)


@pytest.mark.parametrize("layout", list(flopspack.CpLayout))
def test_chunks_tile_the_plan(layout):
    model = _model()
    plan = _plan(model)
    shard = flopspack.shard_context_parallel(plan, model, 4, layout)
    assert len(shard) == len(plan) and shard.context_parallel_size == 4
    for g, group in enumerate(plan):
        want = sorted((int(i), int(o) + t) for i, o, n in zip(group.items, group.offsets, group.tokens)
                      for t in range(n))
        got = []
        for r in range(4):
            c = shard.chunks(g, r)
            assert (c.lengths > 0).all()
            got += [(int(i), int(o) + t) for i, o, n in zip(c.items, c.offsets, c.lengths)
                    for t in range(n)]
        assert sorted(got) == want
        assert shard.costs(g).sum() == pytest.approx(group.cost, rel=1e-12)
        used, balance = shard.layout(g)
        assert used != flopspack.CpLayout.ADAPTIVE and 0 < balance <= 1
        if layout != flopspack.CpLayout.ADAPTIVE:
            assert used == layout
    m = shard.metrics
    assert m.num_groups == len(plan) and m.context_parallel_size == 4
    assert m.sequence_layout_groups + m.document_layout_groups == len(plan)


def test_document_layout_is_even_and_costs_more_traffic():
    model = _model()
    plan = _plan(model)
    seq = flopspack.shard_context_parallel(plan, model, 4, flopspack.CpLayout.SEQUENCE_HEAD_TAIL)
    doc = flopspack.shard_context_parallel(plan, model, 4, flopspack.CpLayout.DOCUMENT_HEAD_TAIL)
    assert doc.metrics.worst_balance > seq.metrics.worst_balance
    assert doc.metrics.kv_tokens > seq.metrics.kv_tokens
    cost, kv = doc.rank_cost(0, 0)
    assert cost > 0 and kv >= 0


def test_bad_input():
    model = _model()
    plan = _plan(model)
    with pytest.raises(flopspack.InvalidArgumentError, match="context_parallel_size = 0"):
        flopspack.shard_context_parallel(plan, model, 0)
    with pytest.raises(flopspack.InvalidArgumentError, match="65537"):
        flopspack.shard_context_parallel(plan, model, 65537)
    with pytest.raises(ValueError, match="layout"):
        flopspack.shard_context_parallel(plan, model, 2, 7)
    custom = flopspack.CostModel.custom(lambda lengths: float(lengths.sum()))
    with pytest.raises(flopspack.InvalidArgumentError, match="additive"):
        flopspack.shard_context_parallel(plan, custom, 2)
    with pytest.raises(TypeError):
        flopspack.shard_context_parallel(None, model, 2)
    shard = flopspack.shard_context_parallel(plan, model, 2)
    with pytest.raises(IndexError):
        shard.chunks(0, 2)
    with pytest.raises(IndexError):
        shard.chunks(len(plan), 0)
    shard.close()
    with pytest.raises(flopspack.ClosedError):
        shard.metrics
