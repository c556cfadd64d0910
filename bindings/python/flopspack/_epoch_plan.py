"""One epoch of a training loop, planned: every token of every document
placed exactly once into the microbatches of the data-parallel ranks, step
by step, by the stateful step planner (docs/planner.md, docs/pytorch.md).

What it does, per epoch:
1. Orders the documents: numpy's PCG64 permutation seeded with
   (seed, epoch) when shuffling (the same in every process of a job, which
   runs one numpy), else dataset order. Empty documents hold no tokens and
   are skipped (counted).
2. Cuts every document longer than the microbatch cap (or than
   tokens_per_step, if smaller) into chunks of that size plus the
   remainder, in order, so that a document longer than a whole step (20x
   the cap, say) spreads over several steps; a chunk is a document for the
   planner.
3. Pushes the chunks into a fresh :class:`StepPlanner` (overflow SPLIT,
   seed derive_seed(seed, epoch)) and takes plans until nothing is pending:
   documents the planner defers (outliers waiting their turn) come back in
   later steps, and the epoch's last steps drain them.
4. Keeps, for one data-parallel rank, each microbatch's pieces as
   (dataset index, offset, length): the offset is the chunk's start in its
   document plus the piece's offset within the chunk (piece offsets by the
   library's flopspack_plan_group_offsets, through Plan.arrays()).
5. Checks that the pieces of every chunk tile it exactly (an O(n) sum per
   chunk), so a bug could never lose or repeat a token silently.

Guarantee: every token of every non-empty document is in exactly one piece
of one microbatch of one rank in the epoch; no microbatch holds more than
`cap` tokens; every rank gets the same number of microbatches (steps x M;
a microbatch may be empty). Optionally (drop_last_below_tokens) trailing
steps holding fewer tokens are dropped, and what they held is counted.

Cost: one StepPlanner.next() per step (each a PlanStep over the step's
documents, docs/planner.md) plus O(entries) numpy work; memory O(pieces of
this rank).
"""

from __future__ import annotations

import dataclasses
import hashlib
from typing import Any, List, Optional

import numpy as np

from . import _arrays
from . import capi as _capi
from ._cost import CostModel
from ._planner import SlotOrder, StepAlgorithm, StepPlanner
from ._stream import Overflow


@dataclasses.dataclass(frozen=True)
class EpochPlanOptions:
    """The configuration an epoch plan is a pure function of (with the
    lengths, the cost model and the epoch)."""

    tokens_per_step: int
    max_tokens_per_microbatch: int
    microbatches_per_rank: int
    dp_size: int
    seed: int = 0
    shuffle: bool = True
    outlier_min_tokens: int = 0
    max_defer_steps: Optional[int] = None
    algorithm: StepAlgorithm = StepAlgorithm.DOCUMENTS
    ordering: SlotOrder = SlotOrder.DESCENDING
    drop_last_below_tokens: int = 0

    def validate(self) -> None:
        cap, m, r = self.max_tokens_per_microbatch, self.microbatches_per_rank, self.dp_size
        if cap < 1:
            raise ValueError(f"max_tokens_per_microbatch = {cap}: must be at least 1")
        if m < 1:
            raise ValueError(f"microbatches_per_rank = {m}: must be at least 1")
        if r < 1:
            raise ValueError(f"dp_size = {r}: must be at least 1")
        if not 1 <= self.tokens_per_step <= r * m * cap:
            raise ValueError(
                f"tokens_per_step = {self.tokens_per_step}: must be between 1 and dp_size x "
                f"microbatches_per_rank x max_tokens_per_microbatch = {r} x {m} x {cap} = "
                f"{r * m * cap} (the tokens one step can hold; leave a few percent of headroom "
                "for balancing)"
            )
        if self.outlier_min_tokens < 0:
            raise ValueError(f"outlier_min_tokens = {self.outlier_min_tokens}: must be >= 0")
        if self.drop_last_below_tokens < 0:
            raise ValueError(
                f"drop_last_below_tokens = {self.drop_last_below_tokens}: must be >= 0"
            )


@dataclasses.dataclass(frozen=True)
class EpochPlan:
    """One rank's microbatches of one epoch. Microbatch k (k = step x M +
    slot) holds pieces ``mb_offsets[k]:mb_offsets[k+1]`` of ``indices`` /
    ``offsets`` / ``lengths``. ``step_tokens[s]`` is what step s holds over
    all ranks. ``dropped_*`` count what drop_last_below_tokens removed;
    ``empty_documents`` the zero-length documents skipped."""

    epoch: int
    dp_rank: int
    steps: int
    microbatches_per_rank: int
    mb_offsets: np.ndarray
    indices: np.ndarray
    offsets: np.ndarray
    lengths: np.ndarray
    step_tokens: np.ndarray
    dropped_documents: int
    dropped_tokens: int
    empty_documents: int

    def __len__(self) -> int:
        return self.steps * self.microbatches_per_rank

    def microbatch(self, k: int) -> List[tuple]:
        """Microbatch k as a list of (index, offset, length) Python ints."""
        lo, hi = self.mb_offsets[k], self.mb_offsets[k + 1]
        return list(
            zip(
                self.indices[lo:hi].tolist(),
                self.offsets[lo:hi].tolist(),
                self.lengths[lo:hi].tolist(),
            )
        )


def fingerprint(lengths: np.ndarray, options: EpochPlanOptions) -> str:
    """A digest of everything the plans depend on but the cost model (kept
    in a sampler's state to refuse resuming a different configuration)."""
    h = hashlib.sha256(np.ascontiguousarray(lengths, dtype=np.int64).tobytes())
    h.update(repr(dataclasses.astuple(options)).encode())
    return h.hexdigest()[:32]


def document_order(n: int, seed: int, epoch: int, shuffle: bool) -> np.ndarray:
    """The documents of an epoch in push order."""
    if not shuffle:
        return np.arange(n, dtype=np.int64)
    rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence([seed, epoch])))
    return rng.permutation(n).astype(np.int64)


def chunks(lengths: np.ndarray, order: np.ndarray, cap: int):
    """(document, start, length) of each chunk, in push order: every
    document cut into pieces of `cap` tokens plus the remainder."""
    docs = order[lengths[order] > 0]
    counts = -(-lengths[docs] // cap)
    doc = np.repeat(docs, counts)
    first = np.cumsum(counts) - counts
    index_in_doc = np.arange(doc.shape[0], dtype=np.int64) - np.repeat(first, counts)
    start = index_in_doc * cap
    return doc, start, np.minimum(cap, lengths[doc] - start)


def plan_epoch(
    lengths: Any, model: CostModel, options: EpochPlanOptions, epoch: int, dp_rank: int
) -> EpochPlan:
    """Plans one epoch and keeps rank dp_rank's microbatches (see the
    module note). Every rank computes the same global plan."""
    options.validate()
    lengths = _arrays.lengths(lengths)
    if lengths.size and int(lengths.min()) < 0:
        i = int(np.argmin(lengths))
        raise ValueError(f"lengths[{i}] = {int(lengths[i])}: a document length must be >= 0")
    if not 0 <= dp_rank < options.dp_size:
        raise ValueError(f"dp_rank = {dp_rank}: must be in [0, dp_size = {options.dp_size})")
    cap, m = options.max_tokens_per_microbatch, options.microbatches_per_rank
    order = document_order(lengths.shape[0], options.seed, epoch, options.shuffle)
    chunk_doc, chunk_start, chunk_len = chunks(
        lengths, order, min(cap, options.tokens_per_step)
    )
    planner = StepPlanner(
        model,
        num_ranks=options.dp_size,
        max_tokens_per_microbatch=cap,
        microbatches_per_rank=m,
        algorithm=options.algorithm,
        ordering=options.ordering,
        overflow=Overflow.SPLIT,
        seed=_derive(options.seed, epoch),
        tokens_per_step=options.tokens_per_step,
        max_defer_steps=options.max_defer_steps,
        outlier_min_tokens=options.outlier_min_tokens,
    )
    consumed = np.zeros(chunk_len.shape[0], dtype=np.int64)  # per push id
    mb_sizes: List[np.ndarray] = []
    parts: List[np.ndarray] = []  # entry indices into the step's arrays
    steps_items: List[np.ndarray] = []
    steps_pieces: List[np.ndarray] = []
    steps_tokens: List[np.ndarray] = []
    step_tokens: List[int] = []
    step_docs: List[np.ndarray] = []  # for counting what a drop removes
    with planner:
        if chunk_len.size:
            planner.push(chunk_len)
        pending = planner.pending.tokens
        while planner.pending.documents > 0:
            with planner.next() as plan:
                a = plan.arrays()
            placed = int(a.real_tokens.sum())
            if placed == 0:
                raise RuntimeError(
                    f"flopspack: the step planner placed nothing with {planner.pending.documents} "
                    "documents pending (a bug: please report it)"
                )
            np.add.at(consumed, a.items, a.tokens)
            pending -= placed
            step_tokens.append(placed)
            if options.drop_last_below_tokens:
                step_docs.append(np.unique(chunk_doc[a.items]))
            mine = np.flatnonzero(a.ranks == dp_rank)
            mine = mine[np.argsort(a.slots[mine], kind="stable")]
            if not np.array_equal(a.slots[mine], np.arange(m)):
                raise RuntimeError(f"flopspack: rank {dp_rank} does not have slots 0..{m - 1}")
            lo, hi = a.offsets[mine], a.offsets[mine + 1]
            mb_sizes.append(hi - lo)
            take = _ranges(lo, hi)
            steps_items.append(a.items[take])
            steps_pieces.append(a.piece_offsets[take])
            steps_tokens.append(a.tokens[take])
    if pending != 0 or not np.array_equal(consumed, chunk_len):
        bad = int(np.flatnonzero(consumed != chunk_len)[0]) if consumed.size else 0
        raise RuntimeError(
            f"flopspack: document {int(chunk_doc[bad])} got {int(consumed[bad])} of "
            f"{int(chunk_len[bad])} tokens of its chunk at {int(chunk_start[bad])} "
            "(a bug: please report it)"
        )
    steps = len(step_tokens)
    dropped_docs = dropped_tokens = 0
    if options.drop_last_below_tokens:
        keep = steps
        while keep > 0 and step_tokens[keep - 1] < options.drop_last_below_tokens:
            keep -= 1
        if keep < steps:
            dropped_tokens = int(sum(step_tokens[keep:]))
            dropped_docs = int(np.unique(np.concatenate(step_docs[keep:])).shape[0])
            steps = keep
            mb_sizes, steps_items = mb_sizes[:keep], steps_items[:keep]
            steps_pieces, steps_tokens = steps_pieces[:keep], steps_tokens[:keep]
            step_tokens = step_tokens[:keep]
    items = _concat(steps_items)
    mb_offsets = np.zeros(steps * m + 1, dtype=np.int64)
    if steps:
        np.cumsum(np.concatenate(mb_sizes), out=mb_offsets[1:])
    return EpochPlan(
        epoch=epoch,
        dp_rank=dp_rank,
        steps=steps,
        microbatches_per_rank=m,
        mb_offsets=mb_offsets,
        indices=chunk_doc[items],
        offsets=chunk_start[items] + _concat(steps_pieces),
        lengths=_concat(steps_tokens),
        step_tokens=np.asarray(step_tokens, dtype=np.int64),
        dropped_documents=dropped_docs,
        dropped_tokens=dropped_tokens,
        empty_documents=int((lengths == 0).sum()),
    )


def _derive(seed: int, epoch: int) -> int:
    return _capi.flopspack_derive_seed(int(seed), int(epoch))


def _ranges(lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """Concatenation of arange(lo[i], hi[i]) without a Python loop."""
    sizes = hi - lo
    total = int(sizes.sum())
    if total == 0:
        return np.zeros(0, dtype=np.int64)
    starts = np.repeat(lo - (np.cumsum(sizes) - sizes), sizes)
    return starts + np.arange(total, dtype=np.int64)


def _concat(arrays: List[np.ndarray]) -> np.ndarray:
    return np.concatenate(arrays) if arrays else np.zeros(0, dtype=np.int64)
