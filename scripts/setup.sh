#!/bin/sh
# README command one: install the dependencies, build and install flopspack
# (CMake, into ./install), and run the main job on the bundled example.
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
build/examples/model_flops
