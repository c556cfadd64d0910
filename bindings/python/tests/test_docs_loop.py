"""The training loop printed in docs/pytorch.md runs as written (CPU,
gloo, DDP-wrapped tiny model): a page a trainer author copies must work."""
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

HERE = pathlib.Path(__file__).parent
PAGE = HERE.resolve().parents[2] / "docs" / "pytorch.md"


@pytest.mark.skipif(not PAGE.exists(), reason="run from a source tree")
# Not under a sanitizer (FLOPSPACK_SANITIZED, the ASan stage): a DDP process
# under the ASan preload costs ~20 CPU s of torch; the page's library calls
# (CostModel.preset, PlannedBatchSampler) run instrumented in
# test_torch_sampler.py, and this test runs in the CMake and pip stages.
@pytest.mark.skipif(bool(os.environ.get("FLOPSPACK_SANITIZED")),
                    reason="a torch DDP process: CMake and pip stages")
def test_the_documented_loop_runs():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    done = subprocess.run([sys.executable, str(HERE / "docs_loop_worker.py"), str(PAGE), str(port)],
                          capture_output=True, text=True, timeout=240,
                          env=dict(os.environ, OMP_NUM_THREADS="1"))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "docs loop ran" in done.stdout
