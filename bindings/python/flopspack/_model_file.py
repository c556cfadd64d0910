"""Cost-model files: a fitted (or any polynomial) cost model as a small,
versioned JSON file that every binding and the CLI read. The format is
specified in docs/cost-models.md ("Cost-model files"); this module is the
Python reader and writer.

    model.save("cost.json")                  # or save_cost_model(model, path, ...)
    model = flopspack.CostModel.load("cost.json")
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
from typing import Any, Dict, Mapping, Optional, Sequence, Tuple, Union

from . import capi as _capi
from ._errors import InvalidArgumentError
from ._quality import PredictionQuality

FORMAT = "flopspack-cost-model"
VERSION = 1
_COEFFICIENTS = ("per_sequence", "per_document", "linear", "quadratic")
_QUALITY_FIELDS = tuple(f.name for f in dataclasses.fields(PredictionQuality))

PathLike = Union[str, "os.PathLike[str]"]


@dataclasses.dataclass(frozen=True)
class PolynomialCoefficients:
    """flopspack_polynomial_coefficients: per_document + linear*l +
    quadratic*l**2 per document of length l, plus per_sequence once per
    non-empty sequence."""

    per_sequence: float
    per_document: float
    linear: float
    quadratic: float


@dataclasses.dataclass(frozen=True)
class ModelQuality:
    """One row of a prediction-quality table: how well model ``model``
    ("fitted", "flops", "tokens", ...) predicted the training samples and
    the held-out ones (None when nothing was held out). Both use the same
    scale and offset, fitted on the training samples."""

    model: str
    train: PredictionQuality
    held_out: Optional[PredictionQuality] = None


@dataclasses.dataclass(frozen=True)
class CostModelFile:
    """The contents of a cost-model file (version 1)."""

    coefficients: PolynomialCoefficients
    unit: str = "seconds"
    attention: str = "document"
    provenance: Mapping[str, str] = dataclasses.field(default_factory=dict)
    quality: Tuple[ModelQuality, ...] = ()

    def model(self) -> Any:
        """The cost model these coefficients describe."""
        from ._cost import CostModel

        c = self.coefficients
        return CostModel.polynomial(c.per_sequence, c.per_document, c.linear, c.quadratic)

    def to_json(self) -> Dict[str, Any]:
        """The file as a JSON-ready dict, keys in the documented order."""
        out: Dict[str, Any] = {
            "format": FORMAT,
            "version": VERSION,
            "kind": "polynomial",
            "attention": self.attention,
            "unit": self.unit,
            "coefficients": dataclasses.asdict(self.coefficients),
        }
        if self.provenance:
            out["provenance"] = dict(self.provenance)
        if self.quality:
            rows = []
            for row in self.quality:
                entry: Dict[str, Any] = {"model": row.model, "train": dataclasses.asdict(row.train)}
                if row.held_out is not None:
                    entry["held_out"] = dataclasses.asdict(row.held_out)
                rows.append(entry)
            out["quality"] = rows
        return out

    def to_text(self) -> str:
        return _dumps(self.to_json())

    def write(self, path: PathLike) -> None:
        _write_text(path, self.to_text())

    @classmethod
    def from_json(cls, obj: Any) -> "CostModelFile":
        """Validates a parsed file; unknown keys are ignored (a later minor
        revision of version 1 may add some)."""
        if not isinstance(obj, dict):
            _fail(f"the top level is a JSON {_kind_of(obj)}, not an object")
        fmt = obj.get("format")
        if fmt != FORMAT:
            _fail(f'"format" is {json.dumps(fmt)}, not "{FORMAT}"')
        version = obj.get("version")
        if not _is_int(version):
            _fail(f'"version" is {json.dumps(version)}, not an integer')
        if version != VERSION:
            _fail(f"version {version} is not supported (this library reads version {VERSION})")
        kind = obj.get("kind")
        if kind != "polynomial":
            _fail(f'kind {json.dumps(kind)} is not supported (version 1 holds "polynomial" models)')
        attention = obj.get("attention")
        if attention != "document":
            _fail(
                f"attention {json.dumps(attention)} is not supported (version 1 models cost "
                'each document on its own: "document")'
            )
        coefficients = obj.get("coefficients")
        if not isinstance(coefficients, dict):
            _fail('"coefficients" is missing or not an object')
        values = {}
        for name in _COEFFICIENTS:
            if name not in coefficients:
                _fail(f"coefficients.{name} is missing")
            values[name] = _number(coefficients[name], f"coefficients.{name}", non_negative=True)
        unit = obj.get("unit", "seconds")
        if not isinstance(unit, str):
            _fail(f'"unit" is {json.dumps(unit)}, not a string')
        provenance = obj.get("provenance", {})
        if not isinstance(provenance, dict) or not all(
            isinstance(v, str) for v in provenance.values()
        ):
            _fail('"provenance" must be an object of strings')
        rows = obj.get("quality", [])
        if not isinstance(rows, list):
            _fail('"quality" must be an array')
        quality = tuple(_quality_row(row, i) for i, row in enumerate(rows))
        return cls(
            coefficients=PolynomialCoefficients(**values),
            unit=unit,
            attention=attention,
            provenance=dict(provenance),
            quality=quality,
        )

    @classmethod
    def parse(cls, text: str) -> "CostModelFile":
        try:
            obj = json.loads(text, parse_constant=_reject_constant)
        except ValueError as e:  # json.JSONDecodeError is a ValueError
            _fail(f"not valid JSON: {e}")
        return cls.from_json(obj)

    @classmethod
    def read(cls, path: PathLike) -> "CostModelFile":
        with open(path, encoding="utf-8") as f:
            text = f.read()
        try:
            return cls.parse(text)
        except InvalidArgumentError as e:
            raise InvalidArgumentError(f"{os.fspath(path)}: {e.message}", e.status) from None


def coefficients_of(model: Any) -> PolynomialCoefficients:
    """The coefficients of a tokens, polynomial or fitted model
    (flopspack_cost_model_coefficients); InvalidArgumentError for a
    transformer or custom model."""
    c = _capi.flopspack_cost_model_coefficients(model._handle)
    return PolynomialCoefficients(*(getattr(c, name) for name in _COEFFICIENTS))


def save_cost_model(
    model: Any,
    path: PathLike,
    *,
    unit: str = "seconds",
    provenance: Optional[Mapping[str, Any]] = None,
    quality: Sequence[ModelQuality] = (),
) -> None:
    """Writes a cost-model file for a tokens, polynomial or fitted model.
    ``provenance`` values are written as strings."""
    CostModelFile(
        coefficients=coefficients_of(model),
        unit=unit,
        provenance={str(k): str(v) for k, v in (provenance or {}).items()},
        quality=tuple(quality),
    ).write(path)


def load_cost_model(path: PathLike) -> Any:
    """The cost model of a cost-model file."""
    return CostModelFile.read(path).model()


# ---- helpers ----


def _fail(message: str):
    raise InvalidArgumentError(f"cost model file: {message}", _capi.FLOPSPACK_INVALID_ARGUMENT)


def _reject_constant(name: str):
    raise ValueError(f"{name} is not a JSON number")


def _kind_of(value: Any) -> str:
    return {list: "array", str: "string", bool: "boolean", type(None): "null"}.get(
        type(value), "number"
    )


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _number(value: Any, name: str, *, non_negative: bool = False) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        _fail(f"{name} = {json.dumps(value)}: must be a number")
    x = float(value)
    if not math.isfinite(x) or (non_negative and x < 0):
        _fail(f"{name} = {value!r}: must be a finite number{' >= 0' if non_negative else ''}")
    return x


def _quality(obj: Any, name: str) -> PredictionQuality:
    if not isinstance(obj, dict):
        _fail(f"{name} must be an object")
    values: Dict[str, Any] = {}
    for field in _QUALITY_FIELDS:
        if field not in obj:
            _fail(f"{name}.{field} is missing")
        if field == "num_samples":
            if not _is_int(obj[field]) or obj[field] < 0:
                _fail(f"{name}.num_samples = {json.dumps(obj[field])}: must be an integer >= 0")
            values[field] = obj[field]
        else:
            values[field] = _number(obj[field], f"{name}.{field}")
    return PredictionQuality(**values)


def _quality_row(row: Any, i: int) -> ModelQuality:
    name = f"quality[{i}]"
    if not isinstance(row, dict):
        _fail(f"{name} must be an object")
    model = row.get("model")
    if not isinstance(model, str):
        _fail(f"{name}.model must be a string")
    train = _quality(row.get("train"), f"{name}.train")
    held_out = row.get("held_out")
    return ModelQuality(
        model, train, None if held_out is None else _quality(held_out, f"{name}.held_out")
    )


def _dumps(obj: Dict[str, Any], extra_lines: Optional[Dict[str, Sequence[Any]]] = None) -> str:
    """Pretty JSON (2-space indent, floats in Python's shortest round-trip
    form, so every double comes back bit for bit); each entry of the arrays
    in ``extra_lines`` is written compactly on one line of its own."""
    text = json.dumps(obj, indent=2, allow_nan=False)
    for key, items in (extra_lines or {}).items():
        body = ",\n".join(
            "    " + json.dumps(item, separators=(", ", ": "), allow_nan=False) for item in items
        )
        text = text[: -len("\n}")] + f',\n  "{key}": [\n{body}\n  ]\n}}'
    return text + "\n"


def _write_text(path: PathLike, text: str) -> None:
    # Written next to the target and renamed: a reader never sees half a file.
    tmp = f"{os.fspath(path)}.tmp{os.getpid()}"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, path)
