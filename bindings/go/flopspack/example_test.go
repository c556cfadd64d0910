package flopspack_test

import (
	"errors"
	"fmt"

	"github.com/flopspack/flopspack/bindings/go/flopspack"
)

// The training FLOPs of one 8K-token document in Llama-3-8B.
func ExampleNewTransformerModel() {
	config := flopspack.DefaultTransformerConfig()
	config.NumLayers, config.HiddenSize = 32, 4096
	config.NumAttentionHeads, config.NumKeyValueHeads = 32, 8
	config.IntermediateSize, config.VocabSize, config.GatedMLP = 14336, 128256, true
	model, err := flopspack.NewTransformerModel(config)
	if err != nil {
		panic(err)
	}
	defer model.Close()
	flops, _ := model.SequenceCost([]int64{8192})
	fmt.Printf("%.4g FLOPs\n", flops)
	// Output: 4.217e+14 FLOPs
}

// A bad argument comes back as an *Error with the library's message.
func ExampleError() {
	model, _ := flopspack.NewTokensModel()
	defer model.Close()
	_, err := model.SequenceCost([]int64{100, 0})
	var e *flopspack.Error
	if errors.As(err, &e) {
		fmt.Println(e.Status, "-", e.Message)
	}
	// Output: FLOPSPACK_INVALID_ARGUMENT - document_lengths[1] = 0: every length must be positive
}

// A Go function as the cost model.
func ExampleNewCustomModel() {
	model, _ := flopspack.NewCustomModel(func(lengths []int64) (float64, error) {
		var tokens int64
		for _, l := range lengths {
			tokens += l
		}
		return float64(tokens * tokens), nil // attention-like: quadratic in the sequence
	})
	defer model.Close()
	cost, _ := model.SequenceCost([]int64{3, 4})
	fmt.Println(cost)
	// Output: 49
}

// Documents streaming past, packed into 1000-token sequences.
func ExampleStreamPacker() {
	packer, _ := flopspack.NewStreamPacker(flopspack.DefaultStreamOptions(1000), nil)
	defer packer.Close()
	packer.Push([]int64{600, 300, 400, 700})
	packer.Flush()
	plan, _ := packer.Take()
	defer plan.Close()
	for g := 0; g < plan.NumGroups(); g++ {
		items, _ := plan.Items(g)
		tokens, _ := plan.Tokens(g)
		fmt.Println(items, tokens)
	}
	// Unordered output:
	// [3 1] [700 300]
	// [0 2] [600 400]
}

// Padded batches from length buckets, two ranks, one step at a time.
func ExampleBucketSampler() {
	lengths := []int64{100, 120, 900, 950, 110, 880, 130, 940}
	options := flopspack.DefaultBucketSamplerOptions()
	options.NumBuckets, options.MaxPaddedTokens, options.NumRanks = 2, 2000, 2
	sampler, err := flopspack.NewBucketSampler(lengths, options, nil)
	if err != nil {
		panic(err)
	}
	defer sampler.Close()
	bounds, _ := sampler.UpperBounds()
	steps, _ := sampler.StepsPerEpoch()
	fmt.Println("bounds", bounds, "steps per epoch", steps)
	// Output: bounds [130 950] steps per epoch 2
}
