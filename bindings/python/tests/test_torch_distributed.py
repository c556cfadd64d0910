"""End to end with real torch.distributed (gloo, CPU): 4 processes = 2
data-parallel replicas x 2 tensor-parallel peers train a tiny transformer
(distributed_worker.py) on a long-tail corpus with documents up to 20x the
cap. Checks: every token of every document seen exactly once per epoch
across the replicas, TP peers identical, no microbatch over the cap, resume
equal to the uninterrupted run, finite loss."""
import json
import os
import pathlib
import socket
import subprocess
import sys

import pytest

if os.environ.get("FLOPSPACK_REQUIRE_TORCH"):
    import torch  # noqa: F401  ctest sets FLOPSPACK_REQUIRE_TORCH: a missing torch fails
else:
    pytest.importorskip("torch")

# Not under a sanitizer (FLOPSPACK_SANITIZED, set in the ASan stage): four
# torch processes under the ASan preload cost ~60 CPU s there, nearly all of
# it torch and gloo; the library calls they make (PlannedBatchSampler,
# FlopspackBatchSampler, BucketSampler, CostModel.polynomial) run instrumented
# in test_torch_sampler.py, test_torch.py and test_buckets.py, and this test
# runs uninstrumented in the CMake and pip stages.
pytestmark = pytest.mark.skipif(bool(os.environ.get("FLOPSPACK_SANITIZED")),
                                reason="torch.distributed processes: CMake and pip stages")

WORKER = pathlib.Path(__file__).with_name("distributed_worker.py")
WORLD = 4


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def reports(tmp_path_factory):
    out = tmp_path_factory.mktemp("dist")
    port = str(free_port())
    env = dict(os.environ, OMP_NUM_THREADS="1")
    procs = [subprocess.Popen([sys.executable, str(WORKER), str(r), str(WORLD), port, str(out)],
                              env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
             for r in range(WORLD)]
    logs = []
    for p in procs:
        try:
            logs.append(p.communicate(timeout=240)[0].decode(errors="replace"))
        except subprocess.TimeoutExpired:
            for q in procs:
                q.kill()
            pytest.fail("distributed workers timed out")
    for r, p in enumerate(procs):
        assert p.returncode == 0, f"rank {r} failed:\n{logs[r][-3000:]}"
    return [json.loads((out / f"rank{r}.json").read_text()) for r in range(WORLD)]


def test_ranks_come_from_the_data_parallel_group(reports):
    for r in reports:
        assert (r["dp_rank"], r["dp_size"]) == (r["rank"] // 2, 2)
    assert len({r["microbatches"] for r in reports}) == 1


def test_tensor_parallel_peers_see_identical_batches(reports):
    for dp in range(2):
        a, b = reports[2 * dp], reports[2 * dp + 1]
        assert a["seen"] == b["seen"]
        assert a["losses"] == b["losses"]


def test_every_token_exactly_once_per_epoch_across_replicas(reports):
    lengths = reports[0]["lengths"]
    assert max(lengths) == 20 * 128
    seen = {}
    for r in (reports[0], reports[2]):  # one member of each replica
        for docs, positions, _ in r["seen"]:
            for d, p in zip(docs, positions):
                seen[(d, p)] = seen.get((d, p), 0) + 1
    assert set(seen.values()) == {1}
    assert len(seen) == sum(lengths)


def test_no_microbatch_over_the_cap_and_pieces_are_contiguous(reports):
    for r in reports:
        assert r["biggest"] <= 128
        for docs, positions, cu in r["seen"]:
            for lo, hi in zip(cu, cu[1:]):
                assert len(set(docs[lo:hi])) == 1  # one document per piece
                assert positions[lo:hi] == list(range(positions[lo], positions[lo] + hi - lo))


def test_resume_equals_the_uninterrupted_run(reports):
    for r in reports:
        assert r["same_batches"] and r["same_params"]
        assert r["resumed_losses"] == r["losses"][2:]


def test_loss_is_finite_and_positive(reports):
    for r in reports:
        assert all(0 < x < float("inf") for x in r["losses"])


def test_the_old_sampler_refuses_the_world_as_data_parallel_group(reports):
    for r in reports:
        assert r["world_refused"] and r["old_rank"] == r["rank"] // 2
