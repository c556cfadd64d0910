package flopspack

import (
	"errors"
	"reflect"
	"testing"
)

// samePlan compares every group (items, tokens, offsets, info, rank, slot),
// the deferred list and the metrics.
func samePlan(t *testing.T, a, b *Plan) {
	t.Helper()
	ga, err := a.Groups()
	if err != nil {
		t.Fatal(err)
	}
	gb, err := b.Groups()
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(ga, gb) {
		t.Fatal("groups differ")
	}
	da, _ := a.Deferred()
	db, _ := b.Deferred()
	if !reflect.DeepEqual(da, db) {
		t.Fatal("deferred lists differ")
	}
	ma, _ := a.Metrics()
	mb, _ := b.Metrics()
	if !reflect.DeepEqual(ma, mb) {
		t.Fatalf("metrics differ: %+v vs %+v", ma, mb)
	}
}

func TestStepContextPlansArePlanStepBitForBit(t *testing.T) {
	model := quadraticModel(t)
	ctx, err := NewStepContext()
	if err != nil {
		t.Fatal(err)
	}
	defer ctx.Close()
	cases := []func(*StepOptions){
		func(o *StepOptions) { o.NumRanks, o.MicrobatchesPerRank, o.MaxTokensPerMicrobatch = 8, 2, 4096 },
		func(o *StepOptions) { o.NumRanks, o.MaxTokensPerMicrobatch = 4, 1024 }, // M = 0, splits
		func(o *StepOptions) {
			o.NumRanks, o.MicrobatchesPerRank, o.MaxTokensPerMicrobatch = 16, 4, 2048
			o.Overflow = OverflowDefer
		},
		func(o *StepOptions) {
			o.NumRanks, o.MicrobatchesPerRank, o.MaxTokensPerMicrobatch = 8, 3, 4096
			o.Sync = SyncMicrobatch
		},
		func(o *StepOptions) {
			o.NumRanks, o.MaxTokensPerMicrobatch = 8, 2048
			o.Algorithm = StepSequences
		},
	}
	compared := 0
	for round := 0; round < 2; round++ {
		for i, set := range cases {
			opts := DefaultStepOptions()
			set(&opts)
			lengths := randomLengths(20+15*i, int64(round*10+i), 1000)
			want, err := PlanStep(lengths, model, opts)
			if err != nil {
				t.Fatal(err)
			}
			got, err := ctx.PlanStep(lengths, model, opts)
			if err != nil {
				t.Fatal(err)
			}
			samePlan(t, want, got)
			want.Close()
			got.Close()
			compared++
		}
	}
	if kept, _ := ctx.KeptBytes(); kept == 0 || compared != 2*len(cases) {
		t.Fatalf("kept %d bytes after %d plans", kept, compared)
	}
}

func TestStepContextReserveAndPlansOutliveIt(t *testing.T) {
	model := quadraticModel(t)
	ctx, err := NewStepContext()
	if err != nil {
		t.Fatal(err)
	}
	opts := DefaultStepOptions()
	opts.NumRanks, opts.MicrobatchesPerRank, opts.MaxTokensPerMicrobatch = 32, 4, 4096
	if err := ctx.Reserve(model, 5000, opts); err != nil {
		t.Fatal(err)
	}
	reserved, _ := ctx.KeptBytes()
	if reserved < 5000*8 {
		t.Fatalf("reserved %d bytes", reserved)
	}
	lengths := randomLengths(3000, 4, 300)
	plan, err := ctx.PlanStep(lengths, model, opts)
	if err != nil {
		t.Fatal(err)
	}
	ctx.Close()
	want, err := PlanStep(lengths, model, opts)
	if err != nil {
		t.Fatal(err)
	}
	samePlan(t, want, plan)
	plan.Close()
	want.Close()
	if _, err := ctx.PlanStep(lengths, model, opts); !errors.Is(err, ErrClosed) {
		t.Fatalf("closed context: %v", err)
	}
	bad, _ := NewStepContext()
	defer bad.Close()
	opts.NumRanks = 0
	var e *Error
	if _, err := bad.PlanStep(lengths, model, opts); !errors.As(err, &e) || e.Status != StatusInvalidArgument {
		t.Fatalf("num_ranks 0: %v", err)
	}
	if err := bad.Reserve(model, 10, opts); !errors.As(err, &e) || e.Status != StatusInvalidArgument {
		t.Fatalf("reserve with num_ranks 0: %v", err)
	}
	opts.NumRanks = 1
	if err := bad.Reserve(model, -1, opts); !errors.As(err, &e) || e.Status != StatusInvalidArgument {
		t.Fatalf("reserve for -1 documents: %v", err)
	}
}
