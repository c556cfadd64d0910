#!/bin/sh
# README command one: install the dependencies, build and install flopspack
# (CMake, into ./install), and run the main job: `flopspack report` on the
# bundled example dataset (examples/data/, made by
# scripts/make_example_dataset.py), which writes ./report/index.html.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
scripts/install-deps.sh
cmake -S . -B build -G Ninja -DCMAKE_INSTALL_PREFIX="$root/install" \
  -DPython3_EXECUTABLE=/usr/bin/python3
cmake --build build
cmake --install build > /dev/null
echo "installed into $root/install"
echo
"$root/install/bin/flopspack" report examples/data/example_lengths.txt --out "$root/report"
echo
echo "Open $root/report/index.html in a browser; docs/quickstart.md explains it."
