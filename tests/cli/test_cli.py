"""End-to-end tests of the flopspack binary: JSON against the library's own
results (through ctypes), exit codes and messages for bad input and usage.

Run by ctest with FLOPSPACK_CLI (the binary), FLOPSPACK_LIBRARY (the shared
library) and FLOPSPACK_SOURCE_DIR set.
"""
import json
import os
import subprocess
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))
from flopspack_ctypes import Library  # noqa: E402

CLI = os.environ["FLOPSPACK_CLI"]


def run(*args, stdin=None, check=None):
    result = subprocess.run([CLI, *map(str, args)], input=stdin, capture_output=True, text=True,
                            timeout=120)
    if check is not None:
        assert result.returncode == check, (args, result.returncode, result.stderr)
    return result


def run_json(*args, stdin=None):
    result = run(*args, "--json", stdin=stdin, check=0)
    doc = json.loads(result.stdout)
    assert doc["schema"] == "flopspack-cli/1"
    return doc


@pytest.fixture(scope="module")
def lib():
    return Library()


def test_version(lib):
    result = run("--version", check=0)
    assert result.stdout.startswith("flopspack " + lib.version() + " ")


def test_help_lists_commands_and_each_has_help():
    result = run("--help", check=0)
    commands = [line.split()[0] for line in
                result.stdout.split("commands:\n")[1].split("\n\n")[0].splitlines()]
    assert "models" in commands
    for command in commands:
        text = run(command, "--help", check=0).stdout
        assert text.startswith("usage: flopspack " + command)
        assert run("help", command, check=0).stdout == text


def test_usage_errors_exit_2():
    assert run(check=2).stderr.startswith("usage: flopspack")
    assert "unknown command 'frobnicate'" in run("frobnicate", check=2).stderr
    assert "unknown flag '--frobnicate'" in run("models", "--frobnicate", check=2).stderr
    assert "exclusive" in run("models", "--json", "--csv", check=2).stderr
    assert "expected 0 arguments, got 1" in run("models", "extra", check=2).stderr


def test_models_json_matches_library(lib):
    doc = run_json("models")
    assert doc["command"] == "models" and doc["flopspack_version"] == lib.version()
    names = [p["name"] for p in doc["presets"]]
    assert {"llama3-8b", "llama3-70b", "mistral-7b", "gpt3-175b", "qwen2.5-7b"} <= set(names)
    for p in doc["presets"]:
        model = lib.transformer(p["layers"], p["hidden"], p["heads"], p["kv_heads"], p["ffn"],
                                p["vocab"], p["gated"], head_dim=p["head_dim"])
        assert p["training_flops_per_token_at_4096"] == model.sequence_cost([4096]) / 4096
    llama = doc["presets"][names.index("llama3-8b")]
    assert (llama["layers"], llama["hidden"], llama["kv_heads"], llama["ffn"],
            llama["vocab"]) == (32, 4096, 8, 14336, 128256)


def test_models_csv_and_output_file(tmp_path):
    out = tmp_path / "models.csv"
    result = run("models", "--csv", "--output", out, check=0)
    assert result.stdout == ""
    lines = out.read_text().splitlines()
    assert lines[0].startswith("preset,layers,hidden")
    assert len(lines) == 1 + len(run_json("models")["presets"])
    bad = run("models", "--output", tmp_path / "no" / "such" / "dir.csv", check=1)
    assert "cannot open for writing" in bad.stderr
