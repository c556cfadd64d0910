// Package flopspack is the Go binding of the flopspack C library: it decides
// how variable-length training data is packed and spread across GPUs so that
// no GPU waits for another and little compute goes to padding.
//
// Constructors return (*T, error); every object owns a C handle and has a
// Close method (idempotent; a finalizer closes forgotten objects, but call
// Close). Using an object after Close returns an error wrapping ErrClosed,
// never a crash. Errors from the library are *Error values carrying the
// status and the library's message, read inside the same C call.
//
// Slices are passed to C without copying. Results are copied into Go memory,
// so they stay valid after Close.
//
// Building: the package uses cgo and SWIG (the go tool runs swig on
// internal/capi/capi.swigcxx); the library is found through CGO_CPPFLAGS and
// CGO_LDFLAGS, see docs/bindings.md.
package flopspack
