package capi

import "unsafe"

// View is a borrowed C array (pointer and length) written by a C call; its
// layout matches struct flopspack_go_view in capi.swigcxx.
type View struct {
	Data uintptr
	Len  uint64
}

// Int64s copies the viewed elements into a new Go slice (never nil).
func (v *View) Int64s() []int64 {
	out := make([]int64, v.Len)
	if v.Len > 0 {
		copy(out, unsafe.Slice((*int64)(unsafe.Pointer(v.Data)), int(v.Len)))
	}
	return out
}
