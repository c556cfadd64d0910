//! Errors: the status of a failed call and the library's message, read
//! immediately after the call on the same thread.

use crate::sys;
use std::ffi::CStr;
use std::fmt;
use std::ptr;

/// A `flopspack_status` other than OK.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Status {
    InvalidArgument,
    OutOfRange,
    Infeasible,
    OutOfMemory,
    Internal,
    CallbackFailed,
    Cancelled,
    BufferTooSmall,
    /// A status this binding does not know (a newer library).
    Other(u32),
}

impl Status {
    fn from_raw(raw: sys::flopspack_status) -> Status {
        match raw {
            sys::FLOPSPACK_INVALID_ARGUMENT => Status::InvalidArgument,
            sys::FLOPSPACK_OUT_OF_RANGE => Status::OutOfRange,
            sys::FLOPSPACK_INFEASIBLE => Status::Infeasible,
            sys::FLOPSPACK_OUT_OF_MEMORY => Status::OutOfMemory,
            sys::FLOPSPACK_INTERNAL => Status::Internal,
            sys::FLOPSPACK_CALLBACK_FAILED => Status::CallbackFailed,
            sys::FLOPSPACK_CANCELLED => Status::Cancelled,
            sys::FLOPSPACK_BUFFER_TOO_SMALL => Status::BufferTooSmall,
            other => Status::Other(other),
        }
    }

    /// The C value.
    pub fn raw(self) -> u32 {
        match self {
            Status::InvalidArgument => sys::FLOPSPACK_INVALID_ARGUMENT,
            Status::OutOfRange => sys::FLOPSPACK_OUT_OF_RANGE,
            Status::Infeasible => sys::FLOPSPACK_INFEASIBLE,
            Status::OutOfMemory => sys::FLOPSPACK_OUT_OF_MEMORY,
            Status::Internal => sys::FLOPSPACK_INTERNAL,
            Status::CallbackFailed => sys::FLOPSPACK_CALLBACK_FAILED,
            Status::Cancelled => sys::FLOPSPACK_CANCELLED,
            Status::BufferTooSmall => sys::FLOPSPACK_BUFFER_TOO_SMALL,
            Status::Other(raw) => raw,
        }
    }

    /// The C name, e.g. "FLOPSPACK_INVALID_ARGUMENT".
    pub fn name(self) -> &'static str {
        // SAFETY: returns a static string for any value.
        unsafe { CStr::from_ptr(sys::flopspack_status_string(self.raw())) }
            .to_str()
            .unwrap_or("FLOPSPACK_UNKNOWN_STATUS")
    }
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A failed flopspack call.
#[derive(Debug, Clone, PartialEq)]
pub struct Error {
    status: Status,
    message: String,
}

impl Error {
    pub(crate) fn new(status: Status, message: impl Into<String>) -> Error {
        Error {
            status,
            message: message.into(),
        }
    }
    pub fn status(&self) -> Status {
        self.status
    }
    /// The library's detail, naming the bad argument and its value.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.status, self.message)
    }
}

impl std::error::Error for Error {}

pub type Result<T> = std::result::Result<T, Error>;

/// Converts a status into a Result, reading the thread's last error message
/// right away (same thread, next call: nothing can overwrite it).
pub(crate) fn check(raw: sys::flopspack_status) -> Result<()> {
    if raw == sys::FLOPSPACK_OK {
        return Ok(());
    }
    // SAFETY: never NULL; valid until the next failing call on this thread.
    let message = unsafe { CStr::from_ptr(sys::flopspack_last_error_message()) };
    Err(Error::new(
        Status::from_raw(raw),
        message.to_string_lossy().into_owned(),
    ))
}

/// The C pointer of optional per-document extra costs (NULL for `None`), or
/// INVALID_ARGUMENT when there is not one per length: the C calls read
/// `lengths.len()` of them.
pub(crate) fn check_extra_costs(
    extra_costs: Option<&[f64]>,
    lengths: &[i64],
) -> Result<*const f64> {
    match extra_costs {
        None => Ok(ptr::null()),
        Some(e) if e.len() == lengths.len() => Ok(e.as_ptr()),
        Some(e) => Err(Error::new(
            Status::InvalidArgument,
            format!(
                "extra_costs has {} entries for {} lengths",
                e.len(),
                lengths.len()
            ),
        )),
    }
}
