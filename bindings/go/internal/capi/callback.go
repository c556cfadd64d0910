package capi

// #include <stdint.h>
// #include <stddef.h>
import "C"

import (
	"fmt"
	"runtime/cgo"
	"sync"
	"unsafe"
)

// CostFunc computes the cost of one packed sequence from its document
// lengths. The slice is a copy the function owns (it may keep it).
type CostFunc func(lengths []int64) (float64, error)

// Callback owns a Go cost function registered as a C user_data handle.
type Callback struct {
	fn     CostFunc
	handle cgo.Handle
	mu     sync.Mutex
	last   error // the most recent error (or recovered panic) of fn
}

// NewCallback registers fn; Handle() is the C user_data; Free releases it.
func NewCallback(fn CostFunc) *Callback {
	cb := &Callback{fn: fn}
	cb.handle = cgo.NewHandle(cb)
	return cb
}

// Handle is the value to pass as user_data.
func (cb *Callback) Handle() uintptr { return uintptr(cb.handle) }

// LastError returns and clears the callback's most recent error.
func (cb *Callback) LastError() error {
	cb.mu.Lock()
	defer cb.mu.Unlock()
	err := cb.last
	cb.last = nil
	return err
}

// Free releases the handle; the C model must not call it afterwards.
func (cb *Callback) Free() { cb.handle.Delete() }

func (cb *Callback) fail(err error) C.int {
	cb.mu.Lock()
	cb.last = err
	cb.mu.Unlock()
	return 1
}

//export flopspackGoCost
func flopspackGoCost(handle C.uintptr_t, lengths *C.int64_t, n C.size_t, out *C.double) (rc C.int) {
	cb, ok := cgo.Handle(handle).Value().(*Callback)
	if !ok {
		return 1
	}
	// A panic must not unwind through C: it becomes the call's error.
	defer func() {
		if p := recover(); p != nil {
			rc = cb.fail(fmt.Errorf("cost callback panicked: %v", p))
		}
	}()
	// A copy in Go memory: the library's array is valid during this call
	// only, and fn may keep the slice it is given (issue 21).
	owned := make([]int64, int(n))
	if n > 0 {
		copy(owned, unsafe.Slice((*int64)(unsafe.Pointer(lengths)), int(n)))
	}
	cost, err := cb.fn(owned)
	if err != nil {
		return cb.fail(err)
	}
	*out = C.double(cost)
	return 0
}
