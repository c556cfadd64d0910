import numpy as np
import pytest

import flopspack

MODEL = flopspack.CostModel.polynomial(0, 0, 1, 1e-4)
L = (np.random.default_rng(1).lognormal(7, 1, size=5000).astype(np.int64) + 1)


def test_summary_quantiles_and_cdf_match_numpy():
    s = flopspack.Stats(L, MODEL)
    m = s.summary
    assert (m.count, m.tokens, m.min, m.max) == (len(L), int(L.sum()), int(L.min()), int(L.max()))
    assert m.mean == pytest.approx(L.mean()) and m.stddev == pytest.approx(L.std())
    assert m.distinct_lengths == len(np.unique(L)) and len(s) == len(L)
    for q in (0.0, 0.1, 0.5, 0.9, 0.99, 1.0):
        # lower empirical quantile: smallest x with CDF(x) >= q
        want = np.sort(L)[max(int(np.ceil(q * len(L))) - 1, 0)]
        assert s.quantile(q) == want
    assert s.cdf(1000) == pytest.approx((L <= 1000).mean())
    assert s.cdf(1000, flopspack.Weighting.TOKENS) == pytest.approx(L[L <= 1000].sum() / L.sum())
    tail = s.tail(m.p99)
    assert tail.documents == int((L > m.p99).sum()) and tail.tokens == int(L[L > m.p99].sum())
    edges, weights = s.histogram()
    assert weights.sum() == len(L) and np.all(np.diff(edges) > 0)


def test_expected_max_matches_the_closed_form():
    s = flopspack.Stats([1, 2, 3, 4])  # without a model: the length
    # E[max of 2 draws] from uniform {1..4}: sum_k k (k^2 - (k-1)^2) / 16
    assert s.expected_max(2) == pytest.approx(sum(k * (k * k - (k - 1) ** 2) for k in range(1, 5)) / 16)
    with pytest.raises(flopspack.InvalidArgumentError):
        s.expected_max(0)


def test_merge_and_entries_round_trip_exactly():
    a, b = flopspack.Stats(L[:2000], MODEL), flopspack.Stats(L[2000:], MODEL)
    whole = flopspack.Stats(L, MODEL)
    assert a.merge(b).summary == whole.summary
    lengths, counts = whole.entries()
    assert counts.sum() == len(L) and np.all(np.diff(lengths) > 0)
    assert flopspack.Stats.from_histogram(lengths, counts, MODEL).summary == whole.summary
    c = a.compare(b)
    assert c.levels[0] == 0.5 and len(c.quantiles_a) == 6 and 0 <= c.ks_distance <= 1
    assert a.ks_distance(a) == 0.0
    with pytest.raises(flopspack.InvalidArgumentError):
        a.merge(flopspack.Stats(L[:10]))  # with and without a model
    with pytest.raises(flopspack.InvalidArgumentError, match="counts has 1 entries for 2 lengths"):
        flopspack.Stats.from_histogram([1, 2], [5])


def test_stats_errors_and_close():
    with pytest.raises(flopspack.InvalidArgumentError, match=r"lengths\[1\] = 0"):
        flopspack.Stats([5, 0])
    s = flopspack.Stats([5, 6])
    with pytest.raises(flopspack.InvalidArgumentError):
        s.quantile(1.5)
    s.close()
    with pytest.raises(flopspack.ClosedError):
        s.summary


def test_simulate_series_progress_and_cancel():
    sim = flopspack.simulate(L, MODEL, num_ranks=16, num_steps=12, record_steps=True, seed=3)
    s = sim.summary
    assert s.num_steps == 12 and s.num_ranks == 16 and 0 < s.relative_throughput <= 1
    balance = sim.series(flopspack.SimSeries.BALANCE_EFFICIENCY)
    assert balance.shape == (12,) and balance.mean() == pytest.approx(s.mean_balance_efficiency)
    assert len(sim.pieces()) > 0
    seen = []
    flopspack.simulate(L, MODEL, num_ranks=16, num_steps=7, progress=lambda d, t: seen.append((d, t)))
    assert seen == [(d, 7) for d in range(1, 8)]
    with pytest.raises(flopspack.CancelledError):
        flopspack.simulate(L, MODEL, num_steps=7, progress=lambda d, t: d < 3)
    with pytest.raises(flopspack.CancelledError) as info:
        flopspack.simulate(L, MODEL, num_steps=7, progress=lambda d, t: {}["boom"])
    assert isinstance(info.value.__cause__, KeyError)
    no_series = flopspack.simulate(L, MODEL, num_steps=3)
    with pytest.raises(flopspack.InvalidArgumentError):
        no_series.series(flopspack.SimSeries.FILL)
    again = flopspack.simulate(L, MODEL, num_ranks=16, num_steps=12, record_steps=True, seed=3)
    assert again.summary == s  # deterministic for a seed


def test_sweep():
    sweep = flopspack.simulate_sweep(L, MODEL, [4, 32, 256], num_steps=5)
    assert sweep.rank_counts.tolist() == [4, 32, 256]
    assert np.all((0 < sweep.sampled_efficiency) & (sweep.sampled_efficiency <= 1))
    with pytest.raises(flopspack.InvalidArgumentError):
        flopspack.simulate(L, MODEL, num_ranks=0)


def test_simulate_topology():
    kwargs = dict(num_ranks=16, microbatches_per_rank=4, tokens_per_microbatch=2048,
                  num_steps=10, record_steps=True, seed=5)
    step = flopspack.simulate(L, MODEL, **kwargs)
    micro = flopspack.simulate(L, MODEL, sync=flopspack.Sync.MICROBATCH, **kwargs)
    pipe = flopspack.simulate(L, MODEL, pipeline_stages=4, **kwargs)
    s, m, p = step.summary, micro.summary, pipe.summary
    assert s.sync is flopspack.Sync.STEP and m.sync is flopspack.Sync.MICROBATCH
    assert p.pipeline_stages == 4 and p.pipeline_schedule is flopspack.PipelineSchedule.ONE_F_ONE_B
    assert s.mean_sync_efficiency == s.mean_balance_efficiency
    # Random dealing ignores the model: the same microbatches, and the sum
    # of slot maxima is at least the slowest rank in every step.
    assert m.mean_balance_efficiency == s.mean_balance_efficiency
    t_step = step.series(flopspack.SimSeries.STEP_TIME)
    t_micro = micro.series(flopspack.SimSeries.STEP_TIME)
    assert np.all(t_micro >= t_step)
    assert m.relative_throughput < s.relative_throughput
    # Four stages, four microbatches: at most M / (M + P - 1) of the time works.
    assert p.mean_sync_efficiency <= 4 / 7 + 1e-12 and np.isnan(p.predicted_efficiency)
    sweep = flopspack.simulate_sweep(L, MODEL, [4, 32], num_steps=5, microbatches_per_rank=2,
                                     sync=flopspack.Sync.MICROBATCH)
    assert np.all((0 < sweep.sampled_efficiency) & (sweep.sampled_efficiency <= 1))
    with pytest.raises(flopspack.InvalidArgumentError, match="pipeline_stages = 1025"):
        flopspack.simulate(L, MODEL, pipeline_stages=1025)
    with pytest.raises((ValueError, flopspack.InvalidArgumentError)):
        flopspack.simulate(L, MODEL, sync=7)


def test_cost_capacity_costs_a_long_document_as_its_pieces():
    # 2,700,000 = 329 x 8192 + 4832: as trained at 8192 the document costs
    # its 330 pieces (document cost 1 + 2 l + 0.01 l^2; the per-sequence 5
    # is not a document's).
    model = flopspack.CostModel.polynomial(5, 1, 2, 0.01)

    def doc(n):
        return 1 + 2 * n + 0.01 * n * n

    lengths = [2_700_000, 100, 8192]
    whole = flopspack.Stats(lengths, model)
    trained = flopspack.Stats(lengths, model, cost_capacity=8192)
    pieces = 329 * doc(8192) + doc(4832)
    assert trained.summary.max_cost == pytest.approx(pieces, rel=1e-12)
    assert trained.summary.total_cost == pytest.approx(pieces + doc(100) + doc(8192), rel=1e-12)
    assert whole.summary.max_cost == pytest.approx(doc(2_700_000), rel=1e-12)
    assert trained.summary.tokens == whole.summary.tokens
    # cost_capacity 0 is the plain constructor, bit for bit.
    assert flopspack.Stats(lengths, model, cost_capacity=0).summary == whole.summary
    hist = flopspack.Stats.from_histogram([2_700_000, 100], [2, 3], model, cost_capacity=8192)
    assert hist.summary.total_cost == pytest.approx(2 * pieces + 3 * doc(100), rel=1e-12)
    with pytest.raises(flopspack.InvalidArgumentError, match="cost_capacity"):
        flopspack.Stats(lengths, model, cost_capacity=-1)
    with pytest.raises(flopspack.InvalidArgumentError, match="cost_capacity"):
        whole.merge(trained)


def test_simulate_context_parallel():
    kwargs = dict(num_ranks=16, tokens_per_microbatch=2048, num_steps=10, seed=5,
                  policy=flopspack.SimPolicy.PLANNER_DOCUMENTS)
    none = flopspack.simulate(L, MODEL, **kwargs).summary
    # CP size 1 is no CP, bit for bit.
    one = flopspack.simulate(L, MODEL, context_parallel_size=1,
                             context_parallel_layout=flopspack.CpLayout.SEQUENCE_HEAD_TAIL,
                             **kwargs).summary
    assert one.relative_throughput == none.relative_throughput
    assert one.mean_step_time == none.mean_step_time
    # Four GPUs per microbatch: up to 4 x the tokens; per-document sharding
    # at least as good as per-sequence.
    runs = {layout: flopspack.simulate(L, MODEL, context_parallel_size=4,
                                       context_parallel_layout=layout, **kwargs).summary
            for layout in flopspack.CpLayout}
    doc = runs[flopspack.CpLayout.DOCUMENT_HEAD_TAIL]
    assert 3 * none.real_tokens < doc.real_tokens <= 4 * 16 * 2048 * 10
    assert doc.relative_throughput >= runs[flopspack.CpLayout.SEQUENCE_HEAD_TAIL].relative_throughput
    sweep = flopspack.simulate_sweep(L, MODEL, [4, 32], num_steps=5, context_parallel_size=2)
    assert np.all((0 < sweep.relative_throughput) & (sweep.relative_throughput <= 1))
    with pytest.raises(flopspack.InvalidArgumentError, match="context_parallel_size = 65537"):
        flopspack.simulate(L, MODEL, context_parallel_size=65537)
    with pytest.raises(flopspack.InvalidArgumentError, match="bucket sampler"):
        flopspack.simulate(L, MODEL, context_parallel_size=2, policy=flopspack.SimPolicy.BUCKETS)
    with pytest.raises((ValueError, flopspack.InvalidArgumentError)):
        flopspack.simulate(L, MODEL, context_parallel_size=2, context_parallel_layout=9)
