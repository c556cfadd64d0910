"""The owning base of every object that wraps a C handle."""

from __future__ import annotations

from typing import Any

from ._errors import ClosedError


class Handle:
    """Owns one C handle; using the object after ``close()`` raises
    ClosedError. Also a context manager.

    Lifetime (issue 21): the C object belongs to the SWIG proxy in ``_h``,
    whose destructor calls flopspack_<thing>_destroy once, when its last
    Python reference goes. Every call into the library passes that proxy as
    an argument, so the call holds a reference until it returns: ``close()``
    from another thread (or from a callback of the very call) while a call
    is running marks the object closed at once and leaves the running call
    a live C object, destroyed when it returns. Without a running call the C
    object is destroyed inside ``close()``. Nothing in this package keeps
    the proxy anywhere else."""

    __slots__ = ("_h", "__weakref__")

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
        """Releases the C object (idempotent): now, or when the calls
        running with it in other threads return. Without close(), garbage
        collection releases it."""
        # Dropping the reference, never calling _delete directly: a call in
        # flight holds its own reference, and destroying under it would be a
        # use-after-free.
        self._h = None

    def __enter__(self):
        self._handle  # entering a closed object is an error too
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
