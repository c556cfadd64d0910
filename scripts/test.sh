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
start=$(date +%s)
# Each stage's banner says how long CI has run so far: docs/development.md
# keeps the budget (15 minutes on a 2-core machine) and where it goes.
stage() { echo "== $* (at $(( $(date +%s) - start )) s)"; }

stage "dependencies"
scripts/install-deps.sh

stage "formatting"
scripts/check-format.sh

stage "CMake build and tests"
cmake -S . -B build/ci-cmake -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DFLOPSPACK_WERROR=ON \
  -DCMAKE_INSTALL_PREFIX="$root/build/ci-prefix" -DPython3_EXECUTABLE=/usr/bin/python3
cmake --build build/ci-cmake -j "$jobs"
ctest --test-dir build/ci-cmake --output-on-failure -j "$jobs"
cmake --install build/ci-cmake > /dev/null

stage "AddressSanitizer + UndefinedBehaviorSanitizer"
# -O1: the sanitizers' own advice, and the suite runs 2-3x faster than at -O0.
# Not rerun here: the ABI checks (no memory), the Go and Rust suites (ASan
# sees only the C library under them, which the C, CLI and Python suites
# drive harder) and the report page (its C++ runs in cli_end_to_end).
san="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer -O1"
cmake -S . -B build/ci-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DFLOPSPACK_WERROR=ON \
  -DFLOPSPACK_BUILD_BENCHMARKS=OFF -DFLOPSPACK_BUILD_EXAMPLES=OFF \
  -DFLOPSPACK_BUILD_GO=OFF -DFLOPSPACK_BUILD_RUST=OFF \
  -DCMAKE_C_FLAGS="$san" -DCMAKE_CXX_FLAGS="$san" -DPython3_EXECUTABLE=/usr/bin/python3
cmake --build build/ci-asan -j "$jobs"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
  ctest --test-dir build/ci-asan --output-on-failure -j "$jobs" \
  -E 'abi_baseline|exported_symbols|cli_report'

stage "ThreadSanitizer: the concurrency tests (suites named *Thread*/*Concurrency*)"
tsan="-fsanitize=thread -g -O1"
cmake -S . -B build/ci-tsan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DFLOPSPACK_BUILD_BENCHMARKS=OFF \
  -DFLOPSPACK_BUILD_EXAMPLES=OFF -DCMAKE_C_FLAGS="$tsan" -DCMAKE_CXX_FLAGS="$tsan" > /dev/null
cmake --build build/ci-tsan -j "$jobs" --target capi_test
TSAN_OPTIONS=halt_on_error=1 build/ci-tsan/tests/capi_test --gtest_filter='*Thread*:*Concurrency*'

stage "libFuzzer harnesses, ${FLOPSPACK_FUZZ_SECONDS:-10} s each"
scripts/fuzz.sh "${FLOPSPACK_FUZZ_SECONDS:-10}"

stage "meson build and tests"
# Every meson target is compiled (the build definitions must not drift from
# CMake's); the suites CMake already ran are not run twice: the Python suite
# runs against the meson-python install below, the report page above.
if [ -d build/ci-meson ]; then
  meson setup --reconfigure build/ci-meson --werror -Dbenchmarks=disabled > /dev/null
else
  meson setup build/ci-meson --werror -Dbenchmarks=disabled > /dev/null
fi
meson compile -C build/ci-meson
meson test -C build/ci-meson --print-errorlogs --no-rebuild \
  $(meson test -C build/ci-meson --list 2>/dev/null | sed 's/^.* \/ //' | grep -v -x -e python_test -e cli_report)

stage "downstream consumers"
tests/consumers/run.sh "$root" "$root/build/ci-prefix" "$root/build/ci-consumers"

# ---- Python package installed by pip (pyproject.toml, meson-python) ----
stage "pip install into a venv, Python suite against the install"
scripts/test-pip-install.sh "$root/build/ci-venv"

stage "all tests passed"
