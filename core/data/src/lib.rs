//! Datasets for training, in plain Rust (no MLIR): files read with every
//! check, and minibatches as the host tensors a train step takes.
//!
//! - [`idx`]: IDX files (MNIST's format), gzipped or plain, with the magic
//!   number, dims and length checked; an error names the file. Gzip is
//!   read with `flate2` (rust-lang's well-kept crate, on the pure-Rust
//!   `miniz_oxide` backend).
//! - [`batches`]: batches of indices in a seeded order, new each epoch (the
//!   last partial batch dropped by default: a compiled train step has a
//!   fixed batch size), and batches gathered into [`HostTensor`]s.
//!
//! Architecture invariant: no MLIR; the only random generator is
//! [`ocannl_ops::SplitMix64`].
//!
//! [`HostTensor`]: ocannl_runtime::HostTensor

pub mod batches;
mod file;
pub mod idx;

pub use batches::{Batches, Last};
