package flopspack

// Cost-model files and prediction quality: the shared golden files
// (tests/golden/cost_model_files.json, prediction_quality.json) read and
// rejected as in C++, Python and Rust; round trips to the last bit.

import (
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestCostModelFileGolden(t *testing.T) {
	valid, invalid := 0, 0
	for _, raw := range loadGolden(t, "cost_model_files.json") {
		var c struct {
			Name         string
			Text         string
			Error        *string
			Unit         string
			Coefficients PolynomialCoefficients
			Queries      []struct {
				Lengths      []int64
				SequenceCost float64 `json:"sequence_cost"`
			}
		}
		if err := json.Unmarshal(raw, &c); err != nil {
			t.Fatal(err)
		}
		f, err := ParseCostModelFile([]byte(c.Text))
		if c.Error != nil {
			invalid++
			var e *Error
			if err == nil || !errors.As(err, &e) || e.Status != StatusInvalidArgument {
				t.Fatalf("%s: accepted or wrong error: %v", c.Name, err)
			}
			if !strings.Contains(e.Message, *c.Error) || !strings.HasPrefix(e.Message, "cost model file: ") {
				t.Errorf("%s: %q does not name %q", c.Name, e.Message, *c.Error)
			}
			continue
		}
		valid++
		if err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		if f.Unit != c.Unit {
			t.Errorf("%s: unit %q", c.Name, f.Unit)
		}
		if !sameCoefficients(f.Coefficients, c.Coefficients) {
			t.Errorf("%s: %+v vs %+v", c.Name, f.Coefficients, c.Coefficients)
		}
		m, err := f.Model()
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range c.Queries {
			cost, err := m.SequenceCost(q.Lengths)
			if err != nil || math.Float64bits(cost) != math.Float64bits(q.SequenceCost) {
				t.Errorf("%s: cost %v vs %v (%v)", c.Name, cost, q.SequenceCost, err)
			}
		}
		// Written back and read again: the same content, the same bits.
		path := filepath.Join(t.TempDir(), "m.json")
		if err := f.Write(path); err != nil {
			t.Fatal(err)
		}
		again, err := ReadCostModelFile(path)
		if err != nil || !reflect.DeepEqual(again, f) {
			t.Errorf("%s: round trip %+v vs %+v (%v)", c.Name, again, f, err)
		}
		m.Close()
	}
	if valid < 3 || invalid < 12 {
		t.Fatalf("%d valid, %d invalid cases", valid, invalid)
	}
}

func sameCoefficients(a, b PolynomialCoefficients) bool {
	return math.Float64bits(a.PerSequence) == math.Float64bits(b.PerSequence) &&
		math.Float64bits(a.PerDocument) == math.Float64bits(b.PerDocument) &&
		math.Float64bits(a.Linear) == math.Float64bits(b.Linear) &&
		math.Float64bits(a.Quadratic) == math.Float64bits(b.Quadratic)
}

func TestPredictionQualityGolden(t *testing.T) {
	cases := loadGolden(t, "prediction_quality.json")
	if len(cases) < 4 {
		t.Fatalf("%d cases", len(cases))
	}
	for _, raw := range cases {
		var c struct {
			Name     string
			Model    modelSpec
			Lengths  []int64
			Offsets  []uint64
			Seconds  []float64
			FitScale int `json:"fit_scale"`
			Scale    float64
			Offset   float64
			Quality  PredictionQuality
		}
		if err := json.Unmarshal(raw, &c); err != nil {
			t.Fatal(err)
		}
		m := makeModel(t, &c.Model)
		q, err := m.PredictionQualityCSR(c.Lengths, c.Offsets, c.Seconds,
			&EvaluateOptions{FitScale: c.FitScale == 1, Scale: c.Scale, Offset: c.Offset})
		if err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		got, want := reflect.ValueOf(q), reflect.ValueOf(c.Quality)
		for i := 0; i < got.NumField(); i++ {
			g, w := got.Field(i), want.Field(i)
			if g.Kind() == reflect.Float64 && math.Float64bits(g.Float()) != math.Float64bits(w.Float()) ||
				g.Kind() == reflect.Uint64 && g.Uint() != w.Uint() {
				t.Errorf("%s %s: %v vs %v", c.Name, got.Type().Field(i).Name, g, w)
			}
		}
		m.Close()
	}
}

func TestCostModelSaveLoadRoundTrip(t *testing.T) {
	samples := [][]int64{{100}, {200, 50}, {300, 300, 10}, {4000}, {77, 7}, {1000, 3}}
	seconds := []float64{1.1, 2.3, 4.2, 0.8 + 1.0/3, 9.9, 0.7}
	fitted, _, err := FitCostModel(samples, seconds, FitAll)
	if err != nil {
		t.Fatal(err)
	}
	poly, _ := NewPolynomialModel(0.1/3, math.Nextafter(1e-3, 1), 2.718281828459045e-7, 1/7e9)
	tokens, _ := NewTokensModel()
	dir := t.TempDir()
	for i, m := range []*CostModel{fitted, poly, tokens} {
		path := filepath.Join(dir, "m.json")
		f, err := NewCostModelFile(m)
		if err != nil {
			t.Fatal(err)
		}
		train, err := m.PredictionQuality(samples, seconds, &EvaluateOptions{FitScale: true})
		if err != nil {
			t.Fatal(err)
		}
		f.Provenance = map[string]string{"source": "go test"}
		f.Quality = []ModelQuality{{Model: "fitted", Train: train, HeldOut: &train}}
		if err := f.Write(path); err != nil {
			t.Fatal(err)
		}
		loaded, err := LoadCostModel(path)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := m.Coefficients()
		got, _ := loaded.Coefficients()
		if !sameCoefficients(got, want) {
			t.Errorf("model %d: %+v vs %+v", i, got, want)
		}
		back, err := ReadCostModelFile(path)
		if err != nil || !reflect.DeepEqual(back, f) {
			t.Errorf("model %d: %+v vs %+v (%v)", i, back, f, err)
		}
		if err := m.Save(path); err != nil {
			t.Fatal(err)
		}
		loaded.Close()
	}
	// Only the file is left behind: the temporary file was renamed.
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("%d files in the directory", len(entries))
	}
}

func TestCostModelFileBadInput(t *testing.T) {
	transformer, err := NewTransformerModel(TransformerConfig{NumLayers: 2, HiddenSize: 64,
		NumAttentionHeads: 4, NumKeyValueHeads: 4, IntermediateSize: 256, Causal: true})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "t.json")
	if err := transformer.Save(path); !errors.Is(err, ErrInvalidArgument) ||
		!strings.Contains(err.Error(), "only a tokens, polynomial or fitted model") {
		t.Errorf("transformer saved: %v", err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("a file was written")
	}
	os.WriteFile(path, []byte(`{"format": "flopspack-cost-model", "version": 3}`), 0o644)
	if _, err := LoadCostModel(path); err == nil || !strings.Contains(err.Error(), "t.json: cost model file: version 3") {
		t.Errorf("version 3: %v", err)
	}
	if _, err := LoadCostModel(path + ".missing"); !os.IsNotExist(err) {
		t.Errorf("missing file: %v", err)
	}
	tokens, _ := NewTokensModel()
	if _, err := tokens.PredictionQuality([][]int64{{1}, {2}}, []float64{1, 0}, nil); !errors.Is(err, ErrInvalidArgument) ||
		!strings.Contains(err.Error(), "seconds[1] = 0") {
		t.Errorf("zero time: %v", err)
	}
	if _, err := tokens.PredictionQuality(nil, nil, nil); err == nil || !strings.Contains(err.Error(), "0 samples are too few") {
		t.Errorf("no samples: %v", err)
	}
	boom := errors.New("boom")
	custom, _ := NewCustomModel(func([]int64) (float64, error) { return 0, boom })
	if _, err := custom.PredictionQuality([][]int64{{1}}, []float64{1}, nil); !errors.Is(err, boom) {
		t.Errorf("callback error not the cause: %v", err)
	}
	if _, err := custom.Coefficients(); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("custom coefficients: %v", err)
	}
	tokens.Close()
	if _, err := tokens.Coefficients(); !errors.Is(err, ErrClosed) {
		t.Errorf("closed: %v", err)
	}
}
