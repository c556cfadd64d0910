"""Plans: the result of packing, balancing, step planning and bucketing."""

from __future__ import annotations

import dataclasses
from typing import Any, Iterator, NamedTuple, Optional, Tuple

import numpy as np

from . import _validate
from . import capi as _capi
from ._errors import InvalidArgumentError
from ._handle import Handle


@dataclasses.dataclass(frozen=True)
class PlanMetrics:
    """struct flopspack_plan_metrics: the quality figures of a plan. A field
    that does not apply to the plan's kind is 0 (see the C header)."""

    num_groups: int
    num_items: int
    max_group_cost: float
    mean_group_cost: float
    min_group_cost: float
    total_cost: float
    balance_efficiency: float
    lower_bound: float
    gap_to_lower_bound: float
    real_tokens: int
    computed_tokens: int
    capacity: int
    fill: float
    padding_efficiency: float
    num_ranks: int
    microbatches_per_rank: int
    max_rank_cost: float
    mean_rank_cost: float
    rank_balance_efficiency: float
    rank_lower_bound: float
    rank_gap_to_lower_bound: float
    worst_slot_balance: float
    split_items: int
    truncated_items: int
    deferred_items: int
    dropped_items: int
    truncated_tokens: int
    deferred_tokens: int
    dropped_tokens: int
    num_steps: int
    diversity_distance: float
    diversity_distance_samples: float
    #: Which algorithm made a step plan (C enum flopspack_planned_by): 0 none
    #: (not a step plan, or a step algorithm without fallbacks), 1 the
    #: document-level planner, 2 its fallback the cut to the share, 3 its
    #: fallback the token-balanced planner.
    planned_by: int
    #: Microbatch-synchronous (FSDP / ZeRO-3) step: sum over slots of the
    #: mean rank cost / sum over slots of the slowest rank's cost.
    microbatch_sync_efficiency: float
    mean_slot_balance: float
    microbatch_sync_cost: float
    microbatch_sync_lower_bound: float
    microbatch_sync_gap_to_lower_bound: float
    #: With pipeline_stages >= 2 (else 0): the 1F1B makespan of the slowest
    #: replica, mean rank cost / stages / makespan, a lower bound and the gap.
    pipeline_makespan: float
    pipeline_efficiency: float
    pipeline_lower_bound: float
    pipeline_gap_to_lower_bound: float

    def __repr__(self) -> str:
        # Only the figures that apply (non-zero), floats to 6 digits.
        parts = []
        for field in dataclasses.fields(self):
            value = getattr(self, field.name)
            if value:
                text = f"{value:.6g}" if isinstance(value, float) else str(value)
                parts.append(f"{field.name}={text}")
        return f"PlanMetrics({', '.join(parts)})"

    @classmethod
    def _from_c(cls, c: Any) -> "PlanMetrics":
        return cls(**{f.name: getattr(c, f.name) for f in dataclasses.fields(cls)})


class Group(NamedTuple):
    """One group of a plan: the items it holds (indices into the input), the
    tokens each contributes, and the group's summary. rank and slot are None
    for plans without ranks. ``offsets[k]`` is where the piece of
    ``items[k]`` starts in its item (see :meth:`Plan.offsets`)."""

    items: np.ndarray
    tokens: np.ndarray
    real_tokens: int
    computed_tokens: int
    cost: float
    rank: Optional[int]
    slot: Optional[int]
    offsets: Optional[np.ndarray] = None


class PlanArrays(NamedTuple):
    """A whole plan as flat numpy arrays (CSR): group g holds entries
    ``offsets[g]:offsets[g+1]`` of ``items``, ``piece_offsets`` and
    ``tokens`` — entry k is the piece of item ``items[k]`` that starts at
    token ``piece_offsets[k]`` and is ``tokens[k]`` long (a whole document is
    one piece at offset 0). ``ranks`` and ``slots`` say where each group
    runs (None for plans without ranks); ``real_tokens``,
    ``computed_tokens`` and ``costs`` summarise each group."""

    offsets: np.ndarray
    items: np.ndarray
    piece_offsets: np.ndarray
    tokens: np.ndarray
    ranks: Optional[np.ndarray]
    slots: Optional[np.ndarray]
    real_tokens: np.ndarray
    computed_tokens: np.ndarray
    costs: np.ndarray


class Plan(Handle):
    """An immutable plan (flopspack_plan): a list of groups of input items,
    with metrics. Arrays returned are copies owned by numpy (valid after
    close()). Iterating yields :class:`Group` values."""

    __slots__ = ("_has_slots",)

    def __init__(self, handle: Any) -> None:
        super().__init__(handle)
        self._has_slots: Optional[bool] = None

    def __len__(self) -> int:
        return _capi.flopspack_plan_group_count(self._handle)

    @property
    def num_groups(self) -> int:
        return len(self)

    def _group_index(self, h: Any, group: Any) -> int:
        """group as an index in [0, groups); negative counts from the end."""
        if type(group) is int and 0 <= group <= _validate.SIZE[1]:
            return group  # the common case, in loops: the library checks the bound
        return _validate.index(group, _capi.flopspack_plan_group_count(h), "group", "groups")

    def items(self, group: int) -> np.ndarray:
        """Item indices (into the input arrays) of one group."""
        h = self._handle
        return _capi.flopspack_swig_plan_group_items(h, self._group_index(h, group))

    def tokens(self, group: int) -> np.ndarray:
        """Tokens each item of the group contributes to it."""
        h = self._handle
        return _capi.flopspack_swig_plan_group_tokens(h, self._group_index(h, group))

    def offsets(self, group: int) -> np.ndarray:
        """Where each entry's piece starts in its item
        (flopspack_plan_group_offsets): entry k of the group is tokens
        ``offsets[k] : offsets[k] + tokens[k]`` of item ``items[k]``. A whole
        or truncated item is one piece at 0; the pieces of a split item tile
        [0, its length) exactly (for the stream packer, over the plans its
        pieces come in)."""
        h = self._handle
        return _capi.flopspack_swig_plan_group_offsets(h, self._group_index(h, group))

    def info(self, group: int) -> Tuple[int, int, float]:
        """(real_tokens, computed_tokens, cost) of one group."""
        h = self._handle
        return tuple(_capi.flopspack_plan_group_info(h, self._group_index(h, group)))

    def slot(self, group: int) -> Tuple[int, int]:
        """(rank, microbatch) of a group of a plan with ranks; raises
        InvalidArgumentError for plans without ranks."""
        h = self._handle
        return tuple(_capi.flopspack_plan_group_slot(h, self._group_index(h, group)))

    @property
    def has_slots(self) -> bool:
        """True if the groups carry a rank and slot (step / sampler plans)."""
        if self._has_slots is None:
            if len(self) == 0:
                return False
            try:
                self.slot(0)
                self._has_slots = True
            except InvalidArgumentError:
                self._has_slots = False
        return self._has_slots

    def group(self, group: int) -> Group:
        h = self._handle
        group = self._group_index(h, group)
        real, computed, cost = _capi.flopspack_plan_group_info(h, group)
        rank = slot = None
        if self.has_slots:
            rank, slot = _capi.flopspack_plan_group_slot(h, group)
        return Group(
            self.items(group), self.tokens(group), real, computed, cost, rank, slot,
            self.offsets(group),
        )

    def __getitem__(self, group: int) -> Group:
        return self.group(group)

    def __iter__(self) -> Iterator[Group]:
        for g in range(len(self)):
            yield self.group(g)

    def arrays(self, piece_start: Optional[np.ndarray] = None) -> PlanArrays:
        """Every group at once as numpy arrays (one C call fills them; no
        per-group Python work). ``piece_offsets`` are the library's
        (flopspack_plan_group_offsets); ``piece_start[i]``, if given, is
        added to those of item i (for items that are themselves pieces of a
        longer document, such as the torch sampler's chunks)."""
        h = self._handle
        groups, entries, has_slots = _capi.flopspack_swig_plan_csr_size(h)
        offsets = np.empty(groups + 1, dtype=np.int64)
        items = np.empty(entries, dtype=np.int64)
        tokens = np.empty(entries, dtype=np.int64)
        per_slot = groups if has_slots else 0
        ranks = np.empty(per_slot, dtype=np.int64)
        slots = np.empty(per_slot, dtype=np.int64)
        real = np.empty(groups, dtype=np.int64)
        computed = np.empty(groups, dtype=np.int64)
        costs = np.empty(groups, dtype=np.float64)
        _capi.flopspack_swig_plan_csr(h, offsets, items, tokens, ranks, slots, real, computed, costs)
        pieces = np.empty(entries, dtype=np.int64)
        _capi.flopspack_swig_plan_piece_offsets(h, pieces)
        if piece_start is not None:
            pieces += np.asarray(piece_start, dtype=np.int64)[items]
        self._has_slots = bool(has_slots) if groups else False
        return PlanArrays(
            offsets, items, pieces, tokens,
            ranks if has_slots else None, slots if has_slots else None, real, computed, costs,
        )

    def to_csr(self) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(offsets, items, tokens): group g holds items[offsets[g]:offsets[g+1]].
        :meth:`arrays` gives piece offsets, ranks and slots too."""
        a = self.arrays()
        return a.offsets, a.items, a.tokens

    @property
    def deferred(self) -> np.ndarray:
        """Items kept for a later step."""
        return _capi.flopspack_swig_plan_deferred(self._handle)

    @property
    def dropped(self) -> np.ndarray:
        """Items dropped (drop-last, rejected)."""
        return _capi.flopspack_swig_plan_dropped(self._handle)

    @property
    def metrics(self) -> PlanMetrics:
        return PlanMetrics._from_c(_capi.flopspack_swig_plan_metrics(self._handle))

    def __repr__(self) -> str:
        if self.closed:
            return "<flopspack.Plan closed>"
        m = self.metrics
        text = f"<flopspack.Plan groups={m.num_groups} items={m.num_items}"
        text += f" balance={m.balance_efficiency:.4f}"
        if m.capacity:
            text += f" fill={m.fill:.4f}"
        if m.num_ranks:
            text += f" ranks={m.num_ranks}x{m.microbatches_per_rank}"
            text += f" rank_balance={m.rank_balance_efficiency:.4f}"
        return text + ">"
