//! Context parallelism: each packed sequence of a plan shared by a CP group
//! (docs/context-parallel.md).

use crate::cost::CostModel;
use crate::error::{check, Result};
use crate::plan::Plan;
use crate::sys;
use std::os::raw::c_int;
use std::ptr::{self, NonNull};

/// How a packed sequence is cut over the CP ranks (`flopspack_cp_layout`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CpLayout {
    /// 2C equal chunks of the packed sequence; CP rank i takes i and 2C-1-i.
    SequenceHeadTail,
    /// 2C chunks of every document; CP rank i takes i and 2C-1-i of each.
    DocumentHeadTail,
    /// Per sequence, whichever gives the lower maximum CP-rank cost.
    #[default]
    Adaptive,
}

impl CpLayout {
    pub(crate) fn to_c(self) -> c_int {
        (match self {
            CpLayout::SequenceHeadTail => sys::FLOPSPACK_CP_SEQUENCE_HEAD_TAIL,
            CpLayout::DocumentHeadTail => sys::FLOPSPACK_CP_DOCUMENT_HEAD_TAIL,
            CpLayout::Adaptive => sys::FLOPSPACK_CP_ADAPTIVE,
        }) as c_int
    }

    pub(crate) fn from_c(value: c_int) -> CpLayout {
        match value as sys::flopspack_cp_layout {
            sys::FLOPSPACK_CP_SEQUENCE_HEAD_TAIL => CpLayout::SequenceHeadTail,
            sys::FLOPSPACK_CP_DOCUMENT_HEAD_TAIL => CpLayout::DocumentHeadTail,
            _ => CpLayout::Adaptive,
        }
    }
}

/// The figures of a shard: the fields of `flopspack_cp_metrics`.
pub type CpMetrics = sys::flopspack_cp_metrics;

/// The chunks of one CP rank in one group, borrowed from the shard: chunk k
/// is tokens `offsets[k] .. offsets[k] + lengths[k]` of item `items[k]`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CpChunks<'a> {
    pub items: &'a [i64],
    pub offsets: &'a [i64],
    pub lengths: &'a [i64],
}

/// The chunks and costs of every (group, CP rank) of a plan
/// (`flopspack_cp_shard`), released on drop. Immutable: `Send + Sync`.
pub struct ContextParallelShard {
    raw: NonNull<sys::flopspack_cp_shard>,
    size: usize,
}

// SAFETY: the header documents shards as immutable and readable from
// several threads at once.
unsafe impl Send for ContextParallelShard {}
unsafe impl Sync for ContextParallelShard {}

unsafe fn view<'a>(data: *const i64, n: usize) -> &'a [i64] {
    if n == 0 {
        &[]
    } else {
        std::slice::from_raw_parts(data, n)
    }
}

/// Cuts every group of `plan` over `context_parallel_size` CP ranks (1 ..
/// 65536) and costs each CP rank exactly for causal attention within
/// documents (`flopspack_plan_shard_context_parallel`). The model must be
/// additive.
pub fn shard_context_parallel(
    plan: &Plan,
    model: &CostModel,
    context_parallel_size: u64,
    layout: CpLayout,
) -> Result<ContextParallelShard> {
    let mut raw = ptr::null_mut();
    // SAFETY: live handles and a pointer to a local; the shard is ours.
    check(unsafe {
        sys::flopspack_plan_shard_context_parallel(
            plan.as_ptr(),
            model.as_ptr(),
            context_parallel_size,
            layout.to_c(),
            &mut raw,
        )
    })?;
    Ok(ContextParallelShard {
        raw: NonNull::new(raw).expect("library returned OK and a NULL shard"),
        size: context_parallel_size as usize,
    })
}

impl ContextParallelShard {
    pub fn as_ptr(&self) -> *const sys::flopspack_cp_shard {
        self.raw.as_ptr()
    }

    /// C, the CP ranks per group.
    pub fn context_parallel_size(&self) -> usize {
        self.size
    }

    /// Number of groups (the plan's).
    pub fn len(&self) -> usize {
        // SAFETY: valid handle.
        unsafe { sys::flopspack_cp_shard_group_count(self.as_ptr()) }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The chunks of CP rank `cp_rank` in group `g`, in its layout order.
    pub fn chunks(&self, g: usize, cp_rank: usize) -> Result<CpChunks<'_>> {
        let (mut items, mut offsets, mut lengths, mut n) =
            (ptr::null(), ptr::null(), ptr::null(), 0usize);
        // SAFETY: out-pointers to locals; the views live as long as the shard.
        check(unsafe {
            sys::flopspack_cp_shard_chunks(
                self.as_ptr(),
                g,
                cp_rank,
                &mut items,
                &mut offsets,
                &mut lengths,
                &mut n,
            )
        })?;
        Ok(unsafe {
            CpChunks {
                items: view(items, n),
                offsets: view(offsets, n),
                lengths: view(lengths, n),
            }
        })
    }

    /// (cost, key/value tokens received) of CP rank `cp_rank` in group `g`.
    pub fn rank_cost(&self, g: usize, cp_rank: usize) -> Result<(f64, i64)> {
        let (mut cost, mut kv) = (0.0, 0i64);
        // SAFETY: out-pointers to locals.
        check(unsafe {
            sys::flopspack_cp_shard_rank_cost(self.as_ptr(), g, cp_rank, &mut cost, &mut kv)
        })?;
        Ok((cost, kv))
    }

    /// The layout group `g` was cut with and its CP-rank balance.
    pub fn layout(&self, g: usize) -> Result<(CpLayout, f64)> {
        let (mut layout, mut balance): (c_int, f64) = (0, 0.0);
        // SAFETY: out-pointers to locals.
        check(unsafe {
            sys::flopspack_cp_shard_group_layout(self.as_ptr(), g, &mut layout, &mut balance)
        })?;
        Ok((CpLayout::from_c(layout), balance))
    }

    /// The shard's figures.
    pub fn metrics(&self) -> CpMetrics {
        let mut m = CpMetrics {
            struct_size: std::mem::size_of::<CpMetrics>() as u32,
            ..Default::default()
        };
        // SAFETY: valid handle, struct_size set: cannot fail.
        unsafe { sys::flopspack_cp_shard_metrics(self.as_ptr(), &mut m) };
        m
    }
}

impl Drop for ContextParallelShard {
    fn drop(&mut self) {
        // SAFETY: we own the handle; destroyed once.
        unsafe { sys::flopspack_cp_shard_destroy(self.raw.as_ptr()) }
    }
}
