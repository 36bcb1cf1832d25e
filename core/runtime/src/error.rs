//! The runtime's error: what went wrong, as a kind a caller can act on, and
//! the message a user reads.

use std::fmt;

/// What kind of failure an [`Error`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Kind {
    /// A call's argument is not what the function takes: their number, an
    /// element type, a shape, an entry or option the executable does not
    /// have, a value out of range.
    Argument,
    /// A compiled routine's run-time check failed (an index out of range).
    Check,
    /// Memory could not be had: a buffer over the limit, or an allocation
    /// the system refused.
    Memory,
    /// A file could not be read or written ([`std::error::Error::source`]
    /// is the system's error).
    Io,
    /// A file, or bytes from one, do not hold what they should (a damaged
    /// `.npy`, a truncated safetensors file, another format).
    Format,
    /// The device or its driver failed, or is not there.
    Device,
    /// The backend cannot compile the program (an op, a type or a size its
    /// code generation does not take), or its compiler failed.
    Compile,
    /// A broken invariant of the runtime or a backend (a bug to report).
    Internal,
}

/// A runtime failure: its [`Kind`] and its message.
#[derive(Debug)]
pub struct Error {
    kind: Kind,
    message: String,
    source: Option<std::io::Error>,
}

impl Error {
    /// An error of `kind` with `message`.
    pub fn new(kind: Kind, message: impl Into<String>) -> Error {
        Error {
            kind,
            message: message.into(),
            source: None,
        }
    }

    /// A bad argument.
    pub fn argument(message: impl Into<String>) -> Error {
        Error::new(Kind::Argument, message)
    }

    /// A failed run-time check.
    pub fn check(message: impl Into<String>) -> Error {
        Error::new(Kind::Check, message)
    }

    /// Memory that could not be had.
    pub fn memory(message: impl Into<String>) -> Error {
        Error::new(Kind::Memory, message)
    }

    /// A file's contents that are not what they should be.
    pub fn format(message: impl Into<String>) -> Error {
        Error::new(Kind::Format, message)
    }

    /// A device's or driver's failure.
    pub fn device(message: impl Into<String>) -> Error {
        Error::new(Kind::Device, message)
    }

    /// A program the backend cannot compile.
    pub fn compile(message: impl Into<String>) -> Error {
        Error::new(Kind::Compile, message)
    }

    /// A broken invariant.
    pub fn internal(message: impl Into<String>) -> Error {
        Error::new(Kind::Internal, message)
    }

    /// An I/O failure, with the system's error as its source.
    pub fn io(message: impl Into<String>, source: std::io::Error) -> Error {
        Error {
            kind: Kind::Io,
            message: message.into(),
            source: Some(source),
        }
    }

    /// Its kind.
    pub fn kind(&self) -> Kind {
        self.kind
    }

    /// Its message.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The same error, its message after `what: ` (where it happened).
    pub fn prefixed(mut self, what: impl fmt::Display) -> Error {
        self.message = format!("{what}: {}", self.message);
        self
    }

    /// The same error (kind and source) with its message rewritten.
    pub fn map_message(mut self, f: impl FnOnce(&str) -> String) -> Error {
        self.message = f(&self.message);
        self
    }

    /// The same error as another kind (a check of a value read from a file
    /// is a [`Kind::Format`] error of the file).
    pub fn as_kind(mut self, kind: Kind) -> Error {
        self.kind = kind;
        self
    }
}

/// Errors are equal when their kinds and messages are (the source is the
/// message's cause, already in it).
impl PartialEq for Error {
    fn eq(&self, other: &Error) -> bool {
        self.kind == other.kind && self.message == other.message
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.source
            .as_ref()
            .map(|e| e as &(dyn std::error::Error + 'static))
    }
}

/// The runtime's results.
pub type Result<T, E = Error> = std::result::Result<T, E>;
