//! The GPU backend's decisions, in plain Rust (tested directly; the code
//! that emits them is in `ocannl-gpu`, the code that runs them in
//! `ocannl-gpu-runtime`).
//!
//! - [`launch`]: how many blocks and threads a kernel over some cells gets.
//! - [`tiling`]: which contractions the shared-memory tiled kernel
//!   computes, over which iterators, and its tile.
//! - [`schedule`]: what the host does to run a routine: allocations, kernel
//!   launches with their arguments, frees, results.
//! - [`artifact`]: a compiled program (its schedule, and its PTX for one or
//!   more chips) as one checked, versioned file.
//!
//! Architecture invariant: no MLIR, no CUDA.

pub mod artifact;
pub mod launch;
pub mod schedule;
pub mod tiling;

pub use artifact::Artifact;
pub use launch::Launch;
pub use schedule::{
    Arg, ArgInfo, Buffer, Elt, Function, Global, Output, Program, PtxModule, Role, Signature, Slot,
    Step,
};
pub use tiling::{plan_matmul, Matmul, TILE};
