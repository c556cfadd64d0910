"""Plan.arrays(): the whole plan as flat arrays in one call, equal to the
per-group accessors; piece offsets (flopspack_plan_group_offsets) that tile
every document exactly, by the documented convention (plan order,
group-major), and for the stream packer across takes."""
import numpy as np
import pytest

import flopspack
from flopspack import capi

MODEL = flopspack.CostModel.polynomial(0, 0, 1, 1e-4)


def long_tail(n, seed, cap):
    rng = np.random.default_rng(seed)
    docs = np.clip(rng.lognormal(np.log(cap / 8), 1.2, n), 1, None).astype(np.int64)
    docs[rng.random(n) < 0.05] = cap * (1 + rng.pareto(1.2, size=1)).astype(np.int64)[0] + 3
    return docs


def plans(seed):
    cap = 2048
    docs = long_tail(400, seed, cap)
    yield docs, flopspack.pack(docs, capacity=cap, overflow=flopspack.Overflow.SPLIT)
    yield docs, flopspack.plan_step(docs, MODEL, num_ranks=3, max_tokens_per_microbatch=cap)
    sampler = flopspack.BucketSampler(np.minimum(docs, cap), max_padded_tokens=4 * cap,
                                      num_buckets=4, num_ranks=2, accumulation_steps=2, seed=seed)
    yield np.minimum(docs, cap), sampler.epoch(1)


def brute_offsets(items, tokens, start=None):
    # The convention spelled out: walk the entries in plan order, each
    # item's next piece starting where its previous one ended.
    seen = {}
    out = []
    for i, t in zip(items.tolist(), tokens.tolist()):
        at = seen.get(i, 0 if start is None else int(start[i]))
        out.append(at)
        seen[i] = at + t
    return np.array(out, dtype=np.int64)


@pytest.mark.parametrize("seed", range(4))
def test_arrays_equal_the_per_group_accessors(seed):
    for docs, plan in plans(seed):
        a = plan.arrays()
        assert len(a.offsets) == len(plan) + 1 and a.offsets[0] == 0
        for g in range(len(plan)):
            group = plan[g]
            lo, hi = a.offsets[g], a.offsets[g + 1]
            np.testing.assert_array_equal(a.items[lo:hi], group.items)
            np.testing.assert_array_equal(a.tokens[lo:hi], group.tokens)
            np.testing.assert_array_equal(a.piece_offsets[lo:hi], group.offsets)
            np.testing.assert_array_equal(plan.offsets(g), group.offsets)
            assert (a.real_tokens[g], a.computed_tokens[g], a.costs[g]) == plan.info(g)
            if a.ranks is None:
                assert not plan.has_slots
            else:
                assert (a.ranks[g], a.slots[g]) == plan.slot(g)
        offsets, items, tokens = plan.to_csr()
        np.testing.assert_array_equal(offsets, a.offsets)
        np.testing.assert_array_equal(items, a.items)
        np.testing.assert_array_equal(tokens, a.tokens)


@pytest.mark.parametrize("seed", range(4))
def test_pieces_tile_every_document_exactly(seed):
    for docs, plan in plans(seed):
        a = plan.arrays()
        np.testing.assert_array_equal(a.piece_offsets, brute_offsets(a.items, a.tokens))
        covered = np.zeros(int(docs.sum()), dtype=np.int64)
        base = np.concatenate([[0], np.cumsum(docs)[:-1]])
        for i, o, t in zip(a.items, a.piece_offsets, a.tokens):
            assert 0 <= o and o + t <= docs[i]
            covered[base[i] + o: base[i] + o + t] += 1
        if plan.metrics.deferred_items == 0 and plan.metrics.dropped_items == 0:
            assert (covered == 1).all()  # every token once, no overlap
        assert (covered <= 1).all()


def test_split_documents_are_really_exercised():
    docs, plan = next(plans(0))
    a = plan.arrays()
    assert (np.bincount(a.items) > 1).sum() >= 10


def test_piece_start_is_added_per_item():
    docs, plan = next(plans(1))
    start = np.arange(len(docs), dtype=np.int64) * 7
    a, b = plan.arrays(), plan.arrays(piece_start=start)
    np.testing.assert_array_equal(b.piece_offsets, a.piece_offsets + start[a.items])


@pytest.mark.parametrize("seed", range(3))
def test_stream_packer_pieces_tile_across_takes(seed):
    # A split document's remainder may come in a later take than its full
    # pieces: only offsets carried by the packer can place it.
    rng = np.random.default_rng(seed)
    cap = 512
    packer = flopspack.StreamPacker(capacity=cap, window=8, seed=seed)
    docs = long_tail(300, seed, cap)
    covered = np.zeros(int(docs.sum()), dtype=np.int64)
    base = np.concatenate([[0], np.cumsum(docs)[:-1]])
    takes_of = np.zeros(len(docs), dtype=np.int64)
    pushed = 0

    def take():
        plan = packer.take()
        a = plan.arrays()
        for i, o, t in zip(a.items, a.piece_offsets, a.tokens):
            assert 0 <= o and o + t <= docs[i]
            covered[base[i] + o: base[i] + o + t] += 1
        takes_of[np.unique(a.items)] += 1

    while pushed < len(docs):
        k = int(rng.integers(1, 20))
        packer.push(docs[pushed: pushed + k])
        pushed += k
        take()
    packer.flush()
    take()
    assert (covered == 1).all()
    assert (takes_of > 1).any()  # some document really spans takes
def test_the_bulk_helper_checks_every_array_length():
    plan = flopspack.plan_step([5, 3000, 7], MODEL, num_ranks=2, max_tokens_per_microbatch=1024,
                               microbatches_per_rank=2)
    groups, entries, has_slots = capi.flopspack_swig_plan_csr_size(plan._handle)
    assert (groups, has_slots) == (4, 1) and entries >= 5
    good = dict(offsets=groups + 1, items=entries, tokens=entries, ranks=groups, slots=groups,
                real=groups, computed=groups)
    for wrong in good:
        sizes = dict(good)
        sizes[wrong] += 1
        arrays = [np.zeros(sizes[k], dtype=np.int64) for k in good] + [np.zeros(groups)]
        with pytest.raises(flopspack.InvalidArgumentError, match="4 groups"):
            capi.flopspack_swig_plan_csr(plan._handle, *arrays)
        assert not arrays[0].any()  # nothing written on failure


def test_empty_plan():
    a = flopspack.pack([], capacity=10).arrays()
    assert a.offsets.tolist() == [0] and len(a.items) == 0 and a.ranks is None
