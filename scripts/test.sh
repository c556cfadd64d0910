#!/bin/sh
# README command two: everything CI checks, from a fresh Debian 12 machine.
# Installs the packages, checks formatting, builds with CMake (warnings as
# errors) and runs every test, builds with meson and runs its tests, and
# builds downstream consumers (find_package, pkg-config, add_subdirectory,
# meson subproject) against the result.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
jobs=$(nproc)

echo "== dependencies"
scripts/install-deps.sh

echo "== formatting"
scripts/check-format.sh

echo "== CMake build and tests"
cmake -S . -B build/ci-cmake -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DFLOPSPACK_WERROR=ON \
  -DCMAKE_INSTALL_PREFIX="$root/build/ci-prefix" -DPython3_EXECUTABLE=/usr/bin/python3
cmake --build build/ci-cmake -j "$jobs"
ctest --test-dir build/ci-cmake --output-on-failure -j "$jobs"
cmake --install build/ci-cmake > /dev/null

echo "== AddressSanitizer + UndefinedBehaviorSanitizer"
san="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
cmake -S . -B build/ci-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DFLOPSPACK_WERROR=ON \
  -DFLOPSPACK_BUILD_BENCHMARKS=OFF -DFLOPSPACK_BUILD_EXAMPLES=OFF \
  -DCMAKE_C_FLAGS="$san" -DCMAKE_CXX_FLAGS="$san" -DPython3_EXECUTABLE=/usr/bin/python3
cmake --build build/ci-asan -j "$jobs"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
  ctest --test-dir build/ci-asan --output-on-failure -j "$jobs" -E 'abi_baseline|exported_symbols'

echo "== ThreadSanitizer: the concurrency tests (suites named *Thread*/*Concurrency*)"
tsan="-fsanitize=thread -g -O1"
cmake -S . -B build/ci-tsan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DFLOPSPACK_BUILD_BENCHMARKS=OFF \
  -DFLOPSPACK_BUILD_EXAMPLES=OFF -DCMAKE_C_FLAGS="$tsan" -DCMAKE_CXX_FLAGS="$tsan" > /dev/null
cmake --build build/ci-tsan -j "$jobs" --target capi_test
TSAN_OPTIONS=halt_on_error=1 build/ci-tsan/tests/capi_test --gtest_filter='*Thread*:*Concurrency*'

echo "== libFuzzer harnesses, ${FLOPSPACK_FUZZ_SECONDS:-10} s each"
scripts/fuzz.sh "${FLOPSPACK_FUZZ_SECONDS:-10}"

echo "== meson build and tests"
if [ -d build/ci-meson ]; then
  meson setup --reconfigure build/ci-meson --werror > /dev/null
else
  meson setup build/ci-meson --werror > /dev/null
fi
meson compile -C build/ci-meson
meson test -C build/ci-meson --print-errorlogs

echo "== downstream consumers"
tests/consumers/run.sh "$root" "$root/build/ci-prefix" "$root/build/ci-consumers"

# ---- Python package installed by pip (pyproject.toml, meson-python) ----
echo "== pip install into a venv, Python suite against the install"
scripts/test-pip-install.sh "$root/build/ci-venv"

echo "== all tests passed"
