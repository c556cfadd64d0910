package flopspack

// Cost-model files: a fitted (or any polynomial) cost model as a small,
// versioned JSON file that every binding and the CLI read. The format is
// specified in docs/cost-models.md ("Cost-model files").

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
)

const (
	// CostModelFileFormat is the "format" of a cost-model file.
	CostModelFileFormat = "flopspack-cost-model"
	// CostModelFileVersion is the version this package reads and writes.
	CostModelFileVersion = 1
)

// ModelQuality is one row of a prediction-quality table: how well Model
// ("fitted", "flops", "tokens", ...) predicted the training samples and the
// held-out ones (nil when nothing was held out).
type ModelQuality struct {
	Model   string             `json:"model"`
	Train   PredictionQuality  `json:"train"`
	HeldOut *PredictionQuality `json:"held_out,omitempty"`
}

// CostModelFile is the content of a cost-model file (version 1).
type CostModelFile struct {
	Coefficients PolynomialCoefficients
	Unit         string            // what a cost counts; "seconds" for a calibration
	Attention    string            // "document": each document costs on its own
	Provenance   map[string]string // where the numbers come from, for people
	Quality      []ModelQuality
}

// NewCostModelFile describes a tokens, polynomial or fitted model; set
// Provenance and Quality, then Write.
func NewCostModelFile(m *CostModel) (*CostModelFile, error) {
	c, err := m.Coefficients()
	if err != nil {
		return nil, err
	}
	return &CostModelFile{Coefficients: c, Unit: "seconds", Attention: "document"}, nil
}

// Model makes the cost model the file describes.
func (f *CostModelFile) Model() (*CostModel, error) {
	c := f.Coefficients
	return NewPolynomialModel(c.PerSequence, c.PerDocument, c.Linear, c.Quadratic)
}

type costModelFileJSON struct {
	Format       string                 `json:"format"`
	Version      int                    `json:"version"`
	Kind         string                 `json:"kind"`
	Attention    string                 `json:"attention"`
	Unit         string                 `json:"unit"`
	Coefficients PolynomialCoefficients `json:"coefficients"`
	Provenance   map[string]string      `json:"provenance,omitempty"`
	Quality      []ModelQuality         `json:"quality,omitempty"`
}

// Marshal is the file's text: indented JSON whose numbers read back to the
// same bits (encoding/json writes the shortest exact form).
func (f *CostModelFile) Marshal() ([]byte, error) {
	unit, attention := f.Unit, f.Attention
	if unit == "" {
		unit = "seconds"
	}
	if attention == "" {
		attention = "document"
	}
	out, err := json.MarshalIndent(costModelFileJSON{
		Format: CostModelFileFormat, Version: CostModelFileVersion, Kind: "polynomial",
		Attention: attention, Unit: unit, Coefficients: f.Coefficients,
		Provenance: f.Provenance, Quality: f.Quality,
	}, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(out, '\n'), nil
}

// Write writes the file atomically (a temporary file renamed over path).
func (f *CostModelFile) Write(path string) error {
	data, err := f.Marshal()
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	if _, err = tmp.Write(data); err == nil {
		err = tmp.Close()
	} else {
		tmp.Close()
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}

func fileError(format string, args ...any) error {
	return &Error{Status: StatusInvalidArgument, Message: "cost model file: " + fmt.Sprintf(format, args...)}
}

// ParseCostModelFile reads and checks a cost-model file; unknown keys are
// ignored (a later revision of version 1 may add some).
func ParseCostModelFile(data []byte) (*CostModelFile, error) {
	if !json.Valid(data) {
		var v any
		err := json.Unmarshal(data, &v)
		return nil, fileError("not valid JSON: %v", err)
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil || top == nil {
		return nil, fileError("the top level is not a JSON object")
	}
	text := func(key string) (string, bool) {
		var s string
		raw, ok := top[key]
		return s, ok && json.Unmarshal(raw, &s) == nil
	}
	if s, ok := text("format"); !ok || s != CostModelFileFormat {
		return nil, fileError("\"format\" is %s, not %q", rawOr(top["format"]), CostModelFileFormat)
	}
	var version int
	if raw, ok := top["version"]; !ok || json.Unmarshal(raw, &version) != nil {
		return nil, fileError("\"version\" is %s, not an integer", rawOr(top["version"]))
	}
	if version != CostModelFileVersion {
		return nil, fileError("version %d is not supported (this library reads version %d)", version, CostModelFileVersion)
	}
	if s, ok := text("kind"); !ok || s != "polynomial" {
		return nil, fileError("kind %s is not supported (version 1 holds \"polynomial\" models)", rawOr(top["kind"]))
	}
	attention, ok := text("attention")
	if !ok || attention != "document" {
		return nil, fileError("attention %s is not supported (version 1 models cost each document on its own: \"document\")", rawOr(top["attention"]))
	}
	var coefficients map[string]json.RawMessage
	if raw, ok := top["coefficients"]; !ok || json.Unmarshal(raw, &coefficients) != nil || coefficients == nil {
		return nil, fileError("\"coefficients\" is missing or not an object")
	}
	f := &CostModelFile{Unit: "seconds", Attention: attention}
	for _, c := range []struct {
		name string
		to   *float64
	}{
		{"per_sequence", &f.Coefficients.PerSequence}, {"per_document", &f.Coefficients.PerDocument},
		{"linear", &f.Coefficients.Linear}, {"quadratic", &f.Coefficients.Quadratic},
	} {
		raw, ok := coefficients[c.name]
		if !ok {
			return nil, fileError("coefficients.%s is missing", c.name)
		}
		if err := json.Unmarshal(raw, c.to); err != nil {
			return nil, fileError("coefficients.%s = %s: must be a number (%v)", c.name, raw, err)
		}
		if math.IsNaN(*c.to) || math.IsInf(*c.to, 0) || *c.to < 0 {
			return nil, fileError("coefficients.%s = %s: must be a finite number >= 0", c.name, raw)
		}
	}
	if raw, ok := top["unit"]; ok && json.Unmarshal(raw, &f.Unit) != nil {
		return nil, fileError("\"unit\" is %s, not a string", raw)
	}
	if raw, ok := top["provenance"]; ok && json.Unmarshal(raw, &f.Provenance) != nil {
		return nil, fileError("\"provenance\" must be an object of strings")
	}
	if raw, ok := top["quality"]; ok {
		var rows []struct {
			Model   *string            `json:"model"`
			Train   *PredictionQuality `json:"train"`
			HeldOut *PredictionQuality `json:"held_out"`
		}
		if err := json.Unmarshal(raw, &rows); err != nil {
			return nil, fileError("\"quality\" must be an array of rows (%v)", err)
		}
		for i, r := range rows {
			if r.Model == nil || r.Train == nil {
				return nil, fileError("quality[%d] needs \"model\" and \"train\"", i)
			}
			f.Quality = append(f.Quality, ModelQuality{Model: *r.Model, Train: *r.Train, HeldOut: r.HeldOut})
		}
	}
	return f, nil
}

func rawOr(raw json.RawMessage) string {
	if raw == nil {
		return "missing"
	}
	return string(bytes.TrimSpace(raw))
}

// ReadCostModelFile reads and checks the cost-model file at path.
func ReadCostModelFile(path string) (*CostModelFile, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	f, err := ParseCostModelFile(data)
	if e, ok := err.(*Error); ok {
		e.Message = path + ": " + e.Message
	}
	return f, err
}

// LoadCostModel makes the cost model of the file at path.
func LoadCostModel(path string) (*CostModel, error) {
	f, err := ReadCostModelFile(path)
	if err != nil {
		return nil, err
	}
	return f.Model()
}

// Save writes a tokens, polynomial or fitted model to a cost-model file
// (no provenance or quality: use NewCostModelFile for those).
func (m *CostModel) Save(path string) error {
	f, err := NewCostModelFile(m)
	if err != nil {
		return err
	}
	return f.Write(path)
}
