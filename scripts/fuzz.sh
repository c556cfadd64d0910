#!/bin/sh
# Runs each libFuzzer harness for a fixed budget (default 10 s; CI uses
# that), as many at once as there are cores. A longer local run:
#   scripts/fuzz.sh 600          # ten minutes per harness
# build/fuzz is configured and built here with clang + ASan + UBSan, line
# tables only, the library as unity files (FLOPSPACK_UNITY_LIBRARY: it is
# compiled once, to be run; ~35% less compile CPU); with a build directory
# as the second argument the harnesses already built there
# (-DFLOPSPACK_BUILD_FUZZERS=ON) are run instead.
# New inputs found go to build/fuzz-corpus/<harness>; the committed seed
# corpora are tests/fuzz/corpus/<harness>.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
seconds="${1:-10}"
if [ -n "${2:-}" ]; then
  build=$(cd "$2" && pwd)
else
  build="$root/build/fuzz"
  flags="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer -O1"
  CC=clang CXX=clang++ cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Debug \
    -DCMAKE_C_FLAGS_DEBUG=-gline-tables-only -DCMAKE_CXX_FLAGS_DEBUG=-gline-tables-only \
    -DFLOPSPACK_BUILD_FUZZERS=ON -DFLOPSPACK_BUILD_TESTS=OFF -DFLOPSPACK_BUILD_BENCHMARKS=OFF \
    -DFLOPSPACK_BUILD_EXAMPLES=OFF -DFLOPSPACK_BUILD_BINDINGS=OFF -DFLOPSPACK_BUILD_CLI=OFF \
    -DFLOPSPACK_UNITY_LIBRARY=ON \
    -DCMAKE_C_FLAGS="$flags" -DCMAKE_CXX_FLAGS="$flags" > "$build.log" 2>&1 ||
    { cat "$build.log"; exit 1; }
  cmake --build "$build" -j "$(nproc)" >> "$build.log" 2>&1 || { tail -50 "$build.log"; exit 1; }
fi
set -- "$build"/tests/fuzz/fuzz_*
[ -x "$1" ] || { echo "fuzz: no harnesses in $build/tests/fuzz" >&2; exit 1; }

# One harness: its log in the build tree, a one-line summary, the log's tail
# on failure. A fixed seed (FLOPSPACK_FUZZ_SEED, default 1) makes CI explore
# the same input sequence every run, so a slower machine only stops earlier
# in it; set FLOPSPACK_FUZZ_SEED=0 for a fresh random exploration.
run_one='
  harness=$1 root=$2 seconds=$3 build=$4
  name=$(basename "$harness")
  seeds="$root/tests/fuzz/corpus/$name"
  found="$root/build/fuzz-corpus/$name"
  mkdir -p "$found" "$seeds"
  log="$build/$name.log"
  if ! "$harness" -seed="${FLOPSPACK_FUZZ_SEED:-1}" -max_total_time="$seconds" \
      -print_final_stats=1 -timeout=10 -rss_limit_mb=2048 \
      -artifact_prefix="$build/" "$found" "$seeds" > "$log" 2>&1; then
    tail -60 "$log"
    echo "fuzz: $name FAILED (log: $log)" >&2
    exit 1
  fi
  runs=$(grep -o "stat::number_of_executed_units: *[0-9]*" "$log" | grep -o "[0-9]*$" || echo "?")
  echo "fuzz: $name ok, $runs executions in ${seconds}s"'
# Each harness is one process on one core: run a core's worth at once.
printf '%s\n' "$@" | xargs -P "$(nproc)" -I{} sh -c "$run_one" fuzz {} "$root" "$seconds" "$build" ||
  { echo "fuzz: a harness failed (above)" >&2; exit 1; }
