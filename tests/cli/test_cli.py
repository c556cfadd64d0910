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


def child_env():
    """The environment for processes the tests start: without the sanitizer
    runtimes preloaded into this Python (see CMakeLists.txt)."""
    env = {k: v for k, v in os.environ.items() if k not in ("LD_PRELOAD", "ASAN_OPTIONS")}
    if "FLOPSPACK_CHILD_ASAN_OPTIONS" in os.environ:
        env["ASAN_OPTIONS"] = os.environ["FLOPSPACK_CHILD_ASAN_OPTIONS"]
    return env


def run(*args, stdin=None, check=None):
    result = subprocess.run([CLI, *map(str, args)], input=stdin, capture_output=True, text=True,
                            timeout=120, env=child_env())
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


def test_global_usage_errors_exit_2():
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


# ---- reading LENGTHS: formats and bad input --------------------------------

SMALL = [5, 300, 70, 1200, 64, 999, 17, 4096, 130, 2, 611, 45]


@pytest.fixture()
def small_txt(tmp_path):
    path = tmp_path / "small.txt"
    path.write_text("# a comment\n" + "\n".join(map(str, SMALL)) + "\n")
    return path


def pack_json(*args, stdin=None):
    return run_json("pack", "--cost=tokens", "--capacity=1024", *args, stdin=stdin)


def test_all_input_forms_give_the_same_answer(tmp_path, small_txt):
    import numpy
    expected = pack_json(small_txt)["metrics"]
    csv = tmp_path / "small.csv"
    csv.write_text("id,num_tokens\n" + "".join(f"{i},{n}\n" for i, n in enumerate(SMALL)))
    npy = tmp_path / "small.npy"
    numpy.save(npy, numpy.array(SMALL, dtype=numpy.int32))
    assert pack_json(csv)["metrics"] == expected
    assert pack_json(csv, "--column=2")["metrics"] == expected
    assert pack_json(npy)["metrics"] == expected
    assert pack_json("-", stdin=small_txt.read_text())["metrics"] == expected
    doc = pack_json(csv)
    assert doc["input"] == {"source": str(csv), "format": "csv", "column": "num_tokens",
                            "count": len(SMALL), "tokens": sum(SMALL)}


LENGTHS_COMMANDS = ["stats", "pack", "balance", "plan", "buckets", "simulate", "report"]
# Under AddressSanitizer (CI's ASan stage) the two tests below run for stats
# and report (the one with --out) and skip the other five, visibly: every
# command reads LENGTHS through the same LoadContext/ReadLengths and
# resolves --model/--cost through the same code before its own work, so
# the other five add no C++ path for the sanitizers, and each instrumented
# launch costs ~0.2 CPU s (these two tests: 14.4 -> 6.2 CPU s). The
# uninstrumented GCC build (CI's meson stage) runs all seven: there the
# per-command messages are what is checked.
SANITIZED = "FLOPSPACK_CHILD_ASAN_OPTIONS" in os.environ
PER_COMMAND = [pytest.param(c, marks=pytest.mark.skipif(
    SANITIZED and c not in ("stats", "report"),
    reason="same input and flag code as stats under the sanitizer")) for c in LENGTHS_COMMANDS]


@pytest.mark.parametrize("command", PER_COMMAND)
def test_bad_input_exit_1_names_file_line_value(tmp_path, command):
    extra = ["--out", str(tmp_path / "r")] if command == "report" else []
    missing = tmp_path / "missing.txt"
    result = run(command, missing, *extra, check=1)
    assert f"flopspack {command}: {missing}: cannot open: No such file or directory" in result.stderr
    bad = tmp_path / "bad.txt"
    bad.write_text("12\n40\nforty\n7\n")
    result = run(command, bad, *extra, check=1)
    assert f"{bad}:3: 'forty' is not a length: expected a positive integer" in result.stderr
    zero = tmp_path / "zero.txt"
    zero.write_text("12\n0\n")
    assert f"{zero}:2: '0' is not a length" in run(command, zero, *extra, check=1).stderr
    empty = tmp_path / "empty.txt"
    empty.write_text("")
    assert f"{empty}: no lengths found (empty input)" in \
        run(command, empty, *extra, check=1).stderr
    assert "<stdin>: no lengths found" in run(command, "-", *extra, stdin="", check=1).stderr
    assert run(command, bad, *extra, check=1).stdout == ""


@pytest.mark.parametrize("command", PER_COMMAND)
def test_command_usage_errors_exit_2(tmp_path, small_txt, command):
    if command == "report":
        assert "--out=DIR is required" in run(command, small_txt, check=2).stderr
        small_txt = [small_txt, "--out", tmp_path / "r"]
    else:
        small_txt = [small_txt]
    result = run(command, *small_txt, "--no-such-flag", check=2)
    assert f"unknown flag '--no-such-flag' for 'flopspack {command}'" in result.stderr
    assert "expected 1 argument, got 0" in run(command, check=2).stderr
    assert "unknown preset" in run(command, *small_txt, "--model=gpt-17", check=2).stderr
    assert "expected 1 argument, got 2" in \
        run(command, *small_txt, small_txt[0], check=2).stderr
    assert "--cost=cubic" in run(command, *small_txt, "--cost=cubic", check=2).stderr


# ---- pack -------------------------------------------------------------------

def test_pack_matches_the_library(lib, small_txt):
    from flopspack_ctypes import stream_pack
    doc = run_json("pack", small_txt, "--model=mistral-7b", "--capacity=1024", "--window=5",
                   "--seed=3", "--plan", "--algorithm=stream")
    model = lib.transformer(32, 4096, 32, 8, 14336, 32000, True)
    plan = stream_pack(lib, SMALL, model, capacity=1024, window=5, overflow=2, seed=3)
    assert doc["metrics"] == {k: v for k, v in plan.metrics().items()
                              if k not in PlanKeysOfSteps}
    groups = plan.groups()
    assert len(doc["groups"]) == len(groups)
    for got, (items, tokens, real, computed, cost) in zip(doc["groups"], groups):
        assert (got["items"], got["tokens"], got["real_tokens"], got["computed_tokens"],
                got["cost"]) == (items, tokens, real, computed, cost)
    # Invariants: every token placed once, no sequence over the capacity.
    placed = [0] * len(SMALL)
    for g in doc["groups"]:
        assert sum(g["tokens"]) <= 1024
        for item, tokens in zip(g["items"], g["tokens"]):
            placed[item] += tokens
    assert placed == SMALL
    assert doc["stream"]["split_documents"] == sum(1 for n in SMALL if n > 1024)


PlanKeysOfSteps = {"num_ranks", "microbatches_per_rank", "max_rank_cost", "mean_rank_cost",
                   "rank_balance_efficiency", "rank_lower_bound", "rank_gap_to_lower_bound",
                   "worst_slot_balance", "microbatch_sync_efficiency", "mean_slot_balance",
                   "microbatch_sync_cost", "microbatch_sync_lower_bound",
                   "microbatch_sync_gap_to_lower_bound", "pipeline_makespan",
                   "pipeline_efficiency", "pipeline_lower_bound", "pipeline_gap_to_lower_bound"}


def test_pack_csv_plan_rows_and_overflow_error(small_txt):
    rows = run("pack", small_txt, "--capacity=1024", "--plan", "--csv", check=0).stdout.split()
    assert rows[0] == "group,item,tokens"
    per_item = {}
    for row in rows[1:]:
        _, item, tokens = map(int, row.split(","))
        per_item[item] = per_item.get(item, 0) + tokens
    assert [per_item[i] for i in range(len(SMALL))] == SMALL
    result = run("pack", small_txt, "--capacity=1024", "--overflow=error", check=1)
    assert f"{small_txt}:5: length 1200 exceeds --capacity=1024" in result.stderr
    assert "must be a positive" in run("pack", small_txt, "--capacity=0", check=2).stderr


# ---- buckets ----------------------------------------------------------------

def test_buckets_match_the_library(lib, small_txt):
    from flopspack_ctypes import bucket_epoch
    args = ["buckets", small_txt, "--cost=tokens", "--buckets=3", "--max-padded-tokens=8192",
            "--ranks=2", "--seed=5", "--epoch=1", "--plan"]
    doc = run_json(*args)
    plan, bounds = bucket_epoch(lib, SMALL, lib.tokens(), num_buckets=3, max_padded_tokens=8192,
                                num_ranks=2, accumulation=1, seed=5, epoch=1)
    assert doc["metrics"] == plan.metrics()
    assert [b["upper_bound"] for b in doc["buckets"]] == sorted(set(bounds))
    groups = plan.groups()
    assert len(doc["groups"]) == len(groups)
    for got, (items, tokens, real, computed, cost) in zip(doc["groups"], groups):
        assert (got["items"], got["tokens"], got["real_tokens"], got["computed_tokens"],
                got["cost"]) == (items, tokens, real, computed, cost)
    # Every document exactly once per epoch (pad last), in the bucket of the
    # first bound >= its length.
    assert sorted(i for g in doc["groups"] for i in g["items"]) == list(range(len(SMALL)))
    assert sum(b["documents"] for b in doc["buckets"]) == len(SMALL)
    assert sum(b["tokens"] for b in doc["buckets"]) == sum(SMALL)
    for b in doc["buckets"]:
        below = [n for n in SMALL if n <= b["upper_bound"]]
        lower = [c["upper_bound"] for c in doc["buckets"] if c["upper_bound"] < b["upper_bound"]]
        mine = [n for n in below if not lower or n > max(lower)]
        assert (b["documents"], b["padding"]) == (len(mine),
                                                  sum(b["upper_bound"] - n for n in mine))
    # The same seed gives the same plan; the trade-off's point at 3 buckets is this epoch.
    assert run_json(*args) == doc
    trade = run_json(*args, "--tradeoff=1,3")["tradeoff"]
    assert [t["num_buckets"] for t in trade] == [1, 3]
    assert trade[1]["padding_efficiency"] == doc["metrics"]["padding_efficiency"]
    assert trade[1]["diversity_distance"] == doc["metrics"]["diversity_distance"]


def test_buckets_csv_and_errors(small_txt):
    rows = run("buckets", small_txt, "--ranks=2", "--max-padded-tokens=8192", "--csv",
               check=0).stdout.splitlines()
    assert rows[0] == "bucket,upper bound,documents,tokens,padding to bound,efficiency at bound"
    plan_rows = run("buckets", small_txt, "--ranks=2", "--max-padded-tokens=8192", "--csv",
                    "--plan", check=0).stdout.splitlines()
    assert plan_rows[0] == "group,rank,slot,item,tokens"
    assert len(plan_rows) == 1 + len(SMALL)
    # A document alone over the budget: the library's INFEASIBLE, exit 1.
    result = run("buckets", small_txt, "--max-padded-tokens=1000", check=1)
    assert "FLOPSPACK_INFEASIBLE" in result.stderr
    assert "one rank count" in run("buckets", small_txt, "--ranks=2,4", check=2).stderr
    assert "--tradeoff" in run("buckets", small_txt, "--tradeoff=0", check=2).stderr


# ---- plan -------------------------------------------------------------------

def test_plan_matches_the_library(lib, small_txt):
    from flopspack_ctypes import plan_step
    model = lib.transformer(32, 4096, 32, 8, 14336, 128256, True)
    for algorithm in ("documents", "random", "tokens", "sequences"):
        doc = run_json("plan", small_txt, "--ranks=3", "--capacity=2048", "--seed=9",
                       f"--algorithm={algorithm}", "--plan")
        plan = plan_step(lib, SMALL, model, num_ranks=3, capacity=2048, algorithm=algorithm,
                         seed=9)
        assert doc["metrics"] == plan.metrics(), algorithm
        groups = plan.groups()
        assert [(g["items"], g["tokens"], g["cost"]) for g in doc["groups"]] == \
            [(items, tokens, cost) for items, tokens, _, _, cost in groups]
        # Every token of every document placed once, microbatches within the cap.
        placed = [0] * len(SMALL)
        for g in doc["groups"]:
            assert sum(g["tokens"]) <= 2048
            for item, tokens in zip(g["items"], g["tokens"]):
                placed[item] += tokens
        assert placed == SMALL
        # Rank loads add up their microbatches; the largest is the plan's max.
        assert len(doc["ranks"]) == 3
        assert sum(r["tokens"] for r in doc["ranks"]) == sum(SMALL)
        assert max(r["cost"] for r in doc["ranks"]) == \
            pytest.approx(doc["metrics"]["max_rank_cost"], rel=1e-12)


def test_plan_sync_and_pipeline_stages(lib, small_txt):
    from flopspack_ctypes import plan_step
    model = lib.transformer(32, 4096, 32, 8, 14336, 128256, True)
    doc = run_json("plan", small_txt, "--ranks=3", "--capacity=2048", "--sync=microbatch",
                   "--pipeline-stages=4", "--plan")
    assert doc["options"]["sync"] == "microbatch" and doc["options"]["pipeline_stages"] == 4
    plan = plan_step(lib, SMALL, model, num_ranks=3, capacity=2048, sync=1, pipeline_stages=4)
    assert doc["metrics"] == plan.metrics()
    assert 0 < doc["metrics"]["pipeline_efficiency"] < 1
    assert doc["metrics"]["pipeline_lower_bound"] <= doc["metrics"]["pipeline_makespan"]
    step = run_json("plan", small_txt, "--ranks=3", "--capacity=2048")
    assert step["options"]["sync"] == "step" and step["metrics"]["pipeline_makespan"] == 0
    text = run("plan", small_txt, "--ranks=3", "--capacity=2048", "--sync=microbatch",
               "--pipeline-stages=4", check=0).stdout
    assert "sync per microbatch, 4-stage 1F1B pipelines" in text
    assert "microbatch-sync efficiency (FSDP)" in text and "1F1B pipeline efficiency" in text
    assert "--sync=fsdp: expected step, microbatch" in \
        run("plan", small_txt, "--sync=fsdp", check=2).stderr
    assert "--pipeline-stages=2000: at most 1024" in \
        run("plan", small_txt, "--pipeline-stages=2000", check=2).stderr


def test_plan_compare_and_errors(small_txt):
    doc = run_json("plan", small_txt, "--ranks=2", "--compare")
    assert [c["algorithm"] for c in doc["comparison"]] == ["documents", "random", "tokens",
                                                           "sequences"]
    assert doc["comparison"][0]["metrics"] == doc["metrics"]
    # The cost-balanced planner is never worse than random dealing on its own objective.
    assert doc["comparison"][0]["metrics"]["max_rank_cost"] <= \
        doc["comparison"][1]["metrics"]["max_rank_cost"]
    rows = run("plan", small_txt, "--ranks=2", "--csv", check=0).stdout.splitlines()
    assert rows[0] == "rank,tokens,cost,cost / mean" and len(rows) == 3
    assert "--algorithm=magic" in run("plan", small_txt, "--algorithm=magic", check=2).stderr
    assert "--order=up" in run("plan", small_txt, "--order=up", check=2).stderr
    assert "--overflow=truncate" in run("plan", small_txt, "--overflow=truncate", check=2).stderr
    result = run("plan", small_txt, "--capacity=1024", "--overflow=error", check=1)
    assert f"{small_txt}:5: length 1200 exceeds --capacity=1024" in result.stderr


def test_plan_at_int64_max_capacity(tmp_path):
    """Issue 21 item 1: --capacity 9223372036854775807 aborted with
    munmap_chunk(): invalid pointer (a write to microbatch -1)."""
    path = tmp_path / "two.txt"
    path.write_text("5\n7\n")
    for ranks in ("1", "3"):
        doc = run_json("plan", "--cost=tokens", "--capacity=9223372036854775807",
                       f"--ranks={ranks}", "--plan", path)
        placed = [0, 0]
        for g in doc["groups"]:
            for item, tokens in zip(g["items"], g["tokens"]):
                placed[item] += tokens
        assert placed == [5, 7]


def test_npy_with_a_wrapping_shape_is_bad_input(tmp_path):
    """Issue 21 item 10: shape (2^62 + 1,) passed the size check by
    wrap-around and exited 3 (internal error: vector::reserve)."""
    header = "{'descr': '<i8', 'fortran_order': False, 'shape': (4611686018427387905,), }"
    header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
    data = b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header.encode()
    data += (5).to_bytes(8, "little")
    path = tmp_path / "huge.npy"
    path.write_bytes(data)
    result = run("stats", path, check=1)
    assert "the header says 4611686018427387905 elements but the file holds 1" in result.stderr


def test_pack_offline_algorithms_match_the_library(lib, small_txt):
    from flopspack_ctypes import pack
    model = lib.transformer(32, 4096, 32, 8, 14336, 128256, True)
    for algorithm in ("bfd", "ffd", "next-fit", "shuffled"):
        args = ["pack", small_txt, "--capacity=1024", "--seed=4", "--plan"]
        if algorithm != "bfd":  # bfd is the default
            args.append(f"--algorithm={algorithm}")
        doc = run_json(*args)
        assert doc["options"]["algorithm"] == algorithm and "stream" not in doc
        plan = pack(lib, SMALL, model, capacity=1024, algorithm=algorithm, seed=4)
        assert doc["metrics"] == {k: v for k, v in plan.metrics().items()
                                  if k not in PlanKeysOfSteps}
        assert [(g["items"], g["tokens"], g["cost"]) for g in doc["groups"]] == \
            [(items, tokens, cost) for items, tokens, _, _, cost in plan.groups()]
    truncated = run_json("pack", small_txt, "--capacity=1024", "--overflow=truncate")
    assert truncated["metrics"]["truncated_tokens"] == sum(n - 1024 for n in SMALL if n > 1024)


# ---- balance ----------------------------------------------------------------

def test_balance_matches_the_library(lib, small_txt):
    from flopspack_ctypes import balance
    model = lib.transformer(32, 4096, 32, 8, 14336, 128256, True)
    costs = model.document_costs(SMALL)
    for algorithm in ("auto", "greedy", "lpt", "kk"):
        doc = run_json("balance", small_txt, "--groups=3", f"--algorithm={algorithm}", "--plan")
        plan = balance(lib, costs, SMALL, 3, algorithm=algorithm)
        assert doc["metrics"] == {k: v for k, v in plan.metrics().items()
                                  if k not in PlanKeysOfSteps}
        assert [g["items"] for g in doc["groups"]] == [items for items, *_ in plan.groups()]
        assert sorted(i for g in doc["groups"] for i in g["items"]) == list(range(len(SMALL)))
    capped = run_json("balance", small_txt, "--groups=4", "--max-tokens=5000", "--equal-count",
                      "--norefine", "--plan")
    plan = balance(lib, costs, SMALL, 4, equal_count=True, refine=False, max_tokens=5000)
    assert capped["metrics"] == {k: v for k, v in plan.metrics().items()
                                 if k not in PlanKeysOfSteps}
    assert all(g["real_tokens"] <= 5000 for g in capped["groups"])
    sizes = [len(g["items"]) for g in capped["groups"]]
    assert max(sizes) - min(sizes) <= 1


def test_balance_compare_and_errors(small_txt):
    doc = run_json("balance", small_txt, "--groups=2", "--compare")
    assert [c["algorithm"] for c in doc["comparison"]] == ["auto", "greedy", "lpt", "kk"]
    assert "--groups=0" in run("balance", small_txt, "--groups=0", check=2).stderr
    result = run("balance", small_txt, "--groups=2", "--max-tokens=1000", check=1)
    assert f"{small_txt}:5: length 1200 exceeds --max-tokens=1000" in result.stderr
    # Every document fits, the groups cannot hold them all: the library's INFEASIBLE, exit 1.
    result = run("balance", small_txt, "--groups=1", "--max-tokens=4096", check=1)
    assert "FLOPSPACK_INFEASIBLE" in result.stderr


# ---- stats ------------------------------------------------------------------

def test_stats_match_the_library(lib, small_txt):
    from flopspack_ctypes import Stats
    doc = run_json("stats", small_txt, "--cost=tokens")
    stats = Stats(lib, SMALL, lib.tokens())
    assert doc["summary"] == stats.summary()
    hist = doc["histogram"]
    assert hist["binning"] == "log2" and sum(hist["counts"]) == len(SMALL)
    # log2 bins: bin k holds (2^(k-1), 2^k]; check every count by hand.
    for k, upper in enumerate(hist["upper_edges"]):
        lower = upper // 2
        assert hist["counts"][k] == sum(1 for n in SMALL if lower < n <= upper)
    assert sum(hist["token_share"]) == pytest.approx(1)
    tail = {t["threshold"]: t for t in doc["tail"]}
    assert tail[4096]["documents"] == 0 and tail[4096]["token_share"] == 0
    custom = run_json("stats", small_txt, "--thresholds=100,1000", "--bins=linear",
                      "--bin-width=1024", "--cost=tokens")
    t100, t1000 = custom["tail"]
    assert (t100["documents"], t100["tokens"]) == (sum(1 for n in SMALL if n > 100),
                                                   sum(n for n in SMALL if n > 100))
    assert t1000["token_share"] == pytest.approx(sum(n for n in SMALL if n > 1000) / sum(SMALL))
    assert custom["histogram"]["upper_edges"][:2] == [1024, 2048]
    # Expected longest of 1 draw is the mean length.
    assert custom["expected_max_length"][0] == {"draws": 1,
                                                "length": pytest.approx(sum(SMALL) / len(SMALL))}


def test_stats_capacity_costs_documents_as_trained(tmp_path):
    # A 2.7M-token document under --capacity 8192 is 329 pieces of 8192 and
    # one of 4832; with --cost quadratic (l + c l^2) its cost is theirs.
    path = tmp_path / "long.txt"
    path.write_text("2700000\n100\n8192\n")
    c = 1e-3

    def cost(n):
        return n + c * n * n

    args = ("stats", path, "--cost=quadratic", f"--quadratic-coef={c}")
    whole = run_json(*args)
    trained = run_json(*args, "--capacity=8192")
    assert whole["cost_capacity"] == 0 and whole["cost_convention"] == "whole documents"
    assert trained["cost_capacity"] == 8192
    assert trained["cost_convention"].startswith("as trained")
    assert whole["summary"]["total_cost"] == pytest.approx(cost(2700000) + cost(100) + cost(8192))
    pieces = 329 * cost(8192) + cost(4832)
    assert trained["summary"]["total_cost"] == pytest.approx(pieces + cost(100) + cost(8192))
    assert trained["summary"]["max_cost"] == pytest.approx(pieces)
    # Lengths and tokens do not change; the tail's cost share does.
    assert trained["summary"]["tokens"] == whole["summary"]["tokens"]
    tail = {t["threshold"]: t for t in trained["tail"]}
    assert tail[131072]["cost_share"] == pytest.approx(pieces / (pieces + cost(100) + cost(8192)))
    text = run("stats", path, "--cost=quadratic", "--capacity=8192", check=0).stdout
    assert "as trained: cut into pieces of 8,192 tokens" in text
    assert "whole documents" in run("stats", path, "--cost=quadratic", check=0).stdout
    assert "--capacity=0" in run(*args, "--capacity=0", check=2).stderr


def test_stats_csv_is_the_histogram(small_txt):
    rows = run("stats", small_txt, "--csv", check=0).stdout.splitlines()
    assert rows[0].startswith("length,documents,%documents,%tokens,%cost")
    assert "--bins=cubes" in run("stats", small_txt, "--bins=cubes", check=2).stderr
    assert "--thresholds" in run("stats", small_txt, "--thresholds=1,x", check=2).stderr


# ---- compare ----------------------------------------------------------------

def test_compare_two_datasets(lib, tmp_path, small_txt):
    from flopspack_ctypes import Stats
    other = [n * 3 for n in SMALL] + [40000]
    b = tmp_path / "b.txt"
    b.write_text("\n".join(map(str, other)) + "\n")
    doc = run_json("compare", small_txt, b, "--cost=tokens")
    assert [i["count"] for i in doc["inputs"]] == [len(SMALL), len(other)]
    a_stats, b_stats = Stats(lib, SMALL, lib.tokens()), Stats(lib, other, lib.tokens())
    assert doc["datasets"][0]["summary"] == a_stats.summary()
    assert doc["datasets"][1]["summary"] == b_stats.summary()
    assert doc["comparison"]["ks_distance"] == a_stats.ks_distance(b_stats)
    assert doc["datasets"][0]["summary"] == run_json("stats", small_txt, "--cost=tokens")["summary"]
    text = run("compare", small_txt, b, check=0).stdout
    assert "Kolmogorov-Smirnov distance" in text
    assert "expected 2 arguments, got 1" in run("compare", small_txt, check=2).stderr
    assert "cannot open" in run("compare", small_txt, tmp_path / "nope.txt", check=1).stderr


# ---- simulate ---------------------------------------------------------------

SYNC_NAMES = {0: "step", 1: "microbatch"}
SIM_POLICIES = {"random": 0, "token-balanced": 1, "buckets": 2, "planner": 3,
                "planner-random": 4, "planner-tokens": 5, "planner-sequences": 6}


def test_simulate_matches_the_library(lib, small_txt):
    from flopspack_ctypes import simulate
    model = lib.transformer(32, 4096, 32, 8, 14336, 128256, True)
    doc = run_json("simulate", small_txt, "--ranks=2", "--microbatches=2", "--capacity=1024",
                   "--max-tokens=1280", "--steps=7", "--seed=11")
    assert [r["policy"] for r in doc["results"]] == list(SIM_POLICIES)
    for r in doc["results"]:
        expected = simulate(lib, SMALL, model, policy=SIM_POLICIES[r["policy"]], num_ranks=2,
                            microbatches=2, tokens=1024, max_tokens=1280, steps=7, seed=11)
        got = r["summary"]
        for key, value in expected.items():
            if value != value:  # NaN is written as null
                assert got[key] is None, key
            else:
                assert got[key] == value, (r["policy"], key)


def test_simulate_topology_matches_the_library(lib, small_txt):
    """--sync and --pipeline-stages reach the library (every policy, the
    summary field for field), and the text says which topology it assumed."""
    from flopspack_ctypes import simulate
    model = lib.transformer(32, 4096, 32, 8, 14336, 128256, True)
    for flags, sync, stages, assumed in (
            (["--sync=microbatch"], 1, 0, "synchronize at every microbatch"),
            (["--pipeline-stages=3"], 0, 3, "pipeline of 3 stages")):
        common = ["simulate", small_txt, "--ranks=2", "--microbatches=3", "--capacity=1024",
                  "--max-tokens=1280", "--steps=4", "--seed=5",
                  "--policies=random,planner", *flags]
        doc = run_json(*common)
        assert doc["settings"]["sync"] == SYNC_NAMES[sync]
        assert doc["settings"]["pipeline_stages"] == stages
        for r in doc["results"]:
            expected = simulate(lib, SMALL, model, policy=SIM_POLICIES[r["policy"]],
                                num_ranks=2, microbatches=3, tokens=1024, max_tokens=1280,
                                steps=4, seed=5, sync=sync, pipeline_stages=stages)
            assert r["summary"]["sync"] == SYNC_NAMES[sync]
            for key, value in expected.items():
                got = r["summary"][key]
                assert (got is None) if value != value else got == value, (r["policy"], key)
        assert "assumed: " in run(*common).stdout and assumed in run(*common).stdout
    assert "--pipeline-stages=1025: at most 1024 stages (0 or 1 = none)" in \
        run("simulate", small_txt, "--pipeline-stages=1025", check=2).stderr
    assert "--sync=fsdp: expected step, microbatch" in \
        run("report", small_txt, "--out=r", "--sync=fsdp", check=2).stderr


def test_simulate_context_parallel_matches_the_library(lib, small_txt):
    from flopspack_ctypes import simulate
    model = lib.transformer(32, 4096, 32, 8, 14336, 128256, True)
    common = ["simulate", small_txt, "--ranks=2", "--microbatches=3", "--capacity=1024",
              "--max-tokens=1280", "--steps=4", "--seed=5", "--policies=random,planner",
              "--cp=4", "--cp-layout=sequence"]
    doc = run_json(*common)
    assert doc["settings"]["context_parallel_size"] == 4
    assert doc["settings"]["context_parallel_layout"] == "sequence"
    for r in doc["results"]:
        expected = simulate(lib, SMALL, model, policy=SIM_POLICIES[r["policy"]], num_ranks=2,
                            microbatches=3, tokens=1024, max_tokens=1280, steps=4, seed=5,
                            cp=4, cp_layout=0)
        for key, value in expected.items():
            got = r["summary"][key]
            assert (got is None) if value != value else got == value, (r["policy"], key)
    assert "context-parallel group of 4 GPUs" in run(*common).stdout
    assert "--cp" in run("simulate", small_txt, "--cp=65537", check=2).stderr
    assert "bucket sampler" in \
        run("simulate", small_txt, "--cp=2", "--policies=buckets", "--ranks=2", "--steps=2").stdout \
        + run("simulate", small_txt, "--cp=2", "--policies=buckets", "--ranks=2", "--steps=2").stderr


SMALL_EXTRA = [0, 0, 1e9, 0, 0, 2.5e10, 0, 0, 0, 7, 0, 3e8]


def test_simulate_extra_costs_match_the_library(lib, small_txt, tmp_path):
    """--extra-costs FILE reaches flopspack_simulate_with_extra_costs (every
    policy, one point and a sweep, field for field); bad files are input
    errors naming the line."""
    from flopspack_ctypes import simulate, simulate_sweep
    model = lib.transformer(32, 4096, 32, 8, 14336, 128256, True)
    extra = tmp_path / "extra.txt"
    extra.write_text("# vision encoder FLOPs\n" + "\n".join(map(repr, SMALL_EXTRA)) + "\n")
    common = ["simulate", small_txt, "--extra-costs", extra, "--ranks=2", "--microbatches=2",
              "--capacity=1024", "--max-tokens=1280", "--steps=7", "--seed=11"]
    doc = run_json(*common)
    assert doc["input"]["extra_costs"] == str(extra)
    plain = run_json(*common[:2], *common[4:])
    for r, p in zip(doc["results"], plain["results"]):
        expected = simulate(lib, SMALL, model, extra_costs=SMALL_EXTRA,
                            policy=SIM_POLICIES[r["policy"]], num_ranks=2, microbatches=2,
                            tokens=1024, max_tokens=1280, steps=7, seed=11)
        for key, value in expected.items():
            got = r["summary"][key]
            assert (got is None) if value != value else got == value, (r["policy"], key)
        # The same documents, more work.
        assert r["summary"]["documents_drawn"] == p["summary"]["documents_drawn"]
        assert r["summary"]["mean_step_time"] > p["summary"]["mean_step_time"]
    assert "per-document extra costs from" in run(*common).stdout
    sweep = run_json(*common[:4], "--ranks=1,2", "--policies=random,planner", *common[5:])
    for p in sweep["sweep"]["policies"]:
        expected = simulate_sweep(lib, SMALL, model, [1, 2], extra_costs=SMALL_EXTRA,
                                  policy=SIM_POLICIES[p["policy"]], microbatches=2, tokens=1024,
                                  max_tokens=1280, steps=7, seed=11)
        assert p["relative_throughput"] == expected[2], p["policy"]
    for text, fragment in (("1\n-2\n", ":2: '-2' is not an extra cost"),
                           ("1\nnan\n", ":2: 'nan' is not an extra cost"),
                           ("1\n2\n", "2 extra costs for 12 documents")):
        extra.write_text(text)
        assert fragment in run(*common, check=1).stderr


def test_simulate_sweep_matches_the_library(lib, small_txt):
    from flopspack_ctypes import simulate_sweep
    model = lib.tokens()
    doc = run_json("simulate", small_txt, "--cost=tokens", "--ranks=1,2,4", "--steps=5",
                   "--capacity=512", "--policies=random,planner")
    sweep = doc["sweep"]
    assert sweep["ranks"] == [1, 2, 4]
    for p in sweep["policies"]:
        sampled, predicted, throughput = simulate_sweep(
            lib, SMALL, model, [1, 2, 4], policy=SIM_POLICIES[p["policy"]], microbatches=1,
            tokens=512, max_tokens=0, steps=5, seed=0)
        assert p["sampled_efficiency"] == sampled
        assert p["relative_throughput"] == throughput
        assert p["predicted_efficiency"] == [None if v != v else v for v in predicted]
    rows = run("simulate", small_txt, "--ranks=1,2", "--steps=2", "--csv", check=0).stdout
    assert rows.splitlines()[0].startswith("ranks,random dealing,")
    assert "--policies: unknown policy 'fifo'" in \
        run("simulate", small_txt, "--policies=fifo", check=2).stderr
    assert "--ranks: '0'" in run("simulate", small_txt, "--ranks=0", check=2).stderr


# ---- issue 13: documents far past the cap, one microbatch, memory slack ------

EXAMPLE = os.path.join(os.environ.get("FLOPSPACK_SOURCE_DIR",
                                      os.path.join(os.path.dirname(__file__), os.pardir,
                                                   os.pardir)),
                       "examples", "data", "example_lengths.txt")


def test_simulate_ranks_the_planner_first_at_one_microbatch_with_slack():
    """Issue 13: at 1,024 ranks x 1 microbatch of 8,192 tokens with 25% memory
    slack the planner kept 74.8% of throughput, random dealing 94.4%."""
    doc = run_json("simulate", EXAMPLE, "--policies=random,planner", "--max-tokens=10240",
                   "--steps=5")
    throughput = {r["policy"]: r["summary"]["relative_throughput"] for r in doc["results"]}
    assert throughput["planner"] > throughput["random"]
    assert throughput["planner"] >= 0.99, throughput


def test_plan_ranks_the_planner_first_with_an_honest_gap(tmp_path):
    """One step of the example (the first documents up to 1,024 x 8,192
    tokens) planned at M = 1 with a 10,240-token cap: the planner balances
    best, and no algorithm's gap to the lower bound hides its imbalance (the
    bound was the largest cap-sized piece: 0.00% beside 75% balance)."""
    lengths, total = [], 0
    with open(EXAMPLE) as f:
        for line in f:
            if line.startswith("#"):
                continue
            if total + int(line) > 1024 * 8192:
                break
            lengths.append(int(line))
            total += int(line)
    step = tmp_path / "step.txt"
    step.write_text("\n".join(map(str, lengths)) + "\n")
    doc = run_json("plan", step, "--ranks=1024", "--microbatches=1", "--capacity=10240",
                   "--compare")
    rows = {c["algorithm"]: c["metrics"] for c in doc["comparison"]}
    best = rows["documents"]["rank_balance_efficiency"]
    assert best >= 0.99
    for name, m in rows.items():
        assert m["rank_balance_efficiency"] <= best, name
        # mean / bound: an honest bound sits near the mean rank cost.
        assert m["rank_balance_efficiency"] * (1 + m["rank_gap_to_lower_bound"]) >= 0.97, name


# ---- a sample is enough (issue 17) -------------------------------------------

@pytest.fixture(scope="module")
def sample_5k(tmp_path_factory):
    """5,000 documents with a Pareto tail: too few for one step at 8,192 ranks."""
    import random
    rng = random.Random(17)
    path = tmp_path_factory.mktemp("sample") / "sample.txt"
    path.write_text("".join(f"{min(200000, int(64 * rng.paretovariate(1.3)))}\n"
                            for _ in range(5000)))
    return path


def test_simulate_sweep_resamples_points_the_sample_cannot_fill(sample_5k):
    doc = run_json("simulate", sample_5k, "--ranks=64,8192", "--steps=2", "--capacity=1024",
                   "--cost=tokens")
    assert doc["settings"]["resample"] is True
    for p in doc["sweep"]["policies"]:
        assert p["status"] == ["ok", "resampled"], p["policy"]
        assert all(0 < v <= 1 for v in p["relative_throughput"]), p["policy"]
        assert p["pool_documents"][0] == 0 and p["pool_documents"][1] >= p["documents_needed"][1]
        assert p["documents_needed"][1] > 5000
    text = run("simulate", sample_5k, "--ranks=64,8192", "--steps=2", "--capacity=1024",
               "--cost=tokens", check=0).stdout
    assert "drawn with replacement" in text and "*" in text


def test_simulate_noresample_shows_na_per_point(sample_5k):
    doc = run_json("simulate", sample_5k, "--ranks=64,8192", "--steps=2", "--capacity=1024",
                   "--cost=tokens", "--noresample")
    for p in doc["sweep"]["policies"]:
        assert p["status"] == ["ok", "n/a"]
        assert p["relative_throughput"][0] > 0 and p["relative_throughput"][1] is None
    one = run("simulate", sample_5k, "--ranks=8192", "--steps=1", "--capacity=1024",
              "--cost=tokens", "--resample=false", check=0).stdout
    needed = run_json("simulate", sample_5k, "--ranks=8192", "--steps=1", "--capacity=1024",
                      "--cost=tokens", "--noresample")["results"][0]["documents_needed"]
    assert f"n/a: needs {needed:,} documents" in one


def test_simulate_bucket_policy_alone_is_na_when_only_it_cannot_fill(sample_5k):
    # 64 ranks x 1 microbatch of 64 tokens: random dealing fills a step from
    # the sample's tokens, but every sample (>= 64 tokens, clipped to 64) is a
    # padded batch of its own, and 5,000 batches are not a whole number of
    # 64-batch steps: the bucket sampler would have to repeat samples.
    args = ("simulate", sample_5k, "--ranks=64", "--capacity=64", "--steps=1", "--cost=tokens",
            "--policies=random,buckets")
    doc = run_json(*args, "--noresample")
    assert [r["status"] for r in doc["results"]] == ["ok", "n/a"]
    assert doc["results"][0]["summary"]["relative_throughput"] > 0
    assert doc["results"][1]["summary"] is None and doc["results"][1]["documents_needed"] > 5000
    doc = run_json(*args)
    assert [r["status"] for r in doc["results"]] == ["ok", "resampled"]


def test_simulate_interrupt_keeps_finished_points(sample_5k):
    env = child_env()
    env["FLOPSPACK_CLI_INTERRUPT_AFTER"] = "5"  # random: 4 steps, then planner
    result = subprocess.run([CLI, "simulate", str(sample_5k), "--ranks=64,128", "--steps=2",
                             "--capacity=1024", "--cost=tokens", "--policies=random,planner",
                             "--json"], capture_output=True, text=True, timeout=60, env=env)
    assert result.returncode == 130, result.stderr
    assert "interrupted" in result.stderr
    doc = json.loads(result.stdout)
    statuses = [s for p in doc["sweep"]["policies"] for s in p["status"]]
    assert "ok" in statuses and "interrupted" in statuses


def test_buckets_resample_and_noresample(sample_5k):
    doc = run_json("buckets", sample_5k, "--ranks=8192", "--tradeoff=1,8")
    assert doc["options"]["pool_documents"] > 8192
    assert doc["input"]["count"] == 5000
    assert len(doc["tradeoff"]) == 2
    err = run("buckets", sample_5k, "--ranks=8192", "--noresample", check=1).stderr
    assert "--ranks=8192" in err and "documents" in err and "lengths[" not in err


# ---- every error of issue 17: a clear message and the documented exit code ----

def test_directory_input_is_bad_input(tmp_path):
    err = run("stats", tmp_path, check=1).stderr
    assert "is a directory" in err and "internal" not in err


def test_utf8_byte_order_mark_is_accepted(tmp_path):
    path = tmp_path / "bom.txt"
    path.write_bytes(b"\xef\xbb\xbf5\n300\n70\n")
    assert run_json("stats", path, "--cost=tokens")["input"]["count"] == 3


def test_twenty_digit_number_is_too_large(tmp_path):
    path = tmp_path / "big.txt"
    path.write_text("5\n12345678901234567890\n")
    err = run("stats", path, check=1).stderr
    assert "big.txt:2" in err and "too large" in err and "9223372036854775807" in err


def test_simulate_max_tokens_below_capacity_is_usage(small_txt):
    err = run("simulate", small_txt, "--max-tokens", "100", check=2).stderr
    assert "--max-tokens=100" in err and "--capacity=8192" in err
    assert "max_tokens_per_microbatch" not in err


def test_buckets_budget_error_names_file_line_and_flag(small_txt):
    err = run("buckets", small_txt, "--max-padded-tokens=1000", check=1).stderr
    # 1200, the first length over the budget, is on line 5 after the comment.
    assert "small.txt:5: length 1200" in err and "--max-padded-tokens" in err
    assert "lengths[" not in err and "max_padded_tokens" not in err


def test_progress_bar_is_cleared_before_output(small_txt):
    import pty
    master, slave = pty.openpty()
    proc = subprocess.Popen([CLI, "simulate", str(small_txt), "--ranks=1,2", "--steps=50",
                             "--policies=random", "--cost=tokens"], stdout=slave, stderr=slave,
                            env=child_env())
    os.close(slave)
    chunks = []
    while True:
        try:
            data = os.read(master, 65536)
        except OSError:
            break
        if not data:
            break
        chunks.append(data)
    proc.wait(timeout=60)
    os.close(master)
    out = b"".join(chunks).decode()
    assert proc.returncode == 0
    head = out.index("# 12 documents")
    if "[" in out[:head]:  # a bar was drawn: it was erased first
        assert out[:head].endswith("\r\x1b[K"), repr(out[:head][-80:])


def _help_flag(command, flag):
    text = run(command, "--help", check=0).stdout
    line = [l for l in text.splitlines() if l.startswith(f"  --{flag}=")][0]
    return line


def test_help_defaults_are_what_each_command_does(small_txt):
    # plan picks the fewest microbatches that hold the batch.
    assert "(default: 1)" not in _help_flag("plan", "microbatches")
    assert "fewest" in _help_flag("plan", "microbatches")
    # report: 16,384-token microbatches, 4 per rank.
    assert "(default: 16384)" in _help_flag("report", "capacity")
    assert "(default: 4)" in _help_flag("report", "microbatches")
    # --ranks per command, checked against the JSON.
    assert "(default: 1024" in _help_flag("simulate", "ranks")
    doc = run_json("simulate", small_txt, "--steps=1", "--policies=random", "--cost=tokens",
                   "--capacity=64")
    assert doc["settings"]["ranks"] == 1024
    assert "(default: 8)" in _help_flag("buckets", "ranks")
    assert run_json("buckets", small_txt, "--cost=tokens")["options"]["num_ranks"] == 8
    assert "(default: 8)" in _help_flag("plan", "ranks")
    assert run_json("plan", small_txt, "--cost=tokens")["options"]["num_ranks"] == 8


def test_help_points_to_an_absolute_docs_path():
    text = run("--help", check=0).stdout
    line = [l for l in text.splitlines() if l.startswith("Documentation: ")][0]
    path = line.split(": ", 1)[1]
    assert os.path.isabs(path) and os.path.isfile(path) and path.endswith("cli.md")


def test_plan_says_which_algorithm_planned(tmp_path):
    """A step whose first document costs far more than a rank's share: the
    planner falls back to the cut to the share, and says so (JSON and table);
    the baselines have no fallbacks."""
    step = tmp_path / "heavy.txt"
    step.write_text("\n".join(map(str, [12000] + [1500] * 35 + [1036])) + "\n")
    flags = ("--ranks=8", "--microbatches=1", "--capacity=10240")
    doc = run_json("plan", step, *flags, "--compare")
    rows = {c["algorithm"]: c["metrics"]["planned_by"] for c in doc["comparison"]}
    assert rows == {"documents": 2, "random": 0, "tokens": 0, "sequences": 0}
    table = run("plan", step, *flags, check=0).stdout
    assert "documents planner (fell back to the cut to the share)" in table
    assert "planned by" not in run("plan", step, *flags, "--algorithm=tokens", check=0).stdout
    assert run_json("pack", step, "--capacity=16384")["metrics"]["planned_by"] == 0


def test_json_is_byte_compatible_with_the_checked_in_layout(small_txt, tmp_path):
    """flopspack-cli/1 as the hand-written writer laid it out before the move to
    nlohmann-json: scalar arrays on one line, 3.0 as 3, insertion order."""
    path = tmp_path / "small.txt"
    path.write_text(small_txt.read_text())
    out = subprocess.run([CLI, "stats", "small.txt", "--json"], capture_output=True, text=True,
                         cwd=tmp_path, env=child_env(), check=True).stdout
    version = json.loads(out)["flopspack_version"]
    expected_path = os.path.join(os.path.dirname(__file__), "expected", "stats_small.json")
    with open(expected_path, encoding="utf-8") as f:
        expected = f.read().replace('"flopspack_version": "VERSION"',
                                    f'"flopspack_version": "{version}"')
    assert out == expected


def test_buckets_overflow_truncates_or_defers_and_counts(small_txt):
    over = [l for l in SMALL if l > 1000]
    assert over  # the budget below leaves some samples over it
    common = ("buckets", small_txt, "--cost=tokens", "--max-padded-tokens=1000", "--ranks=1")
    doc = run_json(*common, "--overflow=truncate")
    m = doc["metrics"]
    assert doc["options"]["overflow"] == "truncate"
    assert m["truncated_items"] == len(over)
    assert m["truncated_tokens"] == sum(l - 1000 for l in over)
    assert m["real_tokens"] + m["truncated_tokens"] == sum(SMALL)
    doc = run_json(*common, "--overflow=defer")
    m = doc["metrics"]
    assert m["deferred_items"] == len(over) and m["deferred_tokens"] == sum(over)
    assert m["real_tokens"] + m["deferred_tokens"] == sum(SMALL)
    err = run(*common, "--overflow=split", check=2).stderr
    assert "--overflow=split: expected error, truncate, defer" in err


def test_flag_values_out_of_range_are_usage_errors(small_txt):
    """CLI11 alone would saturate 2^64 to INT64_MAX and read -1 into an
    unsigned flag as 2^64 - 1; each is exit 2 naming the flag."""
    err = run("plan", small_txt, "--seed=-1", check=2).stderr
    assert "--seed=-1: expected a non-negative integer" in err
    err = run("pack", small_txt, "--capacity=99999999999999999999", check=2).stderr
    assert "--capacity=99999999999999999999: expected an integer of at most" in err
    assert "--steps=0: must be >= 1" in run("simulate", small_txt, "--steps=0", check=2).stderr
    assert "--microbatches=0: must be >= 1" in \
        run("report", small_txt, "--out=r", "--microbatches=0", check=2).stderr


def test_each_command_takes_only_its_own_flags(small_txt):
    """No flag is global: --steps is simulate's, --groups balance's."""
    assert "unknown flag '--steps' for 'flopspack plan'" in \
        run("plan", small_txt, "--steps=3", check=2).stderr
    assert "unknown flag '--groups' for 'flopspack pack'" in \
        run("pack", small_txt, "--groups=3", check=2).stderr
    assert "--seed" not in run("stats", "--help", check=0).stdout


def test_plan_context_parallel(tmp_path):
    lengths = tmp_path / "lengths.txt"
    lengths.write_text("\n".join(str(50 + (i * 7919) % 4000) for i in range(400)) + "\n")
    doc = run_json("plan", str(lengths), "--ranks=4", "--capacity=16384", "--cp=4")
    cp = doc["context_parallel"]
    # The chosen layout (adaptive by default) first, then the other two.
    assert [c["layout"] for c in cp] == ["adaptive", "sequence", "document"]
    for c in cp:
        assert c["context_parallel_size"] == 4
        assert 0 < c["worst_balance"] <= c["balance_efficiency"] <= 1
    by = {c["layout"]: c for c in cp}
    # Packed documents: the per-document layout evens the CP ranks, the
    # per-sequence one does not; adaptive is never worse than either.
    assert by["document"]["worst_balance"] > by["sequence"]["worst_balance"]
    assert by["adaptive"]["max_cp_rank_cost"] <= min(by["document"]["max_cp_rank_cost"],
                                                     by["sequence"]["max_cp_rank_cost"])
    assert by["document"]["document_layout_groups"] == doc["metrics"]["num_groups"]
    text = run("plan", str(lengths), "--ranks=4", "--capacity=16384", "--cp=2",
               "--cp-layout=document", check=0).stdout
    assert "document (chosen)" in text and "CP-rank balance" in text
    assert "--cp-layout=up" in run("plan", str(lengths), "--cp=2", "--cp-layout=up",
                                   check=2).stderr
    assert "needs --cp" in run("plan", str(lengths), "--cp-layout=document", check=2).stderr
    assert "65536" in run("plan", str(lengths), "--cp=70000", check=2).stderr
    # --cp plans for the CP group: --capacity stays per GPU, a microbatch
    # holds --cp x --capacity tokens (4,400 here), so documents up to that
    # (the longest is 4,049) stay whole.
    flat = run_json("plan", str(lengths), "--ranks=4", "--capacity=1100")
    grouped = run_json("plan", str(lengths), "--ranks=4", "--capacity=1100", "--cp=4")
    assert grouped["options"]["context_parallel_size"] == 4
    assert "context_parallel_size" not in flat["options"]
    assert flat["metrics"]["split_items"] > 0
    assert grouped["metrics"]["split_items"] == 0
    # Its microbatches cost their slowest CP rank under the chosen layout.
    adaptive = grouped["context_parallel"][0]
    assert adaptive["layout"] == "adaptive"
    assert grouped["metrics"]["max_group_cost"] == pytest.approx(adaptive["max_cp_rank_cost"],
                                                                 rel=1e-12)
