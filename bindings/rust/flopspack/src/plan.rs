//! Plans: groups of input items with tokens, costs and metrics.

use crate::error::{check, Result};
use crate::sys;
use std::ptr::{self, NonNull};

/// The quality figures of a plan: the fields of `struct
/// flopspack_plan_metrics` (a field that does not apply to the plan's kind
/// is 0). `planned_by` is a `sys::FLOPSPACK_PLANNED_BY_*` value: which
/// algorithm made a step plan (docs/planner.md, Fallbacks).
pub type PlanMetrics = sys::flopspack_plan_metrics;

/// Summary of one group.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GroupInfo {
    pub real_tokens: i64,
    pub computed_tokens: i64,
    pub cost: f64,
}

/// One group, borrowing its arrays from the plan.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Group<'a> {
    /// Item indices into the input arrays.
    pub items: &'a [i64],
    /// Tokens each item contributes to this group.
    pub tokens: &'a [i64],
    pub info: GroupInfo,
    /// (rank, slot) for plans with ranks (step plans, sampler plans).
    pub slot: Option<(usize, usize)>,
    /// Where each entry's piece starts in its item (see [`Plan::offsets`]).
    pub offsets: &'a [i64],
}

/// An immutable plan (`flopspack_plan`), released on drop. `Send + Sync`:
/// plans may be read from several threads at once.
///
/// Views borrow from the plan, so none outlives it, and the plan cannot be
/// dropped while a view or another thread's read is live — the compiler
/// refuses:
///
/// ```compile_fail
/// let plan = flopspack::pack(&[5, 7], &flopspack::PackOptions::new(12), None).unwrap();
/// let items = plan.items(0).unwrap();
/// drop(plan); // error[E0505]: cannot move out of `plan` because it is borrowed
/// println!("{:?}", items);
/// ```
/// Copy what must outlive it (`items.to_vec()`).
pub struct Plan {
    raw: NonNull<sys::flopspack_plan>,
}

// SAFETY: the header documents plans as immutable and readable from several
// threads at once.
unsafe impl Send for Plan {}
unsafe impl Sync for Plan {}

/// Borrows a C array owned by the plan for the plan's lifetime.
unsafe fn view<'a>(data: *const i64, n: usize) -> &'a [i64] {
    if n == 0 {
        &[]
    } else {
        std::slice::from_raw_parts(data, n)
    }
}

impl Plan {
    /// Takes ownership of a plan handle returned by the library.
    ///
    /// # Safety
    /// `raw` must be a valid plan not owned by anything else.
    pub unsafe fn from_raw(raw: *mut sys::flopspack_plan) -> Plan {
        Plan {
            raw: NonNull::new(raw).expect("library returned OK and a NULL plan"),
        }
    }

    pub fn as_ptr(&self) -> *const sys::flopspack_plan {
        self.raw.as_ptr()
    }

    /// Number of groups.
    pub fn len(&self) -> usize {
        // SAFETY: valid handle.
        unsafe { sys::flopspack_plan_group_count(self.as_ptr()) }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Item indices and tokens of group `g`, borrowed from the plan.
    pub fn items_and_tokens(&self, g: usize) -> Result<(&[i64], &[i64])> {
        let (mut items, mut tokens, mut n) = (ptr::null(), ptr::null(), 0usize);
        // SAFETY: out-pointers to locals; the views live as long as the plan.
        check(unsafe {
            sys::flopspack_plan_group(self.as_ptr(), g, &mut items, &mut tokens, &mut n)
        })?;
        Ok(unsafe { (view(items, n), view(tokens, n)) })
    }

    /// Item indices of group `g`.
    pub fn items(&self, g: usize) -> Result<&[i64]> {
        Ok(self.items_and_tokens(g)?.0)
    }

    /// Tokens each item of group `g` contributes.
    pub fn tokens(&self, g: usize) -> Result<&[i64]> {
        Ok(self.items_and_tokens(g)?.1)
    }

    /// Where each entry of group `g` starts in its item
    /// (`flopspack_plan_group_offsets`): entry k is tokens
    /// `offsets[k] .. offsets[k] + tokens[k]` of item `items[k]`. A whole or
    /// truncated item is one piece at 0; the pieces of a split item tile
    /// `[0, length)` exactly (for the stream packer, over the plans its
    /// pieces come in).
    pub fn offsets(&self, g: usize) -> Result<&[i64]> {
        let (mut offsets, mut n) = (ptr::null(), 0usize);
        // SAFETY: out-pointers to locals; the view lives as long as the plan.
        check(unsafe {
            sys::flopspack_plan_group_offsets(self.as_ptr(), g, &mut offsets, &mut n)
        })?;
        Ok(unsafe { view(offsets, n) })
    }

    /// Real tokens, computed tokens (padding included) and cost of group `g`.
    pub fn info(&self, g: usize) -> Result<GroupInfo> {
        let mut info = GroupInfo {
            real_tokens: 0,
            computed_tokens: 0,
            cost: 0.0,
        };
        // SAFETY: out-pointers to a local.
        check(unsafe {
            sys::flopspack_plan_group_info(
                self.as_ptr(),
                g,
                &mut info.real_tokens,
                &mut info.computed_tokens,
                &mut info.cost,
            )
        })?;
        Ok(info)
    }

    /// (rank, slot) of group `g`; an InvalidArgument error for plans
    /// without ranks.
    pub fn slot(&self, g: usize) -> Result<(usize, usize)> {
        let (mut rank, mut slot) = (0usize, 0usize);
        // SAFETY: out-pointers to locals.
        check(unsafe { sys::flopspack_plan_group_slot(self.as_ptr(), g, &mut rank, &mut slot) })?;
        Ok((rank, slot))
    }

    /// Everything about group `g`.
    pub fn group(&self, g: usize) -> Result<Group<'_>> {
        let (items, tokens) = self.items_and_tokens(g)?;
        let info = self.info(g)?;
        Ok(Group {
            items,
            tokens,
            info,
            slot: self.slot(g).ok(),
            offsets: self.offsets(g)?,
        })
    }

    /// The groups in order.
    pub fn groups(&self) -> impl Iterator<Item = Group<'_>> + '_ {
        (0..self.len()).map(move |g| self.group(g).expect("group index within group count"))
    }

    /// Items kept for a later step.
    pub fn deferred(&self) -> &[i64] {
        let (mut items, mut n) = (ptr::null(), 0usize);
        // SAFETY: valid handle and out-pointers: cannot fail.
        unsafe {
            sys::flopspack_plan_deferred(self.as_ptr(), &mut items, &mut n);
            view(items, n)
        }
    }

    /// Items dropped (drop-last, rejected).
    pub fn dropped(&self) -> &[i64] {
        let (mut items, mut n) = (ptr::null(), 0usize);
        // SAFETY: valid handle and out-pointers: cannot fail.
        unsafe {
            sys::flopspack_plan_dropped(self.as_ptr(), &mut items, &mut n);
            view(items, n)
        }
    }

    /// The plan's metrics.
    pub fn metrics(&self) -> PlanMetrics {
        let mut m = PlanMetrics {
            struct_size: std::mem::size_of::<PlanMetrics>() as u32,
            ..Default::default()
        };
        // SAFETY: valid handle, struct_size set: cannot fail.
        unsafe { sys::flopspack_plan_metrics(self.as_ptr(), &mut m) };
        m
    }
}

impl Drop for Plan {
    fn drop(&mut self) {
        // SAFETY: owned handle, destroyed exactly once.
        unsafe { sys::flopspack_plan_destroy(self.raw.as_ptr()) };
    }
}

impl std::fmt::Debug for Plan {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let m = self.metrics();
        let mut d = f.debug_struct("Plan");
        d.field("groups", &m.num_groups)
            .field("items", &m.num_items);
        d.field("balance_efficiency", &m.balance_efficiency);
        if m.capacity > 0 {
            d.field("fill", &m.fill);
        }
        if m.num_ranks > 0 {
            d.field("ranks", &m.num_ranks)
                .field("rank_balance_efficiency", &m.rank_balance_efficiency);
        }
        d.finish()
    }
}
