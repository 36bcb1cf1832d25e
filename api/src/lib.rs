//! Tensor expressions in Rust, in the spirit of OCANNL's `%op` syntax.
//!
//! ```ignore
//! use ocannl::*;
//! let x = data("x", "10|2");
//! let h = relu(&(param("b1").output(&[16]) + param("w1") * &x));
//! let y = param("b2").output(&[1]) + param("w2").init(ParamInit::He) * &h;
//! ```
//!
//! - [`param`] declares a param inline: a [`Param`], with optional dims
//!   ([`Param::output`], [`Param::input`]; every other dim is inferred from
//!   its uses), initialization ([`Param::init`], a [`ParamInit`]) and seed
//!   ([`Param::seed`]). A param is a tensor wherever one is expected (it
//!   derefs and converts to [`Tensor`]). Params with the same name are the
//!   same param (their declarations merge; a conflict is an error). Any
//!   non-empty string is a name.
//! - [`data`] is an input fed at each call, with its shape
//!   (`"batch|input->output"`). Data are positional: the function's
//!   arguments in order of creation; their names (any strings, repeated or
//!   empty ones included) only label them in diagnostics.
//! - `+`, `-`, `*` (compose: OCANNL's `*`), unary `-`, between tensors and
//!   params (owned or borrowed) and numbers on either side; [`pointmul`]
//!   (OCANNL's `*.`), [`pointdiv`], [`relu`] and the other pointwise ops
//!   ([`unary`], [`binary`], [`ternary`] for any op of the vocabulary),
//!   [`einsum`], [`transpose`], [`sum`].
//! - [`Tensor::memory`] pins a node's memory mode (a [`Memory`]).
//! - [`Tensor::module`] prints the `ocannl_shape` module an expression
//!   builds; [`train::Trainer`] compiles a loss and a forward function into
//!   routines for training and inference, with an [`Optimizer`] ([`Sgd`],
//!   [`Adam`], AdamW) and the learning rate of each step (a [`Schedule`]).
//! - [`data`](mod@data): datasets (Fashion-MNIST, a word list) and seeded
//!   minibatches as host tensors.
//!
//! Shape errors are the pass's own messages ([`Error`]).

mod checkpoint;
mod expr;
pub mod nn;
pub mod parallel;
mod schedule;
pub mod train;
mod writer;

use std::fmt;

pub use expr::{
    binary, constant, data, dim, einsum, einsum_capturing, einsum_with, eq, erf, exp, full, index,
    iota, log, lt, maximum, minimum, ne, number, one_hot, param, pointdiv, pointmul,
    range_of_shape, relu, sqrt, stop_gradient, sum, tanh, ternary, transpose, unary, where_, Index,
    Param, Tensor,
};
pub use ocannl_assign::virtualize::Memory;
/// Collectives for data-parallel training ([`Trainer::new_data_parallel`]):
/// `Local`, `Nccl`, and with the `mpi` feature (`ocannl::collective_mpi`)
/// `Mpi` and NCCL's ranks found through MPI.
pub use ocannl_collective as collective;
#[cfg(feature = "mpi")]
pub use ocannl_collective_mpi as collective_mpi;
/// Datasets and minibatches (`ocannl-data`): Fashion-MNIST, words, batches.
pub use ocannl_data as data;
pub use ocannl_ops::{Accum, BinaryOp, Generator, TernaryOp, UnaryOp};
pub use ocannl_runtime::{npy, safetensors, Elt, HostTensor, HostValue};
pub use ocannl_shape_dialect::ParamInit;
pub use schedule::{Decay, Schedule};
pub use train::{Adam, CacheUse, DecayOn, Device, Optimizer, Sgd, State, Trainer};

/// A diagnostic of the model: where (a param's or data's name as it was
/// given, or `LINE:COL` in the printed module), its severity, the message
/// and its notes. Displayed as `PLACE: error: message`, each note on a line
/// of its own (`  note: ...`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    pub place: String,
    pub severity: String,
    pub message: String,
    pub notes: Vec<String>,
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}: {}", self.place, self.severity, self.message)?;
        for n in &self.notes {
            write!(f, "\n  note: {n}")?;
        }
        Ok(())
    }
}

/// An error from building, compiling or running a model, by kind; its
/// text is the messages of what failed, one per line.
#[derive(Debug)]
#[non_exhaustive]
pub enum Error {
    /// The model's shapes do not agree: shape inference's (or the model
    /// checks') diagnostics, each at its place.
    Shape(Vec<Diagnostic>),
    /// Compiling failed after shape inference: the diagnostics of the
    /// step that failed, and the compiler's error (the [`source`]).
    ///
    /// [`source`]: std::error::Error::source
    Compile {
        diagnostics: Vec<Diagnostic>,
        cause: ocannl_compiler::Error,
    },
    /// No backend has this name (the message lists the registered ones).
    UnknownDevice(String),
    /// The device cannot run code here (no GPU, or no driver).
    DeviceUnavailable(String),
    /// A file could not be read or written, or does not hold what it
    /// should (a checkpoint of another model, a damaged `.npy`).
    File(String),
    /// A compiled routine failed: a run-time check (an index out of
    /// range, memory beyond the limit) or the backend refused it.
    Run(String),
    /// The ranks of a data-parallel job could not join or exchange, or do
    /// not train the same model.
    Collective(String),
    /// An argument of a call is invalid: the number of inputs, a name that
    /// is no param, an optimizer's option out of range, a param declared
    /// twice with other dims.
    Invalid(String),
    /// A broken invariant of this crate (a bug to report).
    Internal(String),
}

/// A runtime failure, by its kind: a bad argument is [`Error::Invalid`], a
/// failed check, memory or device failure [`Error::Run`], a file's
/// [`Error::File`], a program the backend cannot compile
/// [`Error::Compile`]; the message unchanged.
impl From<ocannl_runtime::Error> for Error {
    fn from(e: ocannl_runtime::Error) -> Error {
        use ocannl_runtime::Kind;
        match e.kind() {
            Kind::Argument => Error::Invalid(e.to_string()),
            Kind::Io | Kind::Format => Error::File(e.to_string()),
            Kind::Compile => Error::Compile {
                diagnostics: vec![],
                cause: ocannl_compiler::Error::Backend(e),
            },
            Kind::Internal => Error::Internal(e.to_string()),
            _ => Error::Run(e.to_string()),
        }
    }
}

/// A collective failure: a setting out of range is [`Error::Invalid`],
/// everything else (joining, exchanging, ranks that disagree)
/// [`Error::Collective`]; the message unchanged.
impl From<ocannl_collective::Error> for Error {
    fn from(e: ocannl_collective::Error) -> Error {
        match e.kind() {
            ocannl_collective::Kind::Setting => Error::Invalid(e.to_string()),
            _ => Error::Collective(e.to_string()),
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let lines = |f: &mut fmt::Formatter<'_>, d: &[Diagnostic]| -> fmt::Result {
            for (i, d) in d.iter().enumerate() {
                if i > 0 {
                    f.write_str("\n")?;
                }
                write!(f, "{d}")?;
            }
            Ok(())
        };
        match self {
            Error::Shape(d) => lines(f, d),
            Error::Compile { diagnostics, cause } => {
                use ocannl_compiler::Error as E;
                lines(f, diagnostics)?;
                // What failed, where the diagnostics do not say it: the
                // backend's and the pruning's own messages always.
                let what = match cause {
                    E::Parse if diagnostics.is_empty() => Some("the module does not parse".into()),
                    E::Stage { .. } if diagnostics.is_empty() => Some("compiling failed".into()),
                    E::Parse | E::Stage { .. } => None,
                    e => Some(e.to_string()),
                };
                match what {
                    Some(w) if diagnostics.is_empty() => f.write_str(&w),
                    Some(w) => write!(f, "\n{w}"),
                    None => Ok(()),
                }
            }
            Error::UnknownDevice(m)
            | Error::DeviceUnavailable(m)
            | Error::File(m)
            | Error::Run(m)
            | Error::Collective(m)
            | Error::Invalid(m)
            | Error::Internal(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Compile { cause, .. } => Some(cause),
            _ => None,
        }
    }
}
