"""Checking Python arguments against the C types the library reads.

Every scalar a public function hands to the C library passes through one of
these functions first, so that a value the C type cannot hold is refused
with an error that names the argument, instead of being truncated (10.9 ->
10), parsed ("10" -> 10), wrapped (2**64 - 1 -> -1) or reported with a SWIG
wrapper's name. They check representability only; what a value means (a
capacity must be positive, ...) is the library's to check, with its own
messages. Arrays are checked by flopspack._arrays.

Rules (docs/bindings.md, "Arguments"):
- integers: int, numpy integers, or anything with __index__; never bool,
  float (not even 10.0), str or complex. TypeError for the wrong type,
  ValueError for a value outside the C type's range.
- reals: int, float, numpy integers and floats; never bool, str or complex.
- flags: bool or numpy bool, or the integers 0 and 1.
- enums: a member of the enum class, or an int equal to a member's value.
- handles: an instance of the expected flopspack class (TypeError for None
  where a handle is required); a closed one raises ClosedError.
"""

from __future__ import annotations

import enum
import numbers
import operator
from typing import Any, Optional, Type, TypeVar

import numpy as np

from . import capi as _capi
from ._errors import OutOfRangeError

INT32 = (-(2**31), 2**31 - 1)
UINT32 = (0, 2**32 - 1)
INT64 = (-(2**63), 2**63 - 1)
UINT64 = (0, 2**64 - 1)
SIZE = UINT64  # size_t on the 64-bit platforms flopspack supports

_RANGE_TEXT = {
    INT32: "int32 [-2^31, 2^31 - 1]",
    UINT32: "uint32 [0, 2^32 - 1]",
    INT64: "int64 [-2^63, 2^63 - 1]",
    UINT64: "uint64 [0, 2^64 - 1]",
}

E = TypeVar("E", bound=enum.Enum)


def _describe(value: Any) -> str:
    text = repr(value)
    if len(text) > 40:
        text = text[:37] + "..."
    return f"{type(value).__name__} {text}"


def _as_int(value: Any, name: str) -> int:
    if isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be an integer, got bool {value!r}")
    try:
        return operator.index(value)
    except TypeError:
        raise TypeError(f"{name} must be an integer, got {_describe(value)}") from None


def integer(value: Any, name: str, bounds: tuple = INT64) -> int:
    """value as a Python int within bounds (one of the constants above)."""
    result = value if type(value) is int else _as_int(value, name)  # fast path first
    lo, hi = bounds
    if not lo <= result <= hi:
        where = _RANGE_TEXT.get(bounds, f"[{lo}, {hi}]")
        raise ValueError(f"{name} = {result} is out of range: it must fit in {where}")
    return result


def int32(value: Any, name: str) -> int:
    return integer(value, name, INT32)


def uint32(value: Any, name: str) -> int:
    return integer(value, name, UINT32)


def int64(value: Any, name: str) -> int:
    return integer(value, name, INT64)


def uint64(value: Any, name: str) -> int:
    return integer(value, name, UINT64)


def size(value: Any, name: str) -> int:
    """A size_t: a count or an index."""
    return integer(value, name, SIZE)


def real(value: Any, name: str) -> float:
    """value as a float (a C double). Non-finite values pass: the library
    decides where NaN or infinity is allowed."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {_describe(value)}")
    try:
        return float(value)
    except OverflowError:  # an int beyond the double range
        raise ValueError(f"{name} = {value} is too large for a double") from None


def flag(value: Any, name: str) -> int:
    """A C int flag: bool / numpy bool, or 0 / 1, as 0 or 1."""
    if isinstance(value, (bool, np.bool_)):
        return int(bool(value))
    try:
        result = operator.index(value)
    except TypeError:
        raise TypeError(f"{name} must be a bool, got {_describe(value)}") from None
    if result not in (0, 1):
        raise ValueError(f"{name} = {result} must be a bool (True/False or 1/0)")
    return result


def choice(value: Any, cls: Type[E], name: str) -> int:
    """An enum argument: a member of cls, or an int equal to a member's
    value; returns the value (an int32 in C)."""
    if isinstance(value, cls):
        # int() of an IntEnum member is its value, faster than .value
        return int(value) if isinstance(value, int) else value.value
    # Another enum's member is a mistake even if its value happens to exist.
    if not isinstance(value, (bool, np.bool_, enum.Enum)):
        try:
            return int(cls(operator.index(value)).value)
        except (TypeError, ValueError):
            pass
    names = ", ".join(f"{cls.__name__}.{m.name}" for m in cls)
    wrong_value = isinstance(value, numbers.Integral) and not isinstance(value, (bool, enum.Enum))
    raise (ValueError if wrong_value else TypeError)(
        f"{name} must be one of {names}; got {_describe(value)}"
    )


def optional(value: Any, check, name: str) -> Optional[Any]:
    """None, or check(value, name)."""
    return None if value is None else check(value, name)


def instance(value: Any, cls: type, name: str, allow_none: bool = False) -> Any:
    """value if it is a cls (or None, when allowed); TypeError otherwise."""
    if value is None and allow_none:
        return None
    if not isinstance(value, cls):
        wanted = f"a flopspack.{cls.__name__}" + (" or None" if allow_none else "")
        raise TypeError(f"{name} must be {wanted}, got {_describe(value)}")
    return value


def handle(value: Any, cls: type, name: str, allow_none: bool = False) -> Any:
    """The C handle of value, a cls instance (None stays None when allowed).
    A closed object raises ClosedError."""
    obj = instance(value, cls, name, allow_none)
    return None if obj is None else obj._handle


def index(value: Any, length: int, name: str, what: str = "elements") -> int:
    """A Python-style index into `length` elements: negative counts from the
    end. OutOfRangeError (an IndexError) when it is outside [-length, length),
    as the library itself answers."""
    i = _as_int(value, name)
    j = i + length if i < 0 else i
    if not 0 <= j < length:
        raise OutOfRangeError(
            f"{name} {i} is out of range: there are {length} {what}", _capi.FLOPSPACK_OUT_OF_RANGE
        )
    return j


def buffer(value: Any, name: str) -> np.ndarray:
    """Bytes-like value (bytes, bytearray, memoryview, a uint8 array) as a
    uint8 array (a saved state); an int is refused, not taken as a size."""
    if isinstance(value, (str, int, np.integer)) or value is None:
        raise TypeError(f"{name} must be bytes, got {_describe(value)}")
    try:
        view = memoryview(value)
    except TypeError:
        raise TypeError(f"{name} must be bytes, got {_describe(value)}") from None
    return np.frombuffer(view.tobytes(), dtype=np.uint8)
