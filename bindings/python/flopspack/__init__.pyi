# Type stubs of the public flopspack API (checked against the package by
# tests/test_stubs.py: same names, same parameters).
import dataclasses
import enum
import os
from typing import Any, Callable, Dict, Iterable, Iterator, List, Mapping, NamedTuple, Optional, Sequence, Tuple, Union

import numpy as np
import numpy.typing as npt

__version__: str
HEADER_VERSION: str

def version() -> str: ...
def version_number() -> int: ...
def status_string(status: int) -> str: ...
def derive_seed(seed: int, stream: int) -> int: ...

_Lengths = npt.ArrayLike
_Path = Union[str, os.PathLike[str]]

class Error(Exception):
    message: str
    status: int
    status_name: str
    def __init__(self, message: str, status: int = ...) -> None: ...

class InvalidArgumentError(Error, ValueError): ...
class OutOfRangeError(Error, IndexError): ...
class InfeasibleError(Error): ...
class OutOfMemoryError(Error, MemoryError): ...
class InternalError(Error): ...
class CallbackError(Error): ...
class CancelledError(Error): ...
class BufferTooSmallError(Error): ...
class ClosedError(InvalidArgumentError):
    def __init__(self, message: str, status: int = ...) -> None: ...

class AttentionSpan(enum.IntEnum):
    DOCUMENT = 0
    SEQUENCE = 1

class FitTerm(enum.IntFlag):
    PER_SEQUENCE = 1
    PER_DOCUMENT = 2
    LINEAR = 4
    QUADRATIC = 8
    ALL = 15

class TransformerConfig:
    num_layers: int
    hidden_size: int
    num_attention_heads: int
    num_key_value_heads: int
    intermediate_size: int
    head_dim: int
    vocab_size: int
    gated_mlp: bool
    causal: bool
    recompute: bool
    attention_span: AttentionSpan
    def __init__(
        self,
        num_layers: int,
        hidden_size: int,
        num_attention_heads: int,
        num_key_value_heads: int,
        intermediate_size: int,
        head_dim: int = ...,
        vocab_size: int = ...,
        gated_mlp: bool = ...,
        causal: bool = ...,
        recompute: bool = ...,
        attention_span: AttentionSpan = ...,
    ) -> None: ...

class FitReport:
    per_sequence: float
    per_document: float
    linear: float
    quadratic: float
    r_squared: float
    rms_residual: float
    num_samples: int

class _Handle:
    @property
    def closed(self) -> bool: ...
    def close(self) -> None: ...
    def __enter__(self: Any) -> Any: ...
    def __exit__(self, *exc: object) -> None: ...

class CostModel(_Handle):
    @classmethod
    def tokens(cls) -> CostModel: ...
    @classmethod
    def polynomial(
        cls,
        per_sequence: float = ...,
        per_document: float = ...,
        linear: float = ...,
        quadratic: float = ...,
    ) -> CostModel: ...
    @classmethod
    def transformer(cls, config: Optional[TransformerConfig] = ..., **fields: Any) -> CostModel: ...
    @classmethod
    def preset(cls, name: str, **fields: Any) -> CostModel: ...
    @classmethod
    def from_hf_config(cls, path_or_dict: Any, **fields: Any) -> CostModel: ...
    @classmethod
    def fit(
        cls, samples: Sequence[Sequence[int]], seconds: npt.ArrayLike, terms: FitTerm = ...
    ) -> Tuple[CostModel, FitReport]: ...
    @classmethod
    def fit_csr(
        cls, lengths: _Lengths, offsets: npt.ArrayLike, seconds: npt.ArrayLike, terms: FitTerm = ...
    ) -> Tuple[CostModel, FitReport]: ...
    @classmethod
    def custom(cls, fn: Callable[[np.ndarray], float]) -> CostModel: ...
    def sequence_cost(self, lengths: _Lengths) -> float: ...
    def document_costs(self, lengths: _Lengths) -> np.ndarray: ...
    def padded_batch_cost(self, lengths: _Lengths) -> float: ...
    @property
    def sequence_overhead(self) -> float: ...
    @property
    def is_additive(self) -> bool: ...
    def coefficients(self) -> PolynomialCoefficients: ...
    def save(
        self,
        path: _Path,
        *,
        unit: str = ...,
        provenance: Optional[Mapping[str, Any]] = ...,
        quality: Sequence[ModelQuality] = ...,
    ) -> None: ...
    @classmethod
    def load(cls, path: _Path) -> CostModel: ...

class PlanMetrics:
    num_groups: int
    num_items: int
    max_group_cost: float
    mean_group_cost: float
    min_group_cost: float
    total_cost: float
    balance_efficiency: float
    lower_bound: float
    gap_to_lower_bound: float
    real_tokens: int
    computed_tokens: int
    capacity: int
    fill: float
    padding_efficiency: float
    num_ranks: int
    microbatches_per_rank: int
    max_rank_cost: float
    mean_rank_cost: float
    rank_balance_efficiency: float
    rank_lower_bound: float
    rank_gap_to_lower_bound: float
    worst_slot_balance: float
    split_items: int
    truncated_items: int
    deferred_items: int
    dropped_items: int
    truncated_tokens: int
    deferred_tokens: int
    dropped_tokens: int
    num_steps: int
    diversity_distance: float
    diversity_distance_samples: float
    planned_by: int
    microbatch_sync_efficiency: float
    mean_slot_balance: float
    microbatch_sync_cost: float
    microbatch_sync_lower_bound: float
    microbatch_sync_gap_to_lower_bound: float
    pipeline_makespan: float
    pipeline_efficiency: float
    pipeline_lower_bound: float
    pipeline_gap_to_lower_bound: float

class Group(NamedTuple):
    items: np.ndarray
    tokens: np.ndarray
    real_tokens: int
    computed_tokens: int
    cost: float
    rank: Optional[int]
    slot: Optional[int]
    offsets: Optional[np.ndarray] = ...

class PlanArrays(NamedTuple):
    offsets: np.ndarray
    items: np.ndarray
    piece_offsets: np.ndarray
    tokens: np.ndarray
    ranks: Optional[np.ndarray]
    slots: Optional[np.ndarray]
    real_tokens: np.ndarray
    computed_tokens: np.ndarray
    costs: np.ndarray

class Plan(_Handle):
    def __len__(self) -> int: ...
    @property
    def num_groups(self) -> int: ...
    def items(self, group: int) -> np.ndarray: ...
    def tokens(self, group: int) -> np.ndarray: ...
    def offsets(self, group: int) -> np.ndarray: ...
    def info(self, group: int) -> Tuple[int, int, float]: ...
    def slot(self, group: int) -> Tuple[int, int]: ...
    @property
    def has_slots(self) -> bool: ...
    def group(self, group: int) -> Group: ...
    def __getitem__(self, group: int) -> Group: ...
    def __iter__(self) -> Iterator[Group]: ...
    def arrays(self, piece_start: Optional[np.ndarray] = ...) -> PlanArrays: ...
    def to_csr(self) -> Tuple[np.ndarray, np.ndarray, np.ndarray]: ...
    @property
    def deferred(self) -> np.ndarray: ...
    @property
    def dropped(self) -> np.ndarray: ...
    @property
    def metrics(self) -> PlanMetrics: ...

class Overflow(enum.IntEnum):
    ERROR = 0
    TRUNCATE = 1
    SPLIT = 2
    DEFER = 3

class StreamTotals:
    documents_pushed: int
    pieces_held: int
    sequences_emitted: int
    tokens_emitted: int
    split_documents: int
    truncated_documents: int
    truncated_tokens: int

class StreamPacker(_Handle):
    def __init__(
        self,
        capacity: int,
        *,
        window: Optional[int] = ...,
        overflow: Overflow = ...,
        seed: int = ...,
        model: Optional[CostModel] = ...,
        _handle: Any = ...,
    ) -> None: ...
    @classmethod
    def restore(cls, state: bytes, model: Optional[CostModel] = ...) -> StreamPacker: ...
    def push(self, lengths: _Lengths) -> None: ...
    def flush(self) -> None: ...
    @property
    def ready(self) -> int: ...
    def take(self) -> Plan: ...
    @property
    def totals(self) -> StreamTotals: ...
    def save(self) -> bytes: ...

def optimize_buckets(lengths: _Lengths, num_buckets: int) -> np.ndarray: ...
def bucket_padding(lengths: _Lengths, upper_bounds: _Lengths) -> int: ...

class BucketBudget(enum.IntEnum):
    PADDED_TOKENS = 0
    COST = 1

class BucketTarget(enum.IntFlag):
    BALANCE = 1
    PADDING = 2
    DIVERSITY = 4

@dataclasses.dataclass(frozen=True)
class BucketDiagnostics:
    unmet: int
    balance_efficiency: float
    balance_shortfall: float
    balance_bound: float
    padding_efficiency: float
    padding_shortfall: float
    padding_bound: float
    diversity_distance: float
    diversity_excess: float
    diversity_floor: float
    batch_cost_cap: float
    implied_cost_budget: float
    truncated_items: int
    deferred_items: int
    truncated_tokens: int
    deferred_tokens: int
    @property
    def unmet_targets(self) -> List[str]: ...

class BucketSampler(_Handle):
    def __init__(
        self,
        lengths: _Lengths,
        *,
        max_padded_tokens: Optional[int] = ...,
        max_batch_cost: Optional[float] = ...,
        num_buckets: Optional[int] = ...,
        upper_bounds: Optional[_Lengths] = ...,
        drop_last: bool = ...,
        num_ranks: int = ...,
        accumulation_steps: int = ...,
        seed: int = ...,
        model: Optional[CostModel] = ...,
        overflow: Overflow = ...,
    ) -> None: ...
    @property
    def num_ranks(self) -> int: ...
    @property
    def accumulation_steps(self) -> int: ...
    @property
    def steps_per_epoch(self) -> int: ...
    @property
    def upper_bounds(self) -> np.ndarray: ...
    def diagnose(
        self,
        epoch: int = ...,
        *,
        balance: float = ...,
        padding: float = ...,
        diversity: float = ...,
    ) -> BucketDiagnostics: ...
    def epoch(self, epoch: int) -> Plan: ...
    def step(self, epoch: int, step: int) -> Plan: ...
    def rank_batches(self, epoch: int, step: int, rank: int) -> List[List[int]]: ...
    def step_diversity(self, plan: Plan) -> Tuple[np.ndarray, np.ndarray]: ...

class BucketStream(_Handle):
    def __init__(
        self,
        *,
        buffer_size: int,
        max_padded_tokens: Optional[int] = ...,
        max_batch_cost: Optional[float] = ...,
        num_buckets: Optional[int] = ...,
        upper_bounds: Optional[_Lengths] = ...,
        drop_last: bool = ...,
        num_ranks: int = ...,
        accumulation_steps: int = ...,
        seed: int = ...,
        model: Optional[CostModel] = ...,
        overflow: Overflow = ...,
    ) -> None: ...
    def push(self, lengths: _Lengths) -> int: ...
    def flush(self) -> None: ...
    @property
    def ready(self) -> int: ...
    def take(self) -> Plan: ...
    @property
    def deferred(self) -> np.ndarray: ...
    @property
    def leftover(self) -> np.ndarray: ...
    def steps(self, lengths: Iterable[int], chunk: int = ...) -> Iterator[Plan]: ...

class StepAlgorithm(enum.IntEnum):
    DOCUMENTS = 0
    RANDOM = 1
    TOKENS = 2
    SEQUENCES = 3

class SlotOrder(enum.IntEnum):
    DESCENDING = 0
    LIGHT_ENDS = 1
    AS_PLANNED = 2

class Sync(enum.IntEnum):
    STEP = 0
    MICROBATCH = 1

class PipelineSchedule(enum.IntEnum):
    ONE_F_ONE_B = 0

def plan_step(
    lengths: _Lengths,
    model: CostModel,
    *,
    num_ranks: int,
    max_tokens_per_microbatch: int,
    microbatches_per_rank: int = ...,
    algorithm: StepAlgorithm = ...,
    ordering: SlotOrder = ...,
    overflow: Overflow = ...,
    seed: int = ...,
    sync: Sync = ...,
    pipeline_stages: int = ...,
    pipeline_schedule: PipelineSchedule = ...,
    extra_costs: Optional[npt.ArrayLike] = ...,
    context_parallel_size: int = ...,
    context_parallel_layout: CpLayout = ...,
) -> Plan: ...

def multimodal_costs(
    encoder: CostModel,
    text_tokens: _Lengths,
    images: _Lengths,
    patches_per_image: _Lengths,
) -> Tuple[npt.NDArray[np.int64], npt.NDArray[np.float64]]: ...

class Pending(NamedTuple):
    documents: int
    tokens: int
    steps: int

class StepPlanner(_Handle):
    def __init__(
        self,
        model: CostModel,
        *,
        num_ranks: int,
        max_tokens_per_microbatch: int,
        microbatches_per_rank: int = ...,
        algorithm: StepAlgorithm = ...,
        ordering: SlotOrder = ...,
        overflow: Overflow = ...,
        seed: int = ...,
        sync: Sync = ...,
        pipeline_stages: int = ...,
        pipeline_schedule: PipelineSchedule = ...,
        context_parallel_size: int = ...,
        context_parallel_layout: CpLayout = ...,
        tokens_per_step: Optional[int] = ...,
        max_defer_steps: Optional[int] = ...,
        outlier_min_tokens: Optional[int] = ...,
        max_outliers_per_step: Optional[int] = ...,
        _handle: Any = ...,
    ) -> None: ...
    @classmethod
    def restore(cls, state: bytes, model: CostModel) -> StepPlanner: ...
    def push(self, lengths: _Lengths, *, extra_costs: Optional[npt.ArrayLike] = ...) -> int: ...
    def next(self) -> Plan: ...
    @property
    def pending(self) -> Pending: ...
    def save(self) -> bytes: ...

class StepContext(_Handle):
    def __init__(self) -> None: ...
    def reserve(
        self,
        model: CostModel,
        documents: int,
        *,
        num_ranks: int,
        max_tokens_per_microbatch: int,
        microbatches_per_rank: int = ...,
        algorithm: StepAlgorithm = ...,
        ordering: SlotOrder = ...,
        overflow: Overflow = ...,
        seed: int = ...,
        sync: Sync = ...,
        pipeline_stages: int = ...,
        pipeline_schedule: PipelineSchedule = ...,
        context_parallel_size: int = ...,
        context_parallel_layout: CpLayout = ...,
    ) -> None: ...
    def plan_step(
        self,
        lengths: _Lengths,
        model: CostModel,
        *,
        num_ranks: int,
        max_tokens_per_microbatch: int,
        microbatches_per_rank: int = ...,
        algorithm: StepAlgorithm = ...,
        ordering: SlotOrder = ...,
        overflow: Overflow = ...,
        seed: int = ...,
        sync: Sync = ...,
        pipeline_stages: int = ...,
        pipeline_schedule: PipelineSchedule = ...,
        context_parallel_size: int = ...,
        context_parallel_layout: CpLayout = ...,
    ) -> Plan: ...
    @property
    def kept_bytes(self) -> int: ...

class PlannedEpochs:
    lengths: np.ndarray
    model: CostModel
    documents_per_step: int
    num_ranks: int
    accumulation_steps: int
    seed: int
    def __init__(
        self,
        lengths: _Lengths,
        model: CostModel,
        *,
        documents_per_step: int,
        num_ranks: int,
        max_tokens_per_microbatch: int,
        microbatches_per_rank: int,
        algorithm: StepAlgorithm = ...,
        ordering: SlotOrder = ...,
        overflow: Overflow = ...,
        seed: int = ...,
    ) -> None: ...
    @property
    def steps_per_epoch(self) -> int: ...
    def order(self, epoch: int) -> np.ndarray: ...
    def step_documents(self, epoch: int, step: int) -> np.ndarray: ...
    def step(self, epoch: int, step: int) -> Plan: ...
    def rank_batches(self, epoch: int, step: int, rank: int) -> List[List[int]]: ...

class PackAlgorithm(enum.IntEnum):
    BEST_FIT_DECREASING = 0
    FIRST_FIT_DECREASING = 1
    NEXT_FIT = 2
    SHUFFLED_FIRST_FIT = 3

class BalanceAlgorithm(enum.IntEnum):
    AUTO = 0
    GREEDY = 1
    LPT = 2
    KARMARKAR_KARP = 3

def pack(
    lengths: _Lengths,
    capacity: int,
    *,
    algorithm: PackAlgorithm = ...,
    overflow: Overflow = ...,
    seed: int = ...,
    model: Optional[CostModel] = ...,
    extra_costs: Optional[npt.ArrayLike] = ...,
) -> Plan: ...
def balance(
    costs: npt.ArrayLike,
    num_groups: int,
    *,
    tokens: Optional[_Lengths] = ...,
    algorithm: BalanceAlgorithm = ...,
    equal_count: bool = ...,
    refine: bool = ...,
    max_tokens_per_group: int = ...,
    max_refine_steps: int = ...,
    seed: int = ...,
) -> Plan: ...

class Weighting(enum.IntEnum):
    COUNT = 0
    TOKENS = 1
    COST = 2

class Binning(enum.IntEnum):
    LINEAR = 0
    LOG2 = 1

class StatsSummary:
    count: int
    distinct_lengths: int
    tokens: int
    mean: float
    stddev: float
    min: int
    max: int
    p50: int
    p90: int
    p99: int
    p999: int
    has_cost: int
    total_cost: float
    mean_cost: float
    max_cost: float

class StatsTail:
    documents: int
    tokens: int
    cost: float
    document_share: float
    token_share: float
    cost_share: float

class StatsComparison:
    ks_distance: float
    ks_length: int
    ks_distance_tokens: float
    ks_length_tokens: int
    levels: Tuple[float, ...]
    quantiles_a: Tuple[int, ...]
    quantiles_b: Tuple[int, ...]
    first_divergent_level: float
    tail_threshold: int
    token_share_above_a: float
    token_share_above_b: float
    cost_share_above_a: float
    cost_share_above_b: float

class Stats(_Handle):
    def __init__(
        self,
        lengths: _Lengths = ...,
        model: Optional[CostModel] = ...,
        *,
        cost_capacity: int = ...,
        _handle: Any = ...,
    ) -> None: ...
    @classmethod
    def from_histogram(
        cls,
        lengths: _Lengths,
        counts: npt.ArrayLike,
        model: Optional[CostModel] = ...,
        *,
        cost_capacity: int = ...,
    ) -> Stats: ...
    def merge(self, other: Stats) -> Stats: ...
    @property
    def summary(self) -> StatsSummary: ...
    def __len__(self) -> int: ...
    def quantile(self, q: float, weighting: Weighting = ...) -> float: ...
    def cdf(self, length: int, weighting: Weighting = ...) -> float: ...
    def histogram(
        self, binning: Binning = ..., weighting: Weighting = ..., normalized: bool = ..., width: int = ...
    ) -> Tuple[np.ndarray, np.ndarray]: ...
    def tail(self, threshold: int) -> StatsTail: ...
    def expected_max(self, draws: int) -> float: ...
    def ks_distance(self, other: Stats, weighting: Optional[Weighting] = ...) -> float: ...
    def ks_distance_at(self, other: Stats, weighting: Weighting) -> Tuple[float, int]: ...
    def compare(self, other: Stats) -> StatsComparison: ...
    def entries(self) -> Tuple[np.ndarray, np.ndarray]: ...

class SimPolicy(enum.IntEnum):
    RANDOM = 0
    TOKEN_BALANCED = 1
    BUCKETS = 2
    PLANNER_DOCUMENTS = 3
    PLANNER_RANDOM = 4
    PLANNER_TOKENS = 5
    PLANNER_SEQUENCES = 6

class SimSeries(enum.IntEnum):
    STEP_TIME = 0
    MEAN_RANK_COST = 1
    BALANCE_EFFICIENCY = 2
    FILL = 3
    PADDING_EFFICIENCY = 4
    REAL_TOKENS = 5

class SimulationSummary:
    num_steps: int
    num_ranks: int
    microbatches_per_rank: int
    documents_drawn: int
    epochs: int
    mean_balance_efficiency: float
    p5_balance_efficiency: float
    p50_balance_efficiency: float
    p95_balance_efficiency: float
    mean_fill: float
    mean_padding_efficiency: float
    relative_throughput: float
    mean_step_time: float
    predicted_efficiency: float
    real_tokens: int
    computed_tokens: int
    sync: Sync
    pipeline_stages: int
    pipeline_schedule: PipelineSchedule
    mean_sync_efficiency: float

class Simulation(_Handle):
    @property
    def summary(self) -> SimulationSummary: ...
    def series(self, kind: SimSeries) -> np.ndarray: ...
    def pieces(self) -> Stats: ...

class Sweep(NamedTuple):
    rank_counts: np.ndarray
    sampled_efficiency: np.ndarray
    predicted_efficiency: np.ndarray
    relative_throughput: np.ndarray

def simulate(
    lengths: _Lengths,
    model: CostModel,
    *,
    policy: SimPolicy = ...,
    num_ranks: Optional[int] = ...,
    microbatches_per_rank: Optional[int] = ...,
    tokens_per_microbatch: Optional[int] = ...,
    max_tokens_per_microbatch: Optional[int] = ...,
    num_steps: Optional[int] = ...,
    seed: Optional[int] = ...,
    record_steps: bool = ...,
    sync: Sync = ...,
    pipeline_stages: int = ...,
    pipeline_schedule: PipelineSchedule = ...,
    progress: Optional[Callable[[int, int], Any]] = ...,
    context_parallel_size: int = ...,
    context_parallel_layout: CpLayout = ...,
    extra_costs: Optional[npt.ArrayLike] = ...,
) -> Simulation: ...
def simulate_sweep(
    lengths: _Lengths,
    model: CostModel,
    rank_counts: npt.ArrayLike,
    *,
    policy: SimPolicy = ...,
    microbatches_per_rank: Optional[int] = ...,
    tokens_per_microbatch: Optional[int] = ...,
    max_tokens_per_microbatch: Optional[int] = ...,
    num_steps: Optional[int] = ...,
    seed: Optional[int] = ...,
    sync: Sync = ...,
    pipeline_stages: int = ...,
    pipeline_schedule: PipelineSchedule = ...,
    progress: Optional[Callable[[int, int], Any]] = ...,
    context_parallel_size: int = ...,
    context_parallel_layout: CpLayout = ...,
    extra_costs: Optional[npt.ArrayLike] = ...,
) -> Sweep: ...

# ---- Cost-model files and prediction quality (docs/cost-models.md) ----

class PredictionQuality:
    scale: float
    offset: float
    r_squared: float
    rms_residual: float
    mean_relative_error: float
    median_relative_error: float
    max_relative_error: float
    num_samples: int

def prediction_quality(
    model: CostModel,
    samples: Sequence[Sequence[int]],
    seconds: npt.ArrayLike,
    *,
    fit_scale: bool = ...,
    scale: float = ...,
    offset: float = ...,
) -> PredictionQuality: ...
def prediction_quality_csr(
    model: CostModel,
    lengths: _Lengths,
    offsets: npt.ArrayLike,
    seconds: npt.ArrayLike,
    *,
    fit_scale: bool = ...,
    scale: float = ...,
    offset: float = ...,
) -> PredictionQuality: ...

class PolynomialCoefficients:
    per_sequence: float
    per_document: float
    linear: float
    quadratic: float

class ModelQuality:
    model: str
    train: PredictionQuality
    held_out: Optional[PredictionQuality]

class CostModelFile:
    coefficients: PolynomialCoefficients
    unit: str
    attention: str
    provenance: Mapping[str, str]
    quality: Tuple[ModelQuality, ...]
    def model(self) -> CostModel: ...
    def to_json(self) -> Dict[str, Any]: ...
    def to_text(self) -> str: ...
    def write(self, path: _Path) -> None: ...
    @classmethod
    def from_json(cls, obj: Any) -> CostModelFile: ...
    @classmethod
    def parse(cls, text: str) -> CostModelFile: ...
    @classmethod
    def read(cls, path: _Path) -> CostModelFile: ...

def save_cost_model(
    model: CostModel,
    path: _Path,
    *,
    unit: str = ...,
    provenance: Optional[Mapping[str, Any]] = ...,
    quality: Sequence[ModelQuality] = ...,
) -> None: ...
def load_cost_model(path: _Path) -> CostModel: ...

def calibration_compositions(max_tokens: int, samples: int = ..., seed: int = ...) -> List[List[int]]: ...
def held_out_split(samples: int) -> List[bool]: ...

class CalibrationReport:
    coefficients: PolynomialCoefficients
    quality: Tuple[ModelQuality, ...]
    samples: Tuple[Tuple[int, ...], ...]
    seconds: Tuple[float, ...]
    held_out: Tuple[bool, ...]
    provenance: Mapping[str, str]
    timings: Tuple[Tuple[float, ...], ...]
    def model(self) -> CostModel: ...
    def row(self, name: str) -> Optional[ModelQuality]: ...
    @property
    def timing_noise(self) -> float: ...
    def to_file(self) -> CostModelFile: ...
    def save(self, path: _Path) -> None: ...
    @classmethod
    def load(cls, path: _Path) -> CalibrationReport: ...
    def table(self) -> str: ...

def calibrate_from_samples(
    samples: Sequence[Sequence[int]],
    seconds: Sequence[float],
    *,
    held_out: Optional[Sequence[bool]] = ...,
    flops_model: Optional[CostModel] = ...,
    provenance: Optional[Mapping[str, Any]] = ...,
    timings: Sequence[Sequence[float]] = ...,
) -> Tuple[CostModel, CalibrationReport]: ...

# Context parallelism (docs/context-parallel.md).
class CpLayout(enum.IntEnum):
    SEQUENCE_HEAD_TAIL = 0
    DOCUMENT_HEAD_TAIL = 1
    ADAPTIVE = 2

@dataclasses.dataclass(frozen=True)
class CpMetrics:
    context_parallel_size: int
    num_groups: int
    num_chunks: int
    balance_efficiency: float
    worst_balance: float
    max_cp_rank_cost: float
    mean_cp_rank_cost: float
    kv_tokens: int
    sequence_layout_groups: int
    document_layout_groups: int

class CpChunks(NamedTuple):
    items: np.ndarray
    offsets: np.ndarray
    lengths: np.ndarray

class ContextParallelShard(_Handle):
    def __len__(self) -> int: ...
    @property
    def context_parallel_size(self) -> int: ...
    def chunks(self, group: int, cp_rank: int) -> CpChunks: ...
    def rank_cost(self, group: int, cp_rank: int) -> Tuple[float, int]: ...
    def costs(self, group: int) -> np.ndarray: ...
    def layout(self, group: int) -> Tuple[CpLayout, float]: ...
    @property
    def metrics(self) -> CpMetrics: ...

def shard_context_parallel(
    plan: Plan,
    model: CostModel,
    context_parallel_size: int,
    layout: CpLayout = ...,
) -> ContextParallelShard: ...
