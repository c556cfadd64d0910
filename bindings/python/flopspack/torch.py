"""PyTorch integration: a batch sampler that yields this rank's microbatches
of dataset indices, step by step, from a flopspack step source: the step
planner (:class:`flopspack.PlannedEpochs`, cost-balanced packed microbatches
under a token cap) or the bucket sampler (:class:`flopspack.BucketSampler`,
padded batches).

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

from ._torch_calibrate import CalibrationReport, calibrate  # noqa: F401  (docs/cost-models.md)


class FlopspackBatchSampler(torch.utils.data.Sampler):
    """Yields lists of dataset indices: for each optimizer step of the epoch,
    this rank's accumulation_steps microbatches in slot order.

    ``source`` needs ``num_ranks``, ``steps_per_epoch``,
    ``accumulation_steps`` (microbatches per rank per step) and
    ``rank_batches(epoch, step, rank)`` -> that rank's microbatches of the
    step as lists of dataset indices, in slot order. ``rank`` defaults to
    torch.distributed's rank when initialised, else 0.
    """

    def __init__(self, source: Any, rank: Optional[int] = None, *, epoch: int = 0) -> None:
        super().__init__(None)
        if rank is None:
            ready = torch.distributed.is_available() and torch.distributed.is_initialized()
            rank = torch.distributed.get_rank() if ready else 0
        num_ranks = getattr(source, "num_ranks", None)
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
