"""Packing documents into fixed-capacity sequences and balancing items with
costs over groups (docs/algorithms.md)."""

from __future__ import annotations

import enum
from typing import Any, Optional

import numpy as np

from . import _arrays, _validate
from . import capi as _capi
from ._cost import CostModel
from ._errors import InvalidArgumentError
from ._plan import Plan
from ._stream import Overflow


class PackAlgorithm(enum.IntEnum):
    """How :func:`pack` places documents."""

    BEST_FIT_DECREASING = _capi.FLOPSPACK_PACK_BEST_FIT_DECREASING  # default
    FIRST_FIT_DECREASING = _capi.FLOPSPACK_PACK_FIRST_FIT_DECREASING
    NEXT_FIT = _capi.FLOPSPACK_PACK_NEXT_FIT  # concatenate in input order
    SHUFFLED_FIRST_FIT = _capi.FLOPSPACK_PACK_SHUFFLED_FIRST_FIT  # seeded random order


class BalanceAlgorithm(enum.IntEnum):
    """How :func:`balance` assigns items to groups."""

    AUTO = _capi.FLOPSPACK_BALANCE_AUTO  # by shape (default)
    GREEDY = _capi.FLOPSPACK_BALANCE_GREEDY  # input order, cheapest group (baseline)
    LPT = _capi.FLOPSPACK_BALANCE_LPT
    KARMARKAR_KARP = _capi.FLOPSPACK_BALANCE_KARMARKAR_KARP


def pack(
    lengths: Any,
    capacity: int,
    *,
    algorithm: PackAlgorithm = PackAlgorithm.BEST_FIT_DECREASING,
    overflow: Overflow = Overflow.ERROR,
    seed: int = 0,
    model: Optional[CostModel] = None,
    extra_costs: Any = None,
) -> Plan:
    """Packs documents into sequences of `capacity` tokens. Group g is a
    sequence: document indices in placement order with the tokens each
    contributes (a split document appears in several). model None = cost is
    tokens. extra_costs (one finite, non-negative float per document, or
    None) adds each document's own cost to its sequence's cost, a split or
    truncated document's pieces carrying it by tokens; placement is by
    tokens, unchanged (flopspack_pack_with_extra_costs)."""
    o = _capi.flopspack_pack_options()  # library defaults
    o.capacity = _validate.int64(capacity, "capacity")
    o.algorithm = _validate.choice(algorithm, PackAlgorithm, "algorithm")
    o.overflow = _validate.choice(overflow, Overflow, "overflow")
    o.seed = _validate.uint64(seed, "seed")
    array = _arrays.lengths(lengths)
    h = _validate.handle(model, CostModel, "model", allow_none=True)
    if extra_costs is None:
        return Plan(_capi.flopspack_swig_pack(o, h, array))
    extra = _arrays.floats(extra_costs, "extra_costs")
    if extra.size != array.size:
        raise InvalidArgumentError(
            f"extra_costs has {extra.size} entries for {array.size} lengths"
        )
    return Plan(_capi.flopspack_swig_pack_with_extra_costs(o, h, array, extra))


def balance(
    costs: Any,
    num_groups: int,
    *,
    tokens: Any = None,
    algorithm: BalanceAlgorithm = BalanceAlgorithm.AUTO,
    equal_count: bool = False,
    refine: bool = True,
    max_tokens_per_group: int = 0,
    max_refine_steps: int = 0,
    seed: int = 0,
) -> Plan:
    """Splits items with costs (and optional token counts) into num_groups
    groups minimising the costliest; with max_tokens_per_group no group
    exceeds the cap (InfeasibleError when none is found)."""
    o = _capi.flopspack_balance_options()  # library defaults
    o.num_groups = _validate.int64(num_groups, "num_groups")
    o.algorithm = _validate.choice(algorithm, BalanceAlgorithm, "algorithm")
    o.equal_count = _validate.flag(equal_count, "equal_count")
    o.refine = _validate.flag(refine, "refine")
    o.max_tokens_per_group = _validate.int64(max_tokens_per_group, "max_tokens_per_group")
    o.max_refine_steps = _validate.int64(max_refine_steps, "max_refine_steps")
    o.seed = _validate.uint64(seed, "seed")
    token_counts = (
        np.zeros(0, dtype=np.int64) if tokens is None else _arrays.lengths(tokens, "tokens")
    )
    return Plan(
        _capi.flopspack_swig_balance(o, _arrays.floats(costs, "costs"), token_counts)
    )
