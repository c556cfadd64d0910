//! Statistics of a dataset's document lengths: quantiles, CDFs, histograms,
//! tails, the expected maximum of N draws, KS distances, comparisons.

use crate::cost::CostModel;
use crate::error::{check, Error, Result, Status};
use crate::sys;
use std::os::raw::c_int;
use std::ptr::{self, NonNull};

/// What each document weighs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Weighting {
    #[default]
    Count,
    Tokens,
    /// Needs a model.
    Cost,
}

impl Weighting {
    pub(crate) fn raw(self) -> c_int {
        (match self {
            Weighting::Count => sys::FLOPSPACK_STATS_WEIGHT_COUNT,
            Weighting::Tokens => sys::FLOPSPACK_STATS_WEIGHT_TOKENS,
            Weighting::Cost => sys::FLOPSPACK_STATS_WEIGHT_COST,
        }) as c_int
    }
}

/// Histogram binning.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Binning {
    Linear,
    #[default]
    Log2,
}

/// `flopspack_stats_summary`.
pub type StatsSummary = sys::flopspack_stats_summary;
/// `flopspack_stats_tail`.
pub type StatsTail = sys::flopspack_stats_tail;
/// `flopspack_stats_comparison`.
pub type StatsComparison = sys::flopspack_stats_comparison;

/// Options of [`Stats::histogram`] (`Default` = the library's).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HistogramOptions {
    pub binning: Binning,
    pub weighting: Weighting,
    pub normalized: bool,
    /// Linear only: tokens per bin; 0 = automatic.
    pub width: i64,
}

impl Default for HistogramOptions {
    fn default() -> Self {
        let mut c = sys::flopspack_histogram_options::default();
        // SAFETY: fills a local struct.
        unsafe { sys::flopspack_histogram_options_init(&mut c) };
        HistogramOptions {
            binning: if c.binning == sys::FLOPSPACK_STATS_BINS_LINEAR as i32 {
                Binning::Linear
            } else {
                Binning::Log2
            },
            weighting: Weighting::Count,
            normalized: c.normalized == 1,
            width: c.width,
        }
    }
}

/// A dataset's exact length histogram (`flopspack_stats`): immutable,
/// `Send + Sync`. `a.merge(&b)` equals the statistics of both datasets.
///
/// ```
/// use flopspack::{Stats, Weighting};
///
/// let stats = Stats::new(&[100, 200, 300, 400], None)?;
/// assert_eq!(stats.summary().tokens, 1000);
/// assert_eq!(stats.quantile(0.5, Weighting::Count)?, 200.0);
/// assert_eq!(stats.expected_max(1)?, 250.0); // one draw: the mean
/// # Ok::<(), flopspack::Error>(())
/// ```
pub struct Stats {
    raw: NonNull<sys::flopspack_stats>,
}

// SAFETY: the header documents statistics as immutable and readable from
// several threads at once.
unsafe impl Send for Stats {}
unsafe impl Sync for Stats {}

impl Stats {
    pub(crate) fn from_raw(raw: *mut sys::flopspack_stats) -> Stats {
        Stats {
            raw: NonNull::new(raw).expect("NULL statistics"),
        }
    }

    fn ptr(&self) -> *const sys::flopspack_stats {
        self.raw.as_ptr()
    }

    /// Statistics of the lengths; `model` (optional) adds document costs.
    pub fn new(lengths: &[i64], model: Option<&CostModel>) -> Result<Stats> {
        let mut raw = ptr::null_mut();
        // SAFETY: the slice and the model live through the call.
        let status = check(unsafe {
            sys::flopspack_stats_create(
                lengths.as_ptr(),
                lengths.len(),
                model.map_or(ptr::null(), |m| m.as_ptr()),
                &mut raw,
            )
        });
        match model {
            Some(m) => m.explain(status)?,
            None => status?,
        }
        Ok(Stats::from_raw(raw))
    }

    /// `counts[i]` documents of length `lengths[i]`.
    pub fn from_histogram(
        lengths: &[i64],
        counts: &[u64],
        model: Option<&CostModel>,
    ) -> Result<Stats> {
        if lengths.len() != counts.len() {
            return Err(Error::new(
                Status::InvalidArgument,
                format!(
                    "counts has {} entries for {} lengths",
                    counts.len(),
                    lengths.len()
                ),
            ));
        }
        let mut raw = ptr::null_mut();
        // SAFETY: both slices hold lengths.len() entries.
        let status = check(unsafe {
            sys::flopspack_stats_create_from_histogram(
                lengths.as_ptr(),
                counts.as_ptr(),
                lengths.len(),
                model.map_or(ptr::null(), |m| m.as_ptr()),
                &mut raw,
            )
        });
        match model {
            Some(m) => m.explain(status)?,
            None => status?,
        }
        Ok(Stats::from_raw(raw))
    }

    /// Statistics with options (`flopspack_stats_create_with_options`):
    /// `counts` `None` = each length once, else `counts[i]` documents of
    /// length `lengths[i]`; `cost_capacity` > 0 (the training sequence
    /// length) costs a document longer than it as the pieces training sees
    /// (`floor(length / cost_capacity)` pieces of `cost_capacity` tokens and
    /// the remainder), 0 costs documents whole.
    pub fn with_options(
        lengths: &[i64],
        counts: Option<&[u64]>,
        model: Option<&CostModel>,
        cost_capacity: i64,
    ) -> Result<Stats> {
        if let Some(c) = counts {
            if c.len() != lengths.len() {
                return Err(Error::new(
                    Status::InvalidArgument,
                    format!(
                        "counts has {} entries for {} lengths",
                        c.len(),
                        lengths.len()
                    ),
                ));
            }
        }
        let mut options = sys::flopspack_stats_options::default();
        // SAFETY: fills a local struct.
        unsafe { sys::flopspack_stats_options_init(&mut options) };
        options.cost_capacity = cost_capacity;
        let mut raw = ptr::null_mut();
        // SAFETY: counts (if any) holds lengths.len() entries; all live through the call.
        let status = check(unsafe {
            sys::flopspack_stats_create_with_options(
                lengths.as_ptr(),
                counts.map_or(ptr::null(), |c| c.as_ptr()),
                lengths.len(),
                model.map_or(ptr::null(), |m| m.as_ptr()),
                &options,
                &mut raw,
            )
        });
        match model {
            Some(m) => m.explain(status)?,
            None => status?,
        }
        Ok(Stats::from_raw(raw))
    }

    /// The statistics of both datasets, exactly.
    pub fn merge(&self, other: &Stats) -> Result<Stats> {
        let mut raw = ptr::null_mut();
        // SAFETY: valid handles.
        check(unsafe { sys::flopspack_stats_merge(self.ptr(), other.ptr(), &mut raw) })?;
        Ok(Stats::from_raw(raw))
    }

    pub fn summary(&self) -> StatsSummary {
        let mut v = StatsSummary {
            struct_size: std::mem::size_of::<StatsSummary>() as u32,
            ..Default::default()
        };
        // SAFETY: valid handle, struct_size set: cannot fail.
        unsafe { sys::flopspack_stats_summarize(self.ptr(), &mut v) };
        v
    }

    /// Lower empirical quantile of the length, documents weighted as given.
    pub fn quantile(&self, q: f64, weighting: Weighting) -> Result<f64> {
        let mut v = 0.0;
        // SAFETY: valid handle and out-pointer.
        check(unsafe {
            sys::flopspack_stats_weighted_quantile(self.ptr(), weighting.raw(), q, &mut v)
        })?;
        Ok(v)
    }

    /// Share of documents (tokens, cost) of length <= `length`.
    pub fn cdf(&self, length: i64, weighting: Weighting) -> Result<f64> {
        let mut v = 0.0;
        // SAFETY: valid handle and out-pointer.
        check(unsafe { sys::flopspack_stats_cdf(self.ptr(), weighting.raw(), length, &mut v) })?;
        Ok(v)
    }

    /// (upper edges, weights) of the histogram.
    pub fn histogram(&self, options: &HistogramOptions) -> Result<(Vec<i64>, Vec<f64>)> {
        let mut c = sys::flopspack_histogram_options::default();
        // SAFETY: fills a local struct.
        unsafe { sys::flopspack_histogram_options_init(&mut c) };
        c.binning = (match options.binning {
            Binning::Linear => sys::FLOPSPACK_STATS_BINS_LINEAR,
            Binning::Log2 => sys::FLOPSPACK_STATS_BINS_LOG2,
        }) as i32;
        c.weighting = options.weighting.raw();
        c.normalized = options.normalized as i32;
        c.width = options.width;
        let mut n = 0usize;
        // SAFETY: a size query with NULL buffers.
        check(unsafe {
            sys::flopspack_stats_histogram(
                self.ptr(),
                &c,
                ptr::null_mut(),
                ptr::null_mut(),
                0,
                &mut n,
            )
        })?;
        let (mut edges, mut weights) = (vec![0i64; n], vec![0.0; n]);
        // SAFETY: both buffers hold n entries.
        check(unsafe {
            sys::flopspack_stats_histogram(
                self.ptr(),
                &c,
                edges.as_mut_ptr(),
                weights.as_mut_ptr(),
                n,
                &mut n,
            )
        })?;
        Ok((edges, weights))
    }

    /// Documents strictly longer than `threshold`.
    pub fn tail(&self, threshold: i64) -> StatsTail {
        let mut v = StatsTail {
            struct_size: std::mem::size_of::<StatsTail>() as u32,
            ..Default::default()
        };
        // SAFETY: valid handle, struct_size set: cannot fail.
        unsafe { sys::flopspack_stats_tail_share(self.ptr(), threshold, &mut v) };
        v
    }

    /// Exact expected maximum of `draws` independent draws of a document's
    /// cost (its length without a model).
    pub fn expected_max(&self, draws: u64) -> Result<f64> {
        let mut v = 0.0;
        // SAFETY: valid handle and out-pointer.
        check(unsafe { sys::flopspack_stats_expected_max(self.ptr(), draws, &mut v) })?;
        Ok(v)
    }

    /// Weighted KS distance and the smallest length where the gap is largest.
    pub fn ks_distance(&self, other: &Stats, weighting: Weighting) -> Result<(f64, i64)> {
        let (mut d, mut length) = (0.0, 0i64);
        // SAFETY: valid handles and out-pointers.
        check(unsafe {
            sys::flopspack_stats_ks_distance_weighted(
                self.ptr(),
                other.ptr(),
                weighting.raw(),
                &mut d,
                &mut length,
            )
        })?;
        Ok((d, length))
    }

    /// Where two datasets differ.
    pub fn compare(&self, other: &Stats) -> Result<StatsComparison> {
        let mut v = StatsComparison {
            struct_size: std::mem::size_of::<StatsComparison>() as u32,
            ..Default::default()
        };
        // SAFETY: valid handles, struct_size set.
        check(unsafe { sys::flopspack_stats_compare(self.ptr(), other.ptr(), &mut v) })?;
        Ok(v)
    }

    /// (distinct lengths ascending, counts).
    pub fn entries(&self) -> (Vec<i64>, Vec<u64>) {
        let mut n = 0usize;
        // SAFETY: a size query with NULL buffers: cannot fail.
        unsafe {
            sys::flopspack_stats_entries(self.ptr(), ptr::null_mut(), ptr::null_mut(), 0, &mut n)
        };
        let (mut lengths, mut counts) = (vec![0i64; n], vec![0u64; n]);
        // SAFETY: both buffers hold n entries.
        unsafe {
            sys::flopspack_stats_entries(
                self.ptr(),
                lengths.as_mut_ptr(),
                counts.as_mut_ptr(),
                n,
                &mut n,
            )
        };
        (lengths, counts)
    }
}

impl Drop for Stats {
    fn drop(&mut self) {
        // SAFETY: owned handle, destroyed exactly once.
        unsafe { sys::flopspack_stats_destroy(self.raw.as_ptr()) };
    }
}

impl std::fmt::Debug for Stats {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let s = self.summary();
        f.debug_struct("Stats")
            .field("documents", &s.count)
            .field("tokens", &s.tokens)
            .field("p50", &s.p50)
            .field("p99", &s.p99)
            .field("max", &s.max)
            .finish()
    }
}
