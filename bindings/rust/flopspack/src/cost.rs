//! Cost models: what a packed sequence costs.

use crate::error::{check, Error, Result, Status};
use crate::sys;
use std::os::raw::{c_int, c_void};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::ptr::{self, NonNull};
use std::sync::{Arc, Mutex};

/// How far attention reaches inside a packed sequence.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum AttentionSpan {
    /// Each document attends within itself (varlen / block-diagonal).
    #[default]
    Document,
    /// The whole packed sequence attends as one.
    Sequence,
}

/// A dense decoder-only transformer (`flopspack_transformer_config`).
/// `Default` gives the C defaults: dimensions 0 (fill them in), causal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TransformerConfig {
    pub num_layers: i64,
    pub hidden_size: i64,
    pub num_attention_heads: i64,
    pub num_key_value_heads: i64,
    /// 0 = hidden_size / num_attention_heads.
    pub head_dim: i64,
    pub intermediate_size: i64,
    /// 0 = no LM head term.
    pub vocab_size: i64,
    pub gated_mlp: bool,
    pub causal: bool,
    pub recompute: bool,
    pub attention_span: AttentionSpan,
}

impl Default for TransformerConfig {
    fn default() -> Self {
        TransformerConfig {
            num_layers: 0,
            hidden_size: 0,
            num_attention_heads: 0,
            num_key_value_heads: 0,
            head_dim: 0,
            intermediate_size: 0,
            vocab_size: 0,
            gated_mlp: false,
            causal: true,
            recompute: false,
            attention_span: AttentionSpan::Document,
        }
    }
}

/// Terms of the polynomial form to fit (bit flags, `FitTerms::ALL` default).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FitTerms(pub u32);

impl FitTerms {
    pub const PER_SEQUENCE: FitTerms = FitTerms(sys::FLOPSPACK_FIT_PER_SEQUENCE);
    pub const PER_DOCUMENT: FitTerms = FitTerms(sys::FLOPSPACK_FIT_PER_DOCUMENT);
    pub const LINEAR: FitTerms = FitTerms(sys::FLOPSPACK_FIT_LINEAR);
    pub const QUADRATIC: FitTerms = FitTerms(sys::FLOPSPACK_FIT_QUADRATIC);
    pub const ALL: FitTerms = FitTerms(sys::FLOPSPACK_FIT_ALL);
}

impl std::ops::BitOr for FitTerms {
    type Output = FitTerms;
    fn bitor(self, other: FitTerms) -> FitTerms {
        FitTerms(self.0 | other.0)
    }
}

/// What a fit found: the fields of `flopspack_fit_report`.
pub type FitReport = sys::flopspack_fit_report;

type CostFn = dyn Fn(&[i64]) -> std::result::Result<f64, String> + Send + Sync;

/// A Rust closure behind the C callback, with the message of its last
/// failure (an Err or a panic, which must not unwind into C).
struct Callback {
    f: Box<CostFn>,
    last_error: Mutex<Option<String>>,
}

unsafe extern "C" fn trampoline(
    user_data: *mut c_void,
    lengths: *const i64,
    n: usize,
    out_cost: *mut f64,
) -> c_int {
    // SAFETY: user_data is the Callback kept alive by every CostModel clone
    // (an Arc) for as long as the C model can call it.
    let cb = unsafe { &*(user_data as *const Callback) };
    let view: &[i64] = if n == 0 {
        &[]
    } else {
        unsafe { std::slice::from_raw_parts(lengths, n) }
    };
    let result = catch_unwind(AssertUnwindSafe(|| (cb.f)(view)))
        .unwrap_or_else(|_| Err("cost callback panicked".to_owned()));
    match result {
        Ok(cost) => {
            // SAFETY: the library passes a valid out pointer.
            unsafe { *out_cost = cost };
            0
        }
        Err(message) => {
            *cb.last_error.lock().unwrap_or_else(|e| e.into_inner()) = Some(message);
            1
        }
    }
}

/// Held by objects that keep a C reference to a model (packers, planners,
/// samplers): keeps a custom model's closure alive and explains its errors.
#[derive(Clone, Default)]
pub(crate) struct ModelRef(Option<Arc<Callback>>);

impl ModelRef {
    pub(crate) fn explain(&self, result: Result<()>) -> Result<()> {
        match (result, &self.0) {
            (Err(e), Some(cb)) if e.status() == Status::CallbackFailed => {
                let detail = cb
                    .last_error
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .take();
                Err(match detail {
                    Some(d) => Error::new(e.status(), format!("{}: {}", e.message(), d)),
                    None => e,
                })
            }
            (r, _) => r,
        }
    }
}

/// A cost model (`flopspack_cost_model`): immutable, `Send + Sync`, released
/// on drop.
pub struct CostModel {
    raw: NonNull<sys::flopspack_cost_model>,
    callback: Option<Arc<Callback>>,
}

// SAFETY: cost models are immutable after creation and documented as
// shareable by any number of threads; a custom model's closure is Send + Sync.
unsafe impl Send for CostModel {}
unsafe impl Sync for CostModel {}

fn emit(raw: *mut sys::flopspack_cost_model, callback: Option<Arc<Callback>>) -> CostModel {
    CostModel {
        raw: NonNull::new(raw).expect("library returned OK and a NULL model"),
        callback,
    }
}

impl CostModel {
    /// cost = number of tokens.
    pub fn tokens() -> Result<CostModel> {
        let mut raw = ptr::null_mut();
        // SAFETY: out-pointer to a local.
        check(unsafe { sys::flopspack_cost_model_tokens(&mut raw) })?;
        Ok(emit(raw, None))
    }

    /// `per_document + linear*l + quadratic*l²` per document of length l,
    /// plus `per_sequence` once per non-empty sequence.
    pub fn polynomial(
        per_sequence: f64,
        per_document: f64,
        linear: f64,
        quadratic: f64,
    ) -> Result<CostModel> {
        let mut raw = ptr::null_mut();
        // SAFETY: plain values and an out-pointer to a local.
        check(unsafe {
            sys::flopspack_cost_model_polynomial(
                per_sequence,
                per_document,
                linear,
                quadratic,
                &mut raw,
            )
        })?;
        Ok(emit(raw, None))
    }

    /// Training FLOPs of a dense transformer.
    pub fn transformer(config: &TransformerConfig) -> Result<CostModel> {
        let mut c = sys::flopspack_transformer_config::default();
        // SAFETY: fills a local struct.
        unsafe { sys::flopspack_transformer_config_init(&mut c) };
        c.num_layers = config.num_layers;
        c.hidden_size = config.hidden_size;
        c.num_attention_heads = config.num_attention_heads;
        c.num_key_value_heads = config.num_key_value_heads;
        c.head_dim = config.head_dim;
        c.intermediate_size = config.intermediate_size;
        c.vocab_size = config.vocab_size;
        c.gated_mlp = config.gated_mlp as i32;
        c.causal = config.causal as i32;
        c.recompute = config.recompute as i32;
        c.attention_span = match config.attention_span {
            AttentionSpan::Document => sys::FLOPSPACK_ATTENTION_DOCUMENT as i32,
            AttentionSpan::Sequence => sys::FLOPSPACK_ATTENTION_SEQUENCE as i32,
        };
        let mut raw = ptr::null_mut();
        // SAFETY: pointers to locals.
        check(unsafe { sys::flopspack_cost_model_transformer(&c, &mut raw) })?;
        Ok(emit(raw, None))
    }

    /// Non-negative least squares of the polynomial form: `samples[i]` holds
    /// the document lengths of a packed sequence measured at `seconds[i]`.
    pub fn fit(
        samples: &[&[i64]],
        seconds: &[f64],
        terms: FitTerms,
    ) -> Result<(CostModel, FitReport)> {
        let mut offsets = Vec::with_capacity(samples.len() + 1);
        offsets.push(0usize);
        let mut flat = Vec::new();
        for s in samples {
            flat.extend_from_slice(s);
            offsets.push(flat.len());
        }
        CostModel::fit_csr(&flat, &offsets, seconds, terms)
    }

    /// [`CostModel::fit`] on flat arrays: sample i is
    /// `lengths[offsets[i]..offsets[i+1]]`; `offsets.len() == seconds.len() + 1`.
    pub fn fit_csr(
        lengths: &[i64],
        offsets: &[usize],
        seconds: &[f64],
        terms: FitTerms,
    ) -> Result<(CostModel, FitReport)> {
        // The C function reads offsets[seconds.len()] entries and that many
        // lengths: check what it cannot.
        if offsets.len() != seconds.len() + 1 {
            return Err(Error::new(
                Status::InvalidArgument,
                format!(
                    "sample_offsets has {} entries but seconds has {}: it needs one more",
                    offsets.len(),
                    seconds.len()
                ),
            ));
        }
        if offsets[seconds.len()] != lengths.len() {
            return Err(Error::new(
                Status::InvalidArgument,
                format!(
                    "sample_offsets[{}] = {} must equal the number of document_lengths ({})",
                    seconds.len(),
                    offsets[seconds.len()],
                    lengths.len()
                ),
            ));
        }
        let mut options = sys::flopspack_fit_options::default();
        // SAFETY: fills a local struct.
        unsafe { sys::flopspack_fit_options_init(&mut options) };
        options.terms = terms.0;
        let mut report = sys::flopspack_fit_report {
            struct_size: std::mem::size_of::<sys::flopspack_fit_report>() as u32,
            ..Default::default()
        };
        let mut raw = ptr::null_mut();
        // SAFETY: array sizes checked above; pointers to locals.
        check(unsafe {
            sys::flopspack_cost_model_fit(
                &options,
                lengths.as_ptr(),
                offsets.as_ptr(),
                seconds.as_ptr(),
                seconds.len(),
                &mut report,
                &mut raw,
            )
        })?;
        Ok((emit(raw, None), report))
    }

    /// A model backed by a closure computing the cost of one packed sequence
    /// from its document lengths. An `Err(message)` or a panic fails the
    /// calling function with [`Status::CallbackFailed`]; the closure's
    /// message is appended to the library's.
    ///
    /// The lengths are the library's array, lent for the call only: the
    /// closure may copy them (`lengths.to_vec()`) but cannot keep the slice —
    /// the compiler refuses:
    ///
    /// ```compile_fail
    /// use std::sync::Mutex;
    /// static KEPT: Mutex<Vec<&'static [i64]>> = Mutex::new(Vec::new());
    /// let model = flopspack::CostModel::custom(|lengths: &[i64]| {
    ///     KEPT.lock().unwrap().push(lengths); // error: borrowed data escapes the closure
    ///     Ok(lengths.len() as f64)
    /// });
    /// ```
    pub fn custom<F>(f: F) -> Result<CostModel>
    where
        F: Fn(&[i64]) -> std::result::Result<f64, String> + Send + Sync + 'static,
    {
        let callback = Arc::new(Callback {
            f: Box::new(f),
            last_error: Mutex::new(None),
        });
        let mut raw = ptr::null_mut();
        // SAFETY: the Callback outlives the C model (held by the CostModel).
        check(unsafe {
            sys::flopspack_cost_model_custom(
                Some(trampoline),
                Arc::as_ptr(&callback) as *mut c_void,
                &mut raw,
            )
        })?;
        Ok(emit(raw, Some(callback)))
    }

    /// What a C object holding this model keeps: a custom model's callback
    /// (alive as long as the object) and its error slot (for messages).
    pub(crate) fn model_ref(&self) -> ModelRef {
        ModelRef(self.callback.clone())
    }

    /// The raw handle, valid while `self` lives.
    pub fn as_ptr(&self) -> *const sys::flopspack_cost_model {
        self.raw.as_ptr()
    }

    /// Attaches a custom model's callback message to a CALLBACK_FAILED error.
    pub(crate) fn explain(&self, result: Result<()>) -> Result<()> {
        self.model_ref().explain(result)
    }

    /// Cost of one packed sequence holding these documents.
    pub fn sequence_cost(&self, lengths: &[i64]) -> Result<f64> {
        let mut cost = 0.0;
        // SAFETY: the slice is valid for the call; out-pointer to a local.
        self.explain(check(unsafe {
            sys::flopspack_cost_model_sequence_cost(
                self.as_ptr(),
                lengths.as_ptr(),
                lengths.len(),
                &mut cost,
            )
        }))?;
        Ok(cost)
    }

    /// Cost of each document alone, without the per-sequence overhead.
    pub fn document_costs(&self, lengths: &[i64]) -> Result<Vec<f64>> {
        let mut out = vec![0.0; lengths.len()];
        self.document_costs_into(lengths, &mut out)?;
        Ok(out)
    }

    /// [`CostModel::document_costs`] into a caller buffer of the same length
    /// (untouched on failure).
    pub fn document_costs_into(&self, lengths: &[i64], out: &mut [f64]) -> Result<()> {
        if out.len() != lengths.len() {
            return Err(Error::new(
                Status::InvalidArgument,
                format!(
                    "out_costs has {} entries for {} document_lengths",
                    out.len(),
                    lengths.len()
                ),
            ));
        }
        // SAFETY: both slices hold lengths.len() elements.
        self.explain(check(unsafe {
            sys::flopspack_cost_model_document_costs(
                self.as_ptr(),
                lengths.as_ptr(),
                lengths.len(),
                out.as_mut_ptr(),
            )
        }))
    }

    /// Cost of a batch of samples each padded to the longest.
    pub fn padded_batch_cost(&self, lengths: &[i64]) -> Result<f64> {
        let mut cost = 0.0;
        // SAFETY: as in sequence_cost.
        self.explain(check(unsafe {
            sys::flopspack_cost_model_padded_batch_cost(
                self.as_ptr(),
                lengths.as_ptr(),
                lengths.len(),
                &mut cost,
            )
        }))?;
        Ok(cost)
    }

    /// The constant a non-empty sequence costs on top of its documents.
    pub fn sequence_overhead(&self) -> f64 {
        let mut v = 0.0;
        // SAFETY: valid model and out-pointer: cannot fail.
        unsafe { sys::flopspack_cost_model_sequence_overhead(self.as_ptr(), &mut v) };
        v
    }

    /// True if sequence cost = overhead + sum of document costs.
    pub fn is_additive(&self) -> bool {
        let mut v: c_int = 0;
        // SAFETY: valid model and out-pointer: cannot fail.
        unsafe { sys::flopspack_cost_model_is_additive(self.as_ptr(), &mut v) };
        v == 1
    }

    /// Releases the model now (the same as dropping it). Afterwards the
    /// model cannot be used — the compiler refuses:
    ///
    /// ```compile_fail
    /// let model = flopspack::CostModel::tokens().unwrap();
    /// model.close();
    /// model.sequence_cost(&[1]); // error[E0382]: use of moved value
    /// ```
    pub fn close(self) {}
}

impl Drop for CostModel {
    fn drop(&mut self) {
        // SAFETY: owned handle, destroyed exactly once.
        unsafe { sys::flopspack_cost_model_destroy(self.raw.as_ptr()) };
    }
}

impl std::fmt::Debug for CostModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CostModel")
            .field("additive", &self.is_additive())
            .field("sequence_overhead", &self.sequence_overhead())
            .field("custom", &self.callback.is_some())
            .finish()
    }
}
