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
    binary, constant, data, einsum, einsum_with, eq, exp, full, index, iota, log, lt, maximum,
    minimum, ne, number, one_hot, param, pointdiv, pointmul, relu, sqrt, sum, tanh, ternary,
    transpose, unary, where_, Index, Param, Tensor,
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
pub use ocannl_ops::{Accum, BinaryOp, TernaryOp, UnaryOp};
pub use ocannl_runtime::{npy, safetensors, Elt, HostTensor, HostValue};
pub use ocannl_shape_dialect::ParamInit;
pub use schedule::Schedule;
pub use train::{Adam, CacheUse, Device, Optimizer, Sgd, State, Trainer};

/// An error from building, compiling or running: the diagnostics, each as
/// `PLACE: error: message`, the place being a param's or data's name, or
/// `LINE:COL` in the printed module.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    pub messages: Vec<String>,
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.messages.join("\n"))
    }
}

impl std::error::Error for Error {}

impl From<String> for Error {
    fn from(m: String) -> Self {
        Error { messages: vec![m] }
    }
}
