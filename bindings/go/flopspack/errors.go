package flopspack

import (
	"errors"
	"fmt"

	"github.com/flopspack/flopspack/bindings/go/internal/capi"
)

// Error is a failed library call: Status and the library's Message. When a
// Go cost callback failed, Cause holds its error (errors.Unwrap).
type Error = capi.Error

// Status is a flopspack_status value; String gives its C name.
type Status = capi.Status

// The statuses. Use errors.Is(err, StatusInfeasible.Target()) or errors.As
// with *Error to inspect a failure.
const (
	StatusOK              = capi.StatusOK
	StatusInvalidArgument = capi.StatusInvalidArgument
	StatusOutOfRange      = capi.StatusOutOfRange
	StatusInfeasible      = capi.StatusInfeasible
	StatusOutOfMemory     = capi.StatusOutOfMemory
	StatusInternal        = capi.StatusInternal
	StatusCallbackFailed  = capi.StatusCallbackFailed
	StatusCancelled       = capi.StatusCancelled
	StatusBufferTooSmall  = capi.StatusBufferTooSmall
)

// ErrClosed is wrapped by the error of any method called after Close.
var ErrClosed = errors.New("flopspack: object is closed")

func closedError(what string) error { return fmt.Errorf("%w: %s", ErrClosed, what) }

// Sentinels for errors.Is: errors.Is(err, flopspack.ErrInfeasible) is true
// for any *Error with StatusInfeasible.
var (
	ErrInvalidArgument = StatusInvalidArgument.Target()
	ErrOutOfRange      = StatusOutOfRange.Target()
	ErrInfeasible      = StatusInfeasible.Target()
	ErrOutOfMemory     = StatusOutOfMemory.Target()
	ErrInternal        = StatusInternal.Target()
	ErrCallbackFailed  = StatusCallbackFailed.Target()
	ErrCancelled       = StatusCancelled.Target()
	ErrBufferTooSmall  = StatusBufferTooSmall.Target()
)

// checkExtraCostsLength: the C calls read one extra cost per length.
func checkExtraCostsLength(extraCosts []float64, lengths []int64) error {
	if len(extraCosts) != len(lengths) {
		return &Error{Status: StatusInvalidArgument,
			Message: fmt.Sprintf("extra_costs has %d entries for %d lengths", len(extraCosts), len(lengths))}
	}
	return nil
}
