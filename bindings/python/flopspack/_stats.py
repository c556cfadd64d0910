"""Statistics of a dataset's document lengths (docs/statistics.md):
quantiles, CDFs, histograms, tail shares, the expected maximum of N draws,
KS distances and comparisons, mergeable across shards."""

from __future__ import annotations

import dataclasses
import enum
from typing import Any, Optional, Tuple

import numpy as np

from . import _arrays, _validate
from . import capi as _capi
from ._cost import CostModel
from ._handle import Handle


class Weighting(enum.IntEnum):
    """What each document weighs in a CDF, quantile, histogram or KS distance."""

    COUNT = _capi.FLOPSPACK_STATS_WEIGHT_COUNT
    TOKENS = _capi.FLOPSPACK_STATS_WEIGHT_TOKENS
    COST = _capi.FLOPSPACK_STATS_WEIGHT_COST  # needs a model


class Binning(enum.IntEnum):
    LINEAR = _capi.FLOPSPACK_STATS_BINS_LINEAR
    LOG2 = _capi.FLOPSPACK_STATS_BINS_LOG2


def _mirror(cls, c: Any):
    return cls(**{f.name: getattr(c, f.name) for f in dataclasses.fields(cls)})


@dataclasses.dataclass(frozen=True)
class StatsSummary:
    """flopspack_stats_summary: the dataset at a glance."""

    count: int
    distinct_lengths: int
    tokens: int
    mean: float
    stddev: float
    min: int
    max: int
    p50: int
    p90: int
    p99: int
    p999: int
    has_cost: int
    total_cost: float
    mean_cost: float
    max_cost: float


@dataclasses.dataclass(frozen=True)
class StatsTail:
    """flopspack_stats_tail: documents strictly longer than a threshold."""

    documents: int
    tokens: int
    cost: float
    document_share: float
    token_share: float
    cost_share: float


@dataclasses.dataclass(frozen=True)
class StatsComparison:
    """flopspack_stats_comparison: where two datasets differ."""

    ks_distance: float
    ks_length: int
    ks_distance_tokens: float
    ks_length_tokens: int
    levels: Tuple[float, ...]
    quantiles_a: Tuple[int, ...]
    quantiles_b: Tuple[int, ...]
    first_divergent_level: float
    tail_threshold: int
    token_share_above_a: float
    token_share_above_b: float
    cost_share_above_a: float
    cost_share_above_b: float


class Stats(Handle):
    """flopspack_stats: the exact length histogram of a dataset (and, with a
    cost model, each length's document cost). Immutable; thread-safe.
    ``a.merge(b)`` is bit-identical to the statistics of both datasets."""

    __slots__ = ()

    def __init__(
        self,
        lengths: Any = (),
        model: Optional[CostModel] = None,
        *,
        cost_capacity: int = 0,
        _handle: Any = None,
    ) -> None:
        """Statistics of ``lengths``. ``cost_capacity`` (the training sequence
        length, 0 = none) costs a document longer than it as the pieces
        training sees: floor(length / cost_capacity) pieces of cost_capacity
        tokens and the remainder (flopspack_stats_options)."""
        if _handle is None:
            array = _arrays.lengths(lengths)
            m = _validate.handle(model, CostModel, "model", allow_none=True)
            if cost_capacity:
                _handle = _capi.flopspack_swig_stats_create_with_options(
                    array, np.empty(0, dtype=np.uintp), m,
                    _validate.int64(cost_capacity, "cost_capacity"),
                )
            else:
                _handle = _capi.flopspack_stats_create(array, m)
        super().__init__(_handle)

    @classmethod
    def from_histogram(
        cls, lengths: Any, counts: Any, model: Optional[CostModel] = None, *, cost_capacity: int = 0
    ) -> "Stats":
        """counts[i] documents of length lengths[i] (repeats add up)."""
        m = _validate.handle(model, CostModel, "model", allow_none=True)
        if cost_capacity:
            h = _capi.flopspack_swig_stats_create_with_options(
                _arrays.lengths(lengths), _arrays.offsets(counts, "counts"), m,
                _validate.int64(cost_capacity, "cost_capacity"),
            )
        else:
            h = _capi.flopspack_swig_stats_create_from_histogram(
                _arrays.lengths(lengths), _arrays.offsets(counts, "counts"), m,
            )
        return cls(_handle=h)

    def merge(self, other: "Stats") -> "Stats":
        """Statistics of the union of both datasets, exactly."""
        return Stats(_handle=_capi.flopspack_stats_merge(self._handle, _validate.handle(other, Stats, "other")))

    @property
    def summary(self) -> StatsSummary:
        return _mirror(StatsSummary, _capi.flopspack_stats_summarize(self._handle))

    def __len__(self) -> int:
        return self.summary.count

    def quantile(self, q: float, weighting: Weighting = Weighting.COUNT) -> float:
        """Lower empirical quantile of the length, documents weighted by count
        (default), tokens or cost."""
        q = _validate.real(q, "q")
        if _validate.choice(weighting, Weighting, "weighting") == Weighting.COUNT:
            return _capi.flopspack_stats_quantile(self._handle, q)
        return _capi.flopspack_stats_weighted_quantile(self._handle, int(weighting), q)

    def cdf(self, length: int, weighting: Weighting = Weighting.COUNT) -> float:
        """Share of documents (tokens, cost) of length <= length."""
        return _capi.flopspack_stats_cdf(
            self._handle,
            _validate.choice(weighting, Weighting, "weighting"),
            _validate.int64(length, "length"),
        )

    def histogram(
        self,
        binning: Binning = Binning.LOG2,
        weighting: Weighting = Weighting.COUNT,
        normalized: bool = False,
        width: int = 0,
    ) -> Tuple[np.ndarray, np.ndarray]:
        """(upper_edges, weights): bin k holds lengths up to upper_edges[k]."""
        o = _capi.flopspack_histogram_options()
        o.binning = _validate.choice(binning, Binning, "binning")
        o.weighting = _validate.choice(weighting, Weighting, "weighting")
        o.normalized = _validate.flag(normalized, "normalized")
        o.width = _validate.int64(width, "width")
        h = self._handle
        bins = _capi.flopspack_swig_stats_histogram_size(h, o)
        edges = np.empty(bins, dtype=np.int64)
        weights = np.empty(bins, dtype=np.float64)
        _capi.flopspack_swig_stats_histogram(h, o, edges, weights)
        return edges, weights

    def tail(self, threshold: int) -> StatsTail:
        """Documents strictly longer than threshold, and their shares."""
        return _mirror(StatsTail, _capi.flopspack_stats_tail_share(self._handle, _validate.int64(threshold, "threshold")))

    def expected_max(self, draws: int) -> float:
        """Exact E[max] of `draws` independent draws of a document's cost
        (its length without a model)."""
        return _capi.flopspack_stats_expected_max(self._handle, _validate.uint64(draws, "draws"))

    def ks_distance(self, other: "Stats", weighting: Optional[Weighting] = None) -> float:
        """Kolmogorov-Smirnov distance of the length distributions."""
        if weighting is None:
            return _capi.flopspack_stats_ks_distance(
                self._handle, _validate.handle(other, Stats, "other")
            )
        return self.ks_distance_at(other, weighting)[0]

    def ks_distance_at(self, other: "Stats", weighting: Weighting) -> Tuple[float, int]:
        """(distance, smallest length where the gap is largest)."""
        d, length = _capi.flopspack_stats_ks_distance_weighted(
            self._handle,
            _validate.handle(other, Stats, "other"),
            _validate.choice(weighting, Weighting, "weighting"),
        )
        return d, length

    def compare(self, other: "Stats") -> StatsComparison:
        """Where two datasets differ (KS, quantiles at fixed levels, tails)."""
        c = _capi.flopspack_stats_compare(self._handle, _validate.handle(other, Stats, "other"))
        n = _capi.FLOPSPACK_STATS_COMPARE_LEVELS
        arrays = dict(
            levels=tuple(c.level_at(i) for i in range(n)),
            quantiles_a=tuple(c.quantile_a_at(i) for i in range(n)),
            quantiles_b=tuple(c.quantile_b_at(i) for i in range(n)),
        )
        fields = {f.name: arrays.get(f.name) for f in dataclasses.fields(StatsComparison)}
        for name in fields:
            if fields[name] is None:
                fields[name] = getattr(c, name)
        return StatsComparison(**fields)

    def entries(self) -> Tuple[np.ndarray, np.ndarray]:
        """(distinct lengths ascending, counts): ships between processes
        (Stats.from_histogram rebuilds it)."""
        h = self._handle
        n = _capi.flopspack_swig_stats_entries_size(h)
        lengths = np.empty(n, dtype=np.int64)
        counts = np.empty(n, dtype=np.uint64)
        _capi.flopspack_swig_stats_entries(h, lengths, counts)
        return lengths, counts

    def __repr__(self) -> str:
        if self.closed:
            return "<flopspack.Stats closed>"
        s = self.summary
        return (
            f"<flopspack.Stats documents={s.count} tokens={s.tokens} mean={s.mean:.1f} "
            f"p50={s.p50} p99={s.p99} max={s.max}>"
        )
