"""flopspack.torch.PlannedBatchSampler: a torch batch sampler over the
stateful step planner that yields, for this data-parallel rank, one list of
(index, offset, length) pieces per microbatch (docs/pytorch.md)."""

from __future__ import annotations

import warnings
from typing import Any, Dict, Iterator, List, Optional, Tuple

import numpy as np
import torch.distributed
import torch.utils.data

from . import _arrays
from ._cost import CostModel
from ._epoch_plan import EpochPlan, EpochPlanOptions, fingerprint, plan_epoch
from ._planner import SlotOrder, StepAlgorithm

Piece = Tuple[int, int, int]


def data_parallel_rank(
    dp_rank: Optional[int], dp_size: Optional[int], process_group: Any
) -> Tuple[int, int]:
    """(dp_rank, dp_size): as given; else the rank and size of
    `process_group` (the data-parallel group); else torch.distributed's
    world when initialised; else (0, 1). Give both or neither."""
    if (dp_rank is None) != (dp_size is None):
        raise ValueError(
            f"dp_rank = {dp_rank}, dp_size = {dp_size}: give both (the data-parallel rank and "
            "the number of data-parallel replicas) or neither (process_group or the world)"
        )
    if dp_rank is not None:
        if process_group is not None:
            raise ValueError("give dp_rank/dp_size or process_group, not both")
        if not 0 <= dp_rank < dp_size:
            raise ValueError(f"dp_rank = {dp_rank} must be in [0, dp_size = {dp_size})")
        return int(dp_rank), int(dp_size)
    ready = torch.distributed.is_available() and torch.distributed.is_initialized()
    if process_group is not None:
        if not ready:
            raise ValueError("process_group given but torch.distributed is not initialised")
        return (
            torch.distributed.get_rank(group=process_group),
            torch.distributed.get_world_size(group=process_group),
        )
    if ready:
        return torch.distributed.get_rank(), torch.distributed.get_world_size()
    return 0, 1


class PlannedBatchSampler(torch.utils.data.Sampler):
    """Batches for packed (varlen) training, balanced by cost across the
    data-parallel ranks, with no token lost.

    Each epoch, the documents (``lengths[i]`` tokens; shuffled with
    ``seed`` and the epoch) go through the stateful step planner: each
    optimizer step takes about ``tokens_per_step`` tokens (over all
    data-parallel ranks) and splits them into ``microbatches_per_rank``
    microbatches per rank of at most ``max_tokens_per_microbatch`` tokens,
    balancing the ranks' costs under ``cost_model``. Iterating yields this
    rank's microbatches in step order, each a list of ``(index, offset,
    length)`` pieces: tokens ``[offset, offset + length)`` of dataset item
    ``index``. Give the DataLoader a :class:`PieceDataset` and a collator
    (:class:`VarlenCollator`).

    Guarantees: every token of every document is yielded exactly once per
    epoch across the ranks (documents longer than the cap are cut into
    pieces; documents the planner defers come back in later steps and the
    epoch's last steps drain them); no microbatch exceeds the cap; every
    rank gets the same number of microbatches (some may be empty: the
    collator handles that). Nothing is dropped unless
    ``drop_last_below_tokens`` asks for it: then trailing steps of an epoch
    holding fewer tokens are dropped, counted in :attr:`dropped_documents`
    and :attr:`dropped_tokens`.

    ``dp_rank``/``dp_size`` default to the rank and size of
    ``process_group`` (pass the data-parallel group under tensor, pipeline
    or context parallelism), else torch.distributed's world. Ranks of one
    replica (same dp_rank) get identical batches. Every rank plans the same
    epoch without communication.

    Resuming: :meth:`state_dict` / :meth:`load_state_dict` hold the epoch
    and the microbatches produced in it (and a fingerprint of the
    configuration); the next iteration continues with exactly the
    microbatches an uninterrupted run would have seen. A DataLoader with
    workers draws ahead (``prefetch_factor`` per worker): save
    :meth:`state_at` (microbatches consumed) there.

    Cost: the whole epoch is planned when first needed (``__len__`` or
    iteration), one plan per step; see docs/pytorch.md for timings.
    """

    def __init__(
        self,
        lengths: Any,
        cost_model: CostModel,
        *,
        tokens_per_step: int,
        max_tokens_per_microbatch: int,
        microbatches_per_rank: int,
        dp_rank: Optional[int] = None,
        dp_size: Optional[int] = None,
        process_group: Any = None,
        seed: int = 0,
        shuffle: bool = True,
        outlier_min_tokens: int = 0,
        max_defer_steps: Optional[int] = None,
        algorithm: StepAlgorithm = StepAlgorithm.DOCUMENTS,
        ordering: SlotOrder = SlotOrder.DESCENDING,
        drop_last_below_tokens: int = 0,
    ) -> None:
        super().__init__(None)
        if not isinstance(cost_model, CostModel):
            raise TypeError(
                f"cost_model must be a flopspack.CostModel, got {type(cost_model).__name__}"
            )
        self.dp_rank, self.dp_size = data_parallel_rank(dp_rank, dp_size, process_group)
        self.lengths = _arrays.lengths(lengths).copy()  # the caller's array may change
        self.cost_model = cost_model
        self.options = EpochPlanOptions(
            tokens_per_step=int(tokens_per_step),
            max_tokens_per_microbatch=int(max_tokens_per_microbatch),
            microbatches_per_rank=int(microbatches_per_rank),
            dp_size=self.dp_size,
            seed=int(seed),
            shuffle=bool(shuffle),
            outlier_min_tokens=int(outlier_min_tokens),
            max_defer_steps=None if max_defer_steps is None else int(max_defer_steps),
            algorithm=StepAlgorithm(algorithm),
            ordering=SlotOrder(ordering),
            drop_last_below_tokens=int(drop_last_below_tokens),
        )
        self.options.validate()
        if self.lengths.size and int(self.lengths.min()) < 0:
            i = int(np.argmin(self.lengths))
            raise ValueError(f"lengths[{i}] = {int(self.lengths[i])}: must be >= 0")
        self._fingerprint = fingerprint(self.lengths, self.options)
        self._epoch = 0
        self._start = 0  # microbatches of this epoch to skip on the next iteration
        self._produced = 0  # microbatches of this epoch produced so far
        self._plan: Optional[EpochPlan] = None

    # -- the epoch's plan -------------------------------------------------
    def epoch_plan(self, epoch: Optional[int] = None) -> EpochPlan:
        """This rank's plan of an epoch (default: the current one), cached
        for the current epoch."""
        e = self._epoch if epoch is None else int(epoch)
        if self._plan is not None and self._plan.epoch == e:
            return self._plan
        plan = plan_epoch(self.lengths, self.cost_model, self.options, e, self.dp_rank)
        if e == self._epoch:
            self._plan = plan
        return plan

    @property
    def epoch(self) -> int:
        return self._epoch

    @property
    def steps_per_epoch(self) -> int:
        """Optimizer steps in the current epoch (the same on every rank)."""
        return self.epoch_plan().steps

    @property
    def microbatches_per_rank(self) -> int:
        return self.options.microbatches_per_rank

    @property
    def dropped_documents(self) -> int:
        """Documents of the current epoch with tokens in dropped steps."""
        return self.epoch_plan().dropped_documents

    @property
    def dropped_tokens(self) -> int:
        """Tokens of the current epoch in dropped steps (0 unless
        drop_last_below_tokens)."""
        return self.epoch_plan().dropped_tokens

    def __len__(self) -> int:
        """Microbatches this rank gets in the current epoch: steps x
        microbatches_per_rank, the same on every rank."""
        return len(self.epoch_plan())

    def set_epoch(self, epoch: int) -> None:
        """Starts epoch `epoch` from its beginning on the next iteration."""
        if int(epoch) != self._epoch:
            self._plan = None
        self._epoch = int(epoch)
        self._start = 0
        self._produced = 0

    def __iter__(self) -> Iterator[List[Piece]]:
        plan = self.epoch_plan()
        start, self._start = self._start, 0
        self._produced = start
        for k in range(start, len(plan)):
            self._produced = k + 1
            yield plan.microbatch(k)

    # -- resuming -----------------------------------------------------------
    def state_dict(self) -> Dict[str, Any]:
        """{"epoch", "microbatches", "fingerprint"}: where the epoch is."""
        return self.state_at(self._produced)

    def state_at(self, microbatches_consumed: int) -> Dict[str, Any]:
        """The state after `microbatches_consumed` microbatches of the
        current epoch (for a DataLoader whose workers run ahead)."""
        return {
            "epoch": self._epoch,
            "microbatches": int(microbatches_consumed),
            "fingerprint": self._fingerprint,
        }

    def load_state_dict(self, state: Dict[str, Any]) -> None:
        """The next iteration resumes epoch state["epoch"] after
        state["microbatches"] microbatches. Refuses a state saved by a
        sampler with other lengths or options."""
        if state.get("fingerprint") != self._fingerprint:
            raise ValueError(
                "this state was saved by a PlannedBatchSampler with other lengths or options "
                "(fingerprint mismatch): resuming would not give the same batches"
            )
        epoch = int(state["epoch"])
        if epoch != self._epoch:
            self._plan = None
        self._epoch = epoch
        done = int(state["microbatches"])
        if not 0 <= done <= len(self):
            raise ValueError(
                f"microbatches = {done} is out of range: epoch {epoch} has {len(self)}"
            )
        if done % self.options.microbatches_per_rank:
            warnings.warn(
                f"resuming after {done} microbatches, inside an optimizer step of "
                f"{self.options.microbatches_per_rank}: the step's earlier microbatches are "
                "not replayed",
                stacklevel=2,
            )
        self._start = done
        self._produced = done
