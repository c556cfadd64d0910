package flopspack

import (
	"errors"
	"math/rand"
	"reflect"
	"runtime"
	"sync"
	"testing"
)

// Memory safety at the edges (issue 21): no library memory is handed out
// past a call, and Close never frees a C object under a running call. The
// sanitizer stage of the CI runs these with the library under ASan, where a
// use-after-free aborts; without it they check what a broken binding gets
// wrong (a kept slice holding other data, a handle destroyed mid-call).

func lifetimeLengths(n int, max int64) []int64 {
	rng := rand.New(rand.NewSource(21))
	out := make([]int64, n)
	for i := range out {
		out[i] = 1 + rng.Int63n(max)
	}
	return out
}

func polyCost(lengths []int64) float64 {
	var c float64
	for _, l := range lengths {
		c += float64(l) + 1e-4*float64(l)*float64(l)
	}
	return c
}

func TestKeptCallbackSliceKeepsItsValues(t *testing.T) {
	var kept, snapshots [][]int64
	m, err := NewCustomModel(func(lengths []int64) (float64, error) {
		kept = append(kept, lengths) // kept past the call, as user code may do
		snapshots = append(snapshots, append([]int64(nil), lengths...))
		return polyCost(lengths), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	lengths := lifetimeLengths(400, 4000)
	plan, err := Pack(lengths, DefaultPackOptions(4096), m)
	if err != nil {
		t.Fatal(err)
	}
	plan.Close()
	m.Close()
	// Churn the C heap where the library's arrays were.
	for i := 0; i < 5; i++ {
		p, err := Pack(lifetimeLengths(5000, 4000), DefaultPackOptions(8192), nil)
		if err != nil {
			t.Fatal(err)
		}
		p.Close()
	}
	if len(kept) < 100 {
		t.Fatalf("only %d callback calls", len(kept))
	}
	for i := range kept {
		if !reflect.DeepEqual(kept[i], snapshots[i]) {
			t.Fatalf("kept slice %d changed after the call: %v, was %v", i, kept[i], snapshots[i])
		}
	}
}

// closeDuringCall closes obj from another goroutine while a callback of a
// call using it runs, and records whether the C object was still alive then.
type closeDuringCall struct {
	ref          *cref
	close        func() error
	fired        bool
	aliveInCall  bool
	closedInCall bool
}

func (c *closeDuringCall) fire() {
	if c.fired {
		return
	}
	c.fired = true
	done := make(chan struct{})
	go func() { c.close(); close(done) }()
	<-done
	c.ref.mu.Lock()
	c.aliveInCall = c.ref.h != 0
	c.closedInCall = c.ref.closed
	c.ref.mu.Unlock()
}

func (c *closeDuringCall) check(t *testing.T) {
	t.Helper()
	if !c.fired {
		t.Fatal("the callback never ran")
	}
	if !c.closedInCall || !c.aliveInCall {
		t.Fatalf("during the call: closed %v, C object alive %v (want both)", c.closedInCall, c.aliveInCall)
	}
	c.ref.mu.Lock()
	h, users := c.ref.h, c.ref.users
	c.ref.mu.Unlock()
	if h != 0 || users != 0 {
		t.Fatalf("after the call: handle %#x, %d users (want destroyed, 0)", h, users)
	}
}

func TestClosingACustomModelDuringItsOwnCall(t *testing.T) {
	var closing *closeDuringCall
	m, err := NewCustomModel(func(lengths []int64) (float64, error) {
		closing.fire()
		return polyCost(lengths), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	closing = &closeDuringCall{ref: &m.ref, close: m.Close}
	lengths := lifetimeLengths(300, 4000)
	got, err := Pack(lengths, DefaultPackOptions(4096), m)
	if err != nil {
		t.Fatal(err)
	}
	defer got.Close()
	closing.check(t)
	ref, _ := NewCustomModel(func(l []int64) (float64, error) { return polyCost(l), nil })
	defer ref.Close()
	want, err := Pack(lengths, DefaultPackOptions(4096), ref)
	if err != nil {
		t.Fatal(err)
	}
	defer want.Close()
	gm, _ := got.Metrics()
	wm, _ := want.Metrics()
	if gm != wm {
		t.Fatalf("metrics differ: %+v vs %+v", gm, wm)
	}
	if _, err := m.SequenceCost([]int64{1}); !errors.Is(err, ErrClosed) {
		t.Fatalf("want ErrClosed, got %v", err)
	}
}

func TestClosingAStreamPackerDuringTake(t *testing.T) {
	var closing *closeDuringCall
	m, err := NewCustomModel(func(lengths []int64) (float64, error) {
		if closing != nil {
			closing.fire()
		}
		return polyCost(lengths), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	options := DefaultStreamOptions(4096)
	options.Window = 64
	p, err := NewStreamPacker(options, m)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Push(lifetimeLengths(500, 4000)); err != nil {
		t.Fatal(err)
	}
	if err := p.Flush(); err != nil {
		t.Fatal(err)
	}
	ready, _ := p.Ready()
	closing = &closeDuringCall{ref: &p.ref, close: p.Close}
	plan, err := p.Take() // costs the sequences through the callback
	if err != nil {
		t.Fatal(err)
	}
	defer plan.Close()
	closing.check(t)
	if plan.NumGroups() != ready {
		t.Fatalf("%d groups, %d were ready", plan.NumGroups(), ready)
	}
	if err := p.Push([]int64{1}); !errors.Is(err, ErrClosed) {
		t.Fatalf("want ErrClosed, got %v", err)
	}
}

func TestClosingAStepPlannerDuringNext(t *testing.T) {
	var closing *closeDuringCall
	m, err := NewCustomModel(func(lengths []int64) (float64, error) {
		if closing != nil {
			closing.fire()
		}
		return polyCost(lengths), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	options := DefaultStepOptions()
	options.NumRanks, options.MaxTokensPerMicrobatch, options.MicrobatchesPerRank = 4, 8192, 2
	p, err := NewStepPlanner(m, options, DefaultStepPlannerOptions())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Push(lifetimeLengths(64, 4000)); err != nil {
		t.Fatal(err)
	}
	closing = &closeDuringCall{ref: &p.ref, close: p.Close}
	plan, err := p.Next()
	if err != nil {
		t.Fatal(err)
	}
	defer plan.Close()
	closing.check(t)
	if metrics, _ := plan.Metrics(); metrics.NumRanks != 4 || metrics.RealTokens == 0 {
		t.Fatalf("plan %+v", metrics)
	}
	if _, err := p.Next(); !errors.Is(err, ErrClosed) {
		t.Fatalf("want ErrClosed, got %v", err)
	}
}

func TestCloseWithoutARunningCallReleasesAtOnce(t *testing.T) {
	m, _ := NewTokensModel()
	plan, _ := Pack([]int64{5, 7}, DefaultPackOptions(10), nil)
	stats, _ := NewStats([]int64{1, 2, 3}, nil)
	refs := []*cref{&m.ref, &plan.ref, &stats.ref}
	m.Close()
	plan.Close()
	stats.Close()
	for i, r := range refs {
		if r.h != 0 || !r.closed {
			t.Fatalf("object %d: handle %#x closed %v", i, r.h, r.closed)
		}
	}
	m.Close() // idempotent
}

// Goroutines share a model while one closes it: every call answers right or
// returns ErrClosed, and once closed it stays closed.
func TestGoroutinesSharingAModelWhileOneClosesIt(t *testing.T) {
	m, err := NewPolynomialModel(0, 0, 1, 1e-4)
	if err != nil {
		t.Fatal(err)
	}
	docs := lifetimeLengths(2000, 4000)
	want, _ := m.SequenceCost(docs)
	const workers = 8
	var start, wg sync.WaitGroup
	start.Add(1)
	failures := make(chan string, workers)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			start.Wait()
			closed := false
			for i := 0; i < 400; i++ {
				got, err := m.SequenceCost(docs)
				switch {
				case errors.Is(err, ErrClosed):
					closed = true
				case err != nil:
					failures <- err.Error()
					return
				case closed:
					failures <- "a call succeeded after one saw the model closed"
					return
				case got != want:
					failures <- "wrong cost"
					return
				}
				runtime.Gosched()
			}
		}()
	}
	start.Done()
	runtime.Gosched()
	m.Close()
	wg.Wait()
	close(failures)
	for f := range failures {
		t.Fatal(f)
	}
	if m.ref.h != 0 || m.ref.users != 0 {
		t.Fatalf("after all calls: handle %#x, %d users", m.ref.h, m.ref.users)
	}
}

func TestGoroutinesReadingAPlanWhileOneClosesIt(t *testing.T) {
	plan, err := Pack(lifetimeLengths(5000, 4000), DefaultPackOptions(8192), nil)
	if err != nil {
		t.Fatal(err)
	}
	groups, err := plan.Groups()
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	bad := make(chan int, 4)
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for g := range groups {
				items, err := plan.Items(g)
				if errors.Is(err, ErrClosed) {
					return
				}
				if err != nil || !reflect.DeepEqual(items, groups[g].Items) {
					bad <- g
					return
				}
			}
		}()
	}
	plan.Close()
	wg.Wait()
	close(bad)
	for g := range bad {
		t.Fatalf("group %d read wrong while closing", g)
	}
}

func TestNegativeGroupIndexIsOutOfRange(t *testing.T) {
	plan, err := Pack([]int64{5, 7}, DefaultPackOptions(10), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer plan.Close()
	_, errItems := plan.Items(-1)
	_, errTokens := plan.Tokens(-1)
	_, errInfo := plan.Info(-1)
	_, _, errSlot := plan.Slot(-1)
	for _, err := range []error{errItems, errTokens, errInfo, errSlot} {
		var e *Error
		if !errors.As(err, &e) || e.Status != StatusOutOfRange || e.Message != "group -1 is out of range: it must not be negative" {
			t.Fatalf("negative group: %v", err)
		}
	}
	if _, err := plan.Items(2); !errors.Is(err, ErrOutOfRange) {
		t.Fatalf("group past the end: %v", err)
	}
}
