"""Epochs of planned steps: the dataset's documents shuffled per epoch
(seed, epoch), cut into global batches of documents_per_step, each planned
with flopspack_plan_step onto num_ranks x microbatches_per_rank microbatches.
A source for flopspack.torch.FlopspackBatchSampler, like BucketSampler.

Deprecated: flopspack.torch.PlannedBatchSampler replaces it (steps measured
in tokens, pieces of long documents, deferred documents carried over rather
than lost). What could go wrong here silently now fails at once: overflow
DEFER (deferred documents would be missing from the epoch) is refused, a
document over the cap under ERROR is named by its dataset index at
construction, and rank_batches refuses SPLIT plans (whole indices cannot
carry pieces)."""

from __future__ import annotations

import warnings
from typing import Any, List, Tuple

import numpy as np

from . import _arrays, _validate
from ._cost import CostModel
from ._errors import InvalidArgumentError
from ._plan import Plan
from ._planner import SlotOrder, StepAlgorithm, plan_step
from ._stream import Overflow


class PlannedEpochs:
    """Step plans for every (epoch, step), a pure function of (seed, epoch,
    step): every rank computes the same plans without communication. The
    document order of an epoch is numpy's PCG64 permutation seeded with
    (seed, epoch) — the same on every rank of a job, which runs one numpy.
    Every document is in exactly one step of an epoch (the last step may hold
    fewer). With the default overflow ERROR a document longer than the cap
    is an error; with SPLIT its pieces land in several microbatches."""

    def __init__(
        self,
        lengths: Any,
        model: CostModel,
        *,
        documents_per_step: int,
        num_ranks: int,
        max_tokens_per_microbatch: int,
        microbatches_per_rank: int,
        algorithm: StepAlgorithm = StepAlgorithm.DOCUMENTS,
        ordering: SlotOrder = SlotOrder.DESCENDING,
        overflow: Overflow = Overflow.ERROR,
        seed: int = 0,
    ) -> None:
        documents_per_step = _validate.int64(documents_per_step, "documents_per_step")
        microbatches_per_rank = _validate.uint32(microbatches_per_rank, "microbatches_per_rank")
        _validate.instance(model, CostModel, "model")
        warnings.warn(
            "flopspack.PlannedEpochs is deprecated: use flopspack.torch.PlannedBatchSampler "
            "(token-sized steps, pieces of long documents, no document lost); see "
            "docs/pytorch.md",
            DeprecationWarning,
            stacklevel=2,
        )
        if Overflow(overflow) == Overflow.DEFER:
            raise ValueError(
                "overflow DEFER: PlannedEpochs would leave the deferred documents out of the "
                "epoch; flopspack.torch.PlannedBatchSampler carries them into later steps"
            )
        if documents_per_step < 1:
            raise ValueError(f"documents_per_step = {documents_per_step} must be positive")
        if microbatches_per_rank < 1:
            raise ValueError(
                f"microbatches_per_rank = {microbatches_per_rank} must be positive "
                "(a fixed number of microbatches per step)"
            )
        self.lengths = _arrays.lengths(lengths)
        over = np.flatnonzero(self.lengths > int(max_tokens_per_microbatch))
        if Overflow(overflow) == Overflow.ERROR and over.size:
            i = int(over[0])
            raise InvalidArgumentError(
                f"lengths[{i}] = {int(self.lengths[i])} exceeds max_tokens_per_microbatch = "
                f"{int(max_tokens_per_microbatch)} (dataset index {i}; {over.size} documents are "
                "over the cap): use flopspack.torch.PlannedBatchSampler, which cuts them into "
                "pieces"
            )
        self._overflow = Overflow(overflow)
        self.model = model
        self.documents_per_step = int(documents_per_step)
        self.num_ranks = _validate.uint32(num_ranks, "num_ranks")
        self.accumulation_steps = int(microbatches_per_rank)
        self.seed = _validate.uint64(seed, "seed")
        self._options = dict(
            num_ranks=self.num_ranks,
            max_tokens_per_microbatch=_validate.int64(
                max_tokens_per_microbatch, "max_tokens_per_microbatch"
            ),
            microbatches_per_rank=self.accumulation_steps,
            algorithm=algorithm,
            ordering=ordering,
            overflow=overflow,
            seed=self.seed,
        )
        self._order_cache: Tuple[int, np.ndarray] = (-1, np.zeros(0, dtype=np.int64))

    @property
    def steps_per_epoch(self) -> int:
        return -(-len(self.lengths) // self.documents_per_step)

    def order(self, epoch: int) -> np.ndarray:
        """The documents of an epoch in step order."""
        epoch = _validate.uint64(epoch, "epoch")
        if self._order_cache[0] != epoch:
            rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence([self.seed, epoch])))
            self._order_cache = (epoch, rng.permutation(len(self.lengths)).astype(np.int64))
        return self._order_cache[1]

    def step_documents(self, epoch: int, step: int) -> np.ndarray:
        """Dataset indices of the documents of one step."""
        step = _validate.int64(step, "step")
        if not 0 <= step < self.steps_per_epoch:
            raise IndexError(f"step {step} is out of range: an epoch has {self.steps_per_epoch}")
        b = self.documents_per_step
        return self.order(epoch)[step * b : (step + 1) * b]

    def step(self, epoch: int, step: int) -> Plan:
        """The plan of one step; its items index step_documents(epoch, step)."""
        docs = self.step_documents(epoch, step)
        return plan_step(self.lengths[docs], self.model, **self._options)

    def rank_batches(self, epoch: int, step: int, rank: int) -> List[List[int]]:
        """This rank's microbatches of the step, in slot order, as dataset
        indices."""
        rank = _validate.size(rank, "rank")
        if self._overflow == Overflow.SPLIT:
            raise ValueError(
                "overflow SPLIT cuts documents into pieces, which lists of dataset indices "
                "cannot carry (a collate function would get whole documents over the cap): use "
                "flopspack.torch.PlannedBatchSampler, which yields (index, offset, length) pieces"
            )
        docs = self.step_documents(epoch, step)
        with self.step(epoch, step) as plan:
            mine = sorted((g for g in plan if g.rank == rank), key=lambda g: g.slot)
            return [docs[g.items].tolist() for g in mine]
