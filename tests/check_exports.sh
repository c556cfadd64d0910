#!/bin/sh
# Fails if the shared library exports any symbol not named flopspack_*.
set -eu
lib="$1"
symbols=$(nm -D --defined-only "$lib" | awk '{print $3}' | sed 's/@.*//')
count=$(printf '%s\n' "$symbols" | grep -c '^flopspack_' || true)
stray=$(printf '%s\n' "$symbols" | grep -v '^flopspack_' | grep -v '^FLOPSPACK_1$' || true)
if [ -n "$stray" ]; then
  echo "exported symbols outside the flopspack_ namespace:" >&2
  printf '%s\n' "$stray" >&2
  exit 1
fi
if [ "$count" -lt 10 ]; then
  echo "only $count flopspack_ symbols exported: is the version script wrong?" >&2
  exit 1
fi
echo "ok: $count symbols, all flopspack_*"
