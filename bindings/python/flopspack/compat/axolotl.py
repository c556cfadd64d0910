"""axolotl's ``MultipackBatchSampler`` (axolotl/utils/samplers/multipack.py)
as a drop-in: the same constructor arguments and the same batches' shape —
each batch a list of ``batch_size`` bins, each bin a list of dataset indices
whose lengths sum to at most ``batch_max_len`` and of at most ``bin_size``
indices — with ``set_epoch``, ``generate_batches``, ``efficiency``,
``gather_efficiency``, ``gather_len_batches`` and ``__len__``.

What differs, by design:
- Bins are packed by flopspack's best-fit decreasing (one C call, no
  process pool) — at least as full as axolotl's first-fit decreasing — or,
  with ``sequential=True``, next-fit in the sampler's order, as axolotl.
- Bins are grouped into batches so that every batch costs about the same
  (``cost_model``, default tokens): in data parallelism every rank's batch
  of a step must finish before the optimizer steps, so even batches on
  every rank mean fewer stragglers. axolotl takes bins in packing order.
- Nothing is lost silently: a sequence longer than ``batch_max_len`` is an
  error naming its dataset index (axolotl would fail or drop it deep in the
  packer); the samples of an incomplete last batch dropped by ``drop_last``
  and of batches cut to match other ranks' count are counted in
  ``dropped_samples`` / ``dropped_tokens`` and logged.

    from flopspack.compat.axolotl import MultipackBatchSampler
"""

from __future__ import annotations

import logging
import math
from typing import Any, Iterable, Iterator, List, Optional, Union

import numpy as np
import torch.distributed
from torch.utils.data import BatchSampler, Sampler

from .._cost import CostModel
from .._pack import PackAlgorithm, balance, pack

LOG = logging.getLogger(__name__)


class MultipackBatchSampler(BatchSampler):
    """Packs the sampler's indices into bins of at most batch_max_len
    tokens and yields batches of batch_size bins (see the module note)."""

    def __init__(
        self,
        sampler: Union[Sampler, Iterable[int]],
        batch_size: int,
        batch_max_len: int,
        lengths: Any,
        bin_size: int = 200,
        packing_efficiency_estimate: float = 1.0,
        drop_last: bool = True,
        num_count_samples: int = 4,
        sequential: bool = False,
        group_size: int = 100_000,
        num_processes: Optional[int] = None,
        safe_mode: bool = True,
        mp_start_method: str = "fork",
        *,
        cost_model: Optional[CostModel] = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(sampler, batch_size, drop_last)
        if batch_size < 1 or batch_max_len < 1 or (bin_size is not None and bin_size < 1):
            raise ValueError(
                f"batch_size = {batch_size}, batch_max_len = {batch_max_len}, bin_size = "
                f"{bin_size}: each must be at least 1"
            )
        self.batch_size = int(batch_size)
        self.batch_max_len = int(batch_max_len)
        self.lengths = np.asarray(lengths, dtype=np.int64)
        self.bin_size = int(bin_size) if bin_size else self.batch_max_len
        self.packing_efficiency_estimate = packing_efficiency_estimate or 1.0
        self.sequential = bool(sequential)
        # Accepted for compatibility; flopspack packs in one C call.
        self.num_count_samples = num_count_samples
        self.group_size = group_size
        self.num_processes = num_processes
        self.safe_mode = safe_mode
        self.mp_start_method = mp_start_method
        self.cost_model = cost_model
        self.epoch = 0
        self.total_tokens_used = 0
        self.total_token_slots = 0
        self.dropped_samples = 0
        self.dropped_tokens = 0
        self._batches: Optional[List[List[List[int]]]] = None
        self._stats = (0, 0)  # (tokens, token slots) of the current batches
        self._stats_counted = False
        self._len_across_ranks: Optional[int] = None

    def set_epoch(self, epoch: int) -> None:
        """Sets the epoch (and the wrapped sampler's, if it has one)."""
        self.epoch = int(epoch)
        if hasattr(self.sampler, "set_epoch"):
            self.sampler.set_epoch(epoch)
        self._batches = None

    def _bins(self, indices: np.ndarray) -> List[np.ndarray]:
        lengths = self.lengths[indices]
        over = np.flatnonzero(lengths > self.batch_max_len)
        if over.size:
            i = int(indices[over[0]])
            raise ValueError(
                f"lengths[{i}] = {int(self.lengths[i])} exceeds batch_max_len = "
                f"{self.batch_max_len} ({over.size} sequences do): truncate or drop them upstream"
            )
        bad = np.flatnonzero(lengths < 1)
        if bad.size:
            i = int(indices[bad[0]])
            raise ValueError(f"lengths[{i}] = {int(self.lengths[i])}: must be at least 1")
        algorithm = PackAlgorithm.NEXT_FIT if self.sequential else PackAlgorithm.BEST_FIT_DECREASING
        with pack(lengths, self.batch_max_len, algorithm=algorithm) as plan:
            a = plan.arrays()
        bins = []
        for g in range(len(a.offsets) - 1):
            members = indices[a.items[a.offsets[g]: a.offsets[g + 1]]]
            # bin_size caps the samples per bin: split an overfull bin
            # (each part stays within the token cap).
            for lo in range(0, members.shape[0], self.bin_size):
                bins.append(members[lo: lo + self.bin_size])
        return bins

    def generate_batches(self, set_stats: bool = False) -> List[List[List[int]]]:
        """The epoch's batches: lists of batch_size bins of dataset indices."""
        if self._batches is not None:
            if set_stats and not self._stats_counted:
                self.total_tokens_used += self._stats[0]
                self.total_token_slots += self._stats[1]
                self._stats_counted = True
            return self._batches
        indices = np.fromiter((int(i) for i in self.sampler), dtype=np.int64)
        bins = self._bins(indices) if indices.size else []
        tokens = [int(self.lengths[b].sum()) for b in bins]
        if self.cost_model is None:
            costs = np.asarray(tokens, dtype=np.float64)
        else:
            costs = np.array([self.cost_model.sequence_cost(self.lengths[b]) for b in bins])
        full, rest = divmod(len(bins), self.batch_size)
        if self.sequential or full == 0:
            order = list(range(len(bins)))
            groups = [order[i: i + self.batch_size] for i in range(0, len(order), self.batch_size)]
        else:
            # The `rest` cheapest bins make the incomplete last batch (what
            # drop_last drops is then as little as possible); the others are
            # balanced into `full` batches of exactly batch_size bins.
            by_cost = sorted(range(len(bins)), key=lambda b: (-costs[b], b))
            main, tail = by_cost[: full * self.batch_size], by_cost[full * self.batch_size:]
            with balance(costs[main], full, equal_count=True) as plan:
                a = plan.arrays()
            groups = [[main[j] for j in a.items[a.offsets[g]: a.offsets[g + 1]]]
                      for g in range(full)]
            if tail:
                groups.append(tail)
        batches = [[bins[b].tolist() for b in group] for group in groups]
        used = int(sum(tokens))
        slots = len(bins) * self.batch_max_len
        if self.drop_last and batches and len(batches[-1]) < self.batch_size:
            last = batches.pop()
            self._count_dropped([last], "drop_last: the incomplete last batch")
            used -= sum(int(self.lengths[b].sum()) for b in last)
            slots -= len(last) * self.batch_max_len
        self._batches = batches
        self._stats = (used, slots)
        self._stats_counted = False
        return self.generate_batches(set_stats)

    def _count_dropped(self, batches: List[List[List[int]]], why: str) -> None:
        flat = [i for batch in batches for b in batch for i in b]
        tokens = int(self.lengths[flat].sum()) if flat else 0
        self.dropped_samples += len(flat)
        self.dropped_tokens += tokens
        if flat:
            LOG.warning("%s: %d samples (%d tokens) not trained this epoch", why, len(flat), tokens)

    def __iter__(self) -> Iterator[List[List[int]]]:
        batches = self.generate_batches(set_stats=True)
        if self._len_across_ranks is not None and len(batches) > self._len_across_ranks:
            self._count_dropped(batches[self._len_across_ranks:], "matching other ranks' count")
            batches = batches[: self._len_across_ranks]
        return iter(batches)

    def efficiency(self) -> float:
        """Tokens used / token slots of the bins (1.0 = no padding)."""
        if self.total_token_slots == 0:
            self.generate_batches(set_stats=True)
        if self.total_token_slots == 0:
            return 0.0
        return float(self.total_tokens_used / self.total_token_slots)

    def gather_efficiency(self) -> float:
        """The efficiency agreed by all ranks: the lowest, rounded down to
        0.5% (every rank then estimates the same step count)."""
        eff = self.efficiency()
        if _distributed():
            t = torch.tensor([eff], dtype=torch.float64)
            torch.distributed.all_reduce(t, op=torch.distributed.ReduceOp.MIN)
            eff = float(t[0])
        return math.floor(eff * 200.0) / 200.0

    def gather_len_batches(self, num: int) -> int:
        """The fewest batches any rank has (ranks must step together)."""
        if not _distributed():
            return int(num)
        t = torch.tensor([int(num)], dtype=torch.int64)
        torch.distributed.all_reduce(t, op=torch.distributed.ReduceOp.MIN)
        return int(t[0])

    def __len__(self) -> int:
        """Batches per epoch, the same on every rank (the minimum over
        ranks under torch.distributed)."""
        if self._len_across_ranks is None:
            self._len_across_ranks = self.gather_len_batches(len(self.generate_batches()))
        return self._len_across_ranks


def _distributed() -> bool:
    return torch.distributed.is_available() and torch.distributed.is_initialized()
