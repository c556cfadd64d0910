#!/bin/sh
# pip install of the Python package, as a user does it, offline: a venv that
# sees Debian's numpy/pytest/torch (--system-site-packages), then
# `pip install --no-build-isolation --no-index .` (pyproject.toml:
# meson-python builds the library and the binding), then the Python suite
# run against that install (scripts/test-pip-suite.sh) — from outside the
# source tree, so nothing can import the build tree's copy by accident.
# Called by scripts/test.sh.
# Usage: scripts/test-pip-install.sh [VENV_DIR [BUILD_DIR [--no-suite]]]
#   VENV_DIR    default build/ci-venv
#   BUILD_DIR   meson-python's build directory (builddir), configured with
#               scripts/meson-ci.ini (--werror, unity files) and kept, so
#               that scripts/test.sh's meson stage reuses its objects;
#               default (or ""): a temporary one, as pip does.
#   --no-suite  install and check the import only: the caller runs
#               scripts/test-pip-suite.sh VENV_DIR (scripts/test.sh does,
#               in the background during its meson stage).
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
venv=${1:-$root/build/ci-venv}
builddir=${2:-}
suite=${3:-}
rm -rf "$venv"
/usr/bin/python3 -m venv --system-site-packages "$venv"
set --  # pip's extra arguments
if [ -n "$builddir" ]; then
  mkdir -p "$builddir"
  # --werror and unity files (scripts/meson-ci.ini says why): CI only, a
  # user's pip install compiles file by file.
  set -- --config-settings="builddir=$(cd "$builddir" && pwd)" \
    --config-settings=setup-args=--native-file="$root/scripts/meson-ci.ini"
fi
"$venv/bin/python" -m pip install --no-build-isolation --no-index --quiet "$@" "$root"
cd "$venv"
"$venv/bin/python" - <<'PY'
import pathlib, sys
import flopspack
where = pathlib.Path(flopspack.__file__).resolve()
venv = pathlib.Path(sys.prefix).resolve()
assert venv in where.parents, f"flopspack imported from {where}, not the venv {venv}"
print(f"pip install: flopspack {flopspack.__version__} from {where.parent}")
PY
if [ "$suite" != "--no-suite" ]; then
  "$root/scripts/test-pip-suite.sh" "$venv"
fi
