#!/bin/sh
# The Python suite against a venv's pip install of flopspack (made by
# scripts/test-pip-install.sh), run from inside the venv so that nothing can
# import the source or build tree's copy by accident. Called by
# scripts/test-pip-install.sh, and by scripts/test.sh in the background
# while the meson stage compiles (the suite is one process: one core).
# Usage: scripts/test-pip-suite.sh VENV_DIR
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
venv=$(cd "$1" && pwd)
cd "$venv"
FLOPSPACK_REQUIRE_TORCH=1 FLOPSPACK_GOLDEN_DIR="$root/tests/golden" PYTHONDONTWRITEBYTECODE=1 \
  "$venv/bin/python" -m pytest -q -p no:cacheprovider "$root/bindings/python/tests"
