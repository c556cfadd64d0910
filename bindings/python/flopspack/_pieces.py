"""Piece offsets: where in its document each entry of a plan starts.

A plan lists, per group, the items it holds and the tokens each contributes;
a document split into pieces appears once per piece. The offset of a piece
is not stored in the plan today, so it is derived here by the convention the
library's planners follow (and a future C accessor will return): the pieces
of one item are numbered in plan order — group-major (group 0 first), entry
order within a group — the first starting at offset 0 and each next one
where the previous ended. For the stateful step planner a document's pieces
in successive steps continue the same running offset per push id, which is
what ``start`` carries.

Cost: O(entries) numpy work plus a sort of the entries of split items only
(an item that appears once needs no sort), so a plan of a million whole
documents costs a bincount and two gathers. This is the one place that
computes offsets; switch it to the C accessor when that exists.
"""

from __future__ import annotations

from typing import Optional

import numpy as np


def piece_offsets(
    items: np.ndarray, tokens: np.ndarray, start: Optional[np.ndarray] = None
) -> np.ndarray:
    """Offsets (int64, one per entry) of the pieces ``items[k]`` /
    ``tokens[k]`` given in plan order. ``start[i]``, if given, is where item
    i's first piece here begins (tokens of it already yielded earlier); it
    must cover every item index."""
    items = np.asarray(items, dtype=np.int64)
    tokens = np.asarray(tokens, dtype=np.int64)
    n = items.shape[0]
    if start is None:
        out = np.zeros(n, dtype=np.int64)
    else:
        out = np.asarray(start, dtype=np.int64)[items]
    if n < 2:
        return out
    if int(items.min()) < 0:
        raise ValueError(f"items hold a negative index {int(items.min())}")
    hi = int(items.max())
    if hi < 4 * n + 1024:
        # Dense ids (the usual case): count occurrences without a sort; the
        # gather reads a byte mask (cache-friendly) rather than the counts.
        repeated = (np.bincount(items, minlength=hi + 1) > 1)[items]
    else:
        # Sparse ids: a sort of all entries finds the repeated ones.
        _, inverse, counts = np.unique(items, return_inverse=True, return_counts=True)
        repeated = counts[inverse] > 1
    where = np.flatnonzero(repeated)
    if where.size == 0:
        return out
    # Entries of split items only: a stable sort by item keeps plan order
    # within an item; an exclusive running sum per item gives the offsets.
    sub = items[where]
    order = np.argsort(sub, kind="stable")
    sorted_items = sub[order]
    sorted_tokens = tokens[where][order]
    running = np.cumsum(sorted_tokens) - sorted_tokens  # exclusive, across items
    first = np.ones(sorted_items.shape[0], dtype=bool)
    first[1:] = sorted_items[1:] != sorted_items[:-1]
    run_start = np.maximum.accumulate(np.where(first, np.arange(first.shape[0]), 0))
    within = running - running[run_start]
    out[where[order]] += within
    return out
