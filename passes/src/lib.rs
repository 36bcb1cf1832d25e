//! The project's passes, laid out as MLIR's: transforms within a dialect,
//! conversions from one dialect to the next.
//!
//! - [`framework`]: running a Rust pass body in MLIR's pass manager
//!   (options, located errors, panics) and `define_pass!`.
//! - [`registry`]: the one list of passes and the named pipelines.
//! - [`backend`]: backends by name (what compiles a module at the loops
//!   stage into an `ocannl_runtime::Executable`).
//! - [`driver`]: contexts for tools, running pipelines, keeping only the
//!   functions that run, and `mlir-opt`'s driver.
//! - [`transforms`]: `ocannl-verify`, `ocannl-infer-shapes`.
//! - [`conversion`]: `ocannl-lower-to-assign` (shape → assign) and
//!   `ocannl-lower-to-loops` (assign → upstream loops, with the
//!   [`conversion::assign_to_loops::LoopTarget`] a backend installs).
//! - [`diag`]: diagnostics with notes; [`ffi`]: the C ABI of the shim.
//!
//! Architecture invariant: a pass converts MLIR to the data of a pure-Rust
//! crate, calls it, and writes the result back; algorithms live elsewhere.

pub mod backend;
pub mod conversion;
pub mod diag;
pub mod driver;
pub mod ffi;
pub mod framework;
pub mod registry;
pub mod transforms;
pub mod util;

pub use backend::{backend, backends, register_backend, Backend};
pub use driver::{keep_only, new_context, opt_main, parse_module, run_pipeline};
pub use registry::{
    pipelines, register_all, register_pass, register_pipeline, register_pipeline_with_options,
    Pipeline, Stage,
};
