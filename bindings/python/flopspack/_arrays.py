"""Converting inputs to the C arrays the library reads, without copying
when the caller already has the right array, and refusing what the C type
cannot hold exactly (scalar arguments: flopspack._validate).

Refused, with an error naming the array and the first bad element: floats
where integers are wanted (never truncated), strings (never parsed), bools
and complex numbers, integers outside the C type (an unsigned 2^63 would
wrap to -2^63), more than one dimension."""

from __future__ import annotations

from typing import Any

import numpy as np

_INT64_MAX = 2**63 - 1


def _check_elements(values: Any, name: str, allowed: str) -> bool:
    """Python sequences only (an ndarray's dtype says it all): numpy turns
    [1.5, True] into floats and [3, True] into integers, so a bool among
    numbers is found here, by type, before conversion. Returns True for a
    sequence of Python or numpy integers only."""
    if not isinstance(values, (list, tuple)) or not values:
        return False
    kinds = set(map(type, values))
    if bool in kinds or np.bool_ in kinds:
        i = next(i for i, v in enumerate(values) if isinstance(v, (bool, np.bool_)))
        raise TypeError(f"{name}[{i}] = {values[i]!r} is a bool, not {allowed}")
    return all(issubclass(k, (int, np.integer)) for k in kinds)


def _bad_object_element(array: np.ndarray, name: str, lo: int, hi: int, allowed: str):
    """The error for the first element of an object array (Python ints too
    large for any numpy integer, or mixed types) that is not an integer in
    [lo, hi]."""
    for i, v in enumerate(array):
        if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)):
            return TypeError(f"{name}[{i}] = {v!r} is a {type(v).__name__}, not {allowed}")
        if not lo <= int(v) <= hi:
            return ValueError(f"{name}[{i}] = {int(v)} does not fit in {allowed}")
    return TypeError(f"{name} must hold {allowed}, got dtype {array.dtype}")


def lengths(values: Any, name: str = "lengths") -> np.ndarray:
    """int64, C-contiguous, 1-D. A numpy int64 array is passed through as is
    (no copy: the C call reads its buffer); sequences and other integer
    dtypes are converted once. Floats are refused rather than truncated,
    unsigned values above 2^63 - 1 rather than wrapped."""
    if isinstance(values, np.ndarray) and values.dtype == np.int64 and values.ndim == 1:
        return np.ascontiguousarray(values)
    all_integers = _check_elements(values, name, "an integer")
    array = np.asarray(values)
    if array.size == 0:
        return np.zeros(0, dtype=np.int64)
    if array.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional, got shape {array.shape}")
    if all_integers and array.dtype.kind not in "iu":
        # numpy makes floats of [5, 2**63] (int64 and uint64 mixed): find the
        # integer that does not fit instead.
        array = np.array(values, dtype=object)
    if array.dtype.kind == "O":
        raise _bad_object_element(array, name, -_INT64_MAX - 1, _INT64_MAX, "int64")
    if array.dtype.kind not in "iu":
        raise TypeError(f"{name} must hold integers, got dtype {array.dtype}")
    if array.dtype.kind == "u" and array.dtype.itemsize >= 8 and array.size:
        i = int(np.argmax(array))
        if int(array[i]) > _INT64_MAX:  # as Python ints: numpy would compare as floats
            raise ValueError(f"{name}[{i}] = {int(array[i])} does not fit in int64")
    return np.ascontiguousarray(array, dtype=np.int64)


def floats(values: Any, name: str) -> np.ndarray:
    """float64, C-contiguous, 1-D; passed through when it already is.
    Integers and floats of any width convert; bools, complex numbers and
    strings are refused."""
    if isinstance(values, np.ndarray) and values.dtype == np.float64 and values.ndim == 1:
        return np.ascontiguousarray(values)
    _check_elements(values, name, "a real number")
    array = np.asarray(values)
    if array.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional, got shape {array.shape}")
    if array.dtype.kind not in "iuf":
        raise TypeError(f"{name} must hold real numbers, got dtype {array.dtype}")
    return np.ascontiguousarray(array, dtype=np.float64)


def offsets(values: Any, name: str = "offsets") -> np.ndarray:
    """size_t (uintp), C-contiguous, 1-D; negative values are refused."""
    if isinstance(values, np.ndarray) and values.dtype == np.uintp and values.ndim == 1:
        return np.ascontiguousarray(values)
    all_integers = _check_elements(values, name, "an integer")
    array = np.asarray(values)
    if array.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional, got shape {array.shape}")
    if all_integers and array.dtype.kind not in "iu":
        array = np.array(values, dtype=object)  # as in lengths()
    if array.size and array.dtype.kind == "O":
        raise _bad_object_element(array, name, 0, 2**64 - 1, "uint64")
    if array.size and array.dtype.kind not in "iu":
        raise TypeError(f"{name} must hold integers, got dtype {array.dtype}")
    if array.size and array.dtype.kind == "i" and array.min() < 0:
        i = int(np.argmin(array))
        raise ValueError(f"{name}[{i}] = {int(array[i])} must not be negative")
    return np.ascontiguousarray(array, dtype=np.uintp)
