"""The owning base of every object that wraps a C handle."""

from __future__ import annotations

from typing import Any, Callable

from ._errors import ClosedError


class Handle:
    """Owns one C handle. ``close()`` destroys it exactly once (SWIG disowns
    the pointer, so garbage collection will not destroy it again); using the
    object afterwards raises ClosedError. Also a context manager."""

    __slots__ = ("_h", "__weakref__")
    _delete: Callable[[Any], None]  # the SWIG delete_* of the handle type

    def __init__(self, handle: Any) -> None:
        self._h = handle

    @property
    def _handle(self) -> Any:
        h = self._h
        if h is None:
            raise ClosedError(f"{type(self).__name__} is closed")
        return h

    @property
    def closed(self) -> bool:
        return self._h is None

    def close(self) -> None:
        """Releases the C object now (idempotent). Without it, garbage
        collection releases it."""
        h, self._h = self._h, None
        if h is not None:
            type(self)._delete(h)

    def __enter__(self):
        self._handle  # entering a closed object is an error too
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
