package flopspack

import (
	"runtime"

	"github.com/flopspack/flopspack/bindings/go/internal/capi"
)

// PolynomialCoefficients are the four numbers of a polynomial-form model:
// PerDocument + Linear*l + Quadratic*l^2 per document of length l, plus
// PerSequence once per non-empty sequence (flopspack_polynomial_coefficients).
type PolynomialCoefficients struct {
	PerSequence float64 `json:"per_sequence"`
	PerDocument float64 `json:"per_document"`
	Linear      float64 `json:"linear"`
	Quadratic   float64 `json:"quadratic"`
}

// Coefficients returns the coefficients of a tokens, polynomial or fitted
// model exactly; a transformer or custom model has none (an *Error with
// StatusInvalidArgument).
func (m *CostModel) Coefficients() (PolynomialCoefficients, error) {
	h, err := m.handle()
	if err != nil {
		return PolynomialCoefficients{}, err
	}
	c := capi.NewFlopspack_polynomial_coefficients()
	defer capi.DeleteFlopspack_polynomial_coefficients(c)
	err = capi.Flopspack_cost_model_coefficients(h, c)
	runtime.KeepAlive(m)
	if err != nil {
		return PolynomialCoefficients{}, err
	}
	return PolynomialCoefficients{
		PerSequence: c.GetPer_sequence(), PerDocument: c.GetPer_document(),
		Linear: c.GetLinear(), Quadratic: c.GetQuadratic(),
	}, nil
}

// PredictionQuality says how well a model predicted measured times
// (flopspack_prediction_quality): prediction = Scale*cost + Offset.
type PredictionQuality struct {
	Scale               float64 `json:"scale"`
	Offset              float64 `json:"offset"`
	RSquared            float64 `json:"r_squared"`    // 1 - SS_res/SS_tot (< 0 possible held out)
	RMSResidual         float64 `json:"rms_residual"` // in the unit of seconds
	MeanRelativeError   float64 `json:"mean_relative_error"`
	MedianRelativeError float64 `json:"median_relative_error"`
	MaxRelativeError    float64 `json:"max_relative_error"`
	NumSamples          uint64  `json:"num_samples"`
}

// EvaluateOptions choose the affine map of the predictions. The zero value
// is not the default: use DefaultEvaluateOptions (Scale 1), or nil.
type EvaluateOptions struct {
	// FitScale fits Scale and Offset (both >= 0) to the samples by least
	// squares first, for models that count FLOPs or tokens.
	FitScale      bool
	Scale, Offset float64 // used when !FitScale
}

// DefaultEvaluateOptions: the model's unit is seconds (Scale 1, Offset 0).
func DefaultEvaluateOptions() EvaluateOptions { return EvaluateOptions{Scale: 1} }

// PredictionQuality compares the model's predictions of samples[i] (the
// document lengths of a packed sequence) with seconds[i] (finite, > 0).
// opts nil means DefaultEvaluateOptions.
func (m *CostModel) PredictionQuality(samples [][]int64, seconds []float64, opts *EvaluateOptions) (PredictionQuality, error) {
	offsets := make([]uint64, len(samples)+1)
	var flat []int64
	for i, s := range samples {
		flat = append(flat, s...)
		offsets[i+1] = offsets[i] + uint64(len(s))
	}
	return m.PredictionQualityCSR(flat, offsets, seconds, opts)
}

// PredictionQualityCSR is PredictionQuality on flat arrays: sample i is
// lengths[offsets[i]:offsets[i+1]], len(offsets) == len(seconds)+1.
func (m *CostModel) PredictionQualityCSR(lengths []int64, offsets []uint64, seconds []float64, opts *EvaluateOptions) (PredictionQuality, error) {
	h, err := m.handle()
	if err != nil {
		return PredictionQuality{}, err
	}
	o := DefaultEvaluateOptions()
	if opts != nil {
		o = *opts
	}
	options := capi.NewFlopspack_evaluate_options()
	defer capi.DeleteFlopspack_evaluate_options(options)
	options.SetFit_scale(b2i(o.FitScale))
	options.SetScale(o.Scale)
	options.SetOffset(o.Offset)
	out := capi.NewFlopspack_prediction_quality()
	defer capi.DeleteFlopspack_prediction_quality(out)
	err = capi.Flopspack_swig_cost_model_evaluate(h, options, lengths, offsets, seconds, out)
	runtime.KeepAlive(m)
	if err != nil {
		return PredictionQuality{}, m.explain(err)
	}
	return PredictionQuality{
		Scale: out.GetScale(), Offset: out.GetOffset(), RSquared: out.GetR_squared(),
		RMSResidual: out.GetRms_residual(), MeanRelativeError: out.GetMean_relative_error(),
		MedianRelativeError: out.GetMedian_relative_error(),
		MaxRelativeError:    out.GetMax_relative_error(), NumSamples: out.GetNum_samples(),
	}, nil
}
