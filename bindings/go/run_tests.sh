#!/bin/sh
# Runs the Go binding's vet and tests against a built libflopspack; ctest's
# go_test. Usage: run_tests.sh <include dir> <library dir> [preload libs]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
include_dir=$1
lib_dir=$2
preload=${3:-}
# The go tool's cache keys on the package's own files and the cgo flags, not
# on files the .swigcxx includes from elsewhere (the common interface, the
# header): their hash goes into the flags so that a change rebuilds.
inputs=$(cat "$include_dir/flopspack/flopspack.h" "$here/../swig/flopspack.i" | sha256sum | cut -c1-16)
export CGO_CPPFLAGS="-I$include_dir -DFLOPSPACK_SWIG_INPUTS=$inputs"
export CGO_LDFLAGS="-L$lib_dir -Wl,-rpath,$lib_dir"
export GOFLAGS=-mod=mod GOPROXY=off GO111MODULE=on GOTOOLCHAIN=local
cd "$here"
# Vet the idiomatic package. (Vetting the SWIG package itself reads the raw
# cgo files from a build's temporary directory, which a cached build no
# longer has: "vet: can't parse raw cgo file", a go tool limitation.)
go vet -unsafeptr=false ./flopspack
if [ -n "$preload" ]; then
  # A sanitizer build: the runtimes must come first in the test binary.
  exec go test -count=1 -exec "env LD_PRELOAD=$preload ASAN_OPTIONS=detect_leaks=0" ./...
fi
exec go test -count=1 ./...
