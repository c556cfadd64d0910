"""flopspack.compat drop-ins: valid wherever the originals promise validity,
and at least as good as the algorithms the originals document (verl:
Karmarkar-Karp; axolotl: first-fit decreasing bins taken in order), checked
against hand-written references and brute force on tiny inputs."""
import heapq
import itertools
import os

import numpy as np
import pytest

import flopspack
from flopspack.compat.verl import get_seqlen_balanced_partitions

if os.environ.get("FLOPSPACK_REQUIRE_TORCH"):
    import torch  # ctest sets FLOPSPACK_REQUIRE_TORCH: a missing torch fails
else:
    torch = pytest.importorskip("torch")

from flopspack.compat.axolotl import MultipackBatchSampler  # noqa: E402


def long_tail(n, seed, high=8192):
    rng = np.random.default_rng(seed)
    lengths = np.clip(rng.lognormal(np.log(600), 1.0, n), 1, high).astype(np.int64)
    lengths[rng.random(n) < 0.2] = 512  # many duplicates of one length
    return lengths


def karmarkar_karp(values, k, equal_size):
    """The largest differencing method as verl documents it: start from
    one k-tuple of sets per item (or per k sorted items with equal_size),
    repeatedly merge the two tuples with the largest spread (largest set of
    one with the smallest of the other)."""
    counter = itertools.count()
    heap = []
    order = sorted(range(len(values)), key=lambda i: (values[i], i))
    if equal_size:
        starts = [order[j: j + k] for j in range(0, len(order), k)]
    else:
        starts = [[i] for i in order]
    for items in starts:
        sets = [([i], values[i]) for i in items] + [([], 0)] * (k - len(items))
        sets.sort(key=lambda s: -s[1])
        heapq.heappush(heap, (-(sets[0][1] - sets[-1][1]), next(counter), sets))
    while len(heap) > 1:
        _, _, a = heapq.heappop(heap)
        _, _, b = heapq.heappop(heap)
        merged = [(a[j][0] + b[k - 1 - j][0], a[j][1] + b[k - 1 - j][1]) for j in range(k)]
        merged.sort(key=lambda s: -s[1])
        heapq.heappush(heap, (-(merged[0][1] - merged[-1][1]), next(counter), merged))
    return [sorted(s[0]) for s in heap[0][2]]


def check_partitions(parts, n, k, equal_size):
    assert len(parts) == k
    assert all(p == sorted(p) and p for p in parts)
    assert all(isinstance(i, int) for p in parts for i in p)
    assert sorted(i for p in parts for i in p) == list(range(n))
    if equal_size:
        assert {len(p) for p in parts} == {n // k}


def max_sum(parts, values):
    return max(sum(values[i] for i in p) for p in parts)


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("equal_size", [False, True])
def test_verl_partitions_are_valid_and_at_least_as_balanced_as_kk(seed, equal_size):
    k = [2, 4, 8][seed % 3]
    lengths = long_tail(k * (5 + seed), seed)
    parts = get_seqlen_balanced_partitions(lengths.tolist(), k, equal_size)
    check_partitions(parts, len(lengths), k, equal_size)
    reference = karmarkar_karp(lengths.tolist(), k, equal_size)
    check_partitions(reference, len(lengths), k, equal_size)
    assert max_sum(parts, lengths) <= max_sum(reference, lengths)


@pytest.mark.parametrize("seed", range(20))
def test_verl_partitions_near_the_optimum_on_tiny_inputs(seed):
    rng = np.random.default_rng(seed)
    n, k = int(rng.integers(3, 9)), int(rng.integers(2, 4))
    lengths = rng.integers(1, 100, size=n).tolist()
    best = min(max(sum(l for l, g in zip(lengths, assign) if g == j) for j in range(k))
               for assign in itertools.product(range(k), repeat=n)
               if len(set(assign)) == k)
    parts = get_seqlen_balanced_partitions(lengths, k, False)
    check_partitions(parts, n, k, False)
    assert max_sum(parts, lengths) <= 4 / 3 * best  # Graham's LPT bound, KK does better


def test_verl_cost_model_balances_cost():
    model = flopspack.CostModel.polynomial(0, 0, 1, 1.0 / 512)
    worse = better = 0.0
    for seed in range(8):
        lengths = long_tail(64, seed)
        costs = model.document_costs(lengths)
        by_tokens = get_seqlen_balanced_partitions(lengths, 8, True)
        by_cost = get_seqlen_balanced_partitions(lengths, 8, True, cost_model=model)
        check_partitions(by_cost, 64, 8, True)
        worse += max_sum(by_tokens, costs)
        better += max_sum(by_cost, costs)
    assert better < worse


def test_verl_errors_and_edge_cases():
    with pytest.raises(ValueError, match=r"number of items \[2\] < k_partitions \[3\]"):
        get_seqlen_balanced_partitions([1, 2], 3, False)
    with pytest.raises(ValueError, match="divisible"):
        get_seqlen_balanced_partitions([1, 2, 3, 4, 5], 2, True)
    # Zero lengths: no partition may be empty (verl asserts it).
    check_partitions(get_seqlen_balanced_partitions([0, 0, 0, 0], 3, False), 4, 3, False)
    check_partitions(get_seqlen_balanced_partitions(np.array([7, 7, 7]), 3, True), 3, 3, True)


def first_fit_decreasing(lengths, cap):
    """axolotl's documented packer, by hand."""
    bins, room = [], []
    for i in sorted(range(len(lengths)), key=lambda i: (-lengths[i], i)):
        for b, r in enumerate(room):
            if lengths[i] <= r:
                bins[b].append(i)
                room[b] -= lengths[i]
                break
        else:
            bins.append([i])
            room.append(cap - lengths[i])
    return bins


def flat(batches):
    return [i for batch in batches for b in batch for i in b]


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("cost", [False, True])
def test_axolotl_batches_are_valid_full_and_even(seed, cost):
    lengths = long_tail(600, seed, high=4096)
    model = flopspack.CostModel.polynomial(0, 0, 1, 1.0 / 1024) if cost else None
    sampler = torch.utils.data.RandomSampler(range(600),
                                             generator=torch.Generator().manual_seed(seed))
    s = MultipackBatchSampler(sampler, batch_size=4, batch_max_len=4096, lengths=lengths,
                              bin_size=50, drop_last=False, cost_model=model)
    batches = list(s)
    assert len(batches) == len(s)
    assert sorted(flat(batches)) == list(range(600))  # every sample once
    assert all(len(b) == 4 for b in batches[:-1]) and 1 <= len(batches[-1]) <= 4
    for batch in batches:
        for b in batch:
            assert lengths[b].sum() <= 4096 and 1 <= len(b) <= 50
    bins = sum(len(b) for b in batches)
    assert bins <= len(first_fit_decreasing(lengths.tolist(), 4096))
    assert s.efficiency() == pytest.approx(lengths.sum() / (bins * 4096))
    # Batches even in cost: the spread is no worse than taking FFD's bins in
    # order (what axolotl does).
    c = model or flopspack.CostModel.tokens()
    ours = [sum(c.sequence_cost(lengths[b]) for b in batch) for batch in batches[:-1]]
    ffd = first_fit_decreasing(lengths.tolist(), 4096)
    theirs = [sum(c.sequence_cost(lengths[b]) for b in ffd[j: j + 4])
              for j in range(0, len(ffd) - 3, 4)]
    assert max(ours) / np.mean(ours) <= max(theirs) / np.mean(theirs)


def test_axolotl_drop_last_is_counted_and_sequential_keeps_order():
    lengths = long_tail(301, 3, high=2048)
    order = list(range(301))
    s = MultipackBatchSampler(order, batch_size=8, batch_max_len=2048, lengths=lengths,
                              drop_last=True)
    seen = flat(list(s))
    assert all(len(b) == 8 for b in s)
    assert len(seen) + s.dropped_samples == 301
    assert lengths.sum() - lengths[seen].sum() == s.dropped_tokens
    seq = MultipackBatchSampler(order, batch_size=3, batch_max_len=2048, lengths=lengths,
                                drop_last=False, sequential=True)
    assert flat(list(seq)) == order  # next-fit in the sampler's order


def test_axolotl_refuses_an_overlong_sequence_by_index():
    lengths = np.array([10, 20, 5000, 30])
    s = MultipackBatchSampler([3, 2, 1, 0], batch_size=1, batch_max_len=4096, lengths=lengths)
    with pytest.raises(ValueError, match=r"lengths\[2\] = 5000 exceeds batch_max_len = 4096"):
        list(s)
