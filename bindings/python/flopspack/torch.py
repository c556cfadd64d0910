"""PyTorch integration (docs/pytorch.md).

For packed (varlen) training: :class:`PlannedBatchSampler` yields this
data-parallel rank's microbatches as (index, offset, length) pieces,
balanced by cost, every token once per epoch; :class:`PieceDataset` slices
the pieces out of a dataset of token sequences; :class:`VarlenCollator`
packs a microbatch into one row with cu_seqlens. For padded batches:
:class:`FlopspackBatchSampler` over a :class:`flopspack.BucketSampler`,
with :class:`PaddedCollator`.

FlopspackBatchSampler yields this rank's microbatches of dataset indices,
step by step, from a step source (the bucket sampler; the deprecated
:class:`flopspack.PlannedEpochs` too).

    from flopspack.torch import FlopspackBatchSampler
    source = flopspack.BucketSampler(lengths, max_padded_tokens=16384,
                                     num_ranks=world_size, accumulation_steps=4, seed=0)
    batches = FlopspackBatchSampler(source, rank=rank)
    loader = torch.utils.data.DataLoader(dataset, batch_sampler=batches, num_workers=4)
    for epoch in range(epochs):
        batches.set_epoch(epoch)
        for batch in loader: ...

Every rank runs the same source with the same seed and takes its own
groups, so no communication is needed. Resuming follows the convention of
resumable samplers (torchdata's StatefulDataLoader): ``state_dict()`` /
``load_state_dict()`` capture the epoch and the number of batches already
produced in it; the next iteration continues from there with exactly the
batches an uninterrupted run would have seen. A plain DataLoader with
workers draws batches ahead of the training loop (``prefetch_factor`` per
worker), so save ``state_at(batches_consumed)`` there instead.
"""

from __future__ import annotations

from typing import Any, Dict, Iterator, List, Optional

import torch.distributed
import torch.utils.data

from ._collate import IGNORE_INDEX, PaddedCollator, PieceDataset, VarlenCollator
from ._torch_sampler import PlannedBatchSampler, data_parallel_rank

__all__ = [
    "FlopspackBatchSampler",
    "IGNORE_INDEX",
    "PaddedCollator",
    "PieceDataset",
    "PlannedBatchSampler",
    "VarlenCollator",
    "data_parallel_rank",
]


class FlopspackBatchSampler(torch.utils.data.Sampler):
    """Yields lists of dataset indices: for each optimizer step of the epoch,
    this rank's accumulation_steps microbatches in slot order.

    ``source`` needs ``num_ranks``, ``steps_per_epoch``,
    ``accumulation_steps`` (microbatches per rank per step) and
    ``rank_batches(epoch, step, rank)`` -> that rank's microbatches of the
    step as lists of dataset indices, in slot order. ``rank`` is the
    data-parallel rank; it defaults to the rank in ``process_group`` (the
    data-parallel group), else in torch.distributed's world, else 0 — and
    under torch.distributed the group's size must then equal the source's
    ``num_ranks``, so that
    tensor- or pipeline-parallel peers, which share a data-parallel rank,
    never silently take different shares.
    """

    def __init__(
        self,
        source: Any,
        rank: Optional[int] = None,
        *,
        epoch: int = 0,
        process_group: Any = None,
    ) -> None:
        super().__init__(None)
        num_ranks = getattr(source, "num_ranks", None)
        if rank is None:
            rank, size = data_parallel_rank(None, None, process_group)
            distributed = torch.distributed.is_available() and torch.distributed.is_initialized()
            if distributed and num_ranks is not None and size != num_ranks:
                raise ValueError(
                    f"the source plans for {num_ranks} data-parallel ranks but the "
                    f"{'process group' if process_group is not None else 'torch.distributed world'}"
                    f" has {size}: pass rank= (the data-parallel rank) or process_group= (the "
                    "data-parallel group) so that tensor/pipeline-parallel peers get the same data"
                )
        if rank < 0 or (num_ranks is not None and rank >= num_ranks):
            raise ValueError(f"rank = {rank} is out of range: the source has {num_ranks} ranks")
        self.source = source
        self.rank = int(rank)
        self._epoch = int(epoch)
        self._start = 0  # batches of this epoch to skip on the next iteration
        self._produced = 0  # batches of this epoch produced so far

    def __len__(self) -> int:
        """Microbatches this rank gets per epoch. Every rank gets exactly
        accumulation_steps per step, so gradient accumulation and DDP stay in
        lockstep; a microbatch a step plan leaves empty is yielded as an empty
        list (give the DataLoader a collate_fn that accepts one)."""
        return self.source.steps_per_epoch * self.source.accumulation_steps

    def set_epoch(self, epoch: int) -> None:
        """Starts epoch `epoch` from its beginning on the next iteration."""
        self._epoch = int(epoch)
        self._start = 0
        self._produced = 0

    def __iter__(self) -> Iterator[List[int]]:
        per_step = self.source.accumulation_steps
        start, self._start = self._start, 0
        self._produced = start
        for step in range(start // per_step, self.source.steps_per_epoch):
            batches = self.source.rank_batches(self._epoch, step, self.rank)
            for k, batch in enumerate(batches):
                if step * per_step + k < start:
                    continue
                self._produced += 1
                yield batch

    def state_dict(self) -> Dict[str, int]:
        """{"epoch", "batches"}: the batches of the epoch produced so far."""
        return {"epoch": self._epoch, "batches": self._produced}

    def state_at(self, batches_consumed: int) -> Dict[str, int]:
        """The state after `batches_consumed` batches of the current epoch
        (for a DataLoader whose workers run ahead of the training loop)."""
        return {"epoch": self._epoch, "batches": int(batches_consumed)}

    def load_state_dict(self, state: Dict[str, int]) -> None:
        """The next iteration resumes epoch state["epoch"] after
        state["batches"] batches."""
        batches = int(state["batches"])
        if not 0 <= batches <= len(self):
            raise ValueError(f"batches = {batches} is out of range: an epoch has {len(self)}")
        self._epoch = int(state["epoch"])
        self._start = batches
        self._produced = batches
