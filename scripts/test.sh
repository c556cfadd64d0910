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
# a unity file). Everything else (CLI, benchmarks, examples, bindings) at
# -O1 -g0, and the core and C API tests (FLOPSPACK_TEST_COMPILE_OPTIONS) at
# -Og: both still run GCC's flow-based warnings (-Wmaybe-uninitialized)
# under -Werror; the tests' run time is the library's (unchanged); the meson
# stage still compiles the CLI at -O2 with --werror. docs/development.md
# ("Sixth pass") has the figures.
cmake -S . -B build/ci-cmake -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DFLOPSPACK_WERROR=ON \
  "-DFLOPSPACK_NON_LIBRARY_COMPILE_OPTIONS=-g0;-O1" -DFLOPSPACK_CORE_COMPILE_OPTIONS=-g0 \
  -DFLOPSPACK_TEST_COMPILE_OPTIONS=-Og \
  -DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache \
  -DCMAKE_INSTALL_PREFIX="$root/build/ci-prefix" -DPython3_EXECUTABLE=/usr/bin/python3
cmake --build build/ci-cmake -j "$jobs"
# Not python_test: the same Python suite runs in the pip stage against the
# pip install (the user's path), built by GCC from the same sources, SWIG
# interface and SWIG flags (-threads -DSWIGWORDSIZE64); the ASan stage runs
# it through this tree's CMake SWIG target. Here it repeated both for ~43 s
# of one core. It stays a ctest test for developers (ctest -R python_test).
ctest --test-dir build/ci-cmake --output-on-failure -j "$jobs" -E '^python_test$'
cmake --install build/ci-cmake > /dev/null

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

# 6 s per harness in CI (4,000-170,000 executions of a fixed-seed sequence
# each at 10 s: a regression smoke, not a search); a real search is local,
# `scripts/fuzz.sh 600`. 10 -> 6 s: ~20 s of the stage's wall.
stage "libFuzzer harnesses, ${FLOPSPACK_FUZZ_SECONDS:-6} s each, $jobs at a time"
scripts/fuzz.sh "${FLOPSPACK_FUZZ_SECONDS:-6}"

stage "ThreadSanitizer (clang): the concurrency tests (suites named *Thread*/*Concurrency*)"
tsan="-fsanitize=thread -O1"
CC=clang CXX=clang++ cmake -S . -B build/ci-tsan -G Ninja -DCMAKE_BUILD_TYPE=Debug \
  -DCMAKE_C_FLAGS_DEBUG=-gline-tables-only -DCMAKE_CXX_FLAGS_DEBUG=-gline-tables-only \
  -DFLOPSPACK_BUILD_BENCHMARKS=OFF -DFLOPSPACK_BUILD_EXAMPLES=OFF -DFLOPSPACK_UNITY_LIBRARY=ON \
  -DCMAKE_C_FLAGS="$tsan" -DCMAKE_CXX_FLAGS="$tsan" > /dev/null
# capi_thread_test: capi_test's files that hold such tests, and no others.
cmake --build build/ci-tsan -j "$jobs" --target capi_thread_test
TSAN_OPTIONS=halt_on_error=1 build/ci-tsan/tests/capi_thread_test --gtest_filter='*Thread*:*Concurrency*'

# ---- Python package installed by pip (pyproject.toml, meson-python) ----
stage "pip install into a venv, Python suite against the install"
# meson-python builds in build/ci-meson (-Ddebug=false -Doptimization=2,
# --werror), which the meson stage below reconfigures: the library is
# compiled once for both.
scripts/test-pip-install.sh "$root/build/ci-venv" "$root/build/ci-meson"

stage "meson build: the build lists, and what users build through meson"
# The meson build must not drift from CMake's: scripts/check_build_lists.py
# compares the files every directory's meson.build and CMake file list (and
# finds .cc files neither lists), which compiling meson's targets cannot
# (a test file missing from both lists compiles fine). Configuring every
# option parses every meson.build; compiled are the library (the pip
# install's objects: same flags, -O2, no debug info), the CLI, the example,
# the header tests and one core test binary (the loop that defines them all);
# the suites themselves ran in the CMake stage and the Python suite against
# the pip install. docs/development.md has the times.
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
  flopspack:executable model_flops header_c_test header_cxx_test util_test
meson test -C build/ci-meson --print-errorlogs --no-rebuild \
  util_test header_c_test header_cxx_test exported_symbols build_lists
build/ci-meson/src/cli/flopspack --version
build/ci-meson/src/cli/flopspack pack examples/data/example_lengths.txt --capacity 8192 > /dev/null
build/ci-meson/examples/model_flops > /dev/null

stage "downstream consumers"
# Through the compiler cache: the add_subdirectory consumer's library is the
# CMake stage's objects (CMake reads the launcher from the environment).
CMAKE_C_COMPILER_LAUNCHER=ccache CMAKE_CXX_COMPILER_LAUNCHER=ccache \
  tests/consumers/run.sh "$root" "$root/build/ci-prefix" "$root/build/ci-consumers"

stage "all tests passed"
