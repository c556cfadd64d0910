//! Length buckets and the bucket sampler: padded batches with little
//! padding whose optimizer steps still see the whole length distribution.

use crate::cost::{CostModel, ModelRef};
use crate::error::{check, Result};
use crate::plan::Plan;
use crate::stream::Overflow;
use crate::sys;
use std::ptr::{self, NonNull};

/// The `num_buckets` upper bounds minimising the total padding (exact).
pub fn optimize_buckets(lengths: &[i64], num_buckets: usize) -> Result<Vec<i64>> {
    let mut bounds = vec![0i64; num_buckets];
    // SAFETY: bounds holds num_buckets entries; lengths is valid for the call.
    check(unsafe {
        sys::flopspack_buckets_optimize(
            lengths.as_ptr(),
            lengths.len(),
            num_buckets,
            bounds.as_mut_ptr(),
        )
    })?;
    Ok(bounds)
}

/// Total padding when each sample is padded to the first bound >= it.
pub fn bucket_padding(lengths: &[i64], upper_bounds: &[i64]) -> Result<i64> {
    let mut padding = 0i64;
    // SAFETY: both slices are valid for the call.
    check(unsafe {
        sys::flopspack_buckets_padding(
            lengths.as_ptr(),
            lengths.len(),
            upper_bounds.as_ptr(),
            upper_bounds.len(),
            &mut padding,
        )
    })?;
    Ok(padding)
}

/// What an epoch achieves against targets and what limits it
/// (`flopspack_bucket_sampler_diagnostics`, docs/buckets.md).
pub type BucketDiagnostics = sys::flopspack_bucket_sampler_diagnostics;
/// Bits of [`BucketDiagnostics`]`::unmet`.
pub const BUCKET_TARGET_BALANCE: u32 = sys::FLOPSPACK_BUCKET_TARGET_BALANCE;
pub const BUCKET_TARGET_PADDING: u32 = sys::FLOPSPACK_BUCKET_TARGET_PADDING;
pub const BUCKET_TARGET_DIVERSITY: u32 = sys::FLOPSPACK_BUCKET_TARGET_DIVERSITY;

/// What limits a padded batch.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum BucketBudget {
    /// Batch size x longest sample <= this many tokens.
    PaddedTokens(i64),
    /// The cost model's padded-batch cost <= this.
    Cost(f64),
}

/// Options of a [`BucketSampler`]; `BucketSamplerOptions::new(budget)` gives
/// the library's defaults for the rest.
#[derive(Debug, Clone, PartialEq)]
pub struct BucketSamplerOptions {
    pub budget: BucketBudget,
    /// Ignored when `upper_bounds` is given.
    pub num_buckets: u32,
    /// Explicit bounds (non-decreasing, the last >= every length); None =
    /// optimal bounds for the budget.
    pub upper_bounds: Option<Vec<i64>>,
    /// Drop the surplus batches instead of splitting batches (pad last).
    pub drop_last: bool,
    pub num_ranks: u64,
    pub accumulation_steps: u64,
    pub seed: u64,
    /// Samples that alone break the budget: Error (default), Truncate, or
    /// Defer (drop: left out of every epoch, listed in the plan's deferred).
    pub overflow: Overflow,
}

impl BucketSamplerOptions {
    pub fn new(budget: BucketBudget) -> BucketSamplerOptions {
        let c = init_options();
        BucketSamplerOptions {
            budget,
            num_buckets: c.num_buckets,
            upper_bounds: None,
            drop_last: c.drop_last == 1,
            num_ranks: c.num_ranks,
            accumulation_steps: c.accumulation_steps,
            seed: c.seed,
            overflow: Overflow::from_raw(c.overflow),
        }
    }
}

fn init_options() -> sys::flopspack_bucket_sampler_options {
    let mut c = sys::flopspack_bucket_sampler_options {
        struct_size: 0,
        budget_kind: 0,
        num_buckets: 0,
        drop_last: 0,
        upper_bounds: ptr::null(),
        num_upper_bounds: 0,
        max_padded_tokens: 0,
        max_batch_cost: 0.0,
        num_ranks: 0,
        accumulation_steps: 0,
        seed: 0,
        overflow: 0,
    };
    // SAFETY: fills a local struct.
    unsafe { sys::flopspack_bucket_sampler_options_init(&mut c) };
    c
}

/// A bucket sampler (`flopspack_bucket_sampler`): immutable, `Send + Sync`.
/// Epochs and steps are pure functions of (seed, epoch).
///
/// ```
/// use flopspack::{BucketBudget, BucketSampler, BucketSamplerOptions};
///
/// let lengths = [100, 120, 900, 950, 110, 880, 130, 940];
/// let options = BucketSamplerOptions {
///     num_buckets: 2,
///     num_ranks: 2,
///     ..BucketSamplerOptions::new(BucketBudget::PaddedTokens(2000))
/// };
/// let sampler = BucketSampler::new(&lengths, &options, None)?;
/// assert_eq!(sampler.upper_bounds(), &[130, 950]);
/// let step = sampler.step(0, 0)?; // both ranks' batches of step 0
/// for batch in step.groups() {
///     let (rank, _slot) = batch.slot.unwrap();
///     assert!(rank < 2 && batch.info.computed_tokens <= 2000);
/// }
/// # Ok::<(), flopspack::Error>(())
/// ```
pub struct BucketSampler {
    raw: NonNull<sys::flopspack_bucket_sampler>,
    model: ModelRef,
}

// SAFETY: the header documents the sampler as immutable and usable from
// several threads.
unsafe impl Send for BucketSampler {}
unsafe impl Sync for BucketSampler {}

impl BucketSampler {
    /// A sampler over the samples' lengths; `model` may be None unless the
    /// budget is [`BucketBudget::Cost`].
    pub fn new(
        lengths: &[i64],
        options: &BucketSamplerOptions,
        model: Option<&CostModel>,
    ) -> Result<BucketSampler> {
        let mut c = init_options();
        match options.budget {
            BucketBudget::PaddedTokens(t) => {
                c.budget_kind = sys::FLOPSPACK_BUCKET_BUDGET_PADDED_TOKENS as i32;
                c.max_padded_tokens = t;
            }
            BucketBudget::Cost(cost) => {
                c.budget_kind = sys::FLOPSPACK_BUCKET_BUDGET_COST as i32;
                c.max_batch_cost = cost;
            }
        }
        c.num_buckets = options.num_buckets;
        c.drop_last = options.drop_last as i32;
        if let Some(bounds) = &options.upper_bounds {
            c.upper_bounds = bounds.as_ptr();
            c.num_upper_bounds = bounds.len() as u64;
        }
        c.num_ranks = options.num_ranks;
        c.accumulation_steps = options.accumulation_steps;
        c.seed = options.seed;
        c.overflow = options.overflow.raw();
        let mut raw = ptr::null_mut();
        let m = model.map_or(ptr::null(), |m| m.as_ptr());
        // SAFETY: the bounds (copied at creation) and lengths live through
        // the call; the sampler keeps its own reference to the C model.
        let status = unsafe {
            sys::flopspack_bucket_sampler_create(&c, m, lengths.as_ptr(), lengths.len(), &mut raw)
        };
        match model {
            Some(m) => m.explain(check(status))?,
            None => check(status)?,
        }
        Ok(BucketSampler {
            raw: NonNull::new(raw).expect("NULL sampler"),
            model: model.map(CostModel::model_ref).unwrap_or_default(),
        })
    }

    fn ptr(&self) -> *const sys::flopspack_bucket_sampler {
        self.raw.as_ptr()
    }

    /// One epoch: a group per batch ordered by step, rank, accumulation
    /// index; group (s*R + r)*A + a has slot (r, s*A + a).
    pub fn epoch(&self, epoch: u64) -> Result<Plan> {
        let mut raw = ptr::null_mut();
        // SAFETY: out-pointer to a local; the plan is ours.
        self.model.explain(check(unsafe {
            sys::flopspack_bucket_sampler_epoch(self.ptr(), epoch, &mut raw)
        }))?;
        Ok(unsafe { Plan::from_raw(raw) })
    }

    /// Whether `epoch` meets the targets (step balance >= `balance`, padding
    /// efficiency >= `padding`, token-weighted step KS <= `diversity`; e.g.
    /// 0.97, 0.95, 0.1), by how much it misses them, and what bounds them
    /// (`flopspack_bucket_sampler_diagnose`; `unmet` holds
    /// `BUCKET_TARGET_*` bits).
    pub fn diagnose(
        &self,
        epoch: u64,
        balance: f64,
        padding: f64,
        diversity: f64,
    ) -> Result<BucketDiagnostics> {
        let mut d = BucketDiagnostics {
            struct_size: std::mem::size_of::<BucketDiagnostics>() as u32,
            ..Default::default()
        };
        // SAFETY: valid handle, struct_size set.
        self.model.explain(check(unsafe {
            sys::flopspack_bucket_sampler_diagnose(
                self.ptr(),
                epoch,
                balance,
                padding,
                diversity,
                &mut d,
            )
        }))?;
        Ok(d)
    }

    /// One optimizer step of an epoch.
    pub fn step(&self, epoch: u64, step: u64) -> Result<Plan> {
        let mut raw = ptr::null_mut();
        // SAFETY: as in epoch.
        self.model.explain(check(unsafe {
            sys::flopspack_bucket_sampler_step(self.ptr(), epoch, step, &mut raw)
        }))?;
        Ok(unsafe { Plan::from_raw(raw) })
    }

    /// Optimizer steps per epoch.
    pub fn steps_per_epoch(&self) -> u64 {
        let mut n = 0u64;
        // SAFETY: valid handle and out-pointer: cannot fail.
        unsafe { sys::flopspack_bucket_sampler_steps_per_epoch(self.ptr(), &mut n) };
        n
    }

    /// The bucket upper bounds in use (borrowed from the sampler).
    pub fn upper_bounds(&self) -> &[i64] {
        let (mut data, mut n) = (ptr::null(), 0usize);
        // SAFETY: valid handle; the view lives as long as the sampler.
        unsafe {
            sys::flopspack_bucket_sampler_upper_bounds(self.ptr(), &mut data, &mut n);
            if n == 0 {
                &[]
            } else {
                std::slice::from_raw_parts(data, n)
            }
        }
    }

    /// Per-step KS distances (token-weighted, sample-weighted) of a plan of
    /// this sampler to the whole data's length distribution.
    pub fn step_diversity(&self, plan: &Plan) -> Result<(Vec<f64>, Vec<f64>)> {
        let mut n = 0usize;
        // SAFETY: a size query with NULL buffers.
        check(unsafe {
            sys::flopspack_bucket_sampler_step_diversity(
                self.ptr(),
                plan.as_ptr(),
                ptr::null_mut(),
                ptr::null_mut(),
                0,
                &mut n,
            )
        })?;
        let (mut tokens, mut samples) = (vec![0.0; n], vec![0.0; n]);
        // SAFETY: both buffers hold n entries.
        check(unsafe {
            sys::flopspack_bucket_sampler_step_diversity(
                self.ptr(),
                plan.as_ptr(),
                tokens.as_mut_ptr(),
                samples.as_mut_ptr(),
                n,
                &mut n,
            )
        })?;
        Ok((tokens, samples))
    }
}

impl Drop for BucketSampler {
    fn drop(&mut self) {
        // SAFETY: owned handle, destroyed exactly once.
        unsafe { sys::flopspack_bucket_sampler_destroy(self.raw.as_ptr()) };
    }
}
