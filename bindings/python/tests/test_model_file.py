"""Cost-model files: the shared golden files (tests/golden/
cost_model_files.json, prediction_quality.json) read and rejected exactly as
in C++, Go and Rust; save/load round trips to the last bit; bad files and
models give clear errors."""
import json
import struct

import numpy as np
import pytest

import flopspack


def bits(x):
    return struct.unpack("<Q", struct.pack("<d", float(x)))[0]


def load(golden_dir, name):
    data = json.loads((golden_dir / name).read_text())
    assert data["format"] == "flopspack-golden-1"
    return data["cases"]


NAMES = ("per_sequence", "per_document", "linear", "quadratic")


def test_golden_files(golden_dir, tmp_path):
    cases = load(golden_dir, "cost_model_files.json")
    valid = [c for c in cases if "error" not in c]
    invalid = [c for c in cases if "error" in c]
    assert len(valid) >= 3 and len(invalid) >= 12
    for case in valid:
        file = flopspack.CostModelFile.parse(case["text"])
        assert file.unit == case["unit"], case["name"]
        got = file.coefficients
        assert [bits(getattr(got, n)) for n in NAMES] == [
            bits(case["coefficients"][n]) for n in NAMES], case["name"]
        model = file.model()
        for q in case["queries"]:
            assert bits(model.sequence_cost(q["lengths"])) == bits(q["sequence_cost"]), case["name"]
        # Written back and read again: the same file, the same bits.
        path = tmp_path / f"{len(case['name'])}.json"
        file.write(path)
        assert flopspack.CostModelFile.read(path) == file
        assert flopspack.CostModel.load(path).coefficients() == got
    for case in invalid:
        with pytest.raises(flopspack.InvalidArgumentError) as e:
            flopspack.CostModelFile.parse(case["text"])
        assert case["error"] in str(e.value), (case["name"], str(e.value))
        assert str(e.value).startswith("cost model file: ")


def test_golden_prediction_quality(golden_dir):
    cases = load(golden_dir, "prediction_quality.json")
    assert len(cases) >= 4
    for case in cases:
        spec = case["model"]
        if spec["kind"] == "tokens":
            model = flopspack.CostModel.tokens()
        elif spec["kind"] == "polynomial":
            model = flopspack.CostModel.polynomial(*(spec[n] for n in NAMES))
        else:
            fields = {k: v for k, v in spec.items() if k != "kind"}
            fields["attention_span"] = flopspack.AttentionSpan(fields["attention_span"])
            model = flopspack.CostModel.transformer(**fields)
        q = flopspack.prediction_quality_csr(
            model, case["lengths"], case["offsets"], case["seconds"],
            fit_scale=bool(case["fit_scale"]), scale=case["scale"], offset=case["offset"])
        want = case["quality"]
        got = {f: getattr(q, f) for f in want}
        assert got["num_samples"] == want["num_samples"]
        for name, value in want.items():
            assert bits(got[name]) == bits(value), (case["name"], name)


def test_save_load_round_trip_keeps_every_bit(tmp_path):
    # Coefficients with no short decimal form, a fitted model, and tokens.
    lengths = [[100], [200, 50], [300, 300, 10], [4000], [77, 7], [1000, 3]]
    seconds = [1.1, 2.3, 4.2, 0.8 + 1 / 3, 9.9, 0.7]
    fitted, _ = flopspack.CostModel.fit(lengths, seconds)
    models = [flopspack.CostModel.polynomial(0.1 / 3, np.nextafter(1e-3, 1), 2.718281828459045e-7,
                                             1 / 7e9),
              fitted, flopspack.CostModel.tokens()]
    quality = [flopspack.ModelQuality(
        "fitted", flopspack.prediction_quality(fitted, lengths, seconds),
        flopspack.prediction_quality(fitted, lengths[:3], seconds[:3]))]
    for i, model in enumerate(models):
        path = tmp_path / f"m{i}.json"
        model.save(path, provenance={"source": "test", "max_tokens": 4096}, quality=quality)
        again = flopspack.CostModel.load(path)
        assert again.coefficients() == model.coefficients()
        for docs in lengths:
            assert bits(again.sequence_cost(docs)) == bits(model.sequence_cost(docs))
        file = flopspack.CostModelFile.read(path)
        assert file.provenance == {"source": "test", "max_tokens": "4096"}
        assert file.quality == tuple(quality)
        text = path.read_text()
        assert json.loads(text)["format"] == "flopspack-cost-model" and text.endswith("}\n")


def test_bad_models_and_files(tmp_path):
    transformer = flopspack.CostModel.transformer(
        num_layers=2, hidden_size=64, num_attention_heads=4, num_key_value_heads=4,
        intermediate_size=256)
    with pytest.raises(flopspack.InvalidArgumentError, match="only a tokens, polynomial or fitted"):
        transformer.save(tmp_path / "t.json")
    assert not (tmp_path / "t.json").exists()
    with pytest.raises(flopspack.InvalidArgumentError, match="has polynomial coefficients"):
        flopspack.CostModel.custom(lambda l: 1.0).coefficients()
    path = tmp_path / "bad.json"
    path.write_text('{"format": "flopspack-cost-model", "version": 3}')
    with pytest.raises(flopspack.InvalidArgumentError, match=r"bad.json: cost model file: version 3"):
        flopspack.CostModel.load(path)
    with pytest.raises(FileNotFoundError):
        flopspack.CostModel.load(tmp_path / "missing.json")
    closed = flopspack.CostModel.tokens()
    closed.close()
    with pytest.raises(flopspack.ClosedError):
        closed.save(tmp_path / "c.json")
