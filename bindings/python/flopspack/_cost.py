"""Cost models: what a packed sequence costs (see docs/cost-models.md)."""

from __future__ import annotations

import dataclasses
import enum
from typing import Any, Callable, Optional, Sequence, Tuple

import numpy as np

from . import _arrays, _validate
from . import capi as _capi
from ._handle import Handle


class AttentionSpan(enum.IntEnum):
    """How far attention reaches inside a packed sequence."""

    DOCUMENT = _capi.FLOPSPACK_ATTENTION_DOCUMENT  # varlen / block-diagonal
    SEQUENCE = _capi.FLOPSPACK_ATTENTION_SEQUENCE  # the whole sequence as one


class FitTerm(enum.IntFlag):
    """Terms of the polynomial form a fit may use."""

    PER_SEQUENCE = _capi.FLOPSPACK_FIT_PER_SEQUENCE
    PER_DOCUMENT = _capi.FLOPSPACK_FIT_PER_DOCUMENT
    LINEAR = _capi.FLOPSPACK_FIT_LINEAR
    QUADRATIC = _capi.FLOPSPACK_FIT_QUADRATIC
    ALL = _capi.FLOPSPACK_FIT_ALL


@dataclasses.dataclass(frozen=True)
class TransformerConfig:
    """flopspack_transformer_config: a dense decoder-only transformer.
    Defaults are those of flopspack_transformer_config_init()."""

    num_layers: int
    hidden_size: int
    num_attention_heads: int
    num_key_value_heads: int
    intermediate_size: int
    head_dim: int = 0  # 0 = hidden_size / num_attention_heads
    vocab_size: int = 0  # 0 = no LM head term
    gated_mlp: bool = False
    causal: bool = True
    recompute: bool = False
    attention_span: AttentionSpan = AttentionSpan.DOCUMENT

    def _to_c(self) -> Any:
        c = _capi.flopspack_transformer_config()  # struct_size and defaults set
        for field in dataclasses.fields(self):
            value = getattr(self, field.name)
            if field.name == "attention_span":
                value = _validate.choice(value, AttentionSpan, field.name)
            elif field.name in ("gated_mlp", "causal", "recompute"):
                value = _validate.flag(value, field.name)
            else:
                value = _validate.int64(value, field.name)
            setattr(c, field.name, value)
        return c


@dataclasses.dataclass(frozen=True)
class FitReport:
    """flopspack_fit_report: the fitted coefficients and the fit's quality."""

    per_sequence: float
    per_document: float
    linear: float
    quadratic: float
    r_squared: float
    rms_residual: float
    num_samples: int


def _from_c(cls, c: Any):
    return cls(**{f.name: getattr(c, f.name) for f in dataclasses.fields(cls)})


class CostModel(Handle):
    """A cost model (flopspack_cost_model): immutable, shareable by threads.

    Make one with :meth:`tokens`, :meth:`polynomial`, :meth:`transformer`,
    :meth:`fit` or :meth:`custom`. Lengths may be any integer sequence; a
    C-contiguous int64 numpy array is read in place without a copy.
    """

    __slots__ = ("_kind", "_keepalive")

    def __init__(self, handle: Any, kind: str, keepalive: Any = None) -> None:
        super().__init__(handle)
        self._kind = kind
        # A custom model's callable: the C model may be shared by a planner
        # that outlives this object's close(), so the reference stays.
        self._keepalive = keepalive

    @classmethod
    def tokens(cls) -> "CostModel":
        """cost = number of tokens."""
        return cls(_capi.flopspack_cost_model_tokens(), "tokens")

    @classmethod
    def polynomial(
        cls,
        per_sequence: float = 0.0,
        per_document: float = 0.0,
        linear: float = 0.0,
        quadratic: float = 0.0,
    ) -> "CostModel":
        """per_document + linear*l + quadratic*l**2 per document, plus
        per_sequence once per non-empty sequence."""
        h = _capi.flopspack_cost_model_polynomial(
            _validate.real(per_sequence, "per_sequence"),
            _validate.real(per_document, "per_document"),
            _validate.real(linear, "linear"),
            _validate.real(quadratic, "quadratic"),
        )
        return cls(h, "polynomial")

    @classmethod
    def transformer(
        cls, config: Optional[TransformerConfig] = None, **fields: Any
    ) -> "CostModel":
        """Training FLOPs of a dense transformer: pass a TransformerConfig or
        its fields as keywords."""
        if config is None:
            config = TransformerConfig(**fields)
        else:
            _validate.instance(config, TransformerConfig, "config")
            if fields:
                config = dataclasses.replace(config, **fields)
        return cls(_capi.flopspack_cost_model_transformer(config._to_c()), "transformer")

    @classmethod
    def preset(cls, name: str, **fields: Any) -> "CostModel":
        """:meth:`transformer` of a named shape (the CLI's --model presets,
        e.g. "llama3-8b"); keywords override TransformerConfig fields."""
        from ._model_shapes import preset_config

        return cls.transformer(preset_config(name), **fields)

    @classmethod
    def from_hf_config(cls, path_or_dict: Any, **fields: Any) -> "CostModel":
        """:meth:`transformer` of a Hugging Face config.json (path, model
        directory or dict; rules in docs/cost-models.md); keywords override
        TransformerConfig fields (gated_mlp for an unknown model_type)."""
        from ._model_shapes import hf_config

        gated = fields.pop("gated_mlp", None)
        return cls.transformer(hf_config(path_or_dict, gated_mlp=gated), **fields)

    @classmethod
    def fit(
        cls,
        samples: Sequence[Sequence[int]],
        seconds: Any,
        terms: FitTerm = FitTerm.ALL,
    ) -> Tuple["CostModel", FitReport]:
        """Non-negative least squares of the polynomial form on measured
        samples: samples[i] holds the document lengths of a packed sequence
        that took seconds[i]. Returns the model and the fit report."""
        arrays = [_arrays.lengths(sample, f"samples[{i}]") for i, sample in enumerate(samples)]
        bounds = np.zeros(len(arrays) + 1, dtype=np.uintp)
        np.cumsum([len(a) for a in arrays], out=bounds[1:])
        flat = np.concatenate(arrays) if arrays else np.zeros(0, dtype=np.int64)
        return cls.fit_csr(flat, bounds, seconds, terms)

    @classmethod
    def fit_csr(
        cls, lengths: Any, offsets: Any, seconds: Any, terms: FitTerm = FitTerm.ALL
    ) -> Tuple["CostModel", FitReport]:
        """:meth:`fit` on flat arrays: sample i is
        lengths[offsets[i]:offsets[i+1]]; len(offsets) == len(seconds) + 1."""
        options = _capi.flopspack_fit_options()
        options.terms = _validate.uint32(terms, "terms")
        report, h = _capi.flopspack_swig_cost_model_fit(  # argouts in C order
            options,
            _arrays.lengths(lengths, "document_lengths"),
            _arrays.offsets(offsets, "sample_offsets"),
            _arrays.floats(seconds, "seconds"),
        )
        return cls(h, "fit"), _from_c(FitReport, report)

    @classmethod
    def custom(cls, fn: Callable[[np.ndarray], float]) -> "CostModel":
        """A model backed by a Python callable: fn(lengths) -> cost of one
        packed sequence holding documents of these lengths (a read-only
        int64 array, a copy the callable may keep). An exception or a bad value fails
        the calling flopspack function with CallbackError, with fn's
        exception as its __cause__."""
        return cls(_capi.flopspack_py_cost_model_custom(fn), "custom", keepalive=fn)

    def sequence_cost(self, lengths: Any) -> float:
        """Cost of one packed sequence holding these documents."""
        return _capi.flopspack_cost_model_sequence_cost(
            self._handle, _arrays.lengths(lengths, "document_lengths")
        )

    def document_costs(self, lengths: Any) -> np.ndarray:
        """Cost of each document alone (no per-sequence overhead)."""
        array = _arrays.lengths(lengths, "document_lengths")
        out = np.empty(array.shape[0], dtype=np.float64)
        _capi.flopspack_swig_cost_model_document_costs(self._handle, array, out)
        return out

    def padded_batch_cost(self, lengths: Any) -> float:
        """Cost of a batch of samples each padded to the longest."""
        return _capi.flopspack_cost_model_padded_batch_cost(
            self._handle, _arrays.lengths(lengths, "lengths")
        )

    @property
    def sequence_overhead(self) -> float:
        """The constant a non-empty sequence costs on top of its documents."""
        return _capi.flopspack_cost_model_sequence_overhead(self._handle)

    @property
    def is_additive(self) -> bool:
        """True if sequence_cost = overhead + sum of document costs."""
        return bool(_capi.flopspack_cost_model_is_additive(self._handle))

    def __repr__(self) -> str:
        state = "closed" if self.closed else f"additive={self.is_additive}"
        return f"<flopspack.CostModel {self._kind} {state}>"
