//! Packing documents into fixed-capacity sequences and balancing items with
//! costs over groups.

use crate::cost::CostModel;
use crate::error::{check, check_extra_costs, Error, Result, Status};
use crate::plan::Plan;
use crate::stream::Overflow;
use crate::sys;
use std::ptr;

/// How [`pack`] places documents.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PackAlgorithm {
    #[default]
    BestFitDecreasing,
    FirstFitDecreasing,
    /// Concatenate in input order.
    NextFit,
    /// First fit in a seeded random order.
    ShuffledFirstFit,
}

/// Options of [`pack`]; `PackOptions::new(capacity)` gives the defaults.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PackOptions {
    pub algorithm: PackAlgorithm,
    pub capacity: i64,
    /// Error (default), Truncate or Split.
    pub overflow: Overflow,
    pub seed: u64,
}

impl PackOptions {
    pub fn new(capacity: i64) -> PackOptions {
        let c = pack_defaults();
        PackOptions {
            algorithm: PackAlgorithm::BestFitDecreasing,
            capacity,
            overflow: Overflow::from_raw(c.overflow),
            seed: c.seed,
        }
    }
}

fn pack_defaults() -> sys::flopspack_pack_options {
    let mut c = sys::flopspack_pack_options {
        struct_size: 0,
        algorithm: 0,
        capacity: 0,
        overflow: 0,
        seed: 0,
        cost_model: ptr::null(),
    };
    // SAFETY: fills a local struct.
    unsafe { sys::flopspack_pack_options_init(&mut c) };
    c
}

/// Packs documents into sequences of `capacity` tokens. Group g is a
/// sequence; `model` None = cost is tokens.
///
/// ```
/// use flopspack::{pack, PackOptions};
///
/// let plan = pack(&[600, 300, 400, 700], &PackOptions::new(1000), None)?;
/// assert_eq!(plan.len(), 2);
/// assert_eq!(plan.metrics().fill, 1.0);
/// # Ok::<(), flopspack::Error>(())
/// ```
pub fn pack(lengths: &[i64], options: &PackOptions, model: Option<&CostModel>) -> Result<Plan> {
    pack_with_extra_costs(lengths, None, options, model)
}

/// [`pack`] where a sequence also costs the extra costs of its documents
/// (finite, non-negative; a split or truncated document's pieces carry
/// theirs by tokens). Placement is by tokens, as in [`pack`]; `None` = the
/// same plan as [`pack`].
///
/// ```
/// use flopspack::{pack_with_extra_costs, PackAlgorithm, PackOptions};
///
/// let options = PackOptions { algorithm: PackAlgorithm::NextFit, ..PackOptions::new(100) };
/// let plan = pack_with_extra_costs(&[60, 40, 100], Some(&[1.5, 0.0, 1000.0]), &options, None)?;
/// assert_eq!(plan.metrics().max_group_cost, 1100.0);
/// # Ok::<(), flopspack::Error>(())
/// ```
pub fn pack_with_extra_costs(
    lengths: &[i64],
    extra_costs: Option<&[f64]>,
    options: &PackOptions,
    model: Option<&CostModel>,
) -> Result<Plan> {
    let extra = check_extra_costs(extra_costs, lengths)?;
    let mut c = pack_defaults();
    c.algorithm = (match options.algorithm {
        PackAlgorithm::BestFitDecreasing => sys::FLOPSPACK_PACK_BEST_FIT_DECREASING,
        PackAlgorithm::FirstFitDecreasing => sys::FLOPSPACK_PACK_FIRST_FIT_DECREASING,
        PackAlgorithm::NextFit => sys::FLOPSPACK_PACK_NEXT_FIT,
        PackAlgorithm::ShuffledFirstFit => sys::FLOPSPACK_PACK_SHUFFLED_FIRST_FIT,
    }) as i32;
    c.capacity = options.capacity;
    c.overflow = options.overflow.raw();
    c.seed = options.seed;
    c.cost_model = model.map_or(ptr::null(), |m| m.as_ptr());
    let mut raw = ptr::null_mut();
    // SAFETY: the model (borrowed for the call) and the slices (extra NULL
    // or as long as lengths) live through it.
    let status = check(unsafe {
        sys::flopspack_pack_with_extra_costs(&c, lengths.as_ptr(), extra, lengths.len(), &mut raw)
    });
    match model {
        Some(m) => m.explain(status)?,
        None => status?,
    }
    Ok(unsafe { Plan::from_raw(raw) })
}

/// How [`balance`] assigns items.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum BalanceAlgorithm {
    #[default]
    Auto,
    Greedy,
    Lpt,
    KarmarkarKarp,
}

/// Options of [`balance`]; `BalanceOptions::new(num_groups)` gives the
/// defaults.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BalanceOptions {
    pub algorithm: BalanceAlgorithm,
    pub num_groups: i64,
    pub equal_count: bool,
    pub refine: bool,
    /// Needs tokens; 0 = no cap.
    pub max_tokens_per_group: i64,
    pub max_refine_steps: i64,
    pub seed: u64,
}

impl BalanceOptions {
    pub fn new(num_groups: i64) -> BalanceOptions {
        let mut c = sys::flopspack_balance_options::default();
        // SAFETY: fills a local struct.
        unsafe { sys::flopspack_balance_options_init(&mut c) };
        BalanceOptions {
            algorithm: BalanceAlgorithm::Auto,
            num_groups,
            equal_count: c.equal_count == 1,
            refine: c.refine == 1,
            max_tokens_per_group: c.max_tokens_per_group,
            max_refine_steps: c.max_refine_steps,
            seed: c.seed,
        }
    }
}

/// Splits items with costs (and optional token counts, as many as costs)
/// into `num_groups` groups minimising the costliest.
pub fn balance(costs: &[f64], tokens: Option<&[i64]>, options: &BalanceOptions) -> Result<Plan> {
    if let Some(t) = tokens {
        if t.len() != costs.len() {
            return Err(Error::new(
                Status::InvalidArgument,
                format!("tokens has {} entries for {} costs", t.len(), costs.len()),
            ));
        }
    }
    let mut c = sys::flopspack_balance_options::default();
    // SAFETY: fills a local struct.
    unsafe { sys::flopspack_balance_options_init(&mut c) };
    c.algorithm = (match options.algorithm {
        BalanceAlgorithm::Auto => sys::FLOPSPACK_BALANCE_AUTO,
        BalanceAlgorithm::Greedy => sys::FLOPSPACK_BALANCE_GREEDY,
        BalanceAlgorithm::Lpt => sys::FLOPSPACK_BALANCE_LPT,
        BalanceAlgorithm::KarmarkarKarp => sys::FLOPSPACK_BALANCE_KARMARKAR_KARP,
    }) as i32;
    c.num_groups = options.num_groups;
    c.equal_count = options.equal_count as i32;
    c.refine = options.refine as i32;
    c.max_tokens_per_group = options.max_tokens_per_group;
    c.max_refine_steps = options.max_refine_steps;
    c.seed = options.seed;
    let mut raw = ptr::null_mut();
    // SAFETY: both slices hold costs.len() entries (checked above).
    check(unsafe {
        sys::flopspack_balance(
            &c,
            costs.as_ptr(),
            tokens.map_or(ptr::null(), |t| t.as_ptr()),
            costs.len(),
            &mut raw,
        )
    })?;
    Ok(unsafe { Plan::from_raw(raw) })
}
