"""Length buckets and the bucket sampler: padded batches with little
padding whose optimizer steps still see the whole length distribution
(docs/buckets.md)."""

from __future__ import annotations

import dataclasses
import enum
from typing import Any, Iterable, Iterator, List, Optional, Tuple

import numpy as np

from . import _arrays, _validate
from . import capi as _capi
from ._cost import CostModel
from ._handle import Handle
from ._plan import Plan
from ._stream import Overflow


def optimize_buckets(lengths: Any, num_buckets: int) -> np.ndarray:
    """The num_buckets upper bounds minimising total padding (exact DP)."""
    array = _arrays.lengths(lengths)
    bounds = np.empty(_validate.size(num_buckets, "num_buckets"), dtype=np.int64)
    _capi.flopspack_swig_buckets_optimize(array, bounds)
    return bounds


def bucket_padding(lengths: Any, upper_bounds: Any) -> int:
    """Total padding when each sample is padded to the first bound >= it."""
    return _capi.flopspack_buckets_padding(
        _arrays.lengths(lengths), _arrays.lengths(upper_bounds, "upper_bounds")
    )


class BucketBudget(enum.IntEnum):
    """What limits a padded batch."""

    PADDED_TOKENS = _capi.FLOPSPACK_BUCKET_BUDGET_PADDED_TOKENS
    COST = _capi.FLOPSPACK_BUCKET_BUDGET_COST


@dataclasses.dataclass(frozen=True)
class BucketDiagnostics:
    """What an epoch achieves against targets and what limits it
    (flopspack_bucket_sampler_diagnostics; docs/buckets.md, "Diagnostics")."""

    unmet: int  # BucketTarget bits of the targets missed
    balance_efficiency: float
    balance_shortfall: float  # target - balance when missed, else 0
    balance_bound: float  # best balance of these batches grouped by cost alone
    padding_efficiency: float
    padding_shortfall: float
    padding_bound: float  # sorted batching with the same batch sizes
    diversity_distance: float
    diversity_excess: float  # KS - target when missed, else 0
    diversity_floor: float  # 1 / (2 G)
    batch_cost_cap: float
    implied_cost_budget: float
    truncated_items: int
    deferred_items: int
    truncated_tokens: int
    deferred_tokens: int

    @property
    def unmet_targets(self) -> List[str]:
        """Names of the missed targets: "balance", "padding", "diversity"."""
        return [t.name.lower() for t in BucketTarget if self.unmet & t]


class BucketTarget(enum.IntFlag):
    """Targets an epoch can miss (bits of BucketDiagnostics.unmet)."""

    BALANCE = _capi.FLOPSPACK_BUCKET_TARGET_BALANCE
    PADDING = _capi.FLOPSPACK_BUCKET_TARGET_PADDING
    DIVERSITY = _capi.FLOPSPACK_BUCKET_TARGET_DIVERSITY


class BucketSampler(Handle):
    """flopspack_bucket_sampler: padded batches from length buckets, arranged
    into optimizer steps of num_ranks x accumulation_steps batches. Give
    max_padded_tokens (budget PADDED_TOKENS) or max_batch_cost with a model
    (budget COST). Epochs and steps are pure functions of (seed, epoch), so a
    resumed run sees the same batches. Immutable; thread-safe."""

    __slots__ = ("_model", "_num_ranks", "_accumulation_steps")

    def __init__(
        self,
        lengths: Any,
        *,
        max_padded_tokens: Optional[int] = None,
        max_batch_cost: Optional[float] = None,
        num_buckets: Optional[int] = None,
        upper_bounds: Any = None,
        drop_last: bool = False,
        num_ranks: int = 1,
        accumulation_steps: int = 1,
        seed: int = 0,
        model: Optional[CostModel] = None,
        overflow: Overflow = Overflow.ERROR,
    ) -> None:
        options = _sampler_options(
            max_padded_tokens, max_batch_cost, num_buckets, drop_last, num_ranks,
            accumulation_steps, seed, overflow,
        )
        bounds = (
            np.zeros(0, dtype=np.int64)
            if upper_bounds is None
            else _arrays.lengths(upper_bounds, "upper_bounds")
        )
        model_handle = _validate.handle(model, CostModel, "model", allow_none=True)
        self._model = model  # a custom model's callable stays alive
        self._num_ranks = options.num_ranks
        self._accumulation_steps = options.accumulation_steps
        super().__init__(
            _capi.flopspack_swig_bucket_sampler_create(
                options,
                model_handle,
                _arrays.lengths(lengths),
                bounds,
            )
        )

    @property
    def num_ranks(self) -> int:
        return self._num_ranks

    @property
    def accumulation_steps(self) -> int:
        return self._accumulation_steps

    @property
    def steps_per_epoch(self) -> int:
        """Optimizer steps per epoch (the same for every epoch)."""
        return _capi.flopspack_bucket_sampler_steps_per_epoch(self._handle)

    @property
    def upper_bounds(self) -> np.ndarray:
        """The bucket upper bounds in use."""
        return _capi.flopspack_bucket_sampler_upper_bounds(self._handle)

    def epoch(self, epoch: int) -> Plan:
        """One epoch: one group per batch, ordered by step, rank,
        accumulation index; each group's slot() is (rank, step*A + a)."""
        return Plan(
            _capi.flopspack_bucket_sampler_epoch(self._handle, _validate.uint64(epoch, "epoch"))
        )

    def step(self, epoch: int, step: int) -> Plan:
        """One optimizer step of an epoch (its num_ranks x A batches)."""
        return Plan(
            _capi.flopspack_bucket_sampler_step(
                self._handle, _validate.uint64(epoch, "epoch"), _validate.uint64(step, "step")
            )
        )

    def rank_batches(self, epoch: int, step: int, rank: int) -> List[List[int]]:
        """One rank's batches of one step, in slot order, as sample indices
        (the source interface of flopspack.torch.FlopspackBatchSampler)."""
        rank = _validate.size(rank, "rank")
        with self.step(epoch, step) as plan:
            mine = sorted((g for g in plan if g.rank == rank), key=lambda g: g.slot)
            return [g.items.tolist() for g in mine]

    def step_diversity(self, plan: Plan) -> Tuple[np.ndarray, np.ndarray]:
        """Per-step KS distances (token-weighted, sample-weighted) of a plan
        of this sampler to the whole data's length distribution."""
        h = self._handle
        p = _validate.handle(plan, Plan, "plan")
        steps = _capi.flopspack_swig_bucket_sampler_step_count(h, p)
        tokens = np.empty(steps, dtype=np.float64)
        samples = np.empty(steps, dtype=np.float64)
        _capi.flopspack_swig_bucket_sampler_step_diversity(h, p, tokens, samples)
        return tokens, samples

    def diagnose(
        self,
        epoch: int = 0,
        *,
        balance: float = 0.97,
        padding: float = 0.95,
        diversity: float = 0.1,
    ) -> BucketDiagnostics:
        """Whether epoch `epoch` meets the targets (step balance >= balance,
        padding efficiency >= padding, token-weighted step KS <= diversity),
        by how much it misses them, and what bounds them."""
        c = _capi.flopspack_bucket_sampler_diagnose(
            self._handle,
            _validate.uint64(epoch, "epoch"),
            _validate.real(balance, "balance"),
            _validate.real(padding, "padding"),
            _validate.real(diversity, "diversity"),
        )
        return BucketDiagnostics(
            **{f.name: getattr(c, f.name) for f in dataclasses.fields(BucketDiagnostics)}
        )

    def __repr__(self) -> str:
        if self.closed:
            return "<flopspack.BucketSampler closed>"
        return (
            f"<flopspack.BucketSampler buckets={len(self.upper_bounds)} ranks={self._num_ranks}"
            f" accumulation={self._accumulation_steps} steps_per_epoch={self.steps_per_epoch}>"
        )


class BucketStream(Handle):
    """flopspack_bucket_stream: the bucket sampler over lengths that arrive as
    a stream, memory bounded by buffer_size. Every buffer_size samples form a
    chunk sampled like BucketSampler (same keyword options); steps come out in
    order with stream-wide sample indices. Deterministic: resume by pushing
    the same lengths again and skipping the steps already taken. Not
    thread-safe."""

    __slots__ = ("_model",)

    def __init__(
        self,
        *,
        buffer_size: int,
        max_padded_tokens: Optional[int] = None,
        max_batch_cost: Optional[float] = None,
        num_buckets: Optional[int] = None,
        upper_bounds: Any = None,
        drop_last: bool = False,
        num_ranks: int = 1,
        accumulation_steps: int = 1,
        seed: int = 0,
        model: Optional[CostModel] = None,
        overflow: Overflow = Overflow.ERROR,
    ) -> None:
        if upper_bounds is not None:
            raise ValueError("upper_bounds: not supported by BucketStream yet; use num_buckets")
        options = _sampler_options(
            max_padded_tokens, max_batch_cost, num_buckets, drop_last, num_ranks,
            accumulation_steps, seed, overflow,
        )
        model_handle = _validate.handle(model, CostModel, "model", allow_none=True)
        self._model = model
        super().__init__(
            _capi.flopspack_bucket_stream_create(
                options, model_handle, _validate.uint64(buffer_size, "buffer_size")
            )
        )

    def push(self, lengths: Any) -> int:
        """Appends lengths; returns how many were accepted (fewer when the
        buffer is full: take the ready steps, then push the rest)."""
        return _capi.flopspack_bucket_stream_push(self._handle, _arrays.lengths(lengths))

    def flush(self) -> None:
        """The end of the stream: the last, partial chunk is sampled."""
        _capi.flopspack_bucket_stream_flush(self._handle)

    @property
    def ready(self) -> int:
        """Steps take() can return now."""
        return _capi.flopspack_bucket_stream_ready(self._handle)

    def take(self) -> Plan:
        """The next step (num_ranks x accumulation_steps batches)."""
        return Plan(_capi.flopspack_bucket_stream_take(self._handle))

    @property
    def deferred(self) -> np.ndarray:
        """Over-budget samples left out (overflow=Overflow.DEFER)."""
        return _capi.flopspack_bucket_stream_deferred(self._handle)

    @property
    def leftover(self) -> np.ndarray:
        """Samples of a final chunk too small for one step."""
        return _capi.flopspack_bucket_stream_leftover(self._handle)

    def steps(self, lengths: Iterable[int], chunk: int = 4096) -> Iterator[Plan]:
        """Every step of a whole stream of lengths (any iterable), pushed in
        slices of `chunk`; flushes at the end."""
        pending: List[int] = []
        for length in lengths:
            pending.append(length)
            if len(pending) >= chunk:
                yield from self._push_all(pending)
                pending = []
        yield from self._push_all(pending)
        self.flush()
        while self.ready:
            yield self.take()

    def _push_all(self, pending: List[int]) -> Iterator[Plan]:
        array = np.asarray(pending, dtype=np.int64)
        at = 0
        while at < len(array):
            at += self.push(array[at:])
            while self.ready:
                yield self.take()


def _sampler_options(
    max_padded_tokens, max_batch_cost, num_buckets, drop_last, num_ranks, accumulation_steps,
    seed, overflow,
):
    """flopspack_bucket_sampler_options from the keyword options BucketSampler
    and BucketStream share, each checked against its C type; the library's
    defaults for what is None."""
    options = _capi.flopspack_bucket_sampler_options()
    if max_batch_cost is not None:
        options.budget_kind = int(BucketBudget.COST)
        options.max_batch_cost = _validate.real(max_batch_cost, "max_batch_cost")
    if max_padded_tokens is not None:
        options.max_padded_tokens = _validate.int64(max_padded_tokens, "max_padded_tokens")
    if num_buckets is not None:
        options.num_buckets = _validate.uint32(num_buckets, "num_buckets")
    options.drop_last = _validate.flag(drop_last, "drop_last")
    options.num_ranks = _validate.uint64(num_ranks, "num_ranks")
    options.accumulation_steps = _validate.uint64(accumulation_steps, "accumulation_steps")
    options.seed = _validate.uint64(seed, "seed")
    options.overflow = _validate.choice(overflow, Overflow, "overflow")
    return options
