"""`flopspack fit` and `--cost-file` end to end: a fit on samples drawn from
known coefficients recovers them and beats tokens held out; the file it
saves costs documents exactly as its polynomial says in every subcommand;
bad samples and bad files exit 1 naming the line or the key; --cost and
--cost-file together exit 2.

Run by ctest with FLOPSPACK_CLI set (see test_cli.py).
"""
import json
import os
import random
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))
from test_cli import run, run_json  # noqa: E402

TRUE = {"per_sequence": 2e-3, "per_document": 3e-4, "linear": 9e-8, "quadratic": 4e-11}


def cost(lengths, c):
    return c["per_sequence"] + sum(
        c["per_document"] + c["linear"] * n + c["quadratic"] * n * n for n in lengths)


@pytest.fixture(scope="module")
def samples(tmp_path_factory):
    """48 packed sequences (one long document, many short, mixes) timed by
    the true polynomial with 1% noise."""
    r = random.Random(7)
    path = tmp_path_factory.mktemp("fit") / "samples.txt"
    lines = ["# seconds, then the document lengths of one packed sequence"]
    for i in range(48):
        if i % 3 == 0:
            lengths = [int(16 * 512 ** (i / 48))]
        else:
            lengths = [int(10 ** r.uniform(1.2, 3.6)) for _ in range(r.randint(2, 16))]
        seconds = cost(lengths, TRUE) * (1 + r.gauss(0, 0.01))
        lines.append(f"{seconds!r} " + " ".join(map(str, lengths)))
    path.write_text("\n".join(lines) + "\n")
    return path


def test_fit_recovers_the_polynomial_and_beats_tokens(tmp_path, samples):
    saved = tmp_path / "model.json"
    doc = run_json("fit", samples, "--save", saved, "--model", "llama3-8b")
    assert doc["samples"] == 48 and doc["held_out"] == 12
    c = doc["coefficients"]
    assert c["quadratic"] > 0
    for key in ("linear", "quadratic", "per_sequence"):
        assert c[key] == pytest.approx(TRUE[key], rel=0.25), key
    rows = {row["model"]: row for row in doc["quality"]}
    assert list(rows) == ["fitted", "flops", "tokens"]
    fitted, tokens = rows["fitted"]["held_out"], rows["tokens"]["held_out"]
    assert fitted["num_samples"] == 12
    assert fitted["mean_relative_error"] < 0.03  # noise is 1%
    assert fitted["mean_relative_error"] < tokens["mean_relative_error"] / 2
    # The saved file is a calibration report: model, quality and samples.
    file = json.loads(saved.read_text())
    assert file["format"] == "flopspack-cost-model" and file["version"] == 1
    assert file["coefficients"] == c
    assert len(file["samples"]) == 48
    assert [s["held_out"] for s in file["samples"]] == [i % 4 == 3 for i in range(48)]
    # Fitting the report again keeps its split and gives the same model.
    again = run_json("fit", saved)
    assert again["coefficients"] == c
    assert [row["model"] for row in again["quality"]] == ["fitted", "tokens"]


def test_cost_file_costs_documents_by_its_polynomial(tmp_path):
    model = tmp_path / "model.json"
    model.write_text(json.dumps({
        "format": "flopspack-cost-model", "version": 1, "kind": "polynomial",
        "attention": "document", "unit": "microseconds",
        "coefficients": {"per_sequence": 5, "per_document": 3, "linear": 0.5, "quadratic": 0.25}}))
    lengths = [1, 7, 100, 3000, 3000, 12345]
    data = tmp_path / "lengths.txt"
    data.write_text("\n".join(map(str, lengths)) + "\n")
    doc = run_json("stats", data, "--cost-file", model)
    assert doc["model"]["cost"] == "file" and doc["model"]["unit"] == "microseconds"
    want = sum(3 + 0.5 * n + 0.25 * n * n for n in lengths)
    assert doc["summary"]["total_cost"] == pytest.approx(want, rel=1e-12)
    text = run("stats", data, "--cost-file", model, check=0).stdout
    assert "fitted polynomial from" in text and "microseconds" in text
    # Every subcommand that takes --cost takes --cost-file.
    for command in ("pack", "plan", "balance", "simulate", "buckets"):
        usage = run(command, "--help", check=0).stdout
        assert "--cost-file" in usage or "--cost_file" in usage, command


def test_cost_and_cost_file_together_is_a_usage_error(tmp_path, samples):
    model = tmp_path / "model.json"
    run("fit", samples, "--save", model, check=0)
    result = run("stats", samples, "--cost-file", model, "--cost", "tokens", check=2)
    assert "--cost-file and --cost" in result.stderr


@pytest.mark.parametrize("content, fragment", [
    ("", "0 samples to fit are too few"),
    ("0.5 100\n0.5 200\nnan 300\n", "samples.txt:3: \"nan\" is not a time"),
    ("0.5 100\n-1 200\n", "samples.txt:2: \"-1\" is not a time"),
    ("0.5 100 0\n", "samples.txt:1: \"0\" is not a document length"),
    ("0.5\n", "samples.txt:1: a sample needs its time"),
    ("{\"format\": \"flopspack-cost-model\"}", "cost model file: \"version\""),
])
def test_bad_samples_exit_1_naming_the_line(tmp_path, content, fragment):
    path = tmp_path / "samples.txt"
    path.write_text(content)
    result = run("fit", path, check=1)
    assert fragment in result.stderr, result.stderr


def test_bad_cost_file_exit_1_naming_the_key(tmp_path):
    model = tmp_path / "model.json"
    model.write_text('{"format": "flopspack-cost-model", "version": 1, "kind": "polynomial", '
                     '"attention": "document", "coefficients": {"per_sequence": 0, '
                     '"per_document": 0, "linear": -3, "quadratic": 0}}')
    data = tmp_path / "lengths.txt"
    data.write_text("5\n")
    result = run("stats", data, "--cost-file", model, check=1)
    assert "cost model file: coefficients.linear = -3: must be a finite number >= 0" in result.stderr
    result = run("stats", data, "--cost-file", tmp_path / "missing.json", check=1)
    assert "missing.json" in result.stderr


def test_report_section_shows_quality_or_suggests_calibrating(tmp_path, samples):
    """The report's cost-model section: the quality table from a calibrated
    cost file, else the advice to calibrate (the whole page is checked in
    test_report.py)."""
    import importlib.util
    source = os.path.join(os.environ["FLOPSPACK_SOURCE_DIR"], "bindings/python/flopspack/report.py")
    spec = importlib.util.spec_from_file_location("flopspack_report", source)
    report = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(report)
    model = tmp_path / "model.json"
    run("fit", samples, "--save", model, check=0)
    lengths = tmp_path / "lengths.txt"
    lengths.write_text("100\n200\n")
    calibrated = run_json("stats", lengths, "--cost-file", model)["model"]
    html = "".join(report._cost_model_section(calibrated))
    assert "R² held out" in html and "fitted (per sequence" in html and "tokens, scaled" in html
    default = run_json("stats", lengths)["model"]
    html = "".join(report._cost_model_section(default))
    assert "Not measured on your model" in html and "flopspack fit" in html
