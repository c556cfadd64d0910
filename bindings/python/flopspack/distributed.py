"""Corpus-scale packing on Dask: the streaming packer as the packing step of
a distributed job (docs/distributed.md).

Each shard (a partition of the corpus, e.g. one input file) is packed on its
own by a :class:`~flopspack.StreamPacker` seeded with
``derive_seed(seed, shard)``, so a shard's result depends only on its
documents and the seed — never on which worker ran it or in what order. Each
shard also produces exact, mergeable length statistics, shipped as
``(lengths, counts)`` arrays and merged into the whole corpus's statistics.

    >>> from dask.distributed import Client, LocalCluster        # doctest: +SKIP
    >>> result = pack_corpus(shards, capacity=16384, seed=1234)  # doctest: +SKIP
    >>> result.fill, result.stats.summary.mean                   # doctest: +SKIP

``shards`` holds, per shard, either an array of lengths or a zero-argument
callable returning one (so that workers load their own data).
"""
from __future__ import annotations

import dataclasses
from typing import Any, Callable, List, Optional, Sequence, Tuple, Union

import numpy as np

from ._stats import Stats
from ._stream import Overflow, StreamPacker
from . import derive_seed

ShardSource = Union[Sequence[int], np.ndarray, Callable[[], Any]]

# Lengths go into the packer in batches of this many, as a loader would.
_PUSH_BATCH = 65536


@dataclasses.dataclass
class PackedShard:
    """The packed sequences of one shard, as a CSR table.

    Sequence ``i`` holds the pieces ``sequence_offsets[i]:sequence_offsets[i+1]``
    of ``documents`` (document positions within the shard), ``offsets``
    (where each piece starts within its document) and ``tokens`` (its
    length). A document longer than the capacity is split into several
    pieces; their offsets say how to reassemble it."""

    shard: int
    seed: int
    sequence_offsets: np.ndarray
    documents: np.ndarray
    offsets: np.ndarray
    tokens: np.ndarray
    num_documents: int
    capacity: int

    @property
    def num_sequences(self) -> int:
        return len(self.sequence_offsets) - 1

    @property
    def real_tokens(self) -> int:
        return int(self.tokens.sum())

    @property
    def fill(self) -> float:
        """Real tokens over sequences x capacity."""
        n = self.num_sequences
        return self.real_tokens / (n * self.capacity) if n else 1.0

    def rows(self) -> List[Tuple[int, int, np.ndarray, np.ndarray, np.ndarray]]:
        """One row per packed sequence: (shard, sequence, documents, offsets,
        tokens) — the table of issue 10."""
        out = []
        for i in range(self.num_sequences):
            a, b = self.sequence_offsets[i], self.sequence_offsets[i + 1]
            out.append((self.shard, i, self.documents[a:b], self.offsets[a:b], self.tokens[a:b]))
        return out


def _load(source: ShardSource) -> np.ndarray:
    data = source() if callable(source) else source
    return np.ascontiguousarray(np.asarray(data, dtype=np.int64))


def pack_shard(
    source: ShardSource,
    shard: int,
    *,
    capacity: int,
    seed: int = 0,
    window: int = 10000,
    overflow: Overflow = Overflow.SPLIT,
) -> PackedShard:
    """Packs one shard with the streaming packer seeded by
    ``derive_seed(seed, shard)``. Pure: the same inputs give the same table."""
    lengths = _load(source)
    shard_seed = derive_seed(seed, shard)
    sequence_offsets = [0]
    documents: List[np.ndarray] = []
    tokens: List[np.ndarray] = []
    with StreamPacker(capacity, window=window, overflow=overflow, seed=shard_seed) as packer:

        def drain() -> None:
            with packer.take() as plan:
                offsets, items, pieces = plan.to_csr()
            base = sequence_offsets[-1]
            sequence_offsets.extend((base + offsets[1:]).tolist())
            documents.append(items)
            tokens.append(pieces)

        for start in range(0, len(lengths), _PUSH_BATCH):
            packer.push(lengths[start : start + _PUSH_BATCH])
            drain()
        packer.flush()
        drain()
    docs = np.concatenate(documents) if documents else np.zeros(0, np.int64)
    toks = np.concatenate(tokens) if tokens else np.zeros(0, np.int64)
    # Where each piece starts in its document: pieces of a document are
    # numbered in the order they were emitted.
    offsets = np.zeros(len(docs), dtype=np.int64)
    if len(docs):
        order = np.argsort(docs, kind="stable")
        sorted_docs = docs[order]
        sorted_tokens = toks[order]
        running = np.cumsum(sorted_tokens) - sorted_tokens
        first = np.r_[True, sorted_docs[1:] != sorted_docs[:-1]]
        group_start = np.maximum.accumulate(np.where(first, running, 0))
        offsets[order] = running - group_start
    return PackedShard(
        shard=shard,
        seed=shard_seed,
        sequence_offsets=np.asarray(sequence_offsets, dtype=np.int64),
        documents=docs,
        offsets=offsets,
        tokens=toks,
        num_documents=len(lengths),
        capacity=capacity,
    )


def shard_statistics(source: ShardSource) -> Tuple[np.ndarray, np.ndarray]:
    """A shard's exact length statistics as (distinct lengths, counts): small,
    picklable, and merged exactly by :func:`merge_statistics`."""
    with Stats(_load(source)) as stats:
        return stats.entries()


def merge_statistics(parts: Sequence[Tuple[np.ndarray, np.ndarray]]) -> Stats:
    """Exact statistics of the union of the shards (identical to building
    them from all the lengths at once)."""
    if not parts:
        return Stats(())
    lengths = np.concatenate([p[0] for p in parts])
    counts = np.concatenate([p[1] for p in parts])
    return Stats.from_histogram(lengths, counts)


@dataclasses.dataclass
class CorpusResult:
    """Every shard's packed table, the merged statistics and the global fill."""

    shards: List[PackedShard]
    stats: Stats

    @property
    def num_sequences(self) -> int:
        return sum(s.num_sequences for s in self.shards)

    @property
    def real_tokens(self) -> int:
        return sum(s.real_tokens for s in self.shards)

    @property
    def fill(self) -> float:
        n = self.num_sequences
        cap = self.shards[0].capacity if self.shards else 1
        return self.real_tokens / (n * cap) if n else 1.0


def pack_corpus(
    shards: Sequence[ShardSource],
    *,
    capacity: int,
    seed: int = 0,
    window: int = 10000,
    overflow: Overflow = Overflow.SPLIT,
    client: Optional[Any] = None,
) -> CorpusResult:
    """Packs every shard as a Dask task and merges the statistics.

    With ``client`` (a ``dask.distributed.Client``) the tasks run on its
    cluster; without one, on Dask's default scheduler. Shard ``i`` of the
    result is exactly ``pack_shard(shards[i], i, ...)``."""
    import dask

    packed = [
        dask.delayed(pack_shard)(
            source, i, capacity=capacity, seed=seed, window=window, overflow=overflow
        )
        for i, source in enumerate(shards)
    ]
    parts = [dask.delayed(shard_statistics)(source) for source in shards]
    if client is not None:
        futures = client.compute(packed + parts)
        results = client.gather(futures)
    else:
        results = dask.compute(*(packed + parts))
    tables = list(results[: len(shards)])
    stats = merge_statistics(list(results[len(shards) :]))
    return CorpusResult(shards=tables, stats=stats)
