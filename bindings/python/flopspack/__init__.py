"""flopspack: pack variable-length training data and spread it across GPUs
so that no GPU waits for another and little compute goes to padding.

The Python binding of the flopspack C library: numpy arrays in and out,
exceptions carrying the library's status and message, objects that are
context managers. See docs/bindings.md.
"""

from __future__ import annotations

from . import _validate
from . import capi as _capi
from ._calibration import (
    CalibrationReport,
    calibrate_from_samples,
    calibration_compositions,
    held_out_split,
)
from ._buckets import (
    BucketBudget,
    BucketDiagnostics,
    BucketSampler,
    BucketStream,
    BucketTarget,
    bucket_padding,
    optimize_buckets,
)
from ._context_parallel import ContextParallelShard, CpChunks, CpLayout, CpMetrics, shard_context_parallel
from ._cost import AttentionSpan, CostModel, FitReport, FitTerm, TransformerConfig
from ._epochs import PlannedEpochs
from ._model_file import CostModelFile, ModelQuality, PolynomialCoefficients, load_cost_model, save_cost_model
from ._errors import (
    BufferTooSmallError,
    CallbackError,
    CancelledError,
    ClosedError,
    Error,
    InfeasibleError,
    InternalError,
    InvalidArgumentError,
    OutOfMemoryError,
    OutOfRangeError,
)
from ._pack import BalanceAlgorithm, PackAlgorithm, balance, pack
from ._plan import Group, Plan, PlanArrays, PlanMetrics
from ._quality import PredictionQuality, prediction_quality, prediction_quality_csr
from ._planner import (
    Pending,
    PipelineSchedule,
    SlotOrder,
    StepAlgorithm,
    StepContext,
    StepPlanner,
    Sync,
    multimodal_costs,
    plan_step,
)
from ._simulate import SimPolicy, SimSeries, Simulation, SimulationSummary, Sweep, simulate, simulate_sweep
from ._stats import Binning, Stats, StatsComparison, StatsSummary, StatsTail, Weighting
from ._stream import Overflow, StreamPacker, StreamTotals

#: Version of the library actually loaded (flopspack_version_string()).
__version__: str = _capi.flopspack_version_string()
#: Version of the header this module was compiled against.
HEADER_VERSION: str = _capi.FLOPSPACK_VERSION_STRING


def version() -> str:
    """The loaded library's version, e.g. "1.0.0"."""
    return _capi.flopspack_version_string()


def version_number() -> int:
    """major * 10000 + minor * 100 + patch of the loaded library."""
    return _capi.flopspack_version_number()


def derive_seed(seed: int, stream: int) -> int:
    """The library's seed for stream `stream` (a shard, step, epoch...) of a
    parent seed: the same value in every language (flopspack_derive_seed)."""
    return _capi.flopspack_derive_seed(
        _validate.uint64(seed, "seed"), _validate.uint64(stream, "stream")
    )


def status_string(status: int) -> str:
    """The C name of a flopspack_status value."""
    return _capi.flopspack_status_string(_validate.int32(status, "status"))


if version_number() // 10000 != _capi.FLOPSPACK_VERSION_NUMBER // 10000:
    raise ImportError(
        f"flopspack: module built for {HEADER_VERSION} but libflopspack is "
        f"{__version__} (different major version)"
    )

__all__ = [
    "BalanceAlgorithm",
    "Binning",
    "BucketBudget",
    "BucketDiagnostics",
    "BucketSampler",
    "BucketStream",
    "BucketTarget",
    "AttentionSpan",
    "BufferTooSmallError",
    "CallbackError",
    "CancelledError",
    "ClosedError",
    "CostModel",
    "Error",
    "FitReport",
    "FitTerm",
    "Group",
    "HEADER_VERSION",
    "InfeasibleError",
    "InternalError",
    "InvalidArgumentError",
    "OutOfMemoryError",
    "OutOfRangeError",
    "Overflow",
    "PackAlgorithm",
    "Pending",
    "PipelineSchedule",
    "Plan",
    "PlanArrays",
    "PlanMetrics",
    "PlannedEpochs",
    "SimPolicy",
    "SimSeries",
    "Simulation",
    "SimulationSummary",
    "SlotOrder",
    "Stats",
    "StatsComparison",
    "StatsSummary",
    "StatsTail",
    "StepAlgorithm",
    "StepContext",
    "StepPlanner",
    "StreamPacker",
    "StreamTotals",
    "Sweep",
    "Sync",
    "TransformerConfig",
    "Weighting",
    "balance",
    "bucket_padding",
    "derive_seed",
    "optimize_buckets",
    "pack",
    "multimodal_costs",
    "plan_step",
    "simulate",
    "simulate_sweep",
    "status_string",
    "version",
    "version_number",
]

# Cost-model files and prediction quality (docs/cost-models.md).
__all__ += [
    "CalibrationReport",
    "CostModelFile",
    "ModelQuality",
    "PolynomialCoefficients",
    "PredictionQuality",
    "calibrate_from_samples",
    "calibration_compositions",
    "held_out_split",
    "load_cost_model",
    "prediction_quality",
    "prediction_quality_csr",
    "save_cost_model",
]

# Context parallelism (docs/context-parallel.md).
__all__ += [
    "ContextParallelShard",
    "CpChunks",
    "CpLayout",
    "CpMetrics",
    "shard_context_parallel",
]
