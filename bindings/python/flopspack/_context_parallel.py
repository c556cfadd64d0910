"""Context parallelism: each packed sequence of a plan shared by a CP group
(docs/context-parallel.md)."""

from __future__ import annotations

import dataclasses
import enum
from typing import Any, NamedTuple, Tuple

import numpy as np

from . import _validate
from . import capi as _capi
from ._cost import CostModel
from ._handle import Handle
from ._plan import Plan


class CpLayout(enum.IntEnum):
    """How a packed sequence is cut over the CP ranks (flopspack_cp_layout)."""

    #: 2C equal chunks of the packed sequence; CP rank i takes i and 2C-1-i.
    SEQUENCE_HEAD_TAIL = _capi.FLOPSPACK_CP_SEQUENCE_HEAD_TAIL
    #: 2C chunks of every document; CP rank i takes i and 2C-1-i of each.
    DOCUMENT_HEAD_TAIL = _capi.FLOPSPACK_CP_DOCUMENT_HEAD_TAIL
    #: Per sequence, whichever gives the lower maximum CP-rank cost.
    ADAPTIVE = _capi.FLOPSPACK_CP_ADAPTIVE


@dataclasses.dataclass(frozen=True)
class CpMetrics:
    """flopspack_cp_metrics: the figures of a context-parallel shard."""

    context_parallel_size: int
    num_groups: int
    num_chunks: int
    #: Σ over groups of the mean CP-rank cost ÷ Σ of the max.
    balance_efficiency: float
    #: min over groups of mean ÷ max CP-rank cost.
    worst_balance: float
    max_cp_rank_cost: float
    mean_cp_rank_cost: float
    #: key/value tokens the CP ranks receive, all groups.
    kv_tokens: int
    sequence_layout_groups: int
    document_layout_groups: int

    @classmethod
    def _from_c(cls, c: Any) -> "CpMetrics":
        return cls(**{f.name: getattr(c, f.name) for f in dataclasses.fields(cls)})


class CpChunks(NamedTuple):
    """The chunks of one CP rank in one group: chunk k is tokens
    ``offsets[k] : offsets[k] + lengths[k]`` of item ``items[k]``."""

    items: np.ndarray
    offsets: np.ndarray
    lengths: np.ndarray


class ContextParallelShard(Handle):
    """The chunks and costs of every (group, CP rank) of a plan
    (flopspack_cp_shard). Made by :func:`shard_context_parallel`."""

    __slots__ = ("_size",)

    def __init__(self, handle: Any, size: int) -> None:
        super().__init__(handle)
        self._size = size

    def __len__(self) -> int:
        return _capi.flopspack_cp_shard_group_count(self._handle)

    @property
    def context_parallel_size(self) -> int:
        return self._size

    def _index(self, h: Any, group: Any, cp_rank: Any) -> Tuple[int, int]:
        g = _validate.index(group, _capi.flopspack_cp_shard_group_count(h), "group", "groups")
        r = _validate.index(cp_rank, self._size, "cp_rank", "CP ranks")
        return g, r

    def chunks(self, group: int, cp_rank: int) -> CpChunks:
        """The chunks of CP rank ``cp_rank`` in ``group``, in its layout order."""
        h = self._handle
        g, r = self._index(h, group, cp_rank)
        return CpChunks(
            _capi.flopspack_swig_cp_shard_chunk_items(h, g, r),
            _capi.flopspack_swig_cp_shard_chunk_offsets(h, g, r),
            _capi.flopspack_swig_cp_shard_chunk_lengths(h, g, r),
        )

    def rank_cost(self, group: int, cp_rank: int) -> Tuple[float, int]:
        """(cost, key/value tokens received) of one CP rank of one group."""
        h = self._handle
        g, r = self._index(h, group, cp_rank)
        return tuple(_capi.flopspack_cp_shard_rank_cost(h, g, r))

    def costs(self, group: int) -> np.ndarray:
        """The cost of each CP rank of one group (length context_parallel_size)."""
        return np.array([self.rank_cost(group, r)[0] for r in range(self._size)], dtype=np.float64)

    def layout(self, group: int) -> Tuple[CpLayout, float]:
        """(the layout the group was cut with, its CP-rank balance)."""
        h = self._handle
        g = _validate.index(group, _capi.flopspack_cp_shard_group_count(h), "group", "groups")
        layout, balance = _capi.flopspack_cp_shard_group_layout(h, g)
        return CpLayout(layout), balance

    @property
    def metrics(self) -> CpMetrics:
        return CpMetrics._from_c(_capi.flopspack_cp_shard_metrics(self._handle))

    def __repr__(self) -> str:
        if self.closed:
            return "<flopspack.ContextParallelShard closed>"
        m = self.metrics
        return (f"<flopspack.ContextParallelShard groups={m.num_groups} cp={m.context_parallel_size}"
                f" balance={m.balance_efficiency:.4f} worst={m.worst_balance:.4f}>")


def shard_context_parallel(
    plan: Plan,
    model: CostModel,
    context_parallel_size: int,
    layout: CpLayout = CpLayout.ADAPTIVE,
) -> ContextParallelShard:
    """Cuts every group of ``plan`` over ``context_parallel_size`` CP ranks
    (1 .. 65536) and costs each CP rank exactly for causal attention within
    documents (flopspack_plan_shard_context_parallel). ``model`` must be
    additive (not a custom model, not attention across the sequence)."""
    plan = _validate.handle(plan, Plan, "plan")
    model = _validate.handle(model, CostModel, "model")
    size = _validate.uint64(context_parallel_size, "context_parallel_size")
    code = _validate.choice(layout, CpLayout, "layout")
    handle = _capi.flopspack_plan_shard_context_parallel(plan, model, size, code)
    return ContextParallelShard(handle, size)
