#!/bin/sh
# Fails if any C or C++ source differs from .clang-format's style.
# Fix with: scripts/check-format.sh --fix
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
files=$(git ls-files --cached --others --exclude-standard -- '*.h' '*.cc' '*.c' \
  | grep -v '^bindings/.*_wrap' | grep -v '/generated/' || true)
if [ "${1:-}" = "--fix" ]; then
  # shellcheck disable=SC2086
  clang-format -i $files
  exit 0
fi
# shellcheck disable=SC2086
if ! clang-format --dry-run --Werror $files; then
  echo "unformatted code: run scripts/check-format.sh --fix" >&2
  exit 1
fi
echo "format: ok ($(echo "$files" | wc -w) files)"
