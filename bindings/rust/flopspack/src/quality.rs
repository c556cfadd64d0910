//! A model's coefficients and how well it predicts measured times
//! (`flopspack_cost_model_coefficients`, `flopspack_cost_model_evaluate`).

use crate::cost::CostModel;
use crate::error::{check, Error, Result, Status};
use crate::sys;

/// The four numbers of a polynomial-form model: `per_document + linear*l +
/// quadratic*l²` per document of length l, plus `per_sequence` once per
/// non-empty sequence.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct PolynomialCoefficients {
    pub per_sequence: f64,
    pub per_document: f64,
    pub linear: f64,
    pub quadratic: f64,
}

/// How well a model predicted measured times: `prediction = scale * cost +
/// offset` (`flopspack_prediction_quality`).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct PredictionQuality {
    pub scale: f64,
    pub offset: f64,
    /// 1 − SS_res / SS_tot on these samples (may be < 0 held out).
    pub r_squared: f64,
    /// sqrt(SS_res / samples), in the unit of the times.
    pub rms_residual: f64,
    pub mean_relative_error: f64,
    pub median_relative_error: f64,
    pub max_relative_error: f64,
    pub num_samples: u64,
}

/// The affine map of the predictions (`flopspack_evaluate_options`).
/// `Default`: the model counts seconds (scale 1, offset 0).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EvaluateOptions {
    /// Fit scale and offset (both ≥ 0) to the samples by least squares
    /// first, for models that count FLOPs or tokens.
    pub fit_scale: bool,
    pub scale: f64,
    pub offset: f64,
}

impl Default for EvaluateOptions {
    fn default() -> Self {
        EvaluateOptions {
            fit_scale: false,
            scale: 1.0,
            offset: 0.0,
        }
    }
}

impl CostModel {
    /// The coefficients of a tokens, polynomial or fitted model, exactly; a
    /// transformer or custom model has none (`Status::InvalidArgument`).
    pub fn coefficients(&self) -> Result<PolynomialCoefficients> {
        let mut c = sys::flopspack_polynomial_coefficients {
            struct_size: std::mem::size_of::<sys::flopspack_polynomial_coefficients>() as u32,
            ..Default::default()
        };
        // SAFETY: a live model and an output struct with struct_size set.
        check(unsafe { sys::flopspack_cost_model_coefficients(self.as_ptr(), &mut c) })?;
        Ok(PolynomialCoefficients {
            per_sequence: c.per_sequence,
            per_document: c.per_document,
            linear: c.linear,
            quadratic: c.quadratic,
        })
    }

    /// How well the model predicts `seconds[i]` (finite, > 0), the measured
    /// time of a packed sequence holding documents `samples[i]`.
    pub fn prediction_quality(
        &self,
        samples: &[&[i64]],
        seconds: &[f64],
        options: &EvaluateOptions,
    ) -> Result<PredictionQuality> {
        let mut offsets = Vec::with_capacity(samples.len() + 1);
        offsets.push(0usize);
        let mut flat = Vec::new();
        for s in samples {
            flat.extend_from_slice(s);
            offsets.push(flat.len());
        }
        self.prediction_quality_csr(&flat, &offsets, seconds, options)
    }

    /// [`CostModel::prediction_quality`] on flat arrays: sample i is
    /// `lengths[offsets[i]..offsets[i+1]]`; `offsets.len() == seconds.len() + 1`.
    pub fn prediction_quality_csr(
        &self,
        lengths: &[i64],
        offsets: &[usize],
        seconds: &[f64],
        options: &EvaluateOptions,
    ) -> Result<PredictionQuality> {
        // The C function reads offsets[seconds.len()] entries and that many
        // lengths: check what it cannot.
        if offsets.len() != seconds.len() + 1 || offsets[seconds.len()] != lengths.len() {
            return Err(Error::new(
                Status::InvalidArgument,
                format!(
                    "sample_offsets has {} entries for {} seconds and {} document_lengths: it \
                     needs one more entry than seconds, the last equal to the lengths",
                    offsets.len(),
                    seconds.len(),
                    lengths.len()
                ),
            ));
        }
        let mut o = sys::flopspack_evaluate_options::default();
        // SAFETY: fills a local struct.
        unsafe { sys::flopspack_evaluate_options_init(&mut o) };
        o.fit_scale = options.fit_scale as i32;
        o.scale = options.scale;
        o.offset = options.offset;
        let mut q = sys::flopspack_prediction_quality {
            struct_size: std::mem::size_of::<sys::flopspack_prediction_quality>() as u32,
            ..Default::default()
        };
        // SAFETY: slices valid for the call, sizes checked above; pointers to locals.
        self.explain(check(unsafe {
            sys::flopspack_cost_model_evaluate(
                self.as_ptr(),
                &o,
                lengths.as_ptr(),
                offsets.as_ptr(),
                seconds.as_ptr(),
                seconds.len(),
                &mut q,
            )
        }))?;
        Ok(PredictionQuality {
            scale: q.scale,
            offset: q.offset,
            r_squared: q.r_squared,
            rms_residual: q.rms_residual,
            mean_relative_error: q.mean_relative_error,
            median_relative_error: q.median_relative_error,
            max_relative_error: q.max_relative_error,
            num_samples: q.num_samples,
        })
    }
}
