//! The straggler emulator: the throughput a dataset loses to stragglers and
//! padding at N GPUs under a packing policy.

use crate::cost::CostModel;
use crate::error::{check, check_extra_costs, Result};
use crate::planner::{PipelineSchedule, SyncModel};
use crate::stats::Stats;
use crate::sys;
use std::os::raw::{c_int, c_void};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::ptr::{self, NonNull};

/// How the emulated pipeline forms microbatches.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SimPolicy {
    #[default]
    Random,
    TokenBalanced,
    Buckets,
    PlannerDocuments,
    PlannerRandom,
    PlannerTokens,
    PlannerSequences,
}

/// A per-step series.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SimSeries {
    StepTime,
    MeanRankCost,
    BalanceEfficiency,
    Fill,
    PaddingEfficiency,
    RealTokens,
}

/// `flopspack_simulate_summary`.
pub type SimulationSummary = sys::flopspack_simulate_summary;

/// Options of [`simulate`] (`Default` = the library's).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SimulateOptions {
    pub policy: SimPolicy,
    pub num_ranks: u64,
    pub microbatches_per_rank: u64,
    pub tokens_per_microbatch: i64,
    pub max_tokens_per_microbatch: i64,
    pub num_steps: u64,
    pub seed: u64,
    pub record_steps: bool,
    /// The trainer's topology (docs/straggler-emulator.md, Topology): a step
    /// lasts the slowest rank (`Step`), the sum over slots of each slot's
    /// slowest microbatch (`Microbatch`: FSDP / ZeRO-3), or with
    /// `pipeline_stages >= 2` the slowest replica's 1F1B makespan. The
    /// planner policies plan for it.
    pub sync: SyncModel,
    /// Per replica; 0 or 1 = none, at most 1024.
    pub pipeline_stages: u32,
    pub pipeline_schedule: PipelineSchedule,
    /// Context parallelism: every rank is a data-parallel group of this
    /// many GPUs sharing each microbatch (0 or 1 = none, at most 65,536),
    /// cut with `context_parallel_layout`; token counts stay per GPU (a
    /// microbatch holds C x `tokens_per_microbatch`) and a microbatch costs
    /// its slowest CP rank (docs/straggler-emulator.md).
    pub context_parallel_size: u32,
    pub context_parallel_layout: crate::CpLayout,
}

fn init() -> sys::flopspack_simulate_options {
    let mut c = sys::flopspack_simulate_options {
        struct_size: 0,
        policy: 0,
        num_ranks: 0,
        microbatches_per_rank: 0,
        tokens_per_microbatch: 0,
        max_tokens_per_microbatch: 0,
        num_steps: 0,
        seed: 0,
        record_steps: 0,
        progress: None,
        progress_user_data: ptr::null_mut(),
        sync: 0,
        pipeline_stages: 0,
        pipeline_schedule: 0,
        context_parallel_size: 0,
        context_parallel_layout: 0,
    };
    // SAFETY: fills a local struct.
    unsafe { sys::flopspack_simulate_options_init(&mut c) };
    c
}

impl Default for SimulateOptions {
    fn default() -> Self {
        let c = init();
        SimulateOptions {
            policy: SimPolicy::Random,
            num_ranks: c.num_ranks,
            microbatches_per_rank: c.microbatches_per_rank,
            tokens_per_microbatch: c.tokens_per_microbatch,
            max_tokens_per_microbatch: c.max_tokens_per_microbatch,
            num_steps: c.num_steps,
            seed: c.seed,
            record_steps: c.record_steps == 1,
            sync: SyncModel::Step,
            pipeline_stages: c.pipeline_stages,
            pipeline_schedule: PipelineSchedule::OneFOneB,
            context_parallel_size: c.context_parallel_size,
            context_parallel_layout: crate::CpLayout::from_c(c.context_parallel_layout),
        }
    }
}

type Progress<'a> = &'a mut dyn FnMut(u64, u64) -> bool;

unsafe extern "C" fn progress_trampoline(user_data: *mut c_void, done: u64, total: u64) -> c_int {
    // SAFETY: user_data is the &mut Progress living on the caller's stack for
    // the duration of the (synchronous) simulation.
    let f = unsafe { &mut *(user_data as *mut Progress) };
    // A panic must not unwind into C: it stops the simulation.
    match catch_unwind(AssertUnwindSafe(|| f(done, total))) {
        Ok(true) => 0,
        _ => 1,
    }
}

fn to_c(o: &SimulateOptions, progress: &mut Option<Progress>) -> sys::flopspack_simulate_options {
    let mut c = init();
    c.policy = (match o.policy {
        SimPolicy::Random => sys::FLOPSPACK_SIM_RANDOM,
        SimPolicy::TokenBalanced => sys::FLOPSPACK_SIM_TOKEN_BALANCED,
        SimPolicy::Buckets => sys::FLOPSPACK_SIM_BUCKETS,
        SimPolicy::PlannerDocuments => sys::FLOPSPACK_SIM_PLANNER_DOCUMENTS,
        SimPolicy::PlannerRandom => sys::FLOPSPACK_SIM_PLANNER_RANDOM,
        SimPolicy::PlannerTokens => sys::FLOPSPACK_SIM_PLANNER_TOKENS,
        SimPolicy::PlannerSequences => sys::FLOPSPACK_SIM_PLANNER_SEQUENCES,
    }) as i32;
    c.num_ranks = o.num_ranks;
    c.microbatches_per_rank = o.microbatches_per_rank;
    c.tokens_per_microbatch = o.tokens_per_microbatch;
    c.max_tokens_per_microbatch = o.max_tokens_per_microbatch;
    c.num_steps = o.num_steps;
    c.seed = o.seed;
    c.record_steps = o.record_steps as i32;
    c.sync = (match o.sync {
        SyncModel::Step => sys::FLOPSPACK_SYNC_STEP,
        SyncModel::Microbatch => sys::FLOPSPACK_SYNC_MICROBATCH,
    }) as i32;
    c.pipeline_stages = o.pipeline_stages;
    c.pipeline_schedule = (match o.pipeline_schedule {
        PipelineSchedule::OneFOneB => sys::FLOPSPACK_PIPELINE_1F1B,
    }) as i32;
    c.context_parallel_size = o.context_parallel_size;
    c.context_parallel_layout = o.context_parallel_layout.to_c();
    if let Some(p) = progress {
        c.progress = Some(progress_trampoline);
        c.progress_user_data = p as *mut Progress as *mut c_void;
    }
    c
}

/// The result of [`simulate`] (`flopspack_simulate_result`).
pub struct Simulation {
    raw: NonNull<sys::flopspack_simulate_result>,
}

// SAFETY: results are read-only after the simulation.
unsafe impl Send for Simulation {}
unsafe impl Sync for Simulation {}

/// Simulates a training run. `progress(done, total)` is called after every
/// step; returning false (or panicking) cancels with `Status::Cancelled`.
///
/// ```
/// use flopspack::{simulate, CostModel, SimulateOptions};
///
/// let model = CostModel::polynomial(0.0, 0.0, 1.0, 1e-4)?;
/// let lengths: Vec<i64> = (1..=2000).map(|i| (i * 37) % 8000 + 1).collect();
/// let options = SimulateOptions { num_ranks: 64, num_steps: 5, ..Default::default() };
/// let run = simulate(&lengths, &model, &options, None)?;
/// let s = run.summary();
/// assert!(s.relative_throughput > 0.0 && s.relative_throughput <= 1.0);
/// # Ok::<(), flopspack::Error>(())
/// ```
pub fn simulate(
    lengths: &[i64],
    model: &CostModel,
    options: &SimulateOptions,
    progress: Option<Progress>,
) -> Result<Simulation> {
    // No extra costs: the C library makes the plain run of NULL.
    simulate_with_extra_costs(lengths, None, model, options, progress)
}

impl Simulation {
    fn ptr(&self) -> *const sys::flopspack_simulate_result {
        self.raw.as_ptr()
    }

    pub fn summary(&self) -> SimulationSummary {
        let mut v = SimulationSummary {
            struct_size: std::mem::size_of::<SimulationSummary>() as u32,
            ..Default::default()
        };
        // SAFETY: valid handle, struct_size set: cannot fail.
        unsafe { sys::flopspack_simulate_result_summary(self.ptr(), &mut v) };
        v
    }

    /// One value per step (needs `record_steps`).
    pub fn series(&self, kind: SimSeries) -> Result<Vec<f64>> {
        let k = (match kind {
            SimSeries::StepTime => sys::FLOPSPACK_SIM_SERIES_STEP_TIME,
            SimSeries::MeanRankCost => sys::FLOPSPACK_SIM_SERIES_MEAN_RANK_COST,
            SimSeries::BalanceEfficiency => sys::FLOPSPACK_SIM_SERIES_BALANCE_EFFICIENCY,
            SimSeries::Fill => sys::FLOPSPACK_SIM_SERIES_FILL,
            SimSeries::PaddingEfficiency => sys::FLOPSPACK_SIM_SERIES_PADDING_EFFICIENCY,
            SimSeries::RealTokens => sys::FLOPSPACK_SIM_SERIES_REAL_TOKENS,
        }) as c_int;
        let mut n = 0usize;
        // SAFETY: a size query with a NULL buffer.
        check(unsafe {
            sys::flopspack_simulate_result_series(self.ptr(), k, ptr::null_mut(), 0, &mut n)
        })?;
        let mut out = vec![0.0; n];
        // SAFETY: the buffer holds n entries.
        check(unsafe {
            sys::flopspack_simulate_result_series(self.ptr(), k, out.as_mut_ptr(), n, &mut n)
        })?;
        Ok(out)
    }

    /// Statistics of the document pieces the ranks saw.
    pub fn pieces(&self) -> Result<Stats> {
        let mut raw = ptr::null_mut();
        // SAFETY: valid handle and out-pointer.
        check(unsafe { sys::flopspack_simulate_result_pieces(self.ptr(), &mut raw) })?;
        Ok(Stats::from_raw(raw))
    }
}

impl Drop for Simulation {
    fn drop(&mut self) {
        // SAFETY: owned handle, destroyed exactly once.
        unsafe { sys::flopspack_simulate_result_destroy(self.raw.as_ptr()) };
    }
}

/// Efficiency versus GPUs, one entry per rank count.
#[derive(Debug, Clone, PartialEq)]
pub struct Sweep {
    pub rank_counts: Vec<u64>,
    pub sampled_efficiency: Vec<f64>,
    pub predicted_efficiency: Vec<f64>,
    pub relative_throughput: Vec<f64>,
}

/// Simulates at each rank count (`options.num_ranks` is ignored).
pub fn simulate_sweep(
    lengths: &[i64],
    model: &CostModel,
    options: &SimulateOptions,
    rank_counts: &[u64],
    progress: Option<Progress>,
) -> Result<Sweep> {
    // No extra costs: the C library makes the plain sweep of NULL.
    simulate_sweep_with_extra_costs(lengths, None, model, options, rank_counts, progress)
}

/// [`simulate`] where document i costs the model's cost of its tokens plus
/// `extra_costs[i]` (finite, non-negative: a vision encoder's work on its
/// images, say; `flopspack_simulate_with_extra_costs`): a document's pieces
/// carry it in proportion to their tokens, the planner policies balance the
/// full cost, and the documents drawn per step do not change. `None` =
/// none, the same run as [`simulate`].
///
/// ```
/// use flopspack::{simulate_with_extra_costs, CostModel, SimSeries, SimulateOptions};
///
/// let model = CostModel::tokens()?;
/// let options = SimulateOptions {
///     num_ranks: 1, tokens_per_microbatch: 8, num_steps: 2, record_steps: true,
///     ..Default::default()
/// };
/// let run = simulate_with_extra_costs(&[3, 5], Some(&[10.0, 100.0]), &model, &options, None)?;
/// assert_eq!(run.series(SimSeries::StepTime)?, vec![118.0, 118.0]);
/// # Ok::<(), flopspack::Error>(())
/// ```
pub fn simulate_with_extra_costs(
    lengths: &[i64],
    extra_costs: Option<&[f64]>,
    model: &CostModel,
    options: &SimulateOptions,
    mut progress: Option<Progress>,
) -> Result<Simulation> {
    let extra = check_extra_costs(extra_costs, lengths)?;
    let c = to_c(options, &mut progress);
    let mut raw = ptr::null_mut();
    // SAFETY: the options (and the progress closure they point to) live on
    // this stack frame through the synchronous call; extra is NULL or as
    // long as lengths.
    model.explain(check(unsafe {
        sys::flopspack_simulate_with_extra_costs(
            lengths.as_ptr(),
            extra,
            lengths.len(),
            model.as_ptr(),
            &c,
            &mut raw,
        )
    }))?;
    Ok(Simulation {
        raw: NonNull::new(raw).expect("NULL result"),
    })
}

/// [`simulate_sweep`] with per-document extra costs, as
/// [`simulate_with_extra_costs`] (`None` = none).
pub fn simulate_sweep_with_extra_costs(
    lengths: &[i64],
    extra_costs: Option<&[f64]>,
    model: &CostModel,
    options: &SimulateOptions,
    rank_counts: &[u64],
    mut progress: Option<Progress>,
) -> Result<Sweep> {
    let extra = check_extra_costs(extra_costs, lengths)?;
    let c = to_c(options, &mut progress);
    let n = rank_counts.len();
    let mut out = Sweep {
        rank_counts: rank_counts.to_vec(),
        sampled_efficiency: vec![0.0; n],
        predicted_efficiency: vec![0.0; n],
        relative_throughput: vec![0.0; n],
    };
    // SAFETY: every output holds rank_counts.len() entries; extra is NULL or
    // as long as lengths.
    model.explain(check(unsafe {
        sys::flopspack_simulate_sweep_with_extra_costs(
            lengths.as_ptr(),
            extra,
            lengths.len(),
            model.as_ptr(),
            &c,
            rank_counts.as_ptr(),
            n,
            out.sampled_efficiency.as_mut_ptr(),
            out.predicted_efficiency.as_mut_ptr(),
            out.relative_throughput.as_mut_ptr(),
        )
    }))?;
    Ok(out)
}
