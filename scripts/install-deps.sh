#!/bin/sh
# Installs every Debian 12 package flopspack needs to build, test and run its
# bindings and tools. Idempotent: only missing packages are installed.
set -eu
PACKAGES="build-essential cmake ninja-build pkg-config git ccache
  libgtest-dev libgmock-dev libbenchmark-dev libabsl-dev
  meson swig golang-go abigail-tools bindgen clang libclang-rt-14-dev clang-format clang-tidy
  python3 python3-dev python3-numpy python3-pytest python3-torch
  python3-matplotlib fonts-dejavu-core chromium
  python3-dask python3-distributed
  python3-mesonpy python3-venv python3-pip
  librust-serde-json-dev nlohmann-json3-dev libcli11-dev"
missing=""
for p in $PACKAGES; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing="$missing $p"
  fi
done
if [ -z "$missing" ]; then
  echo "install-deps: all packages present"
  exit 0
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
echo "install-deps: installing$missing"
# shellcheck disable=SC2086
if ! $SUDO apt-get install -y --no-install-recommends $missing; then
  $SUDO apt-get update
  # shellcheck disable=SC2086
  $SUDO apt-get install -y --no-install-recommends $missing
fi
