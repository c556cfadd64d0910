//! Step planning: one global batch onto num_ranks x microbatches under a
//! token cap, balanced by cost; and the stateful step planner.

use crate::cost::{CostModel, ModelRef};
use crate::error::{check, check_extra_costs, Error, Result, Status};
use crate::plan::Plan;
use crate::stream::Overflow;
use crate::sys;
use std::os::raw::c_void;
use std::ptr::{self, NonNull};

/// How documents are assigned.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum StepAlgorithm {
    /// Document-level cost balance under the cap (default).
    #[default]
    Documents,
    /// Concatenate, cut every cap tokens, deal at random (baseline).
    Random,
    /// The document-level planner balancing token counts.
    Tokens,
    /// Pre-pack sequences, then LPT of the sequences by cost.
    Sequences,
}

/// Which microbatch of a rank runs in which slot.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SlotOrder {
    /// Heaviest first (default).
    #[default]
    Descending,
    /// Lightest at both ends.
    LightEnds,
    AsPlanned,
}

/// How the trainer synchronizes, i.e. what the planner balances.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SyncModel {
    /// Once per step (DDP with no_sync, ZeRO-1/2): rank totals (default).
    #[default]
    Step,
    /// Every microbatch (FSDP / ZeRO-3): every slot across ranks.
    Microbatch,
}

/// The schedule of each rank's pipeline replica.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PipelineSchedule {
    /// One forward, one backward (PipeDream-Flush, Megatron-LM) (default).
    #[default]
    OneFOneB,
}

/// Options of [`plan_step`] and a [`StepPlanner`]; `StepOptions::new(ranks,
/// cap)` gives the library's defaults for the rest.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StepOptions {
    pub num_ranks: u32,
    /// 0 = the fewest that hold the batch.
    pub microbatches_per_rank: u32,
    pub algorithm: StepAlgorithm,
    pub max_tokens_per_microbatch: i64,
    pub seed: u64,
    pub ordering: SlotOrder,
    /// Error, Split (default) or Defer.
    pub overflow: Overflow,
    pub sync: SyncModel,
    /// Per replica: 0 or 1 = no pipeline, at most 1024.
    pub pipeline_stages: u32,
    pub pipeline_schedule: PipelineSchedule,
    /// GPUs per context-parallel group: 0 or 1 = none, at most 65,536. The
    /// cap stays per GPU: a microbatch holds this many times
    /// `max_tokens_per_microbatch` tokens and costs its slowest CP rank
    /// under `context_parallel_layout` (docs/context-parallel.md).
    pub context_parallel_size: u32,
    /// Default: the per-document layout.
    pub context_parallel_layout: crate::CpLayout,
}

impl StepOptions {
    pub fn new(num_ranks: u32, max_tokens_per_microbatch: i64) -> StepOptions {
        let mut c = sys::flopspack_step_options::default();
        // SAFETY: fills a local struct.
        unsafe { sys::flopspack_step_options_init(&mut c) };
        StepOptions {
            num_ranks,
            microbatches_per_rank: c.microbatches_per_rank,
            algorithm: StepAlgorithm::Documents,
            max_tokens_per_microbatch,
            seed: c.seed,
            ordering: SlotOrder::Descending,
            overflow: Overflow::from_raw(c.overflow),
            sync: SyncModel::Step,
            pipeline_stages: c.pipeline_stages,
            pipeline_schedule: PipelineSchedule::OneFOneB,
            context_parallel_size: c.context_parallel_size,
            context_parallel_layout: crate::CpLayout::from_c(c.context_parallel_layout),
        }
    }

    fn to_c(self) -> sys::flopspack_step_options {
        let mut c = sys::flopspack_step_options::default();
        // SAFETY: fills a local struct.
        unsafe { sys::flopspack_step_options_init(&mut c) };
        c.num_ranks = self.num_ranks;
        c.microbatches_per_rank = self.microbatches_per_rank;
        c.algorithm = (match self.algorithm {
            StepAlgorithm::Documents => sys::FLOPSPACK_STEP_DOCUMENTS,
            StepAlgorithm::Random => sys::FLOPSPACK_STEP_RANDOM,
            StepAlgorithm::Tokens => sys::FLOPSPACK_STEP_TOKENS,
            StepAlgorithm::Sequences => sys::FLOPSPACK_STEP_SEQUENCES,
        }) as i32;
        c.max_tokens_per_microbatch = self.max_tokens_per_microbatch;
        c.seed = self.seed;
        c.ordering = (match self.ordering {
            SlotOrder::Descending => sys::FLOPSPACK_SLOT_ORDER_DESCENDING,
            SlotOrder::LightEnds => sys::FLOPSPACK_SLOT_ORDER_LIGHT_ENDS,
            SlotOrder::AsPlanned => sys::FLOPSPACK_SLOT_ORDER_AS_PLANNED,
        }) as i32;
        c.overflow = self.overflow.raw();
        c.sync = (match self.sync {
            SyncModel::Step => sys::FLOPSPACK_SYNC_STEP,
            SyncModel::Microbatch => sys::FLOPSPACK_SYNC_MICROBATCH,
        }) as i32;
        c.pipeline_stages = self.pipeline_stages;
        c.pipeline_schedule = (match self.pipeline_schedule {
            PipelineSchedule::OneFOneB => sys::FLOPSPACK_PIPELINE_1F1B,
        }) as i32;
        c.context_parallel_size = self.context_parallel_size;
        c.context_parallel_layout = self.context_parallel_layout.to_c();
        c
    }
}

/// Plans one step: document i (lengths[i] tokens) is item i. Groups are
/// rank-major, each with its (rank, slot).
///
/// ```
/// use flopspack::{plan_step, CostModel, StepOptions};
///
/// let model = CostModel::polynomial(0.0, 0.0, 1.0, 1e-4)?;
/// let options = StepOptions { microbatches_per_rank: 2, ..StepOptions::new(2, 4096) };
/// let plan = plan_step(&[3000, 2500, 1200, 800, 700, 4000, 100], &model, &options)?;
/// assert_eq!(plan.len(), 4);
/// assert!(plan.groups().all(|g| g.info.real_tokens <= 4096 && g.slot.is_some()));
/// # Ok::<(), flopspack::Error>(())
/// ```
pub fn plan_step(lengths: &[i64], model: &CostModel, options: &StepOptions) -> Result<Plan> {
    let c = options.to_c();
    let mut raw = ptr::null_mut();
    // SAFETY: pointers to locals and live slices; the plan is ours.
    model.explain(check(unsafe {
        sys::flopspack_plan_step(
            &c,
            model.as_ptr(),
            lengths.as_ptr(),
            lengths.len(),
            &mut raw,
        )
    }))?;
    Ok(unsafe { Plan::from_raw(raw) })
}

/// [`plan_step`] where document i costs the model's cost of its tokens plus
/// `extra_costs[i]` (finite, non-negative: a vision encoder's work on its
/// images, say); `None` = none, the same plan as [`plan_step`]. A split
/// document's pieces share its extra cost by tokens.
///
/// ```
/// use flopspack::{plan_step_with_extra_costs, CostModel, StepOptions};
///
/// let model = CostModel::tokens()?;
/// let options = StepOptions { microbatches_per_rank: 1, ..StepOptions::new(2, 4096) };
/// let lengths = [100, 100, 10, 100];
/// let plan = plan_step_with_extra_costs(&lengths, Some(&[0.0, 0.0, 1e6, 0.0]), &model, &options)?;
/// assert!(plan.groups().any(|g| g.items == [2]));
/// # Ok::<(), flopspack::Error>(())
/// ```
pub fn plan_step_with_extra_costs(
    lengths: &[i64],
    extra_costs: Option<&[f64]>,
    model: &CostModel,
    options: &StepOptions,
) -> Result<Plan> {
    let extra = check_extra_costs(extra_costs, lengths)?;
    let c = options.to_c();
    let mut raw = ptr::null_mut();
    // SAFETY: pointers to locals and live slices (extra NULL or as long as
    // lengths); the plan is ours.
    model.explain(check(unsafe {
        sys::flopspack_plan_step_with_extra_costs(
            &c,
            model.as_ptr(),
            lengths.as_ptr(),
            extra,
            lengths.len(),
            &mut raw,
        )
    }))?;
    Ok(unsafe { Plan::from_raw(raw) })
}

/// Multimodal documents (text tokens, images, patches per image; one entry
/// each per document) -> (the tokens the language model sees: text + images
/// x patches, the encoder's cost of the images: images x the encoder's
/// document cost of the patches). Pass them to
/// [`plan_step_with_extra_costs`]. The encoder is typically a transformer
/// with `causal: false`, `vocab_size: 0`.
pub fn multimodal_costs(
    encoder: &CostModel,
    text_tokens: &[i64],
    images: &[i64],
    patches_per_image: &[i64],
) -> Result<(Vec<i64>, Vec<f64>)> {
    let n = text_tokens.len();
    if images.len() != n || patches_per_image.len() != n {
        return Err(Error::new(
            Status::InvalidArgument,
            format!(
                "images has {} entries and patches_per_image {} for {} text_tokens",
                images.len(),
                patches_per_image.len(),
                n
            ),
        ));
    }
    let mut tokens = vec![0i64; n];
    let mut extra = vec![0f64; n];
    // SAFETY: live slices of n entries each; outputs are ours.
    encoder.explain(check(unsafe {
        sys::flopspack_multimodal_costs(
            encoder.as_ptr(),
            text_tokens.as_ptr(),
            images.as_ptr(),
            patches_per_image.as_ptr(),
            n,
            tokens.as_mut_ptr(),
            extra.as_mut_ptr(),
        )
    }))?;
    Ok((tokens, extra))
}

/// Options of a [`StepPlanner`]'s queue (`Default` = the library's).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StepPlannerOptions {
    pub max_defer_steps: u32,
    /// 0 = num_ranks x M x cap.
    pub tokens_per_step: i64,
    /// 0 = no outlier queue.
    pub outlier_min_tokens: i64,
    /// 0 = num_ranks.
    pub max_outliers_per_step: i64,
}

impl Default for StepPlannerOptions {
    fn default() -> Self {
        let mut c = sys::flopspack_step_planner_options::default();
        // SAFETY: fills a local struct.
        unsafe { sys::flopspack_step_planner_options_init(&mut c) };
        StepPlannerOptions {
            max_defer_steps: c.max_defer_steps,
            tokens_per_step: c.tokens_per_step,
            outlier_min_tokens: c.outlier_min_tokens,
            max_outliers_per_step: c.max_outliers_per_step,
        }
    }
}

/// What a planner holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pending {
    pub documents: u64,
    pub tokens: i64,
    pub steps: u64,
}

/// The stateful step planner (`flopspack_step_planner`): push documents,
/// take one plan per step. Items are push ids. `Send`, not `Sync`:
///
/// ```compile_fail
/// let model = flopspack::CostModel::tokens().unwrap();
/// let planner = flopspack::StepPlanner::new(
///     &model, &flopspack::StepOptions::new(1, 100), &flopspack::StepPlannerOptions::default(),
/// ).unwrap();
/// std::thread::scope(|s| {
///     s.spawn(|| planner.pending()); // error[E0277]: cannot be shared between threads safely
/// });
/// ```
pub struct StepPlanner {
    raw: NonNull<sys::flopspack_step_planner>,
    model: ModelRef,
}

// SAFETY: a planner may move between threads; it is used by one at a time.
unsafe impl Send for StepPlanner {}

impl StepPlanner {
    pub fn new(
        model: &CostModel,
        options: &StepOptions,
        planner: &StepPlannerOptions,
    ) -> Result<StepPlanner> {
        let c = options.to_c();
        let mut p = sys::flopspack_step_planner_options::default();
        // SAFETY: fills a local struct.
        unsafe { sys::flopspack_step_planner_options_init(&mut p) };
        p.max_defer_steps = planner.max_defer_steps;
        p.tokens_per_step = planner.tokens_per_step;
        p.outlier_min_tokens = planner.outlier_min_tokens;
        p.max_outliers_per_step = planner.max_outliers_per_step;
        let mut raw = ptr::null_mut();
        // SAFETY: pointers to locals; the planner keeps its own model reference.
        check(unsafe { sys::flopspack_step_planner_create(&c, &p, model.as_ptr(), &mut raw) })?;
        Ok(StepPlanner {
            raw: NonNull::new(raw).expect("NULL planner"),
            model: model.model_ref(),
        })
    }

    /// A planner from bytes made by [`StepPlanner::save`], with the same model.
    pub fn restore(state: &[u8], model: &CostModel) -> Result<StepPlanner> {
        let mut raw = ptr::null_mut();
        // SAFETY: the slice is valid for the call.
        check(unsafe {
            sys::flopspack_step_planner_restore(
                state.as_ptr() as *const c_void,
                state.len(),
                model.as_ptr(),
                &mut raw,
            )
        })?;
        Ok(StepPlanner {
            raw: NonNull::new(raw).expect("NULL planner"),
            model: model.model_ref(),
        })
    }

    /// Appends documents (all or none); returns the id of the first.
    pub fn push(&mut self, lengths: &[i64]) -> Result<i64> {
        let mut first = 0i64;
        // SAFETY: the slice is valid for the call.
        check(unsafe {
            sys::flopspack_step_planner_push(
                self.raw.as_ptr(),
                lengths.as_ptr(),
                lengths.len(),
                &mut first,
            )
        })?;
        Ok(first)
    }

    /// [`StepPlanner::push`] where document i also carries `extra_costs[i]`
    /// (finite, non-negative: a vision encoder's work on its images, say),
    /// added to the model's cost of its tokens and kept while it waits: a
    /// step plans its documents as [`plan_step_with_extra_costs`] would,
    /// documents pushed without counting 0. `None` = none, the same as
    /// [`StepPlanner::push`]. All or none.
    ///
    /// ```
    /// use flopspack::{plan_step_with_extra_costs, CostModel, StepOptions, StepPlanner};
    ///
    /// let model = CostModel::tokens()?;
    /// let options = StepOptions { microbatches_per_rank: 1, ..StepOptions::new(2, 4096) };
    /// let mut planner = StepPlanner::new(&model, &options, &Default::default())?;
    /// let (lengths, extra) = ([100, 100, 10, 100], [0.0, 0.0, 1e6, 0.0]);
    /// assert_eq!(planner.push_with_extra_costs(&lengths, Some(&extra))?, 0);
    /// let plan = planner.next_plan()?;
    /// let direct = plan_step_with_extra_costs(&lengths, Some(&extra), &model, &options)?;
    /// assert!(plan.groups().any(|g| g.items == [2]));
    /// assert!(plan.groups().eq(direct.groups()));
    /// # Ok::<(), flopspack::Error>(())
    /// ```
    pub fn push_with_extra_costs(
        &mut self,
        lengths: &[i64],
        extra_costs: Option<&[f64]>,
    ) -> Result<i64> {
        let extra = check_extra_costs(extra_costs, lengths)?;
        let mut first = 0i64;
        // SAFETY: live slices (extra NULL or as long as lengths) and a local.
        check(unsafe {
            sys::flopspack_step_planner_push_with_extra_costs(
                self.raw.as_ptr(),
                lengths.as_ptr(),
                extra,
                lengths.len(),
                &mut first,
            )
        })?;
        Ok(first)
    }

    /// Plans the next step.
    pub fn next_plan(&mut self) -> Result<Plan> {
        let mut raw = ptr::null_mut();
        // SAFETY: out-pointer to a local; the plan is ours.
        self.model.explain(check(unsafe {
            sys::flopspack_step_planner_next(self.raw.as_ptr(), &mut raw)
        }))?;
        Ok(unsafe { Plan::from_raw(raw) })
    }

    /// Queued documents and tokens, steps planned.
    pub fn pending(&self) -> Pending {
        let mut p = Pending {
            documents: 0,
            tokens: 0,
            steps: 0,
        };
        // SAFETY: valid handle and out-pointers: cannot fail.
        unsafe {
            sys::flopspack_step_planner_pending(
                self.raw.as_ptr(),
                &mut p.documents,
                &mut p.tokens,
                &mut p.steps,
            )
        };
        p
    }

    /// The whole state as bytes (versioned, checksummed).
    pub fn save(&self) -> Result<Vec<u8>> {
        let mut size = 0usize;
        // SAFETY: valid handle and out-pointer.
        check(unsafe { sys::flopspack_step_planner_save_size(self.raw.as_ptr(), &mut size) })?;
        let mut bytes = vec![0u8; size];
        let mut written = 0usize;
        // SAFETY: the buffer holds `size` bytes.
        check(unsafe {
            sys::flopspack_step_planner_save(
                self.raw.as_ptr(),
                bytes.as_mut_ptr() as *mut c_void,
                size,
                &mut written,
            )
        })?;
        bytes.truncate(written);
        Ok(bytes)
    }
}

impl Drop for StepPlanner {
    fn drop(&mut self) {
        // SAFETY: owned handle, destroyed exactly once.
        unsafe { sys::flopspack_step_planner_destroy(self.raw.as_ptr()) };
    }
}

/// Plans step after step with the planner's working storage kept between
/// calls (`flopspack_step_context`), and the arrays of dropped plans reused,
/// so the first call costs what later ones do (call
/// [`StepContext::reserve`] once with the expected batch size). Its plans
/// are [`plan_step`]'s, bit for bit, and may outlive it. `Send`, not
/// `Sync`: one thread at a time.
///
/// ```
/// use flopspack::{plan_step, CostModel, StepContext, StepOptions};
///
/// let model = CostModel::tokens()?;
/// let options = StepOptions { microbatches_per_rank: 2, ..StepOptions::new(4, 4096) };
/// let mut context = StepContext::new()?;
/// context.reserve(&model, 1000, &options)?;
/// let lengths = [3000, 1200, 800, 512, 100, 7];
/// let plan = context.plan_step(&lengths, &model, &options)?;
/// assert_eq!(plan.metrics(), plan_step(&lengths, &model, &options)?.metrics());
/// # Ok::<(), flopspack::Error>(())
/// ```
pub struct StepContext {
    raw: NonNull<sys::flopspack_step_context>,
}

// SAFETY: a context may move between threads; it is used by one at a time
// (no Sync), and its plans give storage back under the context's own lock.
unsafe impl Send for StepContext {}

impl StepContext {
    /// An empty context.
    pub fn new() -> Result<StepContext> {
        let mut raw = ptr::null_mut();
        // SAFETY: a pointer to a local.
        check(unsafe { sys::flopspack_step_context_create(&mut raw) })?;
        Ok(StepContext {
            raw: NonNull::new(raw).expect("NULL step context"),
        })
    }

    /// Sizes the context for steps of up to `documents` documents under
    /// these options by planning a representative step once and keeping
    /// its storage.
    pub fn reserve(
        &mut self,
        model: &CostModel,
        documents: usize,
        options: &StepOptions,
    ) -> Result<()> {
        let c = options.to_c();
        // SAFETY: the context is ours; pointers to locals.
        model.explain(check(unsafe {
            sys::flopspack_step_context_reserve(self.raw.as_ptr(), &c, model.as_ptr(), documents)
        }))
    }

    /// [`plan_step`] (same arguments, same plan) on the context's storage.
    /// Dropping a plan gives its arrays back to the context.
    pub fn plan_step(
        &mut self,
        lengths: &[i64],
        model: &CostModel,
        options: &StepOptions,
    ) -> Result<Plan> {
        let c = options.to_c();
        let mut raw = ptr::null_mut();
        // SAFETY: the context is ours; pointers to locals and live slices;
        // the plan is ours.
        model.explain(check(unsafe {
            sys::flopspack_plan_step_in_context(
                self.raw.as_ptr(),
                &c,
                model.as_ptr(),
                lengths.as_ptr(),
                lengths.len(),
                &mut raw,
            )
        }))?;
        Ok(unsafe { Plan::from_raw(raw) })
    }

    /// Bytes of storage the context holds for reuse now.
    pub fn kept_bytes(&self) -> usize {
        // SAFETY: a live handle.
        unsafe { sys::flopspack_step_context_kept_bytes(self.raw.as_ptr()) }
    }
}

impl Drop for StepContext {
    fn drop(&mut self) {
        // SAFETY: owned handle, destroyed exactly once; its plans stay valid.
        unsafe { sys::flopspack_step_context_destroy(self.raw.as_ptr()) };
    }
}
