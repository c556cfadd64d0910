"""How well a cost model predicts measured times
(flopspack_cost_model_evaluate; see docs/cost-models.md)."""

from __future__ import annotations

import dataclasses
from typing import Any, Sequence

import numpy as np

from . import _arrays
from . import capi as _capi


@dataclasses.dataclass(frozen=True)
class PredictionQuality:
    """flopspack_prediction_quality: prediction = scale * cost + offset,
    compared with the measured seconds of each sample."""

    scale: float
    offset: float
    r_squared: float  # 1 - SS_res / SS_tot on these samples (< 0 possible held out)
    rms_residual: float  # seconds
    mean_relative_error: float  # mean |prediction - seconds| / seconds
    median_relative_error: float
    max_relative_error: float
    num_samples: int


def _flatten(samples: Sequence[Sequence[int]]):
    flat = np.asarray([int(l) for sample in samples for l in sample], dtype=np.int64)
    bounds = np.zeros(len(samples) + 1, dtype=np.uintp)
    np.cumsum([len(sample) for sample in samples], out=bounds[1:])
    return flat, bounds


def prediction_quality(
    model: Any,
    samples: Sequence[Sequence[int]],
    seconds: Any,
    *,
    fit_scale: bool = False,
    scale: float = 1.0,
    offset: float = 0.0,
) -> PredictionQuality:
    """How well ``model`` predicts ``seconds[i]``, the measured time of a
    packed sequence holding documents ``samples[i]``. With ``fit_scale``,
    ``seconds ≈ scale * cost + offset`` is first fitted to these samples by
    least squares with scale, offset >= 0 (for models that count FLOPs or
    tokens); otherwise the given ``scale`` and ``offset`` are used (1 and 0:
    the model counts seconds, as a fitted one does; or a map fitted on other
    samples, for held-out figures). Every time must be finite and > 0."""
    flat, bounds = _flatten(samples)
    return prediction_quality_csr(
        model, flat, bounds, seconds, fit_scale=fit_scale, scale=scale, offset=offset
    )


def prediction_quality_csr(
    model: Any,
    lengths: Any,
    offsets: Any,
    seconds: Any,
    *,
    fit_scale: bool = False,
    scale: float = 1.0,
    offset: float = 0.0,
) -> PredictionQuality:
    """:func:`prediction_quality` on flat arrays: sample i is
    lengths[offsets[i]:offsets[i+1]]; len(offsets) == len(seconds) + 1."""
    options = _capi.flopspack_evaluate_options()
    options.fit_scale = 1 if fit_scale else 0
    options.scale = float(scale)
    options.offset = float(offset)
    out = _capi.flopspack_swig_cost_model_evaluate(
        model._handle,
        options,
        _arrays.lengths(lengths, "document_lengths"),
        _arrays.offsets(offsets, "sample_offsets"),
        _arrays.floats(seconds, "seconds"),
    )
    return PredictionQuality(
        **{f.name: getattr(out, f.name) for f in dataclasses.fields(PredictionQuality)}
    )
