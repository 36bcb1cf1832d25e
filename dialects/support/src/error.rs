//! The error of the MLIR side: what is wrong with the IR or the text, as a
//! kind, and the message a diagnostic shows.

use std::fmt;

/// What kind of failure an [`Error`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Kind {
    /// The IR breaks a rule of a dialect or a pass (what a verifier says).
    Invalid,
    /// Valid IR that this lowering or model does not take.
    Unsupported,
    /// A type, an attribute or a module's text does not parse.
    Parse,
    /// A broken invariant (a bug to report).
    Internal,
}

/// A failure on the MLIR side: its [`Kind`] and its message (what the
/// diagnostic at the op says).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    kind: Kind,
    message: String,
}

impl Error {
    /// An error of `kind` with `message`.
    pub fn new(kind: Kind, message: impl Into<String>) -> Error {
        Error {
            kind,
            message: message.into(),
        }
    }

    /// IR that breaks a rule.
    pub fn invalid(message: impl Into<String>) -> Error {
        Error::new(Kind::Invalid, message)
    }

    /// IR this code does not take.
    pub fn unsupported(message: impl Into<String>) -> Error {
        Error::new(Kind::Unsupported, message)
    }

    /// Text that does not parse.
    pub fn parse(message: impl Into<String>) -> Error {
        Error::new(Kind::Parse, message)
    }

    /// A broken invariant.
    pub fn internal(message: impl Into<String>) -> Error {
        Error::new(Kind::Internal, message)
    }

    /// Its kind.
    pub fn kind(&self) -> Kind {
        self.kind
    }

    /// The same error with its message rewritten by `f`.
    pub fn map_message(mut self, f: impl FnOnce(&str) -> String) -> Error {
        self.message = f(&self.message);
        self
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Error {}

/// Its message: the text of the diagnostic that code which reports at an
/// op (a pass's own steps) attaches there.
impl From<Error> for String {
    fn from(e: Error) -> String {
        e.message
    }
}
