// Package capi is the SWIG-generated layer of the flopspack C ABI (from
// capi.swigcxx, which the go tool runs through SWIG) plus the hand-written
// pieces SWIG cannot make: status errors and the cost callback trampoline.
// It is internal; use package flopspack.
package capi

// The in-tree header is found relative to this file; an installed one through
// CGO_CPPFLAGS or the default include path. The library is found through
// CGO_LDFLAGS (-L, -Wl,-rpath) or the default linker path: see
// docs/bindings.md.

// #cgo CPPFLAGS: -I${SRCDIR}/../../../../include
// #cgo CXXFLAGS: -std=c++17
// #cgo LDFLAGS: -lflopspack
import "C"
