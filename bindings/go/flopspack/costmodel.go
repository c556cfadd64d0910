package flopspack

import (
	"errors"
	"runtime"

	"github.com/flopspack/flopspack/bindings/go/internal/capi"
)

// CostModel says what a packed sequence costs (flopspack_cost_model). It is
// immutable and safe for concurrent use, and Close may race other calls (a
// running call finishes on the live model).
type CostModel struct {
	ref  cref
	kind string
	cb   *capi.Callback // custom models only
}

// AttentionSpan says how far attention reaches inside a packed sequence.
type AttentionSpan int32

const (
	// AttentionDocument: each document attends within itself (varlen).
	AttentionDocument AttentionSpan = 0
	// AttentionSequence: the whole packed sequence attends as one.
	AttentionSequence AttentionSpan = 1
)

// TransformerConfig describes a dense decoder-only transformer. Start from
// DefaultTransformerConfig for the C defaults (causal, document attention).
type TransformerConfig struct {
	NumLayers, HiddenSize, NumAttentionHeads, NumKeyValueHeads int64
	HeadDim                                                    int64 // 0 = HiddenSize / NumAttentionHeads
	IntermediateSize                                           int64 // FFN width
	VocabSize                                                  int64 // 0 = no LM head term
	GatedMLP                                                   bool  // three FFN matrices (SwiGLU-style)
	Causal                                                     bool  // count only the l(l+1)/2 kept scores
	Recompute                                                  bool  // full activation recompute: 4x forward
	AttentionSpan                                              AttentionSpan
}

// DefaultTransformerConfig returns flopspack_transformer_config_init's
// defaults: every dimension 0 (to be filled in), Causal true.
func DefaultTransformerConfig() TransformerConfig {
	return TransformerConfig{Causal: true, AttentionSpan: AttentionDocument}
}

// FitTerm selects terms of the polynomial form to fit (bit flags).
type FitTerm uint32

const (
	FitPerSequence FitTerm = FitTerm(capi.FLOPSPACK_FIT_PER_SEQUENCE)
	FitPerDocument FitTerm = FitTerm(capi.FLOPSPACK_FIT_PER_DOCUMENT)
	FitLinear      FitTerm = FitTerm(capi.FLOPSPACK_FIT_LINEAR)
	FitQuadratic   FitTerm = FitTerm(capi.FLOPSPACK_FIT_QUADRATIC)
	FitAll         FitTerm = FitTerm(capi.FLOPSPACK_FIT_ALL)
)

// FitReport is what a fit found (flopspack_fit_report).
type FitReport struct {
	PerSequence, PerDocument, Linear, Quadratic float64
	RSquared                                    float64
	RMSResidual                                 float64
	NumSamples                                  uint64
}

func newCostModel(h uintptr, kind string, cb *capi.Callback) *CostModel {
	m := &CostModel{ref: cref{h: h, destroy: destroyCostModel}, kind: kind, cb: cb}
	runtime.SetFinalizer(m, (*CostModel).finalize)
	return m
}

// NewTokensModel: cost = number of tokens.
func NewTokensModel() (*CostModel, error) {
	var h uintptr
	if err := capi.Flopspack_cost_model_tokens(&h); err != nil {
		return nil, err
	}
	return newCostModel(h, "tokens", nil), nil
}

// NewPolynomialModel: perDocument + linear*l + quadratic*l^2 per document of
// length l, plus perSequence once per non-empty sequence.
func NewPolynomialModel(perSequence, perDocument, linear, quadratic float64) (*CostModel, error) {
	var h uintptr
	if err := capi.Flopspack_cost_model_polynomial(perSequence, perDocument, linear, quadratic, &h); err != nil {
		return nil, err
	}
	return newCostModel(h, "polynomial", nil), nil
}

func b2i(b bool) int { // C flags are 0 or 1
	if b {
		return 1
	}
	return 0
}

// NewTransformerModel: training FLOPs of a dense transformer.
func NewTransformerModel(config TransformerConfig) (*CostModel, error) {
	c := capi.NewFlopspack_transformer_config() // struct_size and defaults set
	defer capi.DeleteFlopspack_transformer_config(c)
	c.SetNum_layers(config.NumLayers)
	c.SetHidden_size(config.HiddenSize)
	c.SetNum_attention_heads(config.NumAttentionHeads)
	c.SetNum_key_value_heads(config.NumKeyValueHeads)
	c.SetHead_dim(config.HeadDim)
	c.SetIntermediate_size(config.IntermediateSize)
	c.SetVocab_size(config.VocabSize)
	c.SetGated_mlp(b2i(config.GatedMLP))
	c.SetCausal(b2i(config.Causal))
	c.SetRecompute(b2i(config.Recompute))
	c.SetAttention_span(int(config.AttentionSpan))
	var h uintptr
	if err := capi.Flopspack_cost_model_transformer(c, &h); err != nil {
		return nil, err
	}
	return newCostModel(h, "transformer", nil), nil
}

// FitCostModel fits the polynomial form by non-negative least squares:
// samples[i] holds the document lengths of a packed sequence measured to
// take seconds[i].
func FitCostModel(samples [][]int64, seconds []float64, terms FitTerm) (*CostModel, FitReport, error) {
	offsets := make([]uint64, len(samples)+1)
	var flat []int64
	for i, s := range samples {
		flat = append(flat, s...)
		offsets[i+1] = offsets[i] + uint64(len(s))
	}
	return FitCostModelCSR(flat, offsets, seconds, terms)
}

// FitCostModelCSR is FitCostModel on flat arrays: sample i is
// lengths[offsets[i]:offsets[i+1]], len(offsets) == len(seconds)+1.
func FitCostModelCSR(lengths []int64, offsets []uint64, seconds []float64, terms FitTerm) (*CostModel, FitReport, error) {
	options := capi.NewFlopspack_fit_options()
	defer capi.DeleteFlopspack_fit_options(options)
	options.SetTerms(uint(terms))
	report := capi.NewFlopspack_fit_report()
	defer capi.DeleteFlopspack_fit_report(report)
	var h uintptr
	if err := capi.Flopspack_swig_cost_model_fit(options, lengths, offsets, seconds, report, &h); err != nil {
		return nil, FitReport{}, err
	}
	r := FitReport{
		PerSequence: report.GetPer_sequence(), PerDocument: report.GetPer_document(),
		Linear: report.GetLinear(), Quadratic: report.GetQuadratic(),
		RSquared: report.GetR_squared(), RMSResidual: report.GetRms_residual(),
		NumSamples: report.GetNum_samples(),
	}
	return newCostModel(h, "fit", nil), r, nil
}

// NewCustomModel: a model backed by a Go function computing the cost of one
// packed sequence from its document lengths (a copy fn owns and may keep).
// An error (or panic) from fn fails the calling function with
// StatusCallbackFailed, and the *Error's Cause is fn's error. fn may be
// called from any goroutine that uses the model.
func NewCustomModel(fn func(lengths []int64) (float64, error)) (*CostModel, error) {
	if fn == nil {
		return nil, &Error{Status: StatusInvalidArgument, Message: "fn must not be nil"}
	}
	cb := capi.NewCallback(fn)
	var h uintptr
	if err := capi.Flopspack_go_cost_model_custom(uint64(cb.Handle()), &h); err != nil {
		cb.Free()
		return nil, err
	}
	return newCostModel(h, "custom", cb), nil
}

func destroyCostModel(h uintptr) {
	capi.DeleteFlopspack_cost_model(capi.SwigcptrFlopspack_cost_model(h))
}

// handle acquires the C model for a call; pair it with release.
func (m *CostModel) handle() (capi.Flopspack_cost_model, error) {
	if m == nil {
		return nil, closedError("CostModel")
	}
	h, err := m.ref.acquire("CostModel")
	return capi.SwigcptrFlopspack_cost_model(h), err
}

// release ends a call that acquired the model; a nil model (cost = tokens
// where allowed) acquired nothing.
func (m *CostModel) release() {
	if m != nil {
		m.ref.release()
	}
}

// callbackError attaches a custom model's callback error to a failure.
func (m *CostModel) callbackError(err error) error { return m.explain(err) }

// explain attaches a custom model's callback error to a CALLBACK_FAILED
// error of any call that used the model (nil m: nothing to attach).
func (m *CostModel) explain(err error) error {
	var e *Error
	if m != nil && m.cb != nil && errors.As(err, &e) && e.Status == StatusCallbackFailed {
		e.Cause = m.cb.LastError()
	}
	return err
}

// SequenceCost is the cost of one packed sequence holding these documents.
func (m *CostModel) SequenceCost(lengths []int64) (float64, error) {
	h, err := m.handle()
	if err != nil {
		return 0, err
	}
	defer m.release()
	var cost float64
	err = capi.Flopspack_cost_model_sequence_cost(h, lengths, &cost)
	return cost, m.callbackError(err)
}

// DocumentCosts is the cost of each document alone (no per-sequence overhead).
func (m *CostModel) DocumentCosts(lengths []int64) ([]float64, error) {
	out := make([]float64, len(lengths))
	if err := m.DocumentCostsInto(lengths, out); err != nil {
		return nil, err
	}
	return out, nil
}

// DocumentCostsInto writes the document costs into out (len(out) must be
// len(lengths)); out is untouched on failure.
func (m *CostModel) DocumentCostsInto(lengths []int64, out []float64) error {
	h, err := m.handle()
	if err != nil {
		return err
	}
	defer m.release()
	err = capi.Flopspack_swig_cost_model_document_costs(h, lengths, out)
	return m.callbackError(err)
}

// PaddedBatchCost is the cost of a batch of samples each padded to the longest.
func (m *CostModel) PaddedBatchCost(lengths []int64) (float64, error) {
	h, err := m.handle()
	if err != nil {
		return 0, err
	}
	defer m.release()
	var cost float64
	err = capi.Flopspack_cost_model_padded_batch_cost(h, lengths, &cost)
	return cost, m.callbackError(err)
}

// SequenceOverhead is the constant a non-empty sequence costs on top of its
// documents.
func (m *CostModel) SequenceOverhead() (float64, error) {
	h, err := m.handle()
	if err != nil {
		return 0, err
	}
	defer m.release()
	var v float64
	err = capi.Flopspack_cost_model_sequence_overhead(h, &v)
	return v, err
}

// IsAdditive reports whether sequence cost = overhead + sum of document costs.
func (m *CostModel) IsAdditive() (bool, error) {
	h, err := m.handle()
	if err != nil {
		return false, err
	}
	defer m.release()
	var v int32
	err = capi.Flopspack_cost_model_is_additive(h, &v)
	return v == 1, err
}

// String describes the model, e.g. "flopspack.CostModel(transformer)".
func (m *CostModel) String() string {
	if m == nil || m.ref.isClosed() {
		return "flopspack.CostModel(closed)"
	}
	return "flopspack.CostModel(" + m.kind + ")"
}

// Close releases the C model (idempotent): now, or when the calls running
// with it in other goroutines return; later calls get ErrClosed. A custom
// model's Go function stays registered until the CostModel is
// garbage-collected, because objects made from the model (planners) may
// still call it.
func (m *CostModel) Close() error {
	if m != nil {
		m.ref.close()
	}
	return nil
}

func (m *CostModel) finalize() {
	m.Close()
	if m.cb != nil {
		m.cb.Free()
	}
}
