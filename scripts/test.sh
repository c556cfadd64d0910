#!/bin/sh
# README command two: everything CI checks, from a fresh Debian 12 machine.
# Installs the packages, checks formatting, builds with CMake (warnings as
# errors) and runs its tests (the library's, the C API's, Go, Rust, ABI),
# builds downstream consumers (find_package, pkg-config, add_subdirectory,
# meson subproject) against the result, runs the sanitizer and fuzzing
# builds, installs the Python package with pip and runs its suite, and
# builds with meson and runs the CLI's suites there.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
jobs=$(nproc)
start=$(date +%s)
# Each stage's banner says how long CI has run so far: docs/development.md
# keeps the budget (15 minutes on a 2-core machine) and where it goes.
stage() { echo "== $* (at $(( $(date +%s) - start )) s)"; }
# A step that runs beside the next stage, to fill a core that stage leaves
# idle (serial configures, a one-process test suite): its output goes to
# build/ci-logs/NAME.log, printed when joined; a failure fails the run there.
# docs/development.md, "Seventh pass".
mkdir -p build/ci-logs
background_pids=""
stop_background() {
  for pid in $background_pids; do kill "$pid" 2>/dev/null || true; done
}
trap stop_background EXIT
background() {
  name=$1
  shift
  rm -f "build/ci-logs/$name.rc"
  ( rc=0; "$@" > "build/ci-logs/$name.log" 2>&1 || rc=$?; echo "$rc" > "build/ci-logs/$name.rc" ) &
  background_pids="$background_pids $!"
  eval "pid_$name=\$!"
}
join_background() {
  eval "wait \"\$pid_$1\"" || true
  echo "-- $1 (run in the background, joined at $(( $(date +%s) - start )) s):"
  cat "build/ci-logs/$1.log"
  rc=$(cat "build/ci-logs/$1.rc" 2>/dev/null || echo "no exit code")
  if [ "$rc" != 0 ]; then
    echo "$1 FAILED (exit $rc; log: build/ci-logs/$1.log)" >&2
    exit 1
  fi
}

stage "dependencies"
scripts/install-deps.sh

stage "formatting"
scripts/check-format.sh

stage "CMake build and tests"
# A compiler cache for this run alone (build/ci-ccache: empty in a fresh
# clone, nothing carries over between CI runs). The add_subdirectory consumer
# compiles the library with this stage's flags, so its objects are cache
# hits. Depend mode: a miss costs the compile and a hash of the headers the
# compiler lists, not a second preprocessor run (~4% over a plain compile).
# NOHASHDIR: the two trees differ only in directory, which only the objects'
# debug info records. meson finds ccache by itself (pip, meson stages): same
# directory, no hits there, the same small overhead.
export CCACHE_DIR="$root/build/ci-ccache" CCACHE_DEPEND=1 CCACHE_NOHASHDIR=1
# Debug info only in src/capi (FLOPSPACK_CORE_COMPILE_OPTIONS=-g0 for the
# library's other files): the ABI check reads the DWARF of the exported
# functions, all defined there, and of the types they reach (abidiff against
# the baseline: same 118 functions, same 33 public structs). The library
# stays -O2 and file by file (a file missing an #include fails here, not in
# a unity file). Everything else (benchmarks, examples, golden_generate) at
# -O1 -g0, and the core and C API tests (FLOPSPACK_TEST_COMPILE_OPTIONS) at
# -Og: both still run GCC's flow-based warnings (-Wmaybe-uninitialized)
# under -Werror; the tests' run time is the library's (unchanged).
# docs/development.md ("Sixth pass") has the figures.
# Not in this tree (FLOPSPACK_BUILD_CLI=OFF, FLOPSPACK_BUILD_PYTHON=OFF):
# the CLI, its tests and the CMake SWIG module. Each is compiled by GCC with
# the same warnings as errors once, in the pip and meson stages (the CLI,
# cli_unit_test and the SWIG wrapper at -O2, --werror, -Wshadow=local
# -Wno-sign-compare as here), and the CLI's three suites (cli_unit_test,
# cli_end_to_end, cli_report) and the Python suite run there, against those
# builds; the ASan stage builds these CMake targets (clang) and runs their
# suites. Here they were a second GCC compile of the same sources (~100 CPU
# s: CLI 69, cli_unit_test 20, SWIG wrapper 13). "Seventh pass".
# Rust (cargo, in ctest's rust_test): a fresh target directory every run, so
# no incremental state to keep, and no debug info: ~20% of its CPU.
export CARGO_INCREMENTAL=0 CARGO_PROFILE_DEV_DEBUG=0
cmake -S . -B build/ci-cmake -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DFLOPSPACK_WERROR=ON \
  "-DFLOPSPACK_NON_LIBRARY_COMPILE_OPTIONS=-g0;-O1" -DFLOPSPACK_CORE_COMPILE_OPTIONS=-g0 \
  -DFLOPSPACK_TEST_COMPILE_OPTIONS=-Og -DFLOPSPACK_BUILD_CLI=OFF -DFLOPSPACK_BUILD_PYTHON=OFF \
  -DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache \
  -DCMAKE_INSTALL_PREFIX="$root/build/ci-prefix" -DPython3_EXECUTABLE=/usr/bin/python3
cmake --build build/ci-cmake -j "$jobs"
ctest --test-dir build/ci-cmake --output-on-failure -j "$jobs"
cmake --install build/ci-cmake > /dev/null
# The consumers need only this install and this stage's compiler cache: they
# run beside the ASan stage (their configures are serial) and are joined
# before the fuzzers, whose runs are timed.
background consumers env CMAKE_C_COMPILER_LAUNCHER=ccache CMAKE_CXX_COMPILER_LAUNCHER=ccache \
  tests/consumers/run.sh "$root" "$root/build/ci-prefix" "$root/build/ci-consumers"

stage "AddressSanitizer + UndefinedBehaviorSanitizer (clang)"
# clang compiles instrumented code 2-3x faster than GCC, and line tables
# (-gline-tables-only) are all a stack trace's file:line needs. Warnings
# are errors in the GCC builds (CMake and meson stages), not here: clang's
# warning set differs, and this stage looks for memory and UB errors.
# The fuzzers get their own tree: libFuzzer's coverage counters in the
# library would slow this suite's hot loops ~5x.
# -O1: the sanitizers' own advice, and the suite runs 2-3x faster than at -O0.
# The library as unity files of 16 (FLOPSPACK_UNITY_LIBRARY, here and in the
# TSan and fuzzing trees): 169 -> 108 CPU s for its compile here, measured
# under load; the GCC tree keeps per-file objects (the ABI check's DWARF).
# Everything but the library at -O0 (FLOPSPACK_NON_LIBRARY_COMPILE_OPTIONS:
# the tests, the CLI, the SWIG wrapper; the library keeps -O1, and it is
# where the suites spend their time): a CLI unity file 53.5 -> 26.9 CPU s,
# cli_end_to_end ~+8 CPU s; the core tests' figures in tests/CMakeLists.txt.
# Under a sanitizer the core tests run fewer random cases
# (tests/support/cases.h) and the docs test's report a 10,000-document
# sample; docs/development.md, "Sixth pass".
# Not rerun here: the ABI checks (no memory), the Go and Rust suites (ASan
# sees only the C library under them, which the C, CLI and Python suites
# drive harder) and the report page (its C++ runs in cli_end_to_end).
san="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer -O1"
CC=clang CXX=clang++ cmake -S . -B build/ci-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug \
  -DCMAKE_C_FLAGS_DEBUG=-gline-tables-only -DCMAKE_CXX_FLAGS_DEBUG=-gline-tables-only \
  -DFLOPSPACK_BUILD_BENCHMARKS=OFF -DFLOPSPACK_BUILD_EXAMPLES=OFF \
  -DFLOPSPACK_BUILD_GO=OFF -DFLOPSPACK_BUILD_RUST=OFF -DFLOPSPACK_UNITY_LIBRARY=ON \
  -DFLOPSPACK_NON_LIBRARY_COMPILE_OPTIONS=-O0 \
  -DCMAKE_C_FLAGS="$san" -DCMAKE_CXX_FLAGS="$san" -DPython3_EXECUTABLE=/usr/bin/python3
cmake --build build/ci-asan -j "$jobs"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
  ctest --test-dir build/ci-asan --output-on-failure -j "$jobs" \
  -E 'abi_baseline|exported_symbols|cli_report'

join_background consumers

# 6 s per harness in CI (4,000-170,000 executions of a fixed-seed sequence
# each at 10 s: a regression smoke, not a search); a real search is local,
# `scripts/fuzz.sh 600`. 10 -> 6 s: ~20 s of the stage's wall.
stage "libFuzzer harnesses, ${FLOPSPACK_FUZZ_SECONDS:-6} s each, $jobs at a time"
scripts/fuzz.sh "${FLOPSPACK_FUZZ_SECONDS:-6}"

stage "ThreadSanitizer (clang): the concurrency tests (suites named *Thread*/*Concurrency*)"
tsan="-fsanitize=thread -O1"
# Only capi_thread_test is built here: no CLI or bindings to configure (their
# tool and Python searches were half of this serial configure, ~12 -> ~6 s
# under load).
CC=clang CXX=clang++ cmake -S . -B build/ci-tsan -G Ninja -DCMAKE_BUILD_TYPE=Debug \
  -DCMAKE_C_FLAGS_DEBUG=-gline-tables-only -DCMAKE_CXX_FLAGS_DEBUG=-gline-tables-only \
  -DFLOPSPACK_BUILD_BENCHMARKS=OFF -DFLOPSPACK_BUILD_EXAMPLES=OFF -DFLOPSPACK_UNITY_LIBRARY=ON \
  -DFLOPSPACK_BUILD_CLI=OFF -DFLOPSPACK_BUILD_BINDINGS=OFF \
  -DCMAKE_C_FLAGS="$tsan" -DCMAKE_CXX_FLAGS="$tsan" > /dev/null
# capi_thread_test: capi_test's files that hold such tests, and no others.
cmake --build build/ci-tsan -j "$jobs" --target capi_thread_test
TSAN_OPTIONS=halt_on_error=1 build/ci-tsan/tests/capi_thread_test --gtest_filter='*Thread*:*Concurrency*'

# ---- Python package installed by pip (pyproject.toml, meson-python) ----
stage "pip install into a venv (the Python suite against it runs beside the meson stage)"
# meson-python builds in build/ci-meson (-Ddebug=false -Doptimization=2,
# --werror), which the meson stage below reconfigures: the library is
# compiled once for both. The Python suite against the install is one
# process (~35 s of one core): it runs in the background while the meson
# stage compiles and runs the CLI's suites, and is joined at the end.
scripts/test-pip-install.sh "$root/build/ci-venv" "$root/build/ci-meson" --no-suite
background python_suite scripts/test-pip-suite.sh "$root/build/ci-venv"

stage "meson build: the build lists, what users build through meson, the CLI's suites"
# The meson build must not drift from CMake's: scripts/check_build_lists.py
# compares the files every directory's meson.build and CMake file list (and
# finds .cc files neither lists), which compiling meson's targets cannot
# (a test file missing from both lists compiles fine). Configuring every
# option parses every meson.build; compiled are the library (the pip
# install's objects: same flags, -O2, no debug info), the CLI and
# cli_unit_test (GCC's only compile of them: not in the CMake stage's
# tree), the example, the header tests and one core test binary (the loop
# that defines them all). Run here: the CLI's three suites (cli_unit_test,
# cli_end_to_end with the docs pages as written, cli_report with its
# Chromium screenshot) against this -O2 build; the core suites ran in the
# CMake stage and the Python suite against the pip install.
# docs/development.md has the times.
/usr/bin/python3 scripts/check_build_lists.py
# --werror and -Dunity*: scripts/meson-ci.ini, the pip stage's settings (its
# objects are reused only if the options match).
meson_options="--werror -Ddebug=false -Doptimization=2 -Dunity=on -Dunity_size=16 -Dbenchmarks=disabled -Dtests=auto
  -Dexamples=auto -Dcli=auto -Dpython=auto -Dpython_wheel=false"
if [ -d build/ci-meson ]; then
  # shellcheck disable=SC2086
  meson setup --reconfigure build/ci-meson $meson_options > /dev/null
else
  # shellcheck disable=SC2086
  meson setup build/ci-meson $meson_options > /dev/null
fi
meson compile -C build/ci-meson flopspack:shared_library flopspack:static_library \
  flopspack:executable model_flops header_c_test header_cxx_test util_test cli_unit_test
# The two long suites first (meson test starts them in this order, one per
# core): cli_report ~50 s, cli_end_to_end ~35 s of one core each.
meson test -C build/ci-meson --print-errorlogs --no-rebuild --num-processes "$jobs" \
  cli_report cli_end_to_end cli_unit_test util_test header_c_test header_cxx_test \
  exported_symbols build_lists
build/ci-meson/src/cli/flopspack --version
build/ci-meson/src/cli/flopspack pack examples/data/example_lengths.txt --capacity 8192 > /dev/null
build/ci-meson/examples/model_flops > /dev/null
join_background python_suite

stage "all tests passed"
