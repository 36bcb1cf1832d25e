//! The project's one boundary to MLIR's C API.
//!
//! melior wraps most of what the passes need; what it does not wrap (use
//! lists, erasing ops, reading some attribute kinds, inserting at a position
//! given by another op) is wrapped here once, safely, with melior's
//! lifetimes: a value or op reference obtained from a function stays tied to
//! it. Every other crate of the project uses melior and this crate only; it
//! is the only user of `mlir_sys` besides the FFI to the C++ shim
//! (`passes/cpp`). Other C++ of the project (the CPU's JIT) takes MLIR's
//! handles through [`raw`].
//!
//! - [`attr`]: reading attribute values (strings, bools, numbers, dense
//!   literals, affine maps).
//! - [`types`]: element types, memref sizes, a type's dialect.
//! - [`affine`]: affine maps to and from the assignment model's index
//!   expressions.
//! - [`ir`]: navigation and mutation (functions of a module, use lists,
//!   replacing and erasing, the context of an op).
//! - [`builder`]: [`builder::Builder`], typed construction of upstream ops
//!   (constants, loops, allocations) at an insertion point.
//! - [`cache`]: types and attributes parsed from text once per run.
//! - [`check`]: an op checked against its definition in `dialects/spec`.

pub mod affine;
pub mod attr;
pub mod builder;
pub mod cache;
pub mod check;
pub mod error;
pub mod ir;
pub mod types;

/// MLIR's C handles, for the project's foreign-function interfaces to its
/// own C++ (the JIT's): they name the handles through this crate, not
/// through `mlir_sys`.
pub mod raw {
    pub use mlir_sys::MlirOperation;
}

pub use builder::{At, Builder};
pub use error::{Error, Kind};
