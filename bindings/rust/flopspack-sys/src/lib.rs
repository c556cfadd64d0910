//! Raw FFI declarations of libflopspack, the stable C ABI declared in
//! `include/flopspack/flopspack.h`. Use the safe `flopspack` crate instead.
//!
//! These declarations are written by hand (named constants, doc comments)
//! and checked against `src/generated.rs`, bindgen's output for the same
//! header, committed and refreshed by `regenerate.sh`: the generated module
//! is compiled into this crate under `#![deny(clashing_extern_declarations)]`,
//! so rustc rejects any function whose hand-written signature differs from
//! the generated one; the tests below check that every generated function
//! and struct is declared here and that struct layouts agree.
#![deny(clashing_extern_declarations)]
#![allow(non_camel_case_types)]

use std::os::raw::{c_char, c_int, c_uint, c_void};

/// bindgen's view of the header, for the checks above only.
#[allow(dead_code, non_upper_case_globals, non_snake_case, clippy::all)]
mod generated {
    include!("generated.rs");
}

pub const FLOPSPACK_VERSION_MAJOR: u32 = 1;
pub const FLOPSPACK_VERSION_MINOR: u32 = 0;
pub const FLOPSPACK_VERSION_PATCH: u32 = 0;
pub const FLOPSPACK_VERSION_NUMBER: u32 =
    FLOPSPACK_VERSION_MAJOR * 10000 + FLOPSPACK_VERSION_MINOR * 100 + FLOPSPACK_VERSION_PATCH;

/// `flopspack_status`: 0 = OK; append-only.
pub type flopspack_status = c_uint;
pub const FLOPSPACK_OK: flopspack_status = 0;
pub const FLOPSPACK_INVALID_ARGUMENT: flopspack_status = 1;
pub const FLOPSPACK_OUT_OF_RANGE: flopspack_status = 2;
pub const FLOPSPACK_INFEASIBLE: flopspack_status = 3;
pub const FLOPSPACK_OUT_OF_MEMORY: flopspack_status = 4;
pub const FLOPSPACK_INTERNAL: flopspack_status = 5;
pub const FLOPSPACK_CALLBACK_FAILED: flopspack_status = 6;
pub const FLOPSPACK_CANCELLED: flopspack_status = 7;
pub const FLOPSPACK_BUFFER_TOO_SMALL: flopspack_status = 8;

pub type flopspack_attention_span = c_uint;
pub const FLOPSPACK_ATTENTION_DOCUMENT: flopspack_attention_span = 0;
pub const FLOPSPACK_ATTENTION_SEQUENCE: flopspack_attention_span = 1;

pub const FLOPSPACK_FIT_PER_SEQUENCE: u32 = 1;
pub const FLOPSPACK_FIT_PER_DOCUMENT: u32 = 2;
pub const FLOPSPACK_FIT_LINEAR: u32 = 4;
pub const FLOPSPACK_FIT_QUADRATIC: u32 = 8;
pub const FLOPSPACK_FIT_ALL: u32 = 15;

/// `flopspack_overflow`: what happens to a document over a capacity.
pub type flopspack_overflow = c_uint;
pub const FLOPSPACK_OVERFLOW_ERROR: flopspack_overflow = 0;
pub const FLOPSPACK_OVERFLOW_TRUNCATE: flopspack_overflow = 1;
pub const FLOPSPACK_OVERFLOW_SPLIT: flopspack_overflow = 2;
pub const FLOPSPACK_OVERFLOW_DEFER: flopspack_overflow = 3;

/// `flopspack_planned_by`: which algorithm made a step plan
/// (`flopspack_plan_metrics::planned_by`).
pub type flopspack_planned_by = c_uint;
pub const FLOPSPACK_PLANNED_BY_NONE: flopspack_planned_by = 0;
pub const FLOPSPACK_PLANNED_BY_DOCUMENTS: flopspack_planned_by = 1;
pub const FLOPSPACK_PLANNED_BY_CUT_TO_SHARE: flopspack_planned_by = 2;
pub const FLOPSPACK_PLANNED_BY_TOKEN_BALANCED: flopspack_planned_by = 3;

pub type flopspack_pack_algorithm = c_uint;
pub const FLOPSPACK_PACK_BEST_FIT_DECREASING: flopspack_pack_algorithm = 0;
pub const FLOPSPACK_PACK_FIRST_FIT_DECREASING: flopspack_pack_algorithm = 1;
pub const FLOPSPACK_PACK_NEXT_FIT: flopspack_pack_algorithm = 2;
pub const FLOPSPACK_PACK_SHUFFLED_FIRST_FIT: flopspack_pack_algorithm = 3;

pub type flopspack_balance_algorithm = c_uint;
pub const FLOPSPACK_BALANCE_AUTO: flopspack_balance_algorithm = 0;
pub const FLOPSPACK_BALANCE_GREEDY: flopspack_balance_algorithm = 1;
pub const FLOPSPACK_BALANCE_LPT: flopspack_balance_algorithm = 2;
pub const FLOPSPACK_BALANCE_KARMARKAR_KARP: flopspack_balance_algorithm = 3;

pub type flopspack_step_algorithm = c_uint;
pub const FLOPSPACK_STEP_DOCUMENTS: flopspack_step_algorithm = 0;
pub const FLOPSPACK_STEP_RANDOM: flopspack_step_algorithm = 1;
pub const FLOPSPACK_STEP_TOKENS: flopspack_step_algorithm = 2;
pub const FLOPSPACK_STEP_SEQUENCES: flopspack_step_algorithm = 3;

pub type flopspack_slot_order = c_uint;
pub const FLOPSPACK_SLOT_ORDER_DESCENDING: flopspack_slot_order = 0;
pub const FLOPSPACK_SLOT_ORDER_LIGHT_ENDS: flopspack_slot_order = 1;
pub const FLOPSPACK_SLOT_ORDER_AS_PLANNED: flopspack_slot_order = 2;

pub type flopspack_sync = c_uint;
pub const FLOPSPACK_SYNC_STEP: flopspack_sync = 0;
pub const FLOPSPACK_SYNC_MICROBATCH: flopspack_sync = 1;

pub type flopspack_pipeline_schedule = c_uint;
pub const FLOPSPACK_PIPELINE_1F1B: flopspack_pipeline_schedule = 0;

pub type flopspack_stats_weighting = c_uint;
pub const FLOPSPACK_STATS_WEIGHT_COUNT: flopspack_stats_weighting = 0;
pub const FLOPSPACK_STATS_WEIGHT_TOKENS: flopspack_stats_weighting = 1;
pub const FLOPSPACK_STATS_WEIGHT_COST: flopspack_stats_weighting = 2;

pub type flopspack_stats_binning = c_uint;
pub const FLOPSPACK_STATS_BINS_LINEAR: flopspack_stats_binning = 0;
pub const FLOPSPACK_STATS_BINS_LOG2: flopspack_stats_binning = 1;

pub const FLOPSPACK_STATS_COMPARE_LEVELS: u32 = 6;

pub type flopspack_sim_policy = c_uint;
pub const FLOPSPACK_SIM_RANDOM: flopspack_sim_policy = 0;
pub const FLOPSPACK_SIM_TOKEN_BALANCED: flopspack_sim_policy = 1;
pub const FLOPSPACK_SIM_BUCKETS: flopspack_sim_policy = 2;
pub const FLOPSPACK_SIM_PLANNER_DOCUMENTS: flopspack_sim_policy = 3;
pub const FLOPSPACK_SIM_PLANNER_RANDOM: flopspack_sim_policy = 4;
pub const FLOPSPACK_SIM_PLANNER_TOKENS: flopspack_sim_policy = 5;
pub const FLOPSPACK_SIM_PLANNER_SEQUENCES: flopspack_sim_policy = 6;

pub type flopspack_sim_series = c_uint;
pub const FLOPSPACK_SIM_SERIES_STEP_TIME: flopspack_sim_series = 0;
pub const FLOPSPACK_SIM_SERIES_MEAN_RANK_COST: flopspack_sim_series = 1;
pub const FLOPSPACK_SIM_SERIES_BALANCE_EFFICIENCY: flopspack_sim_series = 2;
pub const FLOPSPACK_SIM_SERIES_FILL: flopspack_sim_series = 3;
pub const FLOPSPACK_SIM_SERIES_PADDING_EFFICIENCY: flopspack_sim_series = 4;
pub const FLOPSPACK_SIM_SERIES_REAL_TOKENS: flopspack_sim_series = 5;

pub type flopspack_bucket_budget = c_uint;
pub const FLOPSPACK_BUCKET_BUDGET_PADDED_TOKENS: flopspack_bucket_budget = 0;
pub const FLOPSPACK_BUCKET_BUDGET_COST: flopspack_bucket_budget = 1;

/// Opaque handle types.
#[repr(C)]
pub struct flopspack_cost_model {
    _unused: [u8; 0],
}
#[repr(C)]
pub struct flopspack_plan {
    _unused: [u8; 0],
}
#[repr(C)]
pub struct flopspack_stream_packer {
    _unused: [u8; 0],
}

#[repr(C)]
pub struct flopspack_bucket_sampler {
    _unused: [u8; 0],
}
#[repr(C)]
pub struct flopspack_bucket_stream {
    _unused: [u8; 0],
}
#[repr(C)]
pub struct flopspack_step_planner {
    _unused: [u8; 0],
}
#[repr(C)]
pub struct flopspack_stats {
    _unused: [u8; 0],
}
#[repr(C)]
pub struct flopspack_step_context {
    _unused: [u8; 0],
}
#[repr(C)]
pub struct flopspack_simulate_result {
    _unused: [u8; 0],
}

#[repr(C)]
#[derive(Debug, Copy, Clone, Default, PartialEq)]
pub struct flopspack_stats_summary {
    pub struct_size: u32,
    pub count: u64,
    pub distinct_lengths: u64,
    pub tokens: i64,
    pub mean: f64,
    pub stddev: f64,
    pub min: i64,
    pub max: i64,
    pub p50: i64,
    pub p90: i64,
    pub p99: i64,
    pub p999: i64,
    pub has_cost: i32,
    pub total_cost: f64,
    pub mean_cost: f64,
    pub max_cost: f64,
}

#[repr(C)]
#[derive(Debug, Copy, Clone, Default)]
pub struct flopspack_histogram_options {
    pub struct_size: u32,
    pub binning: i32,
    pub weighting: i32,
    pub normalized: i32,
    pub width: i64,
}

/// `flopspack_stats_options`: `cost_capacity` > 0 costs a document longer
/// than it as the pieces training sees.
#[repr(C)]
#[derive(Debug, Copy, Clone, Default)]
pub struct flopspack_stats_options {
    pub struct_size: u32,
    pub cost_capacity: i64,
}

#[repr(C)]
#[derive(Debug, Copy, Clone, Default, PartialEq)]
pub struct flopspack_stats_tail {
    pub struct_size: u32,
    pub documents: u64,
    pub tokens: i64,
    pub cost: f64,
    pub document_share: f64,
    pub token_share: f64,
    pub cost_share: f64,
}

#[repr(C)]
#[derive(Debug, Copy, Clone, Default, PartialEq)]
pub struct flopspack_stats_comparison {
    pub struct_size: u32,
    pub ks_distance: f64,
    pub ks_length: i64,
    pub ks_distance_tokens: f64,
    pub ks_length_tokens: i64,
    pub levels: [f64; 6],
    pub quantiles_a: [i64; 6],
    pub quantiles_b: [i64; 6],
    pub first_divergent_level: f64,
    pub tail_threshold: i64,
    pub token_share_above_a: f64,
    pub token_share_above_b: f64,
    pub cost_share_above_a: f64,
    pub cost_share_above_b: f64,
}

/// Progress of a simulation: return non-zero to stop (FLOPSPACK_CANCELLED).
pub type flopspack_progress_fn =
    Option<unsafe extern "C" fn(user_data: *mut c_void, done: u64, total: u64) -> c_int>;

#[repr(C)]
#[derive(Debug, Copy, Clone)]
pub struct flopspack_simulate_options {
    pub struct_size: u32,
    pub policy: i32,
    pub num_ranks: u64,
    pub microbatches_per_rank: u64,
    pub tokens_per_microbatch: i64,
    pub max_tokens_per_microbatch: i64,
    pub num_steps: u64,
    pub seed: u64,
    pub record_steps: i32,
    pub progress: flopspack_progress_fn,
    pub progress_user_data: *mut c_void,
    pub sync: i32,
    pub pipeline_stages: u32,
    pub pipeline_schedule: i32,
    /// GPUs per context-parallel group; 0 or 1 = none.
    pub context_parallel_size: u32,
    /// A `flopspack_cp_layout` value.
    pub context_parallel_layout: i32,
}

#[repr(C)]
#[derive(Debug, Copy, Clone, Default, PartialEq)]
pub struct flopspack_simulate_summary {
    pub struct_size: u32,
    pub num_steps: u64,
    pub num_ranks: u64,
    pub microbatches_per_rank: u64,
    pub documents_drawn: u64,
    pub epochs: u64,
    pub mean_balance_efficiency: f64,
    pub p5_balance_efficiency: f64,
    pub p50_balance_efficiency: f64,
    pub p95_balance_efficiency: f64,
    pub mean_fill: f64,
    pub mean_padding_efficiency: f64,
    pub relative_throughput: f64,
    pub mean_step_time: f64,
    pub predicted_efficiency: f64,
    pub real_tokens: i64,
    pub computed_tokens: i64,
    pub sync: i32,
    pub pipeline_stages: u32,
    pub pipeline_schedule: i32,
    pub mean_sync_efficiency: f64,
}

/// `flopspack_pack_options`; `cost_model` is borrowed for the call (NULL =
/// tokens).
#[repr(C)]
#[derive(Debug, Copy, Clone)]
pub struct flopspack_pack_options {
    pub struct_size: u32,
    pub algorithm: i32,
    pub capacity: i64,
    pub overflow: i32,
    pub seed: u64,
    pub cost_model: *const flopspack_cost_model,
}

#[repr(C)]
#[derive(Debug, Copy, Clone, Default)]
pub struct flopspack_balance_options {
    pub struct_size: u32,
    pub algorithm: i32,
    pub num_groups: i64,
    pub equal_count: i32,
    pub refine: i32,
    pub max_tokens_per_group: i64,
    pub max_refine_steps: i64,
    pub seed: u64,
}

#[repr(C)]
#[derive(Debug, Copy, Clone, Default)]
pub struct flopspack_step_options {
    pub struct_size: u32,
    pub num_ranks: u32,
    pub microbatches_per_rank: u32,
    pub algorithm: i32,
    pub max_tokens_per_microbatch: i64,
    pub seed: u64,
    pub ordering: i32,
    pub overflow: i32,
    /// A `flopspack_sync` value.
    pub sync: i32,
    pub pipeline_stages: u32,
    /// A `flopspack_pipeline_schedule` value.
    pub pipeline_schedule: i32,
    /// GPUs per context-parallel group; 0 or 1 = none.
    pub context_parallel_size: u32,
    /// A `flopspack_cp_layout` value.
    pub context_parallel_layout: i32,
}

#[repr(C)]
#[derive(Debug, Copy, Clone, Default)]
pub struct flopspack_step_planner_options {
    pub struct_size: u32,
    pub max_defer_steps: u32,
    pub tokens_per_step: i64,
    pub outlier_min_tokens: i64,
    pub max_outliers_per_step: i64,
}

#[repr(C)]
#[derive(Debug, Copy, Clone, Default)]
pub struct flopspack_transformer_config {
    pub struct_size: u32,
    pub num_layers: i64,
    pub hidden_size: i64,
    pub num_attention_heads: i64,
    pub num_key_value_heads: i64,
    pub head_dim: i64,
    pub intermediate_size: i64,
    pub vocab_size: i64,
    pub gated_mlp: i32,
    pub causal: i32,
    pub recompute: i32,
    pub attention_span: i32,
}

#[repr(C)]
#[derive(Debug, Copy, Clone, Default)]
pub struct flopspack_fit_options {
    pub struct_size: u32,
    pub terms: u32,
}

#[repr(C)]
#[derive(Debug, Copy, Clone, Default, PartialEq)]
pub struct flopspack_fit_report {
    pub struct_size: u32,
    pub per_sequence: f64,
    pub per_document: f64,
    pub linear: f64,
    pub quadratic: f64,
    pub r_squared: f64,
    pub rms_residual: f64,
    pub num_samples: u64,
}

#[repr(C)]
#[derive(Debug, Copy, Clone, Default, PartialEq)]
pub struct flopspack_polynomial_coefficients {
    pub struct_size: u32,
    pub per_sequence: f64,
    pub per_document: f64,
    pub linear: f64,
    pub quadratic: f64,
}

#[repr(C)]
#[derive(Debug, Copy, Clone, Default)]
pub struct flopspack_evaluate_options {
    pub struct_size: u32,
    pub fit_scale: i32,
    pub scale: f64,
    pub offset: f64,
}

#[repr(C)]
#[derive(Debug, Copy, Clone, Default, PartialEq)]
pub struct flopspack_prediction_quality {
    pub struct_size: u32,
    pub scale: f64,
    pub offset: f64,
    pub r_squared: f64,
    pub rms_residual: f64,
    pub mean_relative_error: f64,
    pub median_relative_error: f64,
    pub max_relative_error: f64,
    pub num_samples: u64,
}

/// `struct flopspack_plan_metrics` (see the header for each field).
#[repr(C)]
#[derive(Debug, Copy, Clone, Default, PartialEq)]
pub struct flopspack_plan_metrics {
    pub struct_size: u32,
    pub num_groups: u64,
    pub num_items: u64,
    pub max_group_cost: f64,
    pub mean_group_cost: f64,
    pub min_group_cost: f64,
    pub total_cost: f64,
    pub balance_efficiency: f64,
    pub lower_bound: f64,
    pub gap_to_lower_bound: f64,
    pub real_tokens: i64,
    pub computed_tokens: i64,
    pub capacity: i64,
    pub fill: f64,
    pub padding_efficiency: f64,
    pub num_ranks: u64,
    pub microbatches_per_rank: u64,
    pub max_rank_cost: f64,
    pub mean_rank_cost: f64,
    pub rank_balance_efficiency: f64,
    pub rank_lower_bound: f64,
    pub rank_gap_to_lower_bound: f64,
    pub worst_slot_balance: f64,
    pub split_items: u64,
    pub truncated_items: u64,
    pub deferred_items: u64,
    pub dropped_items: u64,
    pub truncated_tokens: i64,
    pub deferred_tokens: i64,
    pub dropped_tokens: i64,
    pub num_steps: u64,
    pub diversity_distance: f64,
    pub diversity_distance_samples: f64,
    /// A `flopspack_planned_by` value.
    pub planned_by: i32,
    pub microbatch_sync_efficiency: f64,
    pub mean_slot_balance: f64,
    pub microbatch_sync_cost: f64,
    pub microbatch_sync_lower_bound: f64,
    pub microbatch_sync_gap_to_lower_bound: f64,
    pub pipeline_makespan: f64,
    pub pipeline_efficiency: f64,
    pub pipeline_lower_bound: f64,
    pub pipeline_gap_to_lower_bound: f64,
}

#[repr(C)]
#[derive(Debug, Copy, Clone, Default)]
pub struct flopspack_stream_options {
    pub struct_size: u32,
    pub capacity: i64,
    pub window: u64,
    pub overflow: i32,
    pub seed: u64,
}

#[repr(C)]
#[derive(Debug, Copy, Clone, Default, PartialEq)]
pub struct flopspack_stream_totals {
    pub struct_size: u32,
    pub documents_pushed: u64,
    pub pieces_held: u64,
    pub sequences_emitted: u64,
    pub tokens_emitted: i64,
    pub split_documents: u64,
    pub truncated_documents: u64,
    pub truncated_tokens: i64,
}

/// `flopspack_bucket_sampler_options`; `upper_bounds` (with
/// `num_upper_bounds` entries) is copied at creation.
#[repr(C)]
#[derive(Debug, Copy, Clone)]
pub struct flopspack_bucket_sampler_options {
    pub struct_size: u32,
    pub budget_kind: i32,
    pub num_buckets: u32,
    pub drop_last: i32,
    pub upper_bounds: *const i64,
    pub num_upper_bounds: u64,
    pub max_padded_tokens: i64,
    pub max_batch_cost: f64,
    pub num_ranks: u64,
    pub accumulation_steps: u64,
    pub seed: u64,
    pub overflow: i32,
}

#[repr(C)]
#[derive(Debug, Copy, Clone, Default)]
pub struct flopspack_bucket_sampler_diagnostics {
    pub struct_size: u32,
    pub unmet: u32,
    pub balance_efficiency: f64,
    pub balance_shortfall: f64,
    pub balance_bound: f64,
    pub padding_efficiency: f64,
    pub padding_shortfall: f64,
    pub padding_bound: f64,
    pub diversity_distance: f64,
    pub diversity_excess: f64,
    pub diversity_floor: f64,
    pub batch_cost_cap: f64,
    pub implied_cost_budget: f64,
    pub truncated_items: u64,
    pub deferred_items: u64,
    pub truncated_tokens: i64,
    pub deferred_tokens: i64,
}
pub const FLOPSPACK_BUCKET_TARGET_BALANCE: u32 = 1;
pub const FLOPSPACK_BUCKET_TARGET_PADDING: u32 = 2;
pub const FLOPSPACK_BUCKET_TARGET_DIVERSITY: u32 = 4;

/// Cost of one packed sequence; return 0 and store a finite, non-negative
/// cost, anything else fails the calling function (CALLBACK_FAILED).
pub type flopspack_sequence_cost_fn = Option<
    unsafe extern "C" fn(
        user_data: *mut c_void,
        document_lengths: *const i64,
        n: usize,
        out_cost: *mut f64,
    ) -> c_int,
>;

/// `flopspack_cp_layout`: how a packed sequence is cut over the CP ranks.
pub type flopspack_cp_layout = c_uint;
pub const FLOPSPACK_CP_SEQUENCE_HEAD_TAIL: flopspack_cp_layout = 0;
pub const FLOPSPACK_CP_DOCUMENT_HEAD_TAIL: flopspack_cp_layout = 1;
pub const FLOPSPACK_CP_ADAPTIVE: flopspack_cp_layout = 2;

#[repr(C)]
pub struct flopspack_cp_shard {
    _unused: [u8; 0],
}

#[repr(C)]
#[derive(Debug, Default, Copy, Clone)]
pub struct flopspack_cp_metrics {
    pub struct_size: u32,
    pub context_parallel_size: u64,
    pub num_groups: u64,
    pub num_chunks: u64,
    pub balance_efficiency: f64,
    pub worst_balance: f64,
    pub max_cp_rank_cost: f64,
    pub mean_cp_rank_cost: f64,
    pub kv_tokens: i64,
    pub sequence_layout_groups: u64,
    pub document_layout_groups: u64,
}

extern "C" {
    // Version, status, errors.
    pub fn flopspack_version_number() -> u32;
    pub fn flopspack_version_string() -> *const c_char;
    pub fn flopspack_status_string(status: flopspack_status) -> *const c_char;
    pub fn flopspack_last_error_message() -> *const c_char;

    // Seeds.
    pub fn flopspack_derive_seed(seed: u64, stream: u64) -> u64;

    // Cost models.
    pub fn flopspack_cost_model_tokens(out: *mut *mut flopspack_cost_model) -> flopspack_status;
    pub fn flopspack_cost_model_polynomial(
        per_sequence: f64,
        per_document: f64,
        linear: f64,
        quadratic: f64,
        out: *mut *mut flopspack_cost_model,
    ) -> flopspack_status;
    pub fn flopspack_transformer_config_init(config: *mut flopspack_transformer_config);
    pub fn flopspack_cost_model_transformer(
        config: *const flopspack_transformer_config,
        out: *mut *mut flopspack_cost_model,
    ) -> flopspack_status;
    pub fn flopspack_fit_options_init(options: *mut flopspack_fit_options);
    pub fn flopspack_cost_model_fit(
        options: *const flopspack_fit_options,
        document_lengths: *const i64,
        sample_offsets: *const usize,
        seconds: *const f64,
        num_samples: usize,
        report: *mut flopspack_fit_report,
        out: *mut *mut flopspack_cost_model,
    ) -> flopspack_status;
    pub fn flopspack_cost_model_custom(
        fn_: flopspack_sequence_cost_fn,
        user_data: *mut c_void,
        out: *mut *mut flopspack_cost_model,
    ) -> flopspack_status;
    pub fn flopspack_cost_model_sequence_cost(
        model: *const flopspack_cost_model,
        document_lengths: *const i64,
        n: usize,
        out_cost: *mut f64,
    ) -> flopspack_status;
    pub fn flopspack_cost_model_document_costs(
        model: *const flopspack_cost_model,
        document_lengths: *const i64,
        n: usize,
        out_costs: *mut f64,
    ) -> flopspack_status;
    pub fn flopspack_cost_model_padded_batch_cost(
        model: *const flopspack_cost_model,
        lengths: *const i64,
        n: usize,
        out_cost: *mut f64,
    ) -> flopspack_status;
    pub fn flopspack_cost_model_sequence_overhead(
        model: *const flopspack_cost_model,
        out_overhead: *mut f64,
    ) -> flopspack_status;
    pub fn flopspack_cost_model_is_additive(
        model: *const flopspack_cost_model,
        out_additive: *mut c_int,
    ) -> flopspack_status;
    pub fn flopspack_cost_model_destroy(model: *mut flopspack_cost_model);

    // Plans.
    pub fn flopspack_plan_group_count(plan: *const flopspack_plan) -> usize;
    pub fn flopspack_plan_group(
        plan: *const flopspack_plan,
        group: usize,
        items: *mut *const i64,
        tokens: *mut *const i64,
        n: *mut usize,
    ) -> flopspack_status;
    pub fn flopspack_plan_group_info(
        plan: *const flopspack_plan,
        group: usize,
        real_tokens: *mut i64,
        computed_tokens: *mut i64,
        cost: *mut f64,
    ) -> flopspack_status;
    pub fn flopspack_plan_group_slot(
        plan: *const flopspack_plan,
        group: usize,
        rank: *mut usize,
        microbatch: *mut usize,
    ) -> flopspack_status;
    pub fn flopspack_plan_deferred(
        plan: *const flopspack_plan,
        items: *mut *const i64,
        n: *mut usize,
    ) -> flopspack_status;
    pub fn flopspack_plan_dropped(
        plan: *const flopspack_plan,
        items: *mut *const i64,
        n: *mut usize,
    ) -> flopspack_status;
    pub fn flopspack_plan_metrics(
        plan: *const flopspack_plan,
        out: *mut flopspack_plan_metrics,
    ) -> flopspack_status;
    pub fn flopspack_plan_destroy(plan: *mut flopspack_plan);
    /// Where each entry of group `group` starts in its item: a borrowed
    /// view of `n` offsets (see the header).
    pub fn flopspack_plan_group_offsets(
        plan: *const flopspack_plan,
        group: usize,
        offsets: *mut *const i64,
        n: *mut usize,
    ) -> flopspack_status;

    // Streaming packer.
    pub fn flopspack_stream_options_init(options: *mut flopspack_stream_options);
    pub fn flopspack_stream_packer_create(
        options: *const flopspack_stream_options,
        model: *const flopspack_cost_model,
        out: *mut *mut flopspack_stream_packer,
    ) -> flopspack_status;
    pub fn flopspack_stream_packer_push(
        packer: *mut flopspack_stream_packer,
        lengths: *const i64,
        n: usize,
    ) -> flopspack_status;
    pub fn flopspack_stream_packer_flush(packer: *mut flopspack_stream_packer) -> flopspack_status;
    pub fn flopspack_stream_packer_ready(
        packer: *const flopspack_stream_packer,
        out_sequences: *mut usize,
    ) -> flopspack_status;
    pub fn flopspack_stream_packer_take(
        packer: *mut flopspack_stream_packer,
        out: *mut *mut flopspack_plan,
    ) -> flopspack_status;
    pub fn flopspack_stream_packer_totals(
        packer: *const flopspack_stream_packer,
        out: *mut flopspack_stream_totals,
    ) -> flopspack_status;
    pub fn flopspack_stream_packer_save_size(
        packer: *const flopspack_stream_packer,
        size: *mut usize,
    ) -> flopspack_status;
    pub fn flopspack_stream_packer_save(
        packer: *const flopspack_stream_packer,
        buffer: *mut c_void,
        capacity: usize,
        size: *mut usize,
    ) -> flopspack_status;
    pub fn flopspack_stream_packer_restore(
        bytes: *const c_void,
        size: usize,
        model: *const flopspack_cost_model,
        out: *mut *mut flopspack_stream_packer,
    ) -> flopspack_status;
    pub fn flopspack_stream_packer_destroy(packer: *mut flopspack_stream_packer);

    // Statistics.
    pub fn flopspack_stats_create(
        lengths: *const i64,
        n: usize,
        model: *const flopspack_cost_model,
        out: *mut *mut flopspack_stats,
    ) -> flopspack_status;
    pub fn flopspack_stats_create_from_histogram(
        lengths: *const i64,
        counts: *const u64,
        n: usize,
        model: *const flopspack_cost_model,
        out: *mut *mut flopspack_stats,
    ) -> flopspack_status;
    pub fn flopspack_stats_merge(
        a: *const flopspack_stats,
        b: *const flopspack_stats,
        out: *mut *mut flopspack_stats,
    ) -> flopspack_status;
    pub fn flopspack_stats_summarize(
        stats: *const flopspack_stats,
        out: *mut flopspack_stats_summary,
    ) -> flopspack_status;
    pub fn flopspack_stats_quantile(
        stats: *const flopspack_stats,
        q: f64,
        out: *mut f64,
    ) -> flopspack_status;
    pub fn flopspack_stats_weighted_quantile(
        stats: *const flopspack_stats,
        weighting: c_int,
        q: f64,
        out: *mut f64,
    ) -> flopspack_status;
    pub fn flopspack_stats_cdf(
        stats: *const flopspack_stats,
        weighting: c_int,
        length: i64,
        out: *mut f64,
    ) -> flopspack_status;
    pub fn flopspack_histogram_options_init(options: *mut flopspack_histogram_options);
    pub fn flopspack_stats_histogram(
        stats: *const flopspack_stats,
        options: *const flopspack_histogram_options,
        upper_edges: *mut i64,
        weights: *mut f64,
        capacity: usize,
        num_bins: *mut usize,
    ) -> flopspack_status;
    pub fn flopspack_stats_tail_share(
        stats: *const flopspack_stats,
        threshold: i64,
        out: *mut flopspack_stats_tail,
    ) -> flopspack_status;
    pub fn flopspack_stats_expected_max(
        stats: *const flopspack_stats,
        draws: u64,
        out: *mut f64,
    ) -> flopspack_status;
    pub fn flopspack_stats_ks_distance(
        a: *const flopspack_stats,
        b: *const flopspack_stats,
        out: *mut f64,
    ) -> flopspack_status;
    pub fn flopspack_stats_ks_distance_weighted(
        a: *const flopspack_stats,
        b: *const flopspack_stats,
        weighting: c_int,
        distance: *mut f64,
        length: *mut i64,
    ) -> flopspack_status;
    pub fn flopspack_stats_compare(
        a: *const flopspack_stats,
        b: *const flopspack_stats,
        out: *mut flopspack_stats_comparison,
    ) -> flopspack_status;
    pub fn flopspack_stats_entries(
        stats: *const flopspack_stats,
        lengths: *mut i64,
        counts: *mut u64,
        capacity: usize,
        n: *mut usize,
    ) -> flopspack_status;
    pub fn flopspack_stats_destroy(stats: *mut flopspack_stats);
    pub fn flopspack_stats_options_init(options: *mut flopspack_stats_options);
    pub fn flopspack_stats_create_with_options(
        lengths: *const i64,
        counts: *const u64,
        n: usize,
        model: *const flopspack_cost_model,
        options: *const flopspack_stats_options,
        out: *mut *mut flopspack_stats,
    ) -> flopspack_status;

    // The straggler emulator.
    pub fn flopspack_simulate_options_init(options: *mut flopspack_simulate_options);
    pub fn flopspack_simulate(
        lengths: *const i64,
        n: usize,
        model: *const flopspack_cost_model,
        options: *const flopspack_simulate_options,
        out: *mut *mut flopspack_simulate_result,
    ) -> flopspack_status;
    pub fn flopspack_simulate_result_summary(
        result: *const flopspack_simulate_result,
        out: *mut flopspack_simulate_summary,
    ) -> flopspack_status;
    pub fn flopspack_simulate_result_series(
        result: *const flopspack_simulate_result,
        series: c_int,
        out: *mut f64,
        capacity: usize,
        n: *mut usize,
    ) -> flopspack_status;
    pub fn flopspack_simulate_result_pieces(
        result: *const flopspack_simulate_result,
        out: *mut *mut flopspack_stats,
    ) -> flopspack_status;
    pub fn flopspack_simulate_result_destroy(result: *mut flopspack_simulate_result);
    pub fn flopspack_simulate_sweep(
        lengths: *const i64,
        n: usize,
        model: *const flopspack_cost_model,
        options: *const flopspack_simulate_options,
        rank_counts: *const u64,
        num_counts: usize,
        sampled_efficiency: *mut f64,
        predicted_efficiency: *mut f64,
        relative_throughput: *mut f64,
    ) -> flopspack_status;

    // Packing and balancing.
    pub fn flopspack_pack_options_init(options: *mut flopspack_pack_options);
    pub fn flopspack_pack(
        options: *const flopspack_pack_options,
        lengths: *const i64,
        n: usize,
        out: *mut *mut flopspack_plan,
    ) -> flopspack_status;
    pub fn flopspack_balance_options_init(options: *mut flopspack_balance_options);
    pub fn flopspack_balance(
        options: *const flopspack_balance_options,
        costs: *const f64,
        tokens: *const i64,
        n: usize,
        out: *mut *mut flopspack_plan,
    ) -> flopspack_status;

    // Step planning and the stateful step planner.
    pub fn flopspack_step_options_init(options: *mut flopspack_step_options);
    pub fn flopspack_plan_step(
        options: *const flopspack_step_options,
        model: *const flopspack_cost_model,
        lengths: *const i64,
        n: usize,
        out: *mut *mut flopspack_plan,
    ) -> flopspack_status;
    pub fn flopspack_plan_step_with_extra_costs(
        options: *const flopspack_step_options,
        model: *const flopspack_cost_model,
        lengths: *const i64,
        extra_costs: *const f64,
        n: usize,
        out: *mut *mut flopspack_plan,
    ) -> flopspack_status;
    pub fn flopspack_multimodal_costs(
        encoder: *const flopspack_cost_model,
        text_tokens: *const i64,
        images: *const i64,
        patches_per_image: *const i64,
        n: usize,
        out_tokens: *mut i64,
        out_extra_costs: *mut f64,
    ) -> flopspack_status;
    pub fn flopspack_pack_with_extra_costs(
        options: *const flopspack_pack_options,
        lengths: *const i64,
        extra_costs: *const f64,
        n: usize,
        out: *mut *mut flopspack_plan,
    ) -> flopspack_status;
    pub fn flopspack_simulate_with_extra_costs(
        lengths: *const i64,
        extra_costs: *const f64,
        n: usize,
        model: *const flopspack_cost_model,
        options: *const flopspack_simulate_options,
        out: *mut *mut flopspack_simulate_result,
    ) -> flopspack_status;
    pub fn flopspack_simulate_sweep_with_extra_costs(
        lengths: *const i64,
        extra_costs: *const f64,
        n: usize,
        model: *const flopspack_cost_model,
        options: *const flopspack_simulate_options,
        rank_counts: *const u64,
        num_counts: usize,
        sampled_efficiency: *mut f64,
        predicted_efficiency: *mut f64,
        relative_throughput: *mut f64,
    ) -> flopspack_status;
    pub fn flopspack_step_context_create(out: *mut *mut flopspack_step_context)
        -> flopspack_status;
    pub fn flopspack_step_context_reserve(
        context: *mut flopspack_step_context,
        options: *const flopspack_step_options,
        model: *const flopspack_cost_model,
        documents: usize,
    ) -> flopspack_status;
    pub fn flopspack_plan_step_in_context(
        context: *mut flopspack_step_context,
        options: *const flopspack_step_options,
        model: *const flopspack_cost_model,
        lengths: *const i64,
        n: usize,
        out: *mut *mut flopspack_plan,
    ) -> flopspack_status;
    pub fn flopspack_step_context_kept_bytes(context: *const flopspack_step_context) -> usize;
    pub fn flopspack_step_context_destroy(context: *mut flopspack_step_context);
    pub fn flopspack_step_planner_options_init(options: *mut flopspack_step_planner_options);
    pub fn flopspack_step_planner_create(
        options: *const flopspack_step_options,
        planner_options: *const flopspack_step_planner_options,
        model: *const flopspack_cost_model,
        out: *mut *mut flopspack_step_planner,
    ) -> flopspack_status;
    pub fn flopspack_step_planner_push(
        planner: *mut flopspack_step_planner,
        lengths: *const i64,
        n: usize,
        first_id: *mut i64,
    ) -> flopspack_status;
    pub fn flopspack_step_planner_push_with_extra_costs(
        planner: *mut flopspack_step_planner,
        lengths: *const i64,
        extra_costs: *const f64,
        n: usize,
        first_id: *mut i64,
    ) -> flopspack_status;
    pub fn flopspack_step_planner_next(
        planner: *mut flopspack_step_planner,
        out: *mut *mut flopspack_plan,
    ) -> flopspack_status;
    pub fn flopspack_step_planner_pending(
        planner: *const flopspack_step_planner,
        documents: *mut u64,
        tokens: *mut i64,
        steps: *mut u64,
    ) -> flopspack_status;
    pub fn flopspack_step_planner_save_size(
        planner: *const flopspack_step_planner,
        size: *mut usize,
    ) -> flopspack_status;
    pub fn flopspack_step_planner_save(
        planner: *const flopspack_step_planner,
        buffer: *mut c_void,
        capacity: usize,
        written: *mut usize,
    ) -> flopspack_status;
    pub fn flopspack_step_planner_restore(
        bytes: *const c_void,
        size: usize,
        model: *const flopspack_cost_model,
        out: *mut *mut flopspack_step_planner,
    ) -> flopspack_status;
    pub fn flopspack_step_planner_destroy(planner: *mut flopspack_step_planner);

    // Length buckets and the bucket sampler.
    pub fn flopspack_buckets_optimize(
        lengths: *const i64,
        n: usize,
        num_buckets: usize,
        upper_bounds: *mut i64,
    ) -> flopspack_status;
    pub fn flopspack_buckets_padding(
        lengths: *const i64,
        n: usize,
        upper_bounds: *const i64,
        num_buckets: usize,
        out_padding: *mut i64,
    ) -> flopspack_status;
    pub fn flopspack_bucket_sampler_options_init(options: *mut flopspack_bucket_sampler_options);
    pub fn flopspack_bucket_sampler_create(
        options: *const flopspack_bucket_sampler_options,
        model: *const flopspack_cost_model,
        lengths: *const i64,
        n: usize,
        out: *mut *mut flopspack_bucket_sampler,
    ) -> flopspack_status;
    pub fn flopspack_bucket_sampler_epoch(
        sampler: *const flopspack_bucket_sampler,
        epoch: u64,
        out: *mut *mut flopspack_plan,
    ) -> flopspack_status;
    pub fn flopspack_bucket_sampler_step(
        sampler: *const flopspack_bucket_sampler,
        epoch: u64,
        step: u64,
        out: *mut *mut flopspack_plan,
    ) -> flopspack_status;
    pub fn flopspack_bucket_sampler_steps_per_epoch(
        sampler: *const flopspack_bucket_sampler,
        out: *mut u64,
    ) -> flopspack_status;
    pub fn flopspack_bucket_sampler_upper_bounds(
        sampler: *const flopspack_bucket_sampler,
        upper_bounds: *mut *const i64,
        n: *mut usize,
    ) -> flopspack_status;
    pub fn flopspack_bucket_sampler_step_diversity(
        sampler: *const flopspack_bucket_sampler,
        plan: *const flopspack_plan,
        token_distances: *mut f64,
        sample_distances: *mut f64,
        capacity: usize,
        num_steps: *mut usize,
    ) -> flopspack_status;
    pub fn flopspack_bucket_sampler_destroy(sampler: *mut flopspack_bucket_sampler);
    pub fn flopspack_bucket_sampler_diagnose(
        sampler: *const flopspack_bucket_sampler,
        epoch: u64,
        balance_target: f64,
        padding_target: f64,
        diversity_target: f64,
        out: *mut flopspack_bucket_sampler_diagnostics,
    ) -> flopspack_status;
    pub fn flopspack_bucket_stream_create(
        options: *const flopspack_bucket_sampler_options,
        model: *const flopspack_cost_model,
        buffer_size: u64,
        out: *mut *mut flopspack_bucket_stream,
    ) -> flopspack_status;
    pub fn flopspack_bucket_stream_push(
        stream: *mut flopspack_bucket_stream,
        lengths: *const i64,
        n: usize,
        accepted: *mut usize,
    ) -> flopspack_status;
    pub fn flopspack_bucket_stream_flush(stream: *mut flopspack_bucket_stream) -> flopspack_status;
    pub fn flopspack_bucket_stream_ready(
        stream: *mut flopspack_bucket_stream,
        steps: *mut u64,
    ) -> flopspack_status;
    pub fn flopspack_bucket_stream_take(
        stream: *mut flopspack_bucket_stream,
        out: *mut *mut flopspack_plan,
    ) -> flopspack_status;
    pub fn flopspack_bucket_stream_deferred(
        stream: *const flopspack_bucket_stream,
        items: *mut *const i64,
        n: *mut usize,
    ) -> flopspack_status;
    pub fn flopspack_bucket_stream_leftover(
        stream: *const flopspack_bucket_stream,
        items: *mut *const i64,
        n: *mut usize,
    ) -> flopspack_status;
    pub fn flopspack_bucket_stream_destroy(stream: *mut flopspack_bucket_stream);

    // Cost models, continued: coefficients and prediction quality.
    pub fn flopspack_cost_model_coefficients(
        model: *const flopspack_cost_model,
        out: *mut flopspack_polynomial_coefficients,
    ) -> flopspack_status;
    pub fn flopspack_evaluate_options_init(options: *mut flopspack_evaluate_options);
    pub fn flopspack_cost_model_evaluate(
        model: *const flopspack_cost_model,
        options: *const flopspack_evaluate_options,
        document_lengths: *const i64,
        sample_offsets: *const usize,
        seconds: *const f64,
        num_samples: usize,
        out: *mut flopspack_prediction_quality,
    ) -> flopspack_status;

    // Context parallelism.
    pub fn flopspack_plan_shard_context_parallel(
        plan: *const flopspack_plan,
        model: *const flopspack_cost_model,
        context_parallel_size: u64,
        layout: c_int,
        out: *mut *mut flopspack_cp_shard,
    ) -> flopspack_status;
    pub fn flopspack_cp_shard_group_count(shard: *const flopspack_cp_shard) -> usize;
    pub fn flopspack_cp_shard_chunks(
        shard: *const flopspack_cp_shard,
        group: usize,
        cp_rank: usize,
        items: *mut *const i64,
        offsets: *mut *const i64,
        lengths: *mut *const i64,
        n: *mut usize,
    ) -> flopspack_status;
    pub fn flopspack_cp_shard_rank_cost(
        shard: *const flopspack_cp_shard,
        group: usize,
        cp_rank: usize,
        cost: *mut f64,
        kv_tokens: *mut i64,
    ) -> flopspack_status;
    pub fn flopspack_cp_shard_group_layout(
        shard: *const flopspack_cp_shard,
        group: usize,
        layout: *mut c_int,
        balance: *mut f64,
    ) -> flopspack_status;
    pub fn flopspack_cp_shard_metrics(
        shard: *const flopspack_cp_shard,
        out: *mut flopspack_cp_metrics,
    ) -> flopspack_status;
    pub fn flopspack_cp_shard_destroy(shard: *mut flopspack_cp_shard);
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    /// Names of `pub fn` / `pub struct` items in Rust source text.
    fn items(source: &str, keyword: &str) -> BTreeSet<String> {
        source
            .split(keyword)
            .skip(1)
            .filter_map(|rest| {
                let name: String = rest
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                name.starts_with("flopspack_").then_some(name)
            })
            .collect()
    }

    #[test]
    fn every_generated_function_and_struct_is_declared_by_hand() {
        let generated = include_str!("generated.rs");
        let by_hand = include_str!("lib.rs");
        for keyword in ["pub fn ", "pub struct "] {
            let missing: Vec<_> = items(generated, keyword)
                .difference(&items(by_hand, keyword))
                .cloned()
                .collect();
            assert!(
                missing.is_empty(),
                "declared in the header but not in lib.rs: {missing:?}"
            );
        }
    }

    macro_rules! same_layout {
        ($t:ident { $($field:ident),* }) => {{
            use std::mem::{align_of, size_of, MaybeUninit};
            assert_eq!(size_of::<$t>(), size_of::<generated::$t>(), stringify!($t));
            assert_eq!(align_of::<$t>(), align_of::<generated::$t>(), stringify!($t));
            let a = MaybeUninit::<$t>::uninit();
            let b = MaybeUninit::<generated::$t>::uninit();
            $(
                // SAFETY: addr_of! on a field of an uninitialised value reads nothing.
                let (oa, ob) = unsafe {
                    (std::ptr::addr_of!((*a.as_ptr()).$field) as usize - a.as_ptr() as usize,
                     std::ptr::addr_of!((*b.as_ptr()).$field) as usize - b.as_ptr() as usize)
                };
                assert_eq!(oa, ob, concat!(stringify!($t), ".", stringify!($field)));
            )*
        }};
    }

    #[test]
    fn struct_layouts_match_the_header() {
        same_layout!(flopspack_transformer_config {
            struct_size,
            num_layers,
            hidden_size,
            num_attention_heads,
            num_key_value_heads,
            head_dim,
            intermediate_size,
            vocab_size,
            gated_mlp,
            causal,
            recompute,
            attention_span
        });
        same_layout!(flopspack_fit_options { struct_size, terms });
        same_layout!(flopspack_fit_report {
            struct_size,
            per_sequence,
            per_document,
            linear,
            quadratic,
            r_squared,
            rms_residual,
            num_samples
        });
        same_layout!(flopspack_polynomial_coefficients {
            struct_size,
            per_sequence,
            per_document,
            linear,
            quadratic
        });
        same_layout!(flopspack_evaluate_options {
            struct_size,
            fit_scale,
            scale,
            offset
        });
        same_layout!(flopspack_prediction_quality {
            struct_size,
            scale,
            offset,
            r_squared,
            rms_residual,
            mean_relative_error,
            median_relative_error,
            max_relative_error,
            num_samples
        });
        same_layout!(flopspack_plan_metrics {
            struct_size,
            num_groups,
            num_items,
            max_group_cost,
            mean_group_cost,
            min_group_cost,
            total_cost,
            balance_efficiency,
            lower_bound,
            gap_to_lower_bound,
            real_tokens,
            computed_tokens,
            capacity,
            fill,
            padding_efficiency,
            num_ranks,
            microbatches_per_rank,
            max_rank_cost,
            mean_rank_cost,
            rank_balance_efficiency,
            rank_lower_bound,
            rank_gap_to_lower_bound,
            worst_slot_balance,
            split_items,
            truncated_items,
            deferred_items,
            dropped_items,
            truncated_tokens,
            deferred_tokens,
            dropped_tokens,
            num_steps,
            diversity_distance,
            diversity_distance_samples,
            planned_by,
            microbatch_sync_efficiency,
            mean_slot_balance,
            microbatch_sync_cost,
            microbatch_sync_lower_bound,
            microbatch_sync_gap_to_lower_bound,
            pipeline_makespan,
            pipeline_efficiency,
            pipeline_lower_bound,
            pipeline_gap_to_lower_bound
        });
        same_layout!(flopspack_stream_options {
            struct_size,
            capacity,
            window,
            overflow,
            seed
        });
        same_layout!(flopspack_stats_summary {
            struct_size,
            count,
            distinct_lengths,
            tokens,
            mean,
            stddev,
            min,
            max,
            p50,
            p90,
            p99,
            p999,
            has_cost,
            total_cost,
            mean_cost,
            max_cost
        });
        same_layout!(flopspack_histogram_options {
            struct_size,
            binning,
            weighting,
            normalized,
            width
        });
        same_layout!(flopspack_stats_options {
            struct_size,
            cost_capacity
        });
        same_layout!(flopspack_stats_tail {
            struct_size,
            documents,
            tokens,
            cost,
            document_share,
            token_share,
            cost_share
        });
        same_layout!(flopspack_stats_comparison {
            struct_size,
            ks_distance,
            ks_length,
            ks_distance_tokens,
            ks_length_tokens,
            levels,
            quantiles_a,
            quantiles_b,
            first_divergent_level,
            tail_threshold,
            token_share_above_a,
            token_share_above_b,
            cost_share_above_a,
            cost_share_above_b
        });
        same_layout!(flopspack_simulate_options {
            struct_size,
            policy,
            num_ranks,
            microbatches_per_rank,
            tokens_per_microbatch,
            max_tokens_per_microbatch,
            num_steps,
            seed,
            record_steps,
            progress,
            progress_user_data
        });
        same_layout!(flopspack_simulate_summary {
            struct_size,
            num_steps,
            num_ranks,
            microbatches_per_rank,
            documents_drawn,
            epochs,
            mean_balance_efficiency,
            p5_balance_efficiency,
            p50_balance_efficiency,
            p95_balance_efficiency,
            mean_fill,
            mean_padding_efficiency,
            relative_throughput,
            mean_step_time,
            predicted_efficiency,
            real_tokens,
            computed_tokens
        });
        same_layout!(flopspack_pack_options {
            struct_size,
            algorithm,
            capacity,
            overflow,
            seed,
            cost_model
        });
        same_layout!(flopspack_balance_options {
            struct_size,
            algorithm,
            num_groups,
            equal_count,
            refine,
            max_tokens_per_group,
            max_refine_steps,
            seed
        });
        same_layout!(flopspack_step_options {
            struct_size,
            num_ranks,
            microbatches_per_rank,
            algorithm,
            max_tokens_per_microbatch,
            seed,
            ordering,
            overflow,
            sync,
            pipeline_stages,
            pipeline_schedule,
            context_parallel_size,
            context_parallel_layout
        });
        same_layout!(flopspack_step_planner_options {
            struct_size,
            max_defer_steps,
            tokens_per_step,
            outlier_min_tokens,
            max_outliers_per_step
        });
        same_layout!(flopspack_bucket_sampler_options {
            struct_size,
            budget_kind,
            num_buckets,
            drop_last,
            upper_bounds,
            num_upper_bounds,
            max_padded_tokens,
            max_batch_cost,
            num_ranks,
            accumulation_steps,
            seed
        });
        same_layout!(flopspack_cp_metrics {
            struct_size,
            context_parallel_size,
            num_groups,
            num_chunks,
            balance_efficiency,
            worst_balance,
            max_cp_rank_cost,
            mean_cp_rank_cost,
            kv_tokens,
            sequence_layout_groups,
            document_layout_groups
        });
        same_layout!(flopspack_stream_totals {
            struct_size,
            documents_pushed,
            pieces_held,
            sequences_emitted,
            tokens_emitted,
            split_documents,
            truncated_documents,
            truncated_tokens
        });
    }

    #[test]
    fn constants_match_the_header() {
        assert_eq!(
            FLOPSPACK_VERSION_NUMBER,
            generated::FLOPSPACK_VERSION_NUMBER
        );
        assert_eq!(FLOPSPACK_FIT_ALL, generated::FLOPSPACK_FIT_ALL);
        assert_eq!(
            FLOPSPACK_BUFFER_TOO_SMALL,
            generated::flopspack_status_FLOPSPACK_BUFFER_TOO_SMALL
        );
        assert_eq!(
            FLOPSPACK_ATTENTION_SEQUENCE,
            generated::flopspack_attention_span_FLOPSPACK_ATTENTION_SEQUENCE
        );
        assert_eq!(
            FLOPSPACK_OVERFLOW_DEFER,
            generated::flopspack_overflow_FLOPSPACK_OVERFLOW_DEFER
        );
        assert_eq!(
            FLOPSPACK_STATS_COMPARE_LEVELS,
            generated::FLOPSPACK_STATS_COMPARE_LEVELS
        );
        assert_eq!(
            FLOPSPACK_STATS_WEIGHT_COST,
            generated::flopspack_stats_weighting_FLOPSPACK_STATS_WEIGHT_COST
        );
        assert_eq!(
            FLOPSPACK_STATS_BINS_LOG2,
            generated::flopspack_stats_binning_FLOPSPACK_STATS_BINS_LOG2
        );
        assert_eq!(
            FLOPSPACK_SIM_PLANNER_SEQUENCES,
            generated::flopspack_sim_policy_FLOPSPACK_SIM_PLANNER_SEQUENCES
        );
        assert_eq!(
            FLOPSPACK_SIM_SERIES_REAL_TOKENS,
            generated::flopspack_sim_series_FLOPSPACK_SIM_SERIES_REAL_TOKENS
        );
        assert_eq!(
            FLOPSPACK_PACK_SHUFFLED_FIRST_FIT,
            generated::flopspack_pack_algorithm_FLOPSPACK_PACK_SHUFFLED_FIRST_FIT
        );
        assert_eq!(
            FLOPSPACK_BALANCE_KARMARKAR_KARP,
            generated::flopspack_balance_algorithm_FLOPSPACK_BALANCE_KARMARKAR_KARP
        );
        assert_eq!(
            FLOPSPACK_STEP_SEQUENCES,
            generated::flopspack_step_algorithm_FLOPSPACK_STEP_SEQUENCES
        );
        assert_eq!(
            FLOPSPACK_SLOT_ORDER_AS_PLANNED,
            generated::flopspack_slot_order_FLOPSPACK_SLOT_ORDER_AS_PLANNED
        );
        assert_eq!(
            FLOPSPACK_SYNC_MICROBATCH,
            generated::flopspack_sync_FLOPSPACK_SYNC_MICROBATCH
        );
        assert_eq!(
            FLOPSPACK_PIPELINE_1F1B,
            generated::flopspack_pipeline_schedule_FLOPSPACK_PIPELINE_1F1B
        );
        assert_eq!(
            FLOPSPACK_BUCKET_BUDGET_COST,
            generated::flopspack_bucket_budget_FLOPSPACK_BUCKET_BUDGET_COST
        );
        // SAFETY: no arguments; the library is linked.
        assert_eq!(
            unsafe { flopspack_version_number() },
            FLOPSPACK_VERSION_NUMBER
        );
    }
}
