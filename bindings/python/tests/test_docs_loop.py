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
def test_the_documented_loop_runs():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    done = subprocess.run([sys.executable, str(HERE / "docs_loop_worker.py"), str(PAGE), str(port)],
                          capture_output=True, text=True, timeout=240,
                          env=dict(os.environ, OMP_NUM_THREADS="1"))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "docs loop ran" in done.stdout
