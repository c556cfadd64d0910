//! The streaming packer: bounded memory, sequences out as soon as final.

use crate::cost::{CostModel, ModelRef};
use crate::error::{check, Result, Status};
use crate::plan::Plan;
use crate::sys;
use std::os::raw::c_void;
use std::ptr::{self, NonNull};

/// What to do with a document longer than the capacity.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Overflow {
    /// Fail the push with InvalidArgument.
    Error,
    /// Keep its first `capacity` tokens.
    Truncate,
    /// Pieces of `capacity` tokens plus the rest (default).
    Split,
    /// Left out of the plan for a later step (step planner only).
    Defer,
}

impl Overflow {
    pub(crate) fn raw(self) -> i32 {
        (match self {
            Overflow::Error => sys::FLOPSPACK_OVERFLOW_ERROR,
            Overflow::Truncate => sys::FLOPSPACK_OVERFLOW_TRUNCATE,
            Overflow::Split => sys::FLOPSPACK_OVERFLOW_SPLIT,
            Overflow::Defer => sys::FLOPSPACK_OVERFLOW_DEFER,
        }) as i32
    }

    pub(crate) fn from_raw(raw: i32) -> Overflow {
        match raw as u32 {
            sys::FLOPSPACK_OVERFLOW_ERROR => Overflow::Error,
            sys::FLOPSPACK_OVERFLOW_TRUNCATE => Overflow::Truncate,
            sys::FLOPSPACK_OVERFLOW_DEFER => Overflow::Defer,
            _ => Overflow::Split,
        }
    }
}

/// Options of a [`StreamPacker`] (`flopspack_stream_options`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StreamOptions {
    /// Tokens per sequence (no default: must be set).
    pub capacity: i64,
    /// Documents held at most (default 10000).
    pub window: u64,
    pub overflow: Overflow,
    /// Shuffles the emission order of each batch of final sequences.
    pub seed: u64,
}

impl StreamOptions {
    /// The library's defaults with this capacity.
    pub fn new(capacity: i64) -> StreamOptions {
        let mut c = sys::flopspack_stream_options::default();
        // SAFETY: fills a local struct.
        unsafe { sys::flopspack_stream_options_init(&mut c) };
        let overflow = Overflow::from_raw(c.overflow);
        StreamOptions {
            capacity,
            window: c.window,
            overflow,
            seed: c.seed,
        }
    }

    fn to_c(self) -> sys::flopspack_stream_options {
        let mut c = sys::flopspack_stream_options::default();
        // SAFETY: fills a local struct.
        unsafe { sys::flopspack_stream_options_init(&mut c) };
        c.capacity = self.capacity;
        c.window = self.window;
        c.overflow = self.overflow.raw();
        c.seed = self.seed;
        c
    }
}

/// Counters since creation (`flopspack_stream_totals`).
pub type StreamTotals = sys::flopspack_stream_totals;

/// A streaming packer (`flopspack_stream_packer`): `Send`, not `Sync` (one
/// thread at a time, which `&mut self` on every mutating call enforces).
/// Even its read-only calls cannot be shared between threads:
///
/// ```compile_fail
/// let packer = flopspack::StreamPacker::new(&flopspack::StreamOptions::new(100), None).unwrap();
/// std::thread::scope(|s| {
///     s.spawn(|| packer.ready()); // error[E0277]: cannot be shared between threads safely
/// });
/// ```
///
/// ```
/// use flopspack::{StreamOptions, StreamPacker};
///
/// let mut packer = StreamPacker::new(&StreamOptions::new(1000), None)?;
/// packer.push(&[600, 300, 400, 700])?;
/// packer.flush()?;
/// let plan = packer.take()?;
/// let mut sequences: Vec<Vec<i64>> = plan.groups().map(|g| g.items.to_vec()).collect();
/// sequences.sort();
/// assert_eq!(sequences, vec![vec![0, 2], vec![3, 1]]);
/// assert_eq!(plan.metrics().fill, 1.0);
/// # Ok::<(), flopspack::Error>(())
/// ```
pub struct StreamPacker {
    raw: NonNull<sys::flopspack_stream_packer>,
    // Keeps a custom model's callback alive: the C packer holds the model.
    model: ModelRef,
}

// SAFETY: a packer may move between threads; it is used by one at a time.
unsafe impl Send for StreamPacker {}

impl StreamPacker {
    /// A packer; `model` None = cost is tokens.
    pub fn new(options: &StreamOptions, model: Option<&CostModel>) -> Result<StreamPacker> {
        let c = options.to_c();
        let mut raw = ptr::null_mut();
        let m = model.map_or(ptr::null(), |m| m.as_ptr());
        // SAFETY: pointers to a local and a live model (the packer keeps its
        // own reference to the C model).
        check(unsafe { sys::flopspack_stream_packer_create(&c, m, &mut raw) })?;
        Ok(StreamPacker {
            raw: NonNull::new(raw).expect("NULL packer"),
            model: model.map(CostModel::model_ref).unwrap_or_default(),
        })
    }

    /// A packer from bytes made by [`StreamPacker::save`].
    pub fn restore(bytes: &[u8], model: Option<&CostModel>) -> Result<StreamPacker> {
        let mut raw = ptr::null_mut();
        let m = model.map_or(ptr::null(), |m| m.as_ptr());
        // SAFETY: the slice is valid for the call.
        check(unsafe {
            sys::flopspack_stream_packer_restore(
                bytes.as_ptr() as *const c_void,
                bytes.len(),
                m,
                &mut raw,
            )
        })?;
        Ok(StreamPacker {
            raw: NonNull::new(raw).expect("NULL packer"),
            model: model.map(CostModel::model_ref).unwrap_or_default(),
        })
    }

    /// Pushes documents (all or none on failure).
    pub fn push(&mut self, lengths: &[i64]) -> Result<()> {
        // SAFETY: the slice is valid for the call.
        check(unsafe {
            sys::flopspack_stream_packer_push(self.raw.as_ptr(), lengths.as_ptr(), lengths.len())
        })
    }

    /// Makes every open sequence final.
    pub fn flush(&mut self) -> Result<()> {
        // SAFETY: valid handle.
        self.model.explain(check(unsafe {
            sys::flopspack_stream_packer_flush(self.raw.as_ptr())
        }))
    }

    /// Final sequences waiting to be taken.
    pub fn ready(&self) -> usize {
        let mut n = 0usize;
        // SAFETY: valid handle and out-pointer: cannot fail.
        unsafe { sys::flopspack_stream_packer_ready(self.raw.as_ptr(), &mut n) };
        n
    }

    /// Takes the sequences made final since the last take.
    pub fn take(&mut self) -> Result<Plan> {
        let mut raw = ptr::null_mut();
        // SAFETY: out-pointer to a local; the plan is ours.
        check(unsafe { sys::flopspack_stream_packer_take(self.raw.as_ptr(), &mut raw) })?;
        Ok(unsafe { Plan::from_raw(raw) })
    }

    /// Counters since creation.
    pub fn totals(&self) -> StreamTotals {
        let mut t = StreamTotals {
            struct_size: std::mem::size_of::<StreamTotals>() as u32,
            ..Default::default()
        };
        // SAFETY: valid handle, struct_size set: cannot fail.
        unsafe { sys::flopspack_stream_packer_totals(self.raw.as_ptr(), &mut t) };
        t
    }

    /// The whole state as bytes (versioned, checksummed).
    pub fn save(&self) -> Result<Vec<u8>> {
        let mut size = 0usize;
        // SAFETY: a size query with a NULL buffer.
        check(unsafe {
            sys::flopspack_stream_packer_save(self.raw.as_ptr(), ptr::null_mut(), 0, &mut size)
        })?;
        let mut bytes = vec![0u8; size];
        let mut written = 0usize;
        // SAFETY: the buffer holds `size` bytes.
        check(unsafe {
            sys::flopspack_stream_packer_save(
                self.raw.as_ptr(),
                bytes.as_mut_ptr() as *mut c_void,
                size,
                &mut written,
            )
        })?;
        if written != size {
            return Err(crate::Error::new(
                Status::Internal,
                format!("save wrote {written} of {size} bytes"),
            ));
        }
        Ok(bytes)
    }
}

impl Drop for StreamPacker {
    fn drop(&mut self) {
        // SAFETY: owned handle, destroyed exactly once.
        unsafe { sys::flopspack_stream_packer_destroy(self.raw.as_ptr()) };
    }
}
