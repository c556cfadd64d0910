"""The straggler emulator (docs/straggler-emulator.md): the throughput a
dataset loses to stragglers and padding at N GPUs under a packing policy."""

from __future__ import annotations

import dataclasses
import enum
from typing import Any, Callable, NamedTuple, Optional

import numpy as np

from . import _arrays, _validate
from . import capi as _capi
from ._context_parallel import CpLayout
from ._cost import CostModel
from ._errors import InvalidArgumentError
from ._handle import Handle
from ._planner import PipelineSchedule, Sync
from ._stats import Stats

ProgressFn = Callable[[int, int], Any]


class SimPolicy(enum.IntEnum):
    RANDOM = _capi.FLOPSPACK_SIM_RANDOM
    TOKEN_BALANCED = _capi.FLOPSPACK_SIM_TOKEN_BALANCED
    BUCKETS = _capi.FLOPSPACK_SIM_BUCKETS
    PLANNER_DOCUMENTS = _capi.FLOPSPACK_SIM_PLANNER_DOCUMENTS
    PLANNER_RANDOM = _capi.FLOPSPACK_SIM_PLANNER_RANDOM
    PLANNER_TOKENS = _capi.FLOPSPACK_SIM_PLANNER_TOKENS
    PLANNER_SEQUENCES = _capi.FLOPSPACK_SIM_PLANNER_SEQUENCES


class SimSeries(enum.IntEnum):
    STEP_TIME = _capi.FLOPSPACK_SIM_SERIES_STEP_TIME
    MEAN_RANK_COST = _capi.FLOPSPACK_SIM_SERIES_MEAN_RANK_COST
    BALANCE_EFFICIENCY = _capi.FLOPSPACK_SIM_SERIES_BALANCE_EFFICIENCY
    FILL = _capi.FLOPSPACK_SIM_SERIES_FILL
    PADDING_EFFICIENCY = _capi.FLOPSPACK_SIM_SERIES_PADDING_EFFICIENCY
    REAL_TOKENS = _capi.FLOPSPACK_SIM_SERIES_REAL_TOKENS


@dataclasses.dataclass(frozen=True)
class SimulationSummary:
    """flopspack_simulate_summary."""

    num_steps: int
    num_ranks: int
    microbatches_per_rank: int
    documents_drawn: int
    epochs: int
    mean_balance_efficiency: float
    p5_balance_efficiency: float
    p50_balance_efficiency: float
    p95_balance_efficiency: float
    mean_fill: float
    mean_padding_efficiency: float
    relative_throughput: float
    mean_step_time: float
    predicted_efficiency: float
    real_tokens: int
    computed_tokens: int
    #: The topology the step times follow (docs/straggler-emulator.md,
    #: Topology) and the mean efficiency under it: useful work per GPU (the
    #: mean rank cost, / pipeline_stages with pipelines) / step time.
    sync: Sync
    pipeline_stages: int
    pipeline_schedule: PipelineSchedule
    mean_sync_efficiency: float


# The C type of each flopspack_simulate_options field a caller may set.
_OPTION_CHECKS = {
    "policy": lambda value, name: _validate.choice(value, SimPolicy, name),
    "num_ranks": _validate.uint64,
    "microbatches_per_rank": _validate.uint64,
    "tokens_per_microbatch": _validate.int64,
    "max_tokens_per_microbatch": _validate.int64,
    "num_steps": _validate.uint64,
    "seed": _validate.uint64,
    "record_steps": _validate.flag,
    "sync": lambda value, name: _validate.choice(value, Sync, name),
    "pipeline_stages": _validate.uint32,
    "pipeline_schedule": lambda value, name: _validate.choice(value, PipelineSchedule, name),
    "context_parallel_size": _validate.uint32,
    "context_parallel_layout": lambda value, name: _validate.choice(value, CpLayout, name),
}


def _options(**fields: Any) -> Any:
    o = _capi.flopspack_simulate_options()  # library defaults
    for name, value in fields.items():
        if value is not None:
            setattr(o, name, _OPTION_CHECKS[name](value, name))
    return o


def _progress(progress: Any) -> Any:
    if progress is not None and not callable(progress):
        raise TypeError(f"progress must be callable or None, got {type(progress).__name__}")
    return progress


class Simulation(Handle):
    """flopspack_simulate_result: the figures of one simulated run."""

    __slots__ = ()

    @property
    def summary(self) -> SimulationSummary:
        c = _capi.flopspack_simulate_result_summary(self._handle)
        fields = {f.name: getattr(c, f.name) for f in dataclasses.fields(SimulationSummary)}
        fields["sync"] = Sync(fields["sync"])
        fields["pipeline_schedule"] = PipelineSchedule(fields["pipeline_schedule"])
        return SimulationSummary(**fields)

    def series(self, kind: SimSeries) -> np.ndarray:
        """One value per step (needs record_steps=True)."""
        h = self._handle
        k = _validate.choice(kind, SimSeries, "kind")
        n = _capi.flopspack_swig_simulate_series_size(h, k)
        out = np.empty(n, dtype=np.float64)
        _capi.flopspack_swig_simulate_series(h, k, out)
        return out

    def pieces(self) -> Stats:
        """Statistics of the document pieces the ranks actually saw."""
        return Stats(_handle=_capi.flopspack_simulate_result_pieces(self._handle))

    def __repr__(self) -> str:
        if self.closed:
            return "<flopspack.Simulation closed>"
        s = self.summary
        return (
            f"<flopspack.Simulation ranks={s.num_ranks} steps={s.num_steps} "
            f"throughput={s.relative_throughput:.4f} balance={s.mean_balance_efficiency:.4f}>"
        )


def simulate(
    lengths: Any,
    model: CostModel,
    *,
    policy: SimPolicy = SimPolicy.RANDOM,
    num_ranks: Optional[int] = None,
    microbatches_per_rank: Optional[int] = None,
    tokens_per_microbatch: Optional[int] = None,
    max_tokens_per_microbatch: Optional[int] = None,
    num_steps: Optional[int] = None,
    seed: Optional[int] = None,
    record_steps: bool = False,
    sync: Sync = Sync.STEP,
    pipeline_stages: int = 0,
    pipeline_schedule: PipelineSchedule = PipelineSchedule.ONE_F_ONE_B,
    progress: Optional[ProgressFn] = None,
    context_parallel_size: int = 0,
    context_parallel_layout: CpLayout = CpLayout.DOCUMENT_HEAD_TAIL,
    extra_costs: Any = None,
) -> Simulation:
    """Simulates a training run; options left None take the library's
    defaults. sync and pipeline_stages say how the trainer synchronizes: a
    step lasts the slowest rank (STEP), the sum over slots of each slot's
    slowest microbatch (MICROBATCH: FSDP / ZeRO-3), or with
    pipeline_stages >= 2 the slowest replica's 1F1B makespan; the planner
    policies plan for it. context_parallel_size C >= 2 makes every rank a
    group of C GPUs sharing each microbatch (of C x tokens_per_microbatch
    tokens, token counts per GPU as in plan_step), cut with
    context_parallel_layout; a microbatch costs its slowest CP rank.
    progress(done, total) is called after every step; returning
    False (or raising an Exception) cancels with CancelledError. Ctrl-C
    stops the run within a step (with or without progress) and raises
    KeyboardInterrupt. extra_costs (one finite, non-negative float per
    document, e.g. from multimodal_costs; None = none) is added to each
    document's model cost: its pieces carry it in proportion to their
    tokens, the planner policies balance the full cost, and the documents
    drawn per step do not change (flopspack_simulate_with_extra_costs)."""
    o = _options(
        policy=policy, num_ranks=num_ranks, microbatches_per_rank=microbatches_per_rank,
        tokens_per_microbatch=tokens_per_microbatch,
        max_tokens_per_microbatch=max_tokens_per_microbatch, num_steps=num_steps, seed=seed,
        record_steps=record_steps, sync=sync, pipeline_stages=pipeline_stages,
        pipeline_schedule=pipeline_schedule, context_parallel_size=context_parallel_size,
        context_parallel_layout=context_parallel_layout,
    )
    array = _arrays.lengths(lengths)
    handle = _validate.handle(model, CostModel, "model")
    if extra_costs is None:
        return Simulation(_capi.flopspack_py_simulate(array, handle, o, _progress(progress)))
    extra = _extra_costs(extra_costs, array)
    return Simulation(
        _capi.flopspack_py_simulate_with_extra_costs(array, extra, handle, o, _progress(progress))
    )


def _extra_costs(extra_costs: Any, array: np.ndarray) -> np.ndarray:
    extra = _arrays.floats(extra_costs, "extra_costs")
    if extra.size != array.size:
        raise InvalidArgumentError(
            f"extra_costs has {extra.size} entries for {array.size} lengths"
        )
    return extra


class Sweep(NamedTuple):
    """Efficiency versus GPUs, one entry per rank count."""

    rank_counts: np.ndarray
    sampled_efficiency: np.ndarray
    predicted_efficiency: np.ndarray
    relative_throughput: np.ndarray


def simulate_sweep(
    lengths: Any,
    model: CostModel,
    rank_counts: Any,
    *,
    policy: SimPolicy = SimPolicy.RANDOM,
    microbatches_per_rank: Optional[int] = None,
    tokens_per_microbatch: Optional[int] = None,
    max_tokens_per_microbatch: Optional[int] = None,
    num_steps: Optional[int] = None,
    seed: Optional[int] = None,
    sync: Sync = Sync.STEP,
    pipeline_stages: int = 0,
    pipeline_schedule: PipelineSchedule = PipelineSchedule.ONE_F_ONE_B,
    progress: Optional[ProgressFn] = None,
    context_parallel_size: int = 0,
    context_parallel_layout: CpLayout = CpLayout.DOCUMENT_HEAD_TAIL,
    extra_costs: Any = None,
) -> Sweep:
    """Simulates at each rank count (see flopspack_simulate_sweep); the
    sampled efficiency is the one under the sync model. extra_costs: as in
    simulate."""
    o = _options(
        policy=policy, microbatches_per_rank=microbatches_per_rank,
        tokens_per_microbatch=tokens_per_microbatch,
        max_tokens_per_microbatch=max_tokens_per_microbatch, num_steps=num_steps, seed=seed,
        sync=sync, pipeline_stages=pipeline_stages, pipeline_schedule=pipeline_schedule,
        context_parallel_size=context_parallel_size,
        context_parallel_layout=context_parallel_layout,
    )
    counts = _arrays.offsets(rank_counts, "rank_counts")
    sampled = np.empty(len(counts), dtype=np.float64)
    predicted = np.empty(len(counts), dtype=np.float64)
    relative = np.empty(len(counts), dtype=np.float64)
    array = _arrays.lengths(lengths)
    handle = _validate.handle(model, CostModel, "model")
    if extra_costs is None:
        _capi.flopspack_py_simulate_sweep(
            array, handle, o, _progress(progress), counts, sampled, predicted, relative,
        )
    else:
        _capi.flopspack_py_simulate_sweep_with_extra_costs(
            array, _extra_costs(extra_costs, array), handle, o, _progress(progress), counts,
            sampled, predicted, relative,
        )
    return Sweep(counts.astype(np.int64), sampled, predicted, relative)
