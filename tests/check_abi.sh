#!/bin/sh
# Compares the built library with the committed libabigail baseline.
# Any difference fails: an incompatible one must not happen within a major
# version, a compatible one (an added function) must come with a refreshed
# baseline in the same change. See docs/abi.md, and scripts/update-abi.sh.
set -u
root="$1"
lib="$2"
baseline="$root/abi/libflopspack.abi"
if [ ! -f "$baseline" ]; then
  echo "no ABI baseline at $baseline: run scripts/update-abi.sh" >&2
  exit 1
fi
abidiff "$baseline" "$lib"
rc=$?
if [ $rc -eq 0 ]; then
  echo "ok: ABI matches $baseline"
  exit 0
fi
if [ $((rc & 8)) -ne 0 ]; then
  echo "INCOMPATIBLE ABI change (abidiff rc=$rc): needs a major version, see docs/abi.md" >&2
elif [ $((rc & 4)) -ne 0 ]; then
  echo "compatible ABI change (abidiff rc=$rc): refresh the baseline with scripts/update-abi.sh" >&2
else
  echo "abidiff failed (rc=$rc)" >&2
fi
exit 1
