//! flopspack decides how variable-length training data is packed and spread
//! across GPUs so that no GPU waits for another and little compute goes to
//! padding. This is the safe Rust binding of the C library (libflopspack).
//!
//! Objects own their C handle and release it on `Drop`; fallible calls
//! return [`Result`] with an [`Error`] carrying the library's status and
//! message. Slices are passed to C without copying; views of a plan borrow
//! from it.
//!
//! ```
//! use flopspack::{CostModel, TransformerConfig};
//!
//! let config = TransformerConfig {
//!     num_layers: 32, hidden_size: 4096, num_attention_heads: 32,
//!     num_key_value_heads: 8, intermediate_size: 14336, vocab_size: 128256,
//!     gated_mlp: true, ..TransformerConfig::default()
//! };
//! let model = CostModel::transformer(&config)?;
//! let flops = model.sequence_cost(&[8192])?;
//! assert_eq!(flops, 421651971833856.0);
//! # Ok::<(), flopspack::Error>(())
//! ```
//!
//! Linking: `flopspack-sys` finds libflopspack through `FLOPSPACK_LIB_DIR`,
//! pkg-config, or the default linker path (docs/bindings.md).

pub use flopspack_sys as sys;

mod buckets;
mod context_parallel;
mod cost;
mod error;
mod model_file;
mod pack;
mod plan;
mod planner;
mod quality;
mod simulate;
mod stats;
mod stream;

pub use buckets::{
    bucket_padding, optimize_buckets, BucketBudget, BucketDiagnostics, BucketSampler,
    BucketSamplerOptions, BUCKET_TARGET_BALANCE, BUCKET_TARGET_DIVERSITY, BUCKET_TARGET_PADDING,
};
pub use context_parallel::{
    shard_context_parallel, ContextParallelShard, CpChunks, CpLayout, CpMetrics,
};
pub use cost::{AttentionSpan, CostModel, FitReport, FitTerms, TransformerConfig};
pub use error::{Error, Result, Status};
pub use model_file::{
    CostModelFile, ModelQuality, COST_MODEL_FILE_FORMAT, COST_MODEL_FILE_VERSION,
};
pub use pack::{
    balance, pack, pack_with_extra_costs, BalanceAlgorithm, BalanceOptions, PackAlgorithm,
    PackOptions,
};
pub use plan::{Group, GroupInfo, Plan, PlanMetrics};
pub use planner::{
    multimodal_costs, plan_step, plan_step_with_extra_costs, Pending, PipelineSchedule, SlotOrder,
    StepAlgorithm, StepContext, StepOptions, StepPlanner, StepPlannerOptions, SyncModel,
};
pub use quality::{EvaluateOptions, PolynomialCoefficients, PredictionQuality};
pub use simulate::{
    simulate, simulate_sweep, simulate_sweep_with_extra_costs, simulate_with_extra_costs,
    SimPolicy, SimSeries, SimulateOptions, Simulation, SimulationSummary, Sweep,
};
pub use stats::{
    Binning, HistogramOptions, Stats, StatsComparison, StatsSummary, StatsTail, Weighting,
};
pub use stream::{Overflow, StreamOptions, StreamPacker, StreamTotals};

use std::ffi::CStr;

/// Version of the library actually loaded, e.g. "1.0.0".
pub fn version() -> &'static str {
    // SAFETY: a static NUL-terminated string owned by the library.
    unsafe { CStr::from_ptr(sys::flopspack_version_string()) }
        .to_str()
        .unwrap_or("?")
}

/// major * 10000 + minor * 100 + patch of the loaded library.
pub fn version_number() -> u32 {
    // SAFETY: no arguments.
    unsafe { sys::flopspack_version_number() }
}

/// Version of the header these bindings were written against.
pub const HEADER_VERSION_NUMBER: u32 = sys::FLOPSPACK_VERSION_NUMBER;

/// The library's seed for `stream` (a shard, step, epoch...) of a parent
/// seed: the same value in every language (`flopspack_derive_seed`).
///
/// ```
/// assert_ne!(flopspack::derive_seed(7, 0), flopspack::derive_seed(7, 1));
/// ```
pub fn derive_seed(seed: u64, stream: u64) -> u64 {
    // SAFETY: plain values; never fails.
    unsafe { sys::flopspack_derive_seed(seed, stream) }
}
