import numpy as np
import pytest

import flopspack

MODEL = flopspack.CostModel.polynomial(0, 0, 1, 1e-4)


def lengths(n, seed, high=8000):
    return np.random.default_rng(seed).integers(1, high, size=n)


@pytest.mark.parametrize("seed", range(15))
@pytest.mark.parametrize("algorithm", list(flopspack.StepAlgorithm))
def test_plan_step_places_every_token_once_under_the_cap(seed, algorithm):
    docs = lengths(60, seed)
    cap = 16384
    plan = flopspack.plan_step(docs, MODEL, num_ranks=4, max_tokens_per_microbatch=cap,
                               microbatches_per_rank=6, algorithm=algorithm, seed=seed)
    assert len(plan) == 4 * 6
    tokens = np.zeros(len(docs), dtype=np.int64)
    for g, group in enumerate(plan):
        assert (group.rank, group.slot) == divmod(g, 6)  # rank-major
        assert group.real_tokens == group.tokens.sum() <= cap
        np.add.at(tokens, group.items, group.tokens)
    np.testing.assert_array_equal(tokens, docs)
    m = plan.metrics
    assert m.num_ranks == 4 and m.microbatches_per_rank == 6
    assert 0 < m.rank_balance_efficiency <= 1
    again = flopspack.plan_step(docs, MODEL, num_ranks=4, max_tokens_per_microbatch=cap,
                                microbatches_per_rank=6, algorithm=algorithm, seed=seed)
    for a, b in zip(plan.to_csr(), again.to_csr()):
        np.testing.assert_array_equal(a, b)


def test_plan_step_errors_carry_the_library_message():
    with pytest.raises(flopspack.InvalidArgumentError, match="num_ranks = 0"):
        flopspack.plan_step([1, 2], MODEL, num_ranks=0, max_tokens_per_microbatch=10)
    with pytest.raises(flopspack.InfeasibleError, match="the batch does not fit"):
        flopspack.plan_step([900] * 10, MODEL, num_ranks=1, max_tokens_per_microbatch=1000,
                            microbatches_per_rank=2)
    deferred = flopspack.plan_step([900] * 10, MODEL, num_ranks=1, max_tokens_per_microbatch=1000,
                                   microbatches_per_rank=2, overflow=flopspack.Overflow.DEFER)
    assert len(deferred.deferred) == 8 and deferred.metrics.deferred_items == 8
    closed = flopspack.CostModel.tokens()
    closed.close()
    with pytest.raises(flopspack.ClosedError):
        flopspack.plan_step([1], closed, num_ranks=1, max_tokens_per_microbatch=10)


def test_step_planner_ids_pending_and_exact_resume():
    docs = lengths(200, 3)
    planner = flopspack.StepPlanner(MODEL, num_ranks=2, max_tokens_per_microbatch=8192,
                                    microbatches_per_rank=2, outlier_min_tokens=6000)
    assert planner.push(docs[:120]) == 0
    assert planner.push(docs[120:]) == 120
    assert planner.pending == (200, int(docs.sum()), 0)
    first = planner.next()
    placed = np.concatenate([g.items for g in first])
    assert planner.pending.steps == 1
    assert planner.pending.documents == 200 - len(np.unique(placed))
    state = planner.save()
    twin = flopspack.StepPlanner.restore(state, MODEL)
    for _ in range(5):
        a, b = planner.next(), twin.next()
        for x, y in zip(a.to_csr(), b.to_csr()):
            np.testing.assert_array_equal(x, y)
        assert a.metrics == b.metrics
    with pytest.raises(flopspack.InvalidArgumentError):
        flopspack.StepPlanner.restore(state[:-1], MODEL)
    with pytest.raises(flopspack.InvalidArgumentError, match=r"lengths\[1\] = -2"):
        planner.push([5, -2])
    planner.close()
    with pytest.raises(flopspack.ClosedError):
        planner.next()


def test_planned_epochs_cover_every_document_once():
    docs = lengths(500, 4, 3000)
    epochs = flopspack.PlannedEpochs(docs, MODEL, documents_per_step=64, num_ranks=2,
                                     max_tokens_per_microbatch=16384, microbatches_per_rank=4,
                                     seed=11)
    assert epochs.steps_per_epoch == 8
    seen = []
    for step in range(epochs.steps_per_epoch):
        for rank in range(2):
            batches = epochs.rank_batches(1, step, rank)
            assert len(batches) == 4
            for b in batches:
                assert docs[b].sum() <= 16384
            seen += [i for b in batches for i in b]
    assert sorted(seen) == list(range(500))
    assert not np.array_equal(epochs.order(0), epochs.order(1))


def test_metrics_say_which_algorithm_planned():
    # 8 ranks x 1 microbatch of 8,192 tokens, cap 10,240; the first document
    # costs far more than a rank's share, so the planner falls back.
    docs = [12000] + [1500] * 35 + [8 * 8192 - 12000 - 35 * 1500]
    model = flopspack.CostModel.polynomial(0, 0, 1, 1 / 1024)
    options = dict(num_ranks=8, max_tokens_per_microbatch=10240, microbatches_per_rank=1)
    plan = flopspack.plan_step(docs, model, **options).metrics
    tokens = flopspack.plan_step(docs, model, algorithm=flopspack.StepAlgorithm.TOKENS,
                                 **options).metrics
    assert plan.planned_by == 2  # FLOPSPACK_PLANNED_BY_CUT_TO_SHARE
    assert plan.rank_balance_efficiency > tokens.rank_balance_efficiency
    assert tokens.planned_by == 0  # no fallbacks: none
    assert "planned_by=2" in repr(plan)
    assert flopspack.pack(docs, 16384).metrics.planned_by == 0


def test_sync_model_and_pipeline_metrics():
    docs = lengths(70, 7, high=12000)
    kwargs = dict(num_ranks=4, max_tokens_per_microbatch=16384, microbatches_per_rank=8)
    step = flopspack.plan_step(docs, MODEL, **kwargs)
    micro = flopspack.plan_step(docs, MODEL, sync=flopspack.Sync.MICROBATCH, pipeline_stages=4,
                                **kwargs)
    s, m = step.metrics, micro.metrics
    assert 0 < s.microbatch_sync_efficiency <= 1 and s.pipeline_makespan == 0
    assert m.microbatch_sync_efficiency >= s.microbatch_sync_efficiency
    assert m.mean_slot_balance >= m.worst_slot_balance
    assert m.microbatch_sync_lower_bound <= m.microbatch_sync_cost
    assert 0 < m.pipeline_efficiency < 1
    assert m.pipeline_lower_bound <= m.pipeline_makespan
    planner = flopspack.StepPlanner(MODEL, sync=flopspack.Sync.MICROBATCH, pipeline_stages=2,
                                    **kwargs)
    planner.push(docs)
    restored = flopspack.StepPlanner.restore(planner.save(), MODEL)
    assert restored.next().metrics == planner.next().metrics
    with pytest.raises(flopspack.InvalidArgumentError, match="pipeline_stages = 2000"):
        flopspack.plan_step(docs, MODEL, pipeline_stages=2000, **kwargs)
    with pytest.raises((ValueError, flopspack.InvalidArgumentError)):
        flopspack.plan_step(docs, MODEL, sync=5, **kwargs)


def test_plan_step_with_context_parallelism():
    # cap 1000 per GPU, CP groups of 2: a 1,500-token document stays whole
    # and is sharded; a microbatch costs its slowest CP rank.
    docs = np.array([1500, 400, 300, 900, 700, 120], dtype=np.int64)
    flat = flopspack.plan_step(docs, MODEL, num_ranks=2, max_tokens_per_microbatch=1000)
    assert flat.metrics.split_items == 1
    layout = flopspack.CpLayout.ADAPTIVE
    plan = flopspack.plan_step(docs, MODEL, num_ranks=2, max_tokens_per_microbatch=1000,
                               context_parallel_size=2, context_parallel_layout=layout)
    assert plan.metrics.split_items == 0
    assert max(int(plan.tokens(g).sum()) for g in range(len(plan))) <= 2000
    shard = flopspack.shard_context_parallel(plan, MODEL, 2, layout)
    assert plan.metrics.max_group_cost == pytest.approx(shard.metrics.max_cp_rank_cost, rel=1e-12)
    planner = flopspack.StepPlanner(MODEL, num_ranks=2, max_tokens_per_microbatch=1000,
                                    microbatches_per_rank=2, context_parallel_size=2,
                                    overflow=flopspack.Overflow.ERROR)
    planner.push(docs)  # 1,500 > 1,000 but fits a CP group of 2 x 1,000
    again = flopspack.StepPlanner.restore(planner.save(), MODEL)
    assert again.next().metrics.split_items == 0
    with pytest.raises(flopspack.InvalidArgumentError, match="context_parallel_size = 70000"):
        flopspack.plan_step(docs, MODEL, num_ranks=2, max_tokens_per_microbatch=1000,
                            context_parallel_size=70000)
    with pytest.raises(ValueError, match="context_parallel_layout"):
        flopspack.plan_step(docs, MODEL, num_ranks=2, max_tokens_per_microbatch=1000,
                            context_parallel_size=2, context_parallel_layout=7)
