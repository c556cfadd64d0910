"""Calibration without a framework: the packed sequences to time, the fit of
the cost model to their measured times, and the prediction-quality table of
the fitted model, the FLOPs formula and tokens (docs/cost-models.md,
"Calibrating on your own model"). flopspack.torch.calibrate measures the
times with PyTorch; a JAX or C++ trainer times calibration_compositions()
itself and calls calibrate_from_samples().
"""

from __future__ import annotations

import dataclasses
import json
import math
import statistics
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

from . import capi as _capi
from ._cost import CostModel
from ._errors import InvalidArgumentError
from ._model_file import (
    CostModelFile,
    ModelQuality,
    PathLike,
    PolynomialCoefficients,
    _dumps,
    _write_text,
)
from ._quality import prediction_quality

#: Shortest document a composition holds (or max_tokens, when smaller):
#: shorter ones add nothing a 16-token document does not already show.
MIN_DOCUMENT_TOKENS = 16

#: Row names of the quality table, in order.
MODEL_NAMES = {
    "fitted": "fitted (per sequence + per document + linear + quadratic)",
    "flops": "FLOPs formula, scaled (a·FLOPs + b)",
    "tokens": "tokens, scaled (a·tokens + b)",
}


def _fail(message: str):
    raise InvalidArgumentError(message, _capi.FLOPSPACK_INVALID_ARGUMENT)


def _positive_int(value: Any, name: str, minimum: int = 1) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        _fail(f"{name} = {value!r}: must be an integer >= {minimum}")
    return int(value)


class _Uniform:
    """Uniform numbers in [0, 1) from the library's seed derivation
    (flopspack_derive_seed(seed, k) for k = 0, 1, 2, ...), so the same seed
    gives the same compositions in any language that ports this."""

    def __init__(self, seed: int) -> None:
        self._seed = seed
        self._k = 0

    def __call__(self) -> float:
        x = _capi.flopspack_derive_seed(self._seed, self._k)
        self._k += 1
        return (x >> 11) * (1.0 / (1 << 53))


def calibration_compositions(max_tokens: int, samples: int = 64, seed: int = 0) -> List[List[int]]:
    """The packed sequences calibration times: ``samples`` lists of
    document lengths, each summing to at most ``max_tokens``. Sample i is
    - i % 3 == 0: one document, lengths stratified evenly on a log scale
      over [16, max_tokens] (the quadratic term);
    - i % 3 == 1: many short documents, each log-uniform below a cap that is
      itself log-uniform in [16, max_tokens / 16] (the per-document cost);
    - i % 3 == 2: a mix, lengths log-uniform in [16, budget];
    the last two fill a budget drawn uniformly in [max_tokens / 2,
    max_tokens] (the last document is cut to the budget). Deterministic in
    (max_tokens, samples, seed)."""
    max_tokens = _positive_int(max_tokens, "max_tokens")
    samples = _positive_int(samples, "samples")
    seed = _positive_int(seed, "seed", minimum=0)
    u = _Uniform(seed)
    low = min(MIN_DOCUMENT_TOKENS, max_tokens)

    def log_uniform(lo: int, hi: int, x: float) -> int:
        if hi <= lo:
            return lo
        value = round(math.exp(math.log(lo) + x * (math.log(hi) - math.log(lo))))
        return min(max(int(value), lo), hi)

    singles = (samples + 2) // 3
    out: List[List[int]] = []
    for i in range(samples):
        kind = i % 3
        if kind == 0:
            stratum = i // 3  # one length per 1/singles of the log range
            out.append([log_uniform(low, max_tokens, (stratum + u()) / singles)])
            continue
        budget = max(1, min(max_tokens, int(max_tokens * (0.5 + 0.5 * u()))))
        if kind == 1:
            cap = log_uniform(low, max(low, max_tokens // 16), u())
        else:
            cap = budget
        docs: List[int] = []
        left = budget
        while left > 0:
            length = min(log_uniform(low, max(low, cap), u()), left)
            docs.append(length)
            left -= length
        out.append(docs)
    return out


def held_out_split(samples: int) -> List[bool]:
    """Which samples calibration holds out: every fourth (i % 4 == 3), so
    each kind of composition and each length range is in both parts."""
    return [i % 4 == 3 for i in range(samples)]


@dataclasses.dataclass(frozen=True)
class CalibrationReport:
    """What calibration measured and how well each cost model predicts it.

    ``quality`` holds one row per model ("fitted", "flops" when a FLOPs
    formula was known, "tokens"), each with its figures on the training
    samples and on the held-out ones. ``samples[i]`` took ``seconds[i]``
    (the median of ``timings[i]``, the individual repeats, when measured
    here); ``held_out[i]`` says which part it was in. ``coefficients`` are
    the fitted model's. save() writes a cost-model file with the samples
    added; CostModel.load() reads it like any model file."""

    coefficients: PolynomialCoefficients
    quality: Tuple[ModelQuality, ...]
    samples: Tuple[Tuple[int, ...], ...]
    seconds: Tuple[float, ...]
    held_out: Tuple[bool, ...]
    provenance: Mapping[str, str] = dataclasses.field(default_factory=dict)
    timings: Tuple[Tuple[float, ...], ...] = ()

    def model(self) -> CostModel:
        """The fitted cost model."""
        return self.to_file().model()

    def row(self, name: str) -> Optional[ModelQuality]:
        """The quality row of model ``name`` ("fitted", "flops", "tokens")."""
        return next((r for r in self.quality if r.model == name), None)

    @property
    def timing_noise(self) -> float:
        """Median over samples of (slowest - fastest repeat) / median: how
        much the clock alone scatters (nan without repeats)."""
        spreads = [(max(t) - min(t)) / statistics.median(t) for t in self.timings if len(t) > 1]
        return statistics.median(spreads) if spreads else math.nan

    def to_file(self) -> CostModelFile:
        return CostModelFile(
            coefficients=self.coefficients,
            unit="seconds",
            provenance=dict(self.provenance),
            quality=self.quality,
        )

    def save(self, path: PathLike) -> None:
        """A cost-model file plus "samples": one object per sample with its
        "lengths", "seconds", "held_out" and, when measured here, "repeats"."""
        entries = []
        for i, sample in enumerate(self.samples):
            entry: Dict[str, Any] = {
                "lengths": list(sample),
                "seconds": self.seconds[i],
                "held_out": self.held_out[i],
            }
            if self.timings:
                entry["repeats"] = list(self.timings[i])
            entries.append(entry)
        _write_text(path, _dumps(self.to_file().to_json(), {"samples": entries}))

    @classmethod
    def load(cls, path: PathLike) -> "CalibrationReport":
        """A report saved by save(): a cost-model file that has "samples"."""
        with open(path, encoding="utf-8") as f:
            text = f.read()
        file = CostModelFile.parse(text)
        obj = json.loads(text)
        entries = obj.get("samples")
        if not isinstance(entries, list) or not entries:
            _fail(f"{path}: a calibration report needs a non-empty \"samples\" array")
        samples, seconds, held_out, timings = [], [], [], []
        for i, e in enumerate(entries):
            if not isinstance(e, dict) or not isinstance(e.get("lengths"), list):
                _fail(f"{path}: samples[{i}] needs \"lengths\"")
            samples.append(tuple(int(l) for l in e["lengths"]))
            seconds.append(float(e.get("seconds", math.nan)))
            held_out.append(bool(e.get("held_out", False)))
            if "repeats" in e:
                timings.append(tuple(float(t) for t in e["repeats"]))
        return cls(
            coefficients=file.coefficients,
            quality=file.quality,
            samples=tuple(samples),
            seconds=tuple(seconds),
            held_out=tuple(held_out),
            provenance=dict(file.provenance),
            timings=tuple(timings) if len(timings) == len(samples) else (),
        )

    def table(self) -> str:
        """The prediction-quality table as Markdown."""
        lines = [
            "| cost model | R² train | R² held out | RMS held out | "
            "mean rel. error held out | max rel. error held out |",
            "|---|---|---|---|---|---|",
        ]
        for row in self.quality:
            h = row.held_out
            cells = [
                MODEL_NAMES.get(row.model, row.model),
                f"{row.train.r_squared:.3f}",
                f"{h.r_squared:.3f}" if h else "-",
                _seconds(h.rms_residual) if h else "-",
                f"{100 * h.mean_relative_error:.1f}%" if h else "-",
                f"{100 * h.max_relative_error:.1f}%" if h else "-",
            ]
            lines.append("| " + " | ".join(cells) + " |")
        return "\n".join(lines)

    def __str__(self) -> str:
        c = self.coefficients
        train = sum(1 for h in self.held_out if not h)
        text = [
            f"calibration: {len(self.samples)} samples ({train} fitted, "
            f"{len(self.samples) - train} held out)",
            self.table(),
            f"fitted: {_seconds(c.per_sequence)} per sequence + {_seconds(c.per_document)} per "
            f"document + {c.linear:.3e} s/token + {c.quadratic:.3e} s/token² per document",
        ]
        if not math.isnan(self.timing_noise):
            text.append(f"timing noise (median spread of repeats): {100 * self.timing_noise:.1f}%")
        return "\n".join(text)


def _seconds(x: float) -> str:
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6)):
        if abs(x) >= scale:
            return f"{x / scale:.3g} {unit}"
    return f"{x / 1e-9:.3g} ns"


def calibrate_from_samples(
    samples: Sequence[Sequence[int]],
    seconds: Sequence[float],
    *,
    held_out: Optional[Sequence[bool]] = None,
    flops_model: Optional[CostModel] = None,
    provenance: Optional[Mapping[str, Any]] = None,
    timings: Sequence[Sequence[float]] = (),
) -> Tuple[CostModel, CalibrationReport]:
    """Fits the cost model to measured samples and rates it, the FLOPs
    formula (when ``flops_model`` is given) and tokens.

    ``samples[i]`` holds the document lengths of a packed sequence that
    took ``seconds[i]`` (finite, > 0). ``held_out`` marks the samples kept
    out of every fit (default: held_out_split); the fitted model is fitted
    on the others, the FLOPs formula and tokens get a scale and an offset
    fitted on them too (a·cost + b, a, b >= 0), and every model is then
    rated on both parts with prediction_quality(). Returns the fitted model
    and the report."""
    n = len(samples)
    if n == 0:
        _fail("calibration: no samples")
    if len(seconds) != n:
        _fail(f"calibration: {n} samples but {len(seconds)} times")
    samples = [tuple(int(l) for l in s) for s in samples]
    for i, s in enumerate(samples):
        if not s:
            _fail(f"calibration: samples[{i}] holds no document")
    times = []
    for i, t in enumerate(seconds):
        t = float(t)
        if not math.isfinite(t) or t <= 0:
            _fail(f"calibration: seconds[{i}] = {t!r}: every measured time must be finite and > 0")
        times.append(t)
    mask = list(held_out) if held_out is not None else held_out_split(n)
    if len(mask) != n:
        _fail(f"calibration: {n} samples but {len(mask)} held_out flags")
    train = [i for i in range(n) if not mask[i]]
    test = [i for i in range(n) if mask[i]]
    if len(train) < 4:
        _fail(
            f"calibration: {len(train)} samples to fit are too few for the 4 terms "
            "(use at least 8 samples: a quarter is held out)"
        )

    def part(indices):
        return [samples[i] for i in indices], [times[i] for i in indices]

    train_samples, train_times = part(train)
    test_samples, test_times = part(test)
    fitted, _ = CostModel.fit(train_samples, train_times)
    rows = []
    for name, model in (("fitted", fitted), ("flops", flops_model), ("tokens", None)):
        if name == "flops" and model is None:
            continue
        scaled = name != "fitted"
        owned = model is None
        if owned:
            model = CostModel.tokens()
        try:
            on_train = prediction_quality(model, train_samples, train_times, fit_scale=scaled)
            on_test = None
            if test:
                on_test = prediction_quality(
                    model, test_samples, test_times, scale=on_train.scale, offset=on_train.offset
                )
        finally:
            if owned:
                model.close()
        rows.append(ModelQuality(name, on_train, on_test))
    report = CalibrationReport(
        coefficients=fitted.coefficients(),
        quality=tuple(rows),
        samples=tuple(samples),
        seconds=tuple(times),
        held_out=tuple(bool(h) for h in mask),
        provenance={str(k): str(v) for k, v in (provenance or {}).items()},
        timings=tuple(tuple(float(x) for x in t) for t in timings),
    )
    return fitted, report
