package flopspack

import (
	"runtime"

	"github.com/flopspack/flopspack/bindings/go/internal/capi"
)

// Overflow says what happens to a document longer than the capacity.
type Overflow int32

const (
	OverflowError    Overflow = 0 // the push fails with StatusInvalidArgument
	OverflowTruncate Overflow = 1 // keep its first Capacity tokens
	OverflowSplit    Overflow = 2 // pieces of Capacity tokens plus the rest
	OverflowDefer    Overflow = 3 // left for a later step (step planner only)
)

// StreamOptions configure a StreamPacker. Start from DefaultStreamOptions.
type StreamOptions struct {
	Capacity int64  // tokens per sequence (required)
	Window   uint64 // documents held at most
	Overflow Overflow
	Seed     uint64 // shuffles the emission order of each batch of final sequences
}

// DefaultStreamOptions returns the library's defaults with this capacity.
func DefaultStreamOptions(capacity int64) StreamOptions {
	c := capi.NewFlopspack_stream_options()
	defer capi.DeleteFlopspack_stream_options(c)
	return StreamOptions{Capacity: capacity, Window: c.GetWindow(), Overflow: Overflow(c.GetOverflow()), Seed: c.GetSeed()}
}

// StreamTotals are the counters of a StreamPacker since creation.
type StreamTotals struct {
	DocumentsPushed, PiecesHeld, SequencesEmitted uint64
	TokensEmitted                                 int64
	SplitDocuments, TruncatedDocuments            uint64
	TruncatedTokens                               int64
}

// StreamPacker packs documents into fixed-capacity sequences while they
// stream past, holding at most Window documents (flopspack_stream_packer).
// Documents are numbered from 0 in push order. One goroutine at a time.
type StreamPacker struct {
	ref   cref
	model *CostModel // keeps a custom model's Go function registered
}

func modelHandle(model *CostModel) (capi.Flopspack_cost_model, error) {
	if model == nil {
		return capi.SwigcptrFlopspack_cost_model(0), nil // NULL: cost = tokens
	}
	return model.handle()
}

func newStreamPacker(h uintptr, model *CostModel) *StreamPacker {
	p := &StreamPacker{ref: cref{h: h, destroy: destroyStreamPacker}, model: model}
	runtime.SetFinalizer(p, (*StreamPacker).Close)
	return p
}

// NewStreamPacker makes a packer; model nil means cost = tokens.
func NewStreamPacker(options StreamOptions, model *CostModel) (*StreamPacker, error) {
	m, err := modelHandle(model)
	if err != nil {
		return nil, err
	}
	defer model.release()
	c := capi.NewFlopspack_stream_options() // struct_size and defaults set
	defer capi.DeleteFlopspack_stream_options(c)
	c.SetCapacity(options.Capacity)
	c.SetWindow(options.Window)
	c.SetOverflow(int(options.Overflow))
	c.SetSeed(options.Seed)
	var h uintptr
	err = capi.Flopspack_stream_packer_create(c, m, &h)
	if err != nil {
		return nil, err
	}
	return newStreamPacker(h, model), nil
}

// RestoreStreamPacker makes a packer from bytes made by Save.
func RestoreStreamPacker(state []byte, model *CostModel) (*StreamPacker, error) {
	m, err := modelHandle(model)
	if err != nil {
		return nil, err
	}
	defer model.release()
	var h uintptr
	err = capi.Flopspack_swig_stream_packer_restore(state, m, &h)
	if err != nil {
		return nil, err
	}
	return newStreamPacker(h, model), nil
}

func destroyStreamPacker(h uintptr) {
	capi.DeleteFlopspack_stream_packer(capi.SwigcptrFlopspack_stream_packer(h))
}

// handle acquires the C object for a call; pair it with release.
func (p *StreamPacker) handle() (capi.Flopspack_stream_packer, error) {
	if p == nil {
		return nil, closedError("StreamPacker")
	}
	h, err := p.ref.acquire("StreamPacker")
	return capi.SwigcptrFlopspack_stream_packer(h), err
}

func (p *StreamPacker) release() { p.ref.release() }

// Push adds documents (all or none on failure).
func (p *StreamPacker) Push(lengths []int64) error {
	h, err := p.handle()
	if err != nil {
		return err
	}
	defer p.release()
	err = capi.Flopspack_stream_packer_push(h, lengths)
	return p.model.explain(err)
}

// Flush makes every open sequence final.
func (p *StreamPacker) Flush() error {
	h, err := p.handle()
	if err != nil {
		return err
	}
	defer p.release()
	err = capi.Flopspack_stream_packer_flush(h)
	return p.model.explain(err)
}

// Ready is the number of final sequences waiting to be taken.
func (p *StreamPacker) Ready() (int, error) {
	h, err := p.handle()
	if err != nil {
		return 0, err
	}
	defer p.release()
	var n uint64
	err = capi.Flopspack_stream_packer_ready(h, &n)
	return int(n), err
}

// Take returns the sequences made final since the last Take.
func (p *StreamPacker) Take() (*Plan, error) {
	h, err := p.handle()
	if err != nil {
		return nil, err
	}
	defer p.release()
	var plan uintptr
	err = capi.Flopspack_stream_packer_take(h, &plan)
	if err != nil {
		return nil, err
	}
	return newPlan(plan), nil
}

// Totals returns the counters since creation.
func (p *StreamPacker) Totals() (StreamTotals, error) {
	h, err := p.handle()
	if err != nil {
		return StreamTotals{}, err
	}
	defer p.release()
	c := capi.NewFlopspack_stream_totals()
	defer capi.DeleteFlopspack_stream_totals(c)
	err = capi.Flopspack_stream_packer_totals(h, c)
	var t StreamTotals
	if err == nil {
		copyGetters(&t, c)
	}
	return t, err
}

// Save returns the whole state as bytes (versioned, checksummed).
func (p *StreamPacker) Save() ([]byte, error) {
	h, err := p.handle()
	if err != nil {
		return nil, err
	}
	defer p.release()
	var size uint64
	if err := capi.Flopspack_swig_stream_packer_save(h, nil, &size); err != nil {
		return nil, err
	}
	buffer := make([]byte, size)
	if err := capi.Flopspack_swig_stream_packer_save(h, buffer, &size); err != nil {
		return nil, err
	}
	return buffer[:size], nil
}

// Close releases the packer (idempotent): now, or when the calls
// running with it in other goroutines return. Later calls get ErrClosed.
func (p *StreamPacker) Close() error {
	if p != nil {
		p.ref.close()
	}
	return nil
}
