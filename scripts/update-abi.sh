#!/bin/sh
# Refreshes abi/libflopspack.abi from a build with debug info. Run it only
# when the change to the public header is intended; docs/abi.md says when
# the change also needs a version bump.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
build="${1:-$root/build}"
abidw --headers-dir "$root/include" --drop-private-types --no-corpus-path --no-comp-dir-path \
  --out-file "$root/abi/libflopspack.abi" "$build/libflopspack.so"
echo "wrote $root/abi/libflopspack.abi"
