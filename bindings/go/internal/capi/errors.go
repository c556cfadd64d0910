package capi

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Status is a flopspack_status value.
type Status int32

// The flopspack_status values (append-only, like the C enum).
const (
	StatusOK              Status = 0
	StatusInvalidArgument Status = 1
	StatusOutOfRange      Status = 2
	StatusInfeasible      Status = 3
	StatusOutOfMemory     Status = 4
	StatusInternal        Status = 5
	StatusCallbackFailed  Status = 6
	StatusCancelled       Status = 7
	StatusBufferTooSmall  Status = 8
)

// String is the C name of the status, e.g. "FLOPSPACK_INVALID_ARGUMENT".
func (s Status) String() string { return Flopspack_status_string(int32(s)) }

// Error is a failed flopspack call: its status and the library's message.
// errors.Is(err, StatusInvalidArgument) and friends match on the status; a
// failing Go cost callback's error is wrapped (errors.Unwrap / errors.As).
type Error struct {
	Status  Status
	Message string
	Cause   error
}

func (e *Error) Error() string {
	text := fmt.Sprintf("flopspack: %s: %s", e.Status, e.Message)
	if e.Cause != nil {
		text += ": " + e.Cause.Error()
	}
	return text
}

// Is matches a Status target, so errors.Is(err, capi.StatusInfeasible) works.
func (e *Error) Is(target error) bool {
	var s statusTarget
	if errors.As(target, &s) {
		return e.Status == Status(s)
	}
	return false
}

func (e *Error) Unwrap() error { return e.Cause }

// statusTarget lets a Status be used as an errors.Is target.
type statusTarget Status

func (s statusTarget) Error() string { return Status(s).String() }

// Target returns an error value that errors.Is matches against any *Error
// with this status.
func (s Status) Target() error { return statusTarget(s) }

// statusError decodes the "<status>:<message>" the status typemap returns
// ("" for FLOPSPACK_OK).
func statusError(encoded string) error {
	if encoded == "" {
		return nil
	}
	code, message, _ := strings.Cut(encoded, ":")
	n, err := strconv.Atoi(code)
	if err != nil {
		return &Error{Status: StatusInternal, Message: encoded}
	}
	return &Error{Status: Status(n), Message: message}
}
