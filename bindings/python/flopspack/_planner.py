"""Step planning: one global batch -> num_ranks x microbatches_per_rank
microbatches under a token cap, balanced by cost (docs/planner.md), and the
stateful step planner for a training loop."""

from __future__ import annotations

import enum
from typing import Any, NamedTuple, Optional

import numpy as np

from . import _arrays, _validate
from . import capi as _capi
from ._context_parallel import CpLayout
from ._cost import CostModel
from ._handle import Handle
from ._plan import Plan
from ._errors import InvalidArgumentError
from ._stream import Overflow


class StepAlgorithm(enum.IntEnum):
    """How flopspack_plan_step assigns documents."""

    DOCUMENTS = _capi.FLOPSPACK_STEP_DOCUMENTS  # cost balance under the cap (default)
    RANDOM = _capi.FLOPSPACK_STEP_RANDOM  # concatenate, cut, deal at random (baseline)
    TOKENS = _capi.FLOPSPACK_STEP_TOKENS  # balance token counts instead of cost
    SEQUENCES = _capi.FLOPSPACK_STEP_SEQUENCES  # pre-pack sequences, then LPT


class SlotOrder(enum.IntEnum):
    """Which microbatch of a rank runs in which slot."""

    DESCENDING = _capi.FLOPSPACK_SLOT_ORDER_DESCENDING  # heaviest first (default)
    LIGHT_ENDS = _capi.FLOPSPACK_SLOT_ORDER_LIGHT_ENDS  # lightest at both ends
    AS_PLANNED = _capi.FLOPSPACK_SLOT_ORDER_AS_PLANNED


class Sync(enum.IntEnum):
    """How the trainer synchronizes, i.e. what the step planner balances
    (flopspack_sync)."""

    STEP = _capi.FLOPSPACK_SYNC_STEP  # once per step: rank totals (default)
    MICROBATCH = _capi.FLOPSPACK_SYNC_MICROBATCH  # FSDP / ZeRO-3: every slot


class PipelineSchedule(enum.IntEnum):
    """The schedule of each rank's pipeline replica (flopspack_pipeline_schedule)."""

    ONE_F_ONE_B = _capi.FLOPSPACK_PIPELINE_1F1B  # PipeDream-Flush / Megatron (default)


def _step_options(
    num_ranks: int,
    max_tokens_per_microbatch: int,
    microbatches_per_rank: int,
    algorithm: StepAlgorithm,
    ordering: SlotOrder,
    overflow: Overflow,
    seed: int,
    sync: Sync = Sync.STEP,
    pipeline_stages: int = 0,
    pipeline_schedule: PipelineSchedule = PipelineSchedule.ONE_F_ONE_B,
    context_parallel_size: int = 0,
    context_parallel_layout: CpLayout = CpLayout.DOCUMENT_HEAD_TAIL,
) -> Any:
    o = _capi.flopspack_step_options()  # library defaults
    o.num_ranks = _validate.uint32(num_ranks, "num_ranks")
    o.max_tokens_per_microbatch = _validate.int64(
        max_tokens_per_microbatch, "max_tokens_per_microbatch"
    )
    o.microbatches_per_rank = _validate.uint32(microbatches_per_rank, "microbatches_per_rank")
    o.algorithm = _validate.choice(algorithm, StepAlgorithm, "algorithm")
    o.ordering = _validate.choice(ordering, SlotOrder, "ordering")
    o.overflow = _validate.choice(overflow, Overflow, "overflow")
    o.seed = _validate.uint64(seed, "seed")
    o.sync = _validate.choice(sync, Sync, "sync")
    o.pipeline_stages = _validate.uint32(pipeline_stages, "pipeline_stages")
    o.pipeline_schedule = _validate.choice(pipeline_schedule, PipelineSchedule, "pipeline_schedule")
    o.context_parallel_size = _validate.uint32(context_parallel_size, "context_parallel_size")
    o.context_parallel_layout = _validate.choice(
        context_parallel_layout, CpLayout, "context_parallel_layout"
    )
    return o


def plan_step(
    lengths: Any,
    model: CostModel,
    *,
    num_ranks: int,
    max_tokens_per_microbatch: int,
    microbatches_per_rank: int = 0,
    algorithm: StepAlgorithm = StepAlgorithm.DOCUMENTS,
    ordering: SlotOrder = SlotOrder.DESCENDING,
    overflow: Overflow = Overflow.SPLIT,
    seed: int = 0,
    sync: Sync = Sync.STEP,
    pipeline_stages: int = 0,
    pipeline_schedule: PipelineSchedule = PipelineSchedule.ONE_F_ONE_B,
    extra_costs: Any = None,
    context_parallel_size: int = 0,
    context_parallel_layout: CpLayout = CpLayout.DOCUMENT_HEAD_TAIL,
) -> Plan:
    """Plans one step: document i (lengths[i] tokens) is item i, balanced
    by `model`'s cost. The plan has num_ranks x M groups, rank-major; each
    group's (rank, slot) says where it runs. microbatches_per_rank 0 = the
    fewest that hold the batch. sync says what the trainer waits for (rank
    totals, or every slot under FSDP / ZeRO-3); pipeline_stages >= 2 adds the
    1F1B figures to the metrics (docs/planner.md, Synchronization). extra_costs (one finite,
    non-negative value per document, e.g. from multimodal_costs) is added to
    the model's cost of each document (flopspack_plan_step_with_extra_costs);
    None = none. context_parallel_size > 1 plans for context-parallel groups
    of that many GPUs: max_tokens_per_microbatch stays per GPU, a microbatch
    holds context_parallel_size times as many tokens and costs its slowest CP
    rank under context_parallel_layout (docs/context-parallel.md)."""
    options = _step_options(
        num_ranks, max_tokens_per_microbatch, microbatches_per_rank, algorithm, ordering,
        overflow, seed, sync, pipeline_stages, pipeline_schedule, context_parallel_size,
        context_parallel_layout,
    )
    array = _arrays.lengths(lengths)
    handle = _validate.handle(model, CostModel, "model")
    if extra_costs is None:
        return Plan(_capi.flopspack_plan_step(options, handle, array))
    extra = _arrays.floats(extra_costs, "extra_costs")
    if extra.size != array.size:
        raise InvalidArgumentError(
            f"extra_costs has {extra.size} entries for {array.size} lengths"
        )
    return Plan(
        _capi.flopspack_swig_plan_step_with_extra_costs(options, handle, array, extra)
    )


class Pending(NamedTuple):
    """What a StepPlanner holds: queued documents and tokens, steps planned."""

    documents: int
    tokens: int
    steps: int


class StepPlanner(Handle):
    """flopspack_step_planner: push documents as they stream in, take one
    plan per step with :meth:`next`; leftovers carry over, outliers may wait.
    Items of its plans are push ids (the k-th document pushed is item k).
    save()/restore() resume exactly. One thread at a time."""

    __slots__ = ("_model",)

    def __init__(
        self,
        model: CostModel,
        *,
        num_ranks: int,
        max_tokens_per_microbatch: int,
        microbatches_per_rank: int = 0,
        algorithm: StepAlgorithm = StepAlgorithm.DOCUMENTS,
        ordering: SlotOrder = SlotOrder.DESCENDING,
        overflow: Overflow = Overflow.SPLIT,
        seed: int = 0,
        sync: Sync = Sync.STEP,
        pipeline_stages: int = 0,
        pipeline_schedule: PipelineSchedule = PipelineSchedule.ONE_F_ONE_B,
        context_parallel_size: int = 0,
        context_parallel_layout: CpLayout = CpLayout.DOCUMENT_HEAD_TAIL,
        tokens_per_step: Optional[int] = None,
        max_defer_steps: Optional[int] = None,
        outlier_min_tokens: Optional[int] = None,
        max_outliers_per_step: Optional[int] = None,
        _handle: Any = None,
    ) -> None:
        _validate.instance(model, CostModel, "model")
        self._model = model  # a custom model's callable stays alive
        if _handle is None:
            options = _step_options(
                num_ranks, max_tokens_per_microbatch, microbatches_per_rank, algorithm,
                ordering, overflow, seed, sync, pipeline_stages, pipeline_schedule,
                context_parallel_size, context_parallel_layout,
            )
            p = _capi.flopspack_step_planner_options()  # library defaults
            if tokens_per_step is not None:
                p.tokens_per_step = _validate.int64(tokens_per_step, "tokens_per_step")
            if max_defer_steps is not None:
                p.max_defer_steps = _validate.uint32(max_defer_steps, "max_defer_steps")
            if outlier_min_tokens is not None:
                p.outlier_min_tokens = _validate.int64(outlier_min_tokens, "outlier_min_tokens")
            if max_outliers_per_step is not None:
                p.max_outliers_per_step = _validate.int64(
                    max_outliers_per_step, "max_outliers_per_step"
                )
            _handle = _capi.flopspack_step_planner_create(options, p, model._handle)
        super().__init__(_handle)

    @classmethod
    def restore(cls, state: bytes, model: CostModel) -> "StepPlanner":
        """A planner from bytes made by :meth:`save`, with the same model."""
        data = _validate.buffer(state, "state")
        h = _capi.flopspack_swig_step_planner_restore(
            data, _validate.handle(model, CostModel, "model")
        )
        return cls(model, num_ranks=0, max_tokens_per_microbatch=0, _handle=h)

    def push(self, lengths: Any, *, extra_costs: Any = None) -> int:
        """Appends documents (all or none); returns the id of the first.
        extra_costs (one finite, non-negative value per document, e.g. from
        multimodal_costs) is added to the model's cost of each document and
        kept while it waits (flopspack_step_planner_push_with_extra_costs): a
        step plans its documents as plan_step(..., extra_costs=...) would,
        documents pushed without counting 0. None = none."""
        array = _arrays.lengths(lengths)
        if extra_costs is None:
            return _capi.flopspack_step_planner_push(self._handle, array)
        extra = _arrays.floats(extra_costs, "extra_costs")
        if extra.size != array.size:
            raise InvalidArgumentError(
                f"extra_costs has {extra.size} entries for {array.size} lengths"
            )
        return _capi.flopspack_swig_step_planner_push_with_extra_costs(self._handle, array, extra)

    def next(self) -> Plan:
        """Plans the next step from the queued documents."""
        return Plan(_capi.flopspack_step_planner_next(self._handle))

    @property
    def pending(self) -> Pending:
        return Pending(*_capi.flopspack_step_planner_pending(self._handle))

    def save(self) -> bytes:
        """The whole state as bytes (versioned, checksummed)."""
        h = self._handle
        buffer = np.zeros(_capi.flopspack_step_planner_save_size(h), dtype=np.uint8)
        written = _capi.flopspack_swig_step_planner_save(h, buffer)
        return buffer[:written].tobytes()

    def __repr__(self) -> str:
        if self.closed:
            return "<flopspack.StepPlanner closed>"
        p = self.pending
        return f"<flopspack.StepPlanner pending={p.documents} docs/{p.tokens} tokens steps={p.steps}>"


class StepContext(Handle):
    """flopspack_step_context: plans step after step with the planner's
    working storage kept between calls, and the arrays of destroyed plans
    reused, so the first call costs what the later ones do (call
    :meth:`reserve` once with the expected batch size). Its plans are
    :func:`plan_step`'s, bit for bit. One thread at a time; its plans may
    outlive it."""

    __slots__ = ()

    def __init__(self) -> None:
        super().__init__(_capi.flopspack_step_context_create())

    def reserve(
        self,
        model: CostModel,
        documents: int,
        *,
        num_ranks: int,
        max_tokens_per_microbatch: int,
        microbatches_per_rank: int = 0,
        algorithm: StepAlgorithm = StepAlgorithm.DOCUMENTS,
        ordering: SlotOrder = SlotOrder.DESCENDING,
        overflow: Overflow = Overflow.SPLIT,
        seed: int = 0,
        sync: Sync = Sync.STEP,
        pipeline_stages: int = 0,
        pipeline_schedule: PipelineSchedule = PipelineSchedule.ONE_F_ONE_B,
        context_parallel_size: int = 0,
        context_parallel_layout: CpLayout = CpLayout.DOCUMENT_HEAD_TAIL,
    ) -> None:
        """Sizes the context for steps of up to `documents` documents under
        these options (plan_step's keywords) by planning a representative
        step once and keeping its storage."""
        options = _step_options(
            num_ranks, max_tokens_per_microbatch, microbatches_per_rank, algorithm, ordering,
            overflow, seed, sync, pipeline_stages, pipeline_schedule, context_parallel_size,
            context_parallel_layout,
        )
        _capi.flopspack_step_context_reserve(
            self._handle, options, _validate.handle(model, CostModel, "model"),
            _validate.uint64(documents, "documents"),
        )

    def plan_step(
        self,
        lengths: Any,
        model: CostModel,
        *,
        num_ranks: int,
        max_tokens_per_microbatch: int,
        microbatches_per_rank: int = 0,
        algorithm: StepAlgorithm = StepAlgorithm.DOCUMENTS,
        ordering: SlotOrder = SlotOrder.DESCENDING,
        overflow: Overflow = Overflow.SPLIT,
        seed: int = 0,
        sync: Sync = Sync.STEP,
        pipeline_stages: int = 0,
        pipeline_schedule: PipelineSchedule = PipelineSchedule.ONE_F_ONE_B,
        context_parallel_size: int = 0,
        context_parallel_layout: CpLayout = CpLayout.DOCUMENT_HEAD_TAIL,
    ) -> Plan:
        """:func:`plan_step` (same arguments but extra_costs, same plan) on
        the context's storage. A plan's arrays return to the context when
        the plan is released (close() or garbage collection)."""
        options = _step_options(
            num_ranks, max_tokens_per_microbatch, microbatches_per_rank, algorithm, ordering,
            overflow, seed, sync, pipeline_stages, pipeline_schedule, context_parallel_size,
            context_parallel_layout,
        )
        return Plan(
            _capi.flopspack_plan_step_in_context(
                self._handle, options, _validate.handle(model, CostModel, "model"),
                _arrays.lengths(lengths),
            )
        )

    @property
    def kept_bytes(self) -> int:
        """Bytes of storage the context holds for reuse now."""
        return int(_capi.flopspack_step_context_kept_bytes(self._handle))

    def __repr__(self) -> str:
        if self.closed:
            return "<flopspack.StepContext closed>"
        return f"<flopspack.StepContext kept_bytes={self.kept_bytes}>"


def multimodal_costs(
    encoder: CostModel, text_tokens: Any, images: Any, patches_per_image: Any
) -> "tuple[np.ndarray, np.ndarray]":
    """Multimodal documents (text tokens, images, patches per image, one
    entry each per document) -> (tokens, extra_costs): the tokens the
    language model sees (text + images x patches) and the encoder's cost of
    the images (images x encoder's document cost of the patches). Pass them
    to plan_step(tokens, lm, ..., extra_costs=extra_costs). The encoder is
    typically CostModel.transformer(causal=False, vocab_size=0, ...)."""
    text = _arrays.lengths(text_tokens, "text_tokens")
    imgs = _arrays.lengths(images, "images")
    patches = _arrays.lengths(patches_per_image, "patches_per_image")
    if not (text.size == imgs.size == patches.size):
        raise InvalidArgumentError(
            f"images has {imgs.size} entries and patches_per_image {patches.size} for "
            f"{text.size} text_tokens"
        )
    tokens = np.zeros(text.size, dtype=np.int64)
    extra = np.zeros(text.size, dtype=np.float64)
    _capi.flopspack_swig_multimodal_costs(
        _validate.handle(encoder, CostModel, "encoder"), text, imgs, patches, tokens, extra
    )
    return tokens, extra
