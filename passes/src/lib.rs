//! The project's passes, each in its own module, and their registration in
//! MLIR's pass registry (`registry`), which also runs the `mlir-opt` driver.
//!
//! Architecture invariant: a pass converts MLIR to the data of a pure-Rust
//! crate, calls it, and writes the result back; algorithms live elsewhere.

pub mod diag;
pub mod ffi;
pub mod infer_shapes;
pub mod lower_to_assign;
pub mod lower_to_loops;
pub mod registry;
mod util;
pub mod verify;

pub use registry::{new_context, opt_main, register_all, LOOPS_TO_LLVM};
