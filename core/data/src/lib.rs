//! Datasets for training, in plain Rust (no MLIR): files read with every
//! check.
//!
//! - [`idx`]: IDX files (MNIST's format), gzipped or plain, with the magic
//!   number, dims and length checked; an error names the file. Gzip is
//!   read with `flate2` (rust-lang's well-kept crate, on the pure-Rust
//!   `miniz_oxide` backend).
//!
//! Architecture invariant: no MLIR.

mod file;
pub mod idx;
