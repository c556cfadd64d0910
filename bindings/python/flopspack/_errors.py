"""Exceptions: one class per flopspack_status, carrying the status and the
library's message (read inside the same C call that failed)."""

from __future__ import annotations

from . import capi as _capi


class Error(Exception):
    """A flopspack call failed. ``status`` is the flopspack_status value,
    ``status_name`` its C name, ``message`` the library's detail."""

    def __init__(self, message: str, status: int = _capi.FLOPSPACK_INTERNAL) -> None:
        super().__init__(message)
        self.message = message
        self.status = int(status)
        self.status_name = _capi.flopspack_status_string(int(status))

    def __reduce__(self):  # picklable across DataLoader worker processes
        return (type(self), (self.message, self.status))


class InvalidArgumentError(Error, ValueError):
    """FLOPSPACK_INVALID_ARGUMENT: a bad value, a None handle, a closed object."""


class OutOfRangeError(Error, IndexError):
    """FLOPSPACK_OUT_OF_RANGE: an index or size beyond what exists or fits."""


class InfeasibleError(Error):
    """FLOPSPACK_INFEASIBLE: caps or budgets admit no valid assignment."""


class OutOfMemoryError(Error, MemoryError):
    """FLOPSPACK_OUT_OF_MEMORY."""


class InternalError(Error):
    """FLOPSPACK_INTERNAL: a bug in flopspack; please report it."""


class CallbackError(Error):
    """FLOPSPACK_CALLBACK_FAILED: a Python cost callback raised or returned a
    bad value; the callback's own exception is chained as ``__cause__``."""


class CancelledError(Error):
    """FLOPSPACK_CANCELLED."""


class BufferTooSmallError(Error):
    """FLOPSPACK_BUFFER_TOO_SMALL."""


class ClosedError(InvalidArgumentError):
    """An object was used after close()."""

    def __init__(self, message: str, status: int = _capi.FLOPSPACK_INVALID_ARGUMENT) -> None:
        super().__init__(message, status)


_BY_STATUS = {
    _capi.FLOPSPACK_INVALID_ARGUMENT: InvalidArgumentError,
    _capi.FLOPSPACK_OUT_OF_RANGE: OutOfRangeError,
    _capi.FLOPSPACK_INFEASIBLE: InfeasibleError,
    _capi.FLOPSPACK_OUT_OF_MEMORY: OutOfMemoryError,
    _capi.FLOPSPACK_INTERNAL: InternalError,
    _capi.FLOPSPACK_CALLBACK_FAILED: CallbackError,
    _capi.FLOPSPACK_CANCELLED: CancelledError,
    _capi.FLOPSPACK_BUFFER_TOO_SMALL: BufferTooSmallError,
}
# A status this package does not know yet (a newer library) raises Error.
_capi.flopspack_py_set_error_classes(_BY_STATUS)
