"""Converting inputs to the C arrays the library reads, without copying
when the caller already has the right array."""

from __future__ import annotations

from typing import Any

import numpy as np


def lengths(values: Any, name: str = "lengths") -> np.ndarray:
    """int64, C-contiguous, 1-D. A numpy int64 array is passed through as is
    (no copy: the C call reads its buffer); sequences and other integer
    dtypes are converted once. Floats are refused rather than truncated."""
    if isinstance(values, np.ndarray) and values.dtype == np.int64 and values.ndim == 1:
        return np.ascontiguousarray(values)
    array = np.asarray(values)
    if array.size == 0:
        return np.zeros(0, dtype=np.int64)
    if array.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional, got shape {array.shape}")
    if array.dtype.kind not in "iu":
        raise TypeError(f"{name} must hold integers, got dtype {array.dtype}")
    return np.ascontiguousarray(array, dtype=np.int64)


def floats(values: Any, name: str) -> np.ndarray:
    """float64, C-contiguous, 1-D; passed through when it already is."""
    array = np.asarray(values, dtype=np.float64)
    if array.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional, got shape {array.shape}")
    return np.ascontiguousarray(array)


def offsets(values: Any, name: str = "offsets") -> np.ndarray:
    """size_t (uintp), C-contiguous, 1-D; negative values are refused."""
    if isinstance(values, np.ndarray) and values.dtype == np.uintp and values.ndim == 1:
        return np.ascontiguousarray(values)
    array = np.asarray(values)
    if array.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional, got shape {array.shape}")
    if array.size and array.dtype.kind not in "iu":
        raise TypeError(f"{name} must hold integers, got dtype {array.dtype}")
    if array.size and array.dtype.kind == "i" and array.min() < 0:
        i = int(np.argmin(array))
        raise ValueError(f"{name}[{i}] = {int(array[i])} must not be negative")
    return np.ascontiguousarray(array, dtype=np.uintp)
