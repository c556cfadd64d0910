"""verl's ``get_seqlen_balanced_partitions`` (verl/utils/seqlen_balancing.py)
as a drop-in: the same arguments and return value — ``k_partitions`` lists
of sorted item indices, every index in exactly one, none empty, each of
``len(seqlen_list) // k_partitions`` items when ``equal_size`` — computed by
flopspack's Karmarkar–Karp (in C, then a local search that never makes the
largest partition larger; docs/algorithms.md) instead of verl's pure-Python
one. With
``cost_model`` it balances what the items cost (attention grows with the
square of the length) rather than their token counts.

    from flopspack.compat.verl import get_seqlen_balanced_partitions
"""

from __future__ import annotations

from typing import Any, List, Optional

import numpy as np

from .._cost import CostModel
from .._pack import BalanceAlgorithm, balance


def get_seqlen_balanced_partitions(
    seqlen_list: Any,
    k_partitions: int,
    equal_size: bool,
    *,
    cost_model: Optional[CostModel] = None,
) -> List[List[int]]:
    """Partitions item indices into k_partitions groups whose summed
    sequence lengths (or costs under `cost_model`) are balanced. Raises
    ValueError where verl asserts: fewer items than partitions, or
    equal_size with a count not divisible by k_partitions."""
    lengths = np.asarray(seqlen_list)
    k = int(k_partitions)
    n = lengths.shape[0] if lengths.ndim == 1 else -1
    if lengths.ndim != 1 or (n and lengths.dtype.kind not in "iuf"):
        raise ValueError("seqlen_list must be a flat list of sequence lengths")
    if k < 1:
        raise ValueError(f"k_partitions = {k}: must be at least 1")
    if n < k:
        raise ValueError(f"number of items [{n}] < k_partitions [{k}]")
    if equal_size and n % k:
        raise ValueError(f"equal_size needs len(seqlen_list) = {n} divisible by k_partitions = {k}")
    if n and lengths.min() < 0:
        raise ValueError(f"seqlen_list[{int(np.argmin(lengths))}] is negative")
    if cost_model is None:
        costs = lengths.astype(np.float64)
    else:
        costs = cost_model.document_costs(lengths.astype(np.int64))
    # Karmarkar-Karp, as verl documents (AUTO may choose LPT, which is a few
    # tokens worse on verl-sized inputs), then flopspack's local search.
    with balance(costs, k, algorithm=BalanceAlgorithm.KARMARKAR_KARP,
                 equal_count=bool(equal_size)) as plan:
        a = plan.arrays()
    groups = [sorted(a.items[a.offsets[g]: a.offsets[g + 1]].tolist()) for g in range(k)]
    _fill_empty(groups, costs)
    return groups


def _fill_empty(groups: List[List[int]], costs: np.ndarray) -> None:
    """verl never returns an empty partition; a balancer may (zero-cost
    items). Each empty group takes the cheapest item (ties by index) of the
    group with the most items, which moves no cost when costs are zero."""
    for g, group in enumerate(groups):
        if group:
            continue
        donor = max(range(len(groups)), key=lambda d: (len(groups[d]), -d))
        item = min(groups[donor], key=lambda i: (costs[i], i))
        groups[donor].remove(item)
        group.append(item)
