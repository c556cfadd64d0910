"""The streaming packer: bounded memory, sequences out as soon as final."""

from __future__ import annotations

import dataclasses
import enum
from typing import Any, Optional

import numpy as np

from . import _arrays, _validate
from . import capi as _capi
from ._cost import CostModel
from ._handle import Handle
from ._plan import Plan


class Overflow(enum.IntEnum):
    """What happens to a document longer than the capacity."""

    ERROR = _capi.FLOPSPACK_OVERFLOW_ERROR  # fail with InvalidArgumentError
    TRUNCATE = _capi.FLOPSPACK_OVERFLOW_TRUNCATE  # keep its first `capacity` tokens
    SPLIT = _capi.FLOPSPACK_OVERFLOW_SPLIT  # pieces of `capacity` tokens plus the rest
    DEFER = _capi.FLOPSPACK_OVERFLOW_DEFER  # left for a later step (step planner only)


@dataclasses.dataclass(frozen=True)
class StreamTotals:
    """flopspack_stream_totals: counters since creation."""

    documents_pushed: int
    pieces_held: int
    sequences_emitted: int
    tokens_emitted: int
    split_documents: int
    truncated_documents: int
    truncated_tokens: int


class StreamPacker(Handle):
    """flopspack_stream_packer: pack documents into sequences of `capacity`
    tokens while they stream past, holding at most `window` documents.
    Documents are numbered from 0 in push order; :meth:`take` returns the
    sequences made final so far as a :class:`Plan`. One thread at a time."""

    __slots__ = ("_model",)

    def __init__(
        self,
        capacity: int,
        *,
        window: Optional[int] = None,
        overflow: Overflow = Overflow.SPLIT,
        seed: int = 0,
        model: Optional[CostModel] = None,
        _handle: Any = None,
    ) -> None:
        # Keep the model (and a custom model's callable) alive: the C packer
        # holds its own reference to the C model.
        _validate.instance(model, CostModel, "model", allow_none=True)
        self._model = model
        if _handle is None:
            options = _capi.flopspack_stream_options()  # library defaults
            options.capacity = _validate.int64(capacity, "capacity")
            if window is not None:
                options.window = _validate.uint64(window, "window")
            options.overflow = _validate.choice(overflow, Overflow, "overflow")
            options.seed = _validate.uint64(seed, "seed")
            _handle = _capi.flopspack_stream_packer_create(
                options, _validate.handle(model, CostModel, "model", allow_none=True)
            )
        super().__init__(_handle)

    @classmethod
    def restore(cls, state: bytes, model: Optional[CostModel] = None) -> "StreamPacker":
        """A packer from bytes made by :meth:`save`."""
        data = _validate.buffer(state, "state")
        h = _capi.flopspack_swig_stream_packer_restore(
            data, _validate.handle(model, CostModel, "model", allow_none=True)
        )
        return cls(0, model=model, _handle=h)

    def push(self, lengths: Any) -> None:
        """Pushes documents (all or none on failure)."""
        _capi.flopspack_stream_packer_push(self._handle, _arrays.lengths(lengths))

    def flush(self) -> None:
        """Makes every open sequence final."""
        _capi.flopspack_stream_packer_flush(self._handle)

    @property
    def ready(self) -> int:
        """Final sequences waiting to be taken."""
        return _capi.flopspack_stream_packer_ready(self._handle)

    def take(self) -> Plan:
        """The sequences made final since the last take."""
        return Plan(_capi.flopspack_stream_packer_take(self._handle))

    @property
    def totals(self) -> StreamTotals:
        c = _capi.flopspack_stream_packer_totals(self._handle)
        return StreamTotals(**{f.name: getattr(c, f.name) for f in dataclasses.fields(StreamTotals)})

    def save(self) -> bytes:
        """The whole state as bytes (versioned, checksummed)."""
        h = self._handle
        buffer = np.zeros(_capi.flopspack_stream_packer_save_size(h), dtype=np.uint8)
        _capi.flopspack_swig_stream_packer_save(h, buffer)
        return buffer.tobytes()

    def __repr__(self) -> str:
        if self.closed:
            return "<flopspack.StreamPacker closed>"
        t = self.totals
        return (
            f"<flopspack.StreamPacker pushed={t.documents_pushed} held={t.pieces_held} "
            f"emitted={t.sequences_emitted} ready={self.ready}>"
        )
