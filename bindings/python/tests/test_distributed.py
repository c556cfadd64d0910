"""Corpus-scale packing on a Dask LocalCluster with worker processes:
equal to packing each shard alone, nothing lost or duplicated, merged
statistics equal to the statistics of the whole."""
import functools
import os

import numpy as np
import pytest

import flopspack
from flopspack import distributed

CAPACITY = 4096


def make_shard(shard: int) -> np.ndarray:
    """A generated shard: lognormal lengths with a long tail, some longer
    than the capacity (so splitting is exercised). Top-level, so picklable."""
    rng = np.random.default_rng(1000 + shard)
    n = 3000 + 700 * shard
    lengths = np.exp(rng.normal(np.log(600), 1.0, size=n)).astype(np.int64) + 1
    return np.minimum(lengths, 3 * CAPACITY)


SHARDS = 6


@pytest.fixture(scope="module")
def client():
    distributed_mod = pytest.importorskip("dask.distributed")
    cluster = distributed_mod.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    )
    c = distributed_mod.Client(cluster)
    yield c
    c.close()
    cluster.close()


def check_nothing_lost(table: distributed.PackedShard, lengths: np.ndarray) -> None:
    # Every piece within the capacity, every sequence within the capacity.
    per_sequence = np.add.reduceat(table.tokens, table.sequence_offsets[:-1]) if len(table.tokens) else []
    assert np.all(np.asarray(per_sequence) <= CAPACITY)
    # Each document's pieces tile [0, length) exactly once.
    order = np.lexsort((table.offsets, table.documents))
    docs, offs, toks = table.documents[order], table.offsets[order], table.tokens[order]
    assert np.array_equal(np.unique(docs), np.arange(len(lengths)))
    first = np.r_[True, docs[1:] != docs[:-1]]
    assert np.all(offs[first] == 0)
    assert np.all(offs[~first] == (offs + toks)[np.flatnonzero(~first) - 1])
    ends = np.r_[np.flatnonzero(first)[1:] - 1, len(docs) - 1]
    assert np.array_equal((offs + toks)[ends], lengths)
    assert table.real_tokens == int(lengths.sum())


# Not under a sanitizer (FLOPSPACK_SANITIZED, the ASan stage): a Dask cluster
# of worker processes under the ASan preload costs ~16 CPU s, little of it
# the library's; test_default_scheduler_gives_the_same_tables makes the same
# library calls (pack_shard, the stats merge) in this process, instrumented.
@pytest.mark.skipif(bool(os.environ.get("FLOPSPACK_SANITIZED")),
                    reason="Dask worker processes: CMake and pip stages")
def test_corpus_on_local_cluster_equals_shards_packed_alone(client):
    sources = [functools.partial(make_shard, i) for i in range(SHARDS)]
    result = distributed.pack_corpus(sources, capacity=CAPACITY, seed=77, window=2000, client=client)
    assert len(result.shards) == SHARDS
    for i, table in enumerate(result.shards):
        alone = distributed.pack_shard(make_shard(i), i, capacity=CAPACITY, seed=77, window=2000)
        assert table.shard == i and table.seed == flopspack.derive_seed(77, i)
        for field in ("sequence_offsets", "documents", "offsets", "tokens"):
            assert np.array_equal(getattr(table, field), getattr(alone, field)), (i, field)
        check_nothing_lost(table, make_shard(i))
    # Shards get different seeds, so their sequence orders differ.
    assert len({t.seed for t in result.shards}) == SHARDS
    # Merged statistics equal the statistics of the whole corpus.
    everything = np.concatenate([make_shard(i) for i in range(SHARDS)])
    with flopspack.Stats(everything) as whole:
        merged_lengths, merged_counts = result.stats.entries()
        whole_lengths, whole_counts = whole.entries()
        assert np.array_equal(merged_lengths, whole_lengths)
        assert np.array_equal(merged_counts, whole_counts)
        for q in (0.5, 0.9, 0.99, 0.999):
            assert result.stats.quantile(q) == whole.quantile(q)
        assert result.stats.expected_max(8192) == whole.expected_max(8192)
        assert result.stats.summary.tokens == whole.summary.tokens
    assert 0.95 < result.fill <= 1.0
    assert result.real_tokens == int(everything.sum())


def test_default_scheduler_gives_the_same_tables():
    sources = [make_shard(i) for i in range(3)]
    a = distributed.pack_corpus(sources, capacity=CAPACITY, seed=5, window=500)
    b = [distributed.pack_shard(s, i, capacity=CAPACITY, seed=5, window=500) for i, s in enumerate(sources)]
    for x, y in zip(a.shards, b):
        assert np.array_equal(x.documents, y.documents)
        assert np.array_equal(x.tokens, y.tokens)
    # Independently: one stream packer seeded with derive_seed(5, 1).
    with flopspack.StreamPacker(CAPACITY, window=500, seed=flopspack.derive_seed(5, 1)) as packer:
        packer.push(sources[1])
        packer.flush()
        with packer.take() as plan:
            _, items, pieces = plan.to_csr()
    assert np.array_equal(a.shards[1].documents, items)
    assert np.array_equal(a.shards[1].tokens, pieces)
    check_nothing_lost(a.shards[1], sources[1])
    rows = a.shards[0].rows()
    assert len(rows) == a.shards[0].num_sequences
    shard, sequence, documents, offsets, tokens = rows[0]
    assert shard == 0 and sequence == 0 and len(documents) == len(offsets) == len(tokens)
