package flopspack

import (
	"runtime"

	"github.com/flopspack/flopspack/bindings/go/internal/capi"
)

// SimPolicy is how the emulated pipeline forms microbatches.
type SimPolicy int32

const (
	SimRandom           SimPolicy = 0
	SimTokenBalanced    SimPolicy = 1
	SimBuckets          SimPolicy = 2
	SimPlannerDocuments SimPolicy = 3
	SimPlannerRandom    SimPolicy = 4
	SimPlannerTokens    SimPolicy = 5
	SimPlannerSequences SimPolicy = 6
)

// SimSeries names a per-step series.
type SimSeries int32

const (
	SeriesStepTime          SimSeries = 0
	SeriesMeanRankCost      SimSeries = 1
	SeriesBalanceEfficiency SimSeries = 2
	SeriesFill              SimSeries = 3
	SeriesPaddingEfficiency SimSeries = 4
	SeriesRealTokens        SimSeries = 5
)

// SimulateOptions configure Simulate; start from DefaultSimulateOptions.
// (No progress callback from Go; see docs/bindings.md.)
type SimulateOptions struct {
	Policy                 SimPolicy
	NumRanks               uint64
	MicrobatchesPerRank    uint64
	TokensPerMicrobatch    int64
	MaxTokensPerMicrobatch int64
	NumSteps               uint64
	Seed                   uint64
	RecordSteps            bool
	// The trainer's topology (docs/straggler-emulator.md, Topology): a
	// step lasts the slowest rank (SyncStep), the sum over slots of each
	// slot's slowest microbatch (SyncMicrobatch), or with PipelineStages >= 2
	// the slowest replica's 1F1B makespan. The planner policies plan for it.
	Sync             Sync
	PipelineStages   uint32 // per replica; 0 or 1 = none, at most 1024
	PipelineSchedule PipelineSchedule
	// Context parallelism: every rank is a group of ContextParallelSize GPUs
	// (0 or 1 = none, at most 65,536) sharing each microbatch of that many
	// times TokensPerMicrobatch tokens (token counts stay per GPU), cut with
	// ContextParallelLayout; a microbatch costs its slowest CP rank.
	ContextParallelSize   uint32
	ContextParallelLayout CpLayout
}

// DefaultSimulateOptions returns the library's defaults.
func DefaultSimulateOptions() SimulateOptions {
	c := capi.NewFlopspack_simulate_options()
	defer capi.DeleteFlopspack_simulate_options(c)
	return SimulateOptions{Policy: SimPolicy(c.GetPolicy()), NumRanks: c.GetNum_ranks(),
		MicrobatchesPerRank: c.GetMicrobatches_per_rank(), TokensPerMicrobatch: c.GetTokens_per_microbatch(),
		MaxTokensPerMicrobatch: c.GetMax_tokens_per_microbatch(), NumSteps: c.GetNum_steps(),
		Seed: c.GetSeed(), RecordSteps: c.GetRecord_steps() == 1,
		Sync: Sync(c.GetSync()), PipelineStages: uint32(c.GetPipeline_stages()),
		PipelineSchedule:      PipelineSchedule(c.GetPipeline_schedule()),
		ContextParallelSize:   uint32(c.GetContext_parallel_size()),
		ContextParallelLayout: CpLayout(c.GetContext_parallel_layout())}
}

func (o SimulateOptions) toC() capi.Flopspack_simulate_options {
	c := capi.NewFlopspack_simulate_options()
	c.SetPolicy(int(o.Policy))
	c.SetNum_ranks(o.NumRanks)
	c.SetMicrobatches_per_rank(o.MicrobatchesPerRank)
	c.SetTokens_per_microbatch(o.TokensPerMicrobatch)
	c.SetMax_tokens_per_microbatch(o.MaxTokensPerMicrobatch)
	c.SetNum_steps(o.NumSteps)
	c.SetSeed(o.Seed)
	c.SetRecord_steps(b2i(o.RecordSteps))
	c.SetSync(int(o.Sync))
	c.SetPipeline_stages(uint(o.PipelineStages))
	c.SetPipeline_schedule(int(o.PipelineSchedule))
	c.SetContext_parallel_size(uint(o.ContextParallelSize))
	c.SetContext_parallel_layout(int(o.ContextParallelLayout))
	return c
}

// SimulationSummary mirrors flopspack_simulate_summary.
type SimulationSummary struct {
	NumSteps, NumRanks, MicrobatchesPerRank             uint64
	DocumentsDrawn, Epochs                              uint64
	MeanBalanceEfficiency                               float64
	P5BalanceEfficiency, P50BalanceEfficiency           float64
	P95BalanceEfficiency                                float64
	MeanFill, MeanPaddingEfficiency, RelativeThroughput float64
	MeanStepTime, PredictedEfficiency                   float64
	RealTokens, ComputedTokens                          int64
	// The topology the step times follow, and the mean efficiency under it
	// (useful work per GPU / step time; = MeanBalanceEfficiency under SyncStep).
	Sync               Sync
	PipelineStages     uint32
	PipelineSchedule   PipelineSchedule
	MeanSyncEfficiency float64
}

// Simulation is the result of Simulate (flopspack_simulate_result).
type Simulation struct{ ref cref }

// Simulate emulates a training run on the lengths with the cost model.
func Simulate(lengths []int64, model *CostModel, options SimulateOptions) (*Simulation, error) {
	m, err := model.handle()
	if err != nil {
		return nil, err
	}
	defer model.release()
	c := options.toC()
	defer capi.DeleteFlopspack_simulate_options(c)
	var h uintptr
	err = capi.Flopspack_simulate(lengths, m, c, &h)
	if err != nil {
		return nil, model.explain(err)
	}
	s := &Simulation{ref: cref{h: h, destroy: destroySimulation}}
	runtime.SetFinalizer(s, (*Simulation).Close)
	return s, nil
}

// SimulateWithExtraCosts is Simulate where document i costs the model's
// cost of its tokens plus extraCosts[i] (flopspack_simulate_with_extra_costs,
// docs/straggler-emulator.md, Extra costs): a document's pieces carry it in
// proportion to their tokens, the planner policies balance the full cost,
// and the documents drawn per step do not change. nil = none: Simulate.
func SimulateWithExtraCosts(lengths []int64, extraCosts []float64, model *CostModel, options SimulateOptions) (*Simulation, error) {
	if extraCosts == nil {
		return Simulate(lengths, model, options)
	}
	if err := checkExtraCostsLength(extraCosts, lengths); err != nil {
		return nil, err
	}
	m, err := model.handle()
	if err != nil {
		return nil, err
	}
	defer model.release()
	c := options.toC()
	defer capi.DeleteFlopspack_simulate_options(c)
	var h uintptr
	err = capi.Flopspack_swig_simulate_with_extra_costs(lengths, extraCosts, m, c, &h)
	if err != nil {
		return nil, model.explain(err)
	}
	s := &Simulation{ref: cref{h: h, destroy: destroySimulation}}
	runtime.SetFinalizer(s, (*Simulation).Close)
	return s, nil
}

func destroySimulation(h uintptr) {
	capi.DeleteFlopspack_simulate_result(capi.SwigcptrFlopspack_simulate_result(h))
}

// handle acquires the C object for a call; pair it with release.
func (s *Simulation) handle() (capi.Flopspack_simulate_result, error) {
	if s == nil {
		return nil, closedError("Simulation")
	}
	h, err := s.ref.acquire("Simulation")
	return capi.SwigcptrFlopspack_simulate_result(h), err
}

func (s *Simulation) release() { s.ref.release() }

// Summary returns the run's figures.
func (s *Simulation) Summary() (SimulationSummary, error) {
	h, err := s.handle()
	if err != nil {
		return SimulationSummary{}, err
	}
	defer s.release()
	c := capi.NewFlopspack_simulate_summary()
	defer capi.DeleteFlopspack_simulate_summary(c)
	err = capi.Flopspack_simulate_result_summary(h, c)
	var out SimulationSummary
	if err == nil {
		copyGetters(&out, c)
	}
	return out, err
}

// Series returns one value per step (needs RecordSteps).
func (s *Simulation) Series(kind SimSeries) ([]float64, error) {
	h, err := s.handle()
	if err != nil {
		return nil, err
	}
	defer s.release()
	var n uint64
	if err := capi.Flopspack_swig_simulate_series_size(h, int(kind), &n); err != nil {
		return nil, err
	}
	out := make([]float64, n)
	if err := capi.Flopspack_swig_simulate_series(h, int(kind), out); err != nil {
		return nil, err
	}
	return out, nil
}

// Pieces returns statistics of the document pieces the ranks saw.
func (s *Simulation) Pieces() (*Stats, error) {
	h, err := s.handle()
	if err != nil {
		return nil, err
	}
	defer s.release()
	var p uintptr
	err = capi.Flopspack_simulate_result_pieces(h, &p)
	if err != nil {
		return nil, err
	}
	return newStats(p), nil
}

// Close releases the result (idempotent): now, or when the calls
// running with it in other goroutines return. Later calls get ErrClosed.
func (s *Simulation) Close() error {
	if s != nil {
		s.ref.close()
	}
	return nil
}

// Sweep is efficiency versus GPUs, one entry per rank count.
type Sweep struct {
	RankCounts                                                 []uint64
	SampledEfficiency, PredictedEfficiency, RelativeThroughput []float64
}

// SimulateSweep simulates at each rank count (options.NumRanks ignored).
func SimulateSweep(lengths []int64, model *CostModel, options SimulateOptions, rankCounts []uint64) (Sweep, error) {
	m, err := model.handle()
	if err != nil {
		return Sweep{}, err
	}
	defer model.release()
	c := options.toC()
	defer capi.DeleteFlopspack_simulate_options(c)
	n := len(rankCounts)
	out := Sweep{RankCounts: append([]uint64(nil), rankCounts...), SampledEfficiency: make([]float64, n),
		PredictedEfficiency: make([]float64, n), RelativeThroughput: make([]float64, n)}
	err = capi.Flopspack_swig_simulate_sweep(lengths, m, c, rankCounts, out.SampledEfficiency,
		out.PredictedEfficiency, out.RelativeThroughput)
	if err != nil {
		return Sweep{}, model.explain(err)
	}
	return out, nil
}

// SimulateSweepWithExtraCosts is SimulateSweep with per-document extra
// costs, as SimulateWithExtraCosts (nil = none: SimulateSweep).
func SimulateSweepWithExtraCosts(lengths []int64, extraCosts []float64, model *CostModel, options SimulateOptions, rankCounts []uint64) (Sweep, error) {
	if extraCosts == nil {
		return SimulateSweep(lengths, model, options, rankCounts)
	}
	if err := checkExtraCostsLength(extraCosts, lengths); err != nil {
		return Sweep{}, err
	}
	m, err := model.handle()
	if err != nil {
		return Sweep{}, err
	}
	defer model.release()
	c := options.toC()
	defer capi.DeleteFlopspack_simulate_options(c)
	n := len(rankCounts)
	out := Sweep{RankCounts: append([]uint64(nil), rankCounts...), SampledEfficiency: make([]float64, n),
		PredictedEfficiency: make([]float64, n), RelativeThroughput: make([]float64, n)}
	err = capi.Flopspack_swig_simulate_sweep_with_extra_costs(lengths, extraCosts, m, c, rankCounts,
		out.SampledEfficiency, out.PredictedEfficiency, out.RelativeThroughput)
	if err != nil {
		return Sweep{}, model.explain(err)
	}
	return out, nil
}
