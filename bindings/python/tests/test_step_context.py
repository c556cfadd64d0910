"""StepContext (flopspack_step_context): plan_step with the planner's
storage kept between calls; its plans are plan_step's, bit for bit."""

import dataclasses

import numpy as np
import pytest

import flopspack


def _model():
    return flopspack.CostModel.polynomial(0, 1, 1, 1.0 / 4096)


def _same(a, b):
    x, y = a.arrays(), b.arrays()
    for field in x._fields:
        u, v = getattr(x, field), getattr(y, field)
        if u is None or v is None:
            assert u is None and v is None, field
        else:
            assert u.dtype == v.dtype and u.tobytes() == v.tobytes(), field
    assert a.deferred.tobytes() == b.deferred.tobytes()
    ma, mb = dataclasses.asdict(a.metrics), dataclasses.asdict(b.metrics)
    assert np.array(list(ma.values())).tobytes() == np.array(list(mb.values())).tobytes()


CASES = [
    dict(num_ranks=8, microbatches_per_rank=2, max_tokens_per_microbatch=2048),
    dict(num_ranks=16, microbatches_per_rank=4, max_tokens_per_microbatch=4096,
         overflow=flopspack.Overflow.DEFER),
    dict(num_ranks=4, max_tokens_per_microbatch=1024),  # M = 0, documents split
    dict(num_ranks=8, microbatches_per_rank=3, max_tokens_per_microbatch=2048,
         sync=flopspack.Sync.MICROBATCH),
    dict(num_ranks=8, microbatches_per_rank=4, max_tokens_per_microbatch=1024,
         algorithm=flopspack.StepAlgorithm.RANDOM, seed=5),
    dict(num_ranks=8, max_tokens_per_microbatch=1024,
         algorithm=flopspack.StepAlgorithm.SEQUENCES),
    dict(num_ranks=4, max_tokens_per_microbatch=1024, context_parallel_size=2,
         context_parallel_layout=flopspack.CpLayout.ADAPTIVE),  # CP groups of 2 x 1024
]


def test_plans_equal_plan_step_bit_for_bit():
    model = _model()
    rng = np.random.default_rng(11)
    compared = 0
    with flopspack.StepContext() as context:
        for _ in range(2):
            for kwargs in CASES:
                docs = rng.integers(1, 1500, size=int(rng.integers(1, 60)))
                try:
                    expected = flopspack.plan_step(docs, model, **kwargs)
                except flopspack.Error as e:  # a batch that does not fit
                    with pytest.raises(type(e)):
                        context.plan_step(docs, model, **kwargs)
                    continue
                got = context.plan_step(docs, model, **kwargs)
                _same(expected, got)
                got.close()
                compared += 1
        assert context.kept_bytes > 0
    assert compared >= len(CASES)


def test_reserve_then_plan_and_plans_outlive_the_context():
    model = _model()
    kwargs = dict(num_ranks=32, microbatches_per_rank=4, max_tokens_per_microbatch=4096)
    context = flopspack.StepContext()
    assert context.kept_bytes == 0
    context.reserve(model, 5000, **kwargs)
    reserved = context.kept_bytes
    assert reserved >= 5000 * 8
    docs = np.random.default_rng(2).integers(1, 300, size=3000)
    plan = context.plan_step(docs, model, **kwargs)
    assert context.kept_bytes < reserved  # the live plan holds some
    plan.close()
    plan = context.plan_step(docs, model, **kwargs)
    context.close()
    _same(flopspack.plan_step(docs, model, **kwargs), plan)
    assert "closed" in repr(context)
    with pytest.raises(flopspack.ClosedError):
        context.plan_step(docs, model, **kwargs)


def test_errors_are_plan_steps():
    context = flopspack.StepContext()
    model = _model()
    with pytest.raises(flopspack.InvalidArgumentError):
        context.plan_step([5, 7], model, num_ranks=0, max_tokens_per_microbatch=16)
    with pytest.raises(flopspack.InvalidArgumentError):
        context.plan_step([0], model, num_ranks=1, max_tokens_per_microbatch=16)
    with pytest.raises(flopspack.InvalidArgumentError):
        context.reserve(model, 10, num_ranks=0, max_tokens_per_microbatch=16)
    with pytest.raises(flopspack.OutOfRangeError):
        context.reserve(model, 1 << 40, num_ranks=1, max_tokens_per_microbatch=16)
    with pytest.raises(TypeError):
        context.plan_step([5], "model", num_ranks=1, max_tokens_per_microbatch=16)
