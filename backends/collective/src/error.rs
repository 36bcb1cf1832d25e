//! The collectives' error: what failed, as a kind, and the message.

use std::fmt;

/// What kind of failure an [`Error`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Kind {
    /// The ranks could not form a job: MPI or NCCL could not start, a rank
    /// cannot run the collective library, the unique id did not arrive.
    Join,
    /// A collective between the ranks failed.
    Exchange,
    /// The ranks do not run the same configuration (model, optimizer,
    /// batch, seed).
    Disagree,
    /// A setting (an environment variable) has a value it cannot take.
    Setting,
}

/// A collective failure: its [`Kind`] and its message.
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

    /// The ranks could not join.
    pub fn join(message: impl Into<String>) -> Error {
        Error::new(Kind::Join, message)
    }

    /// A collective failed.
    pub fn exchange(message: impl Into<String>) -> Error {
        Error::new(Kind::Exchange, message)
    }

    /// Its kind.
    pub fn kind(&self) -> Kind {
        self.kind
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Error {}
