//! OCANNL's shape model, its notation and its shape inference, in plain Rust.
//!
//! Architecture invariant: this crate knows nothing of MLIR. The dialect
//! crates convert MLIR ops and types to and from the data defined here.

// `u64::is_multiple_of` needs Rust 1.87; the workspace supports 1.85.
#![allow(clippy::manual_is_multiple_of)]

pub mod gen;
pub mod infer;
pub mod logic;
pub mod notation;
pub mod projections;
pub mod shape;
pub mod solver;

#[cfg(test)]
mod tests;

pub use infer::{
    infer, infer_with_refs, InferError, InferErrorKind, Inference, Named, Node, NodeDecl,
    RefConstraint, Refs,
};
pub use notation::{parse_einsum, parse_slot, Context, EinsumSpec, Kind, SpecError};
pub use shape::{
    parse_shape, shape_of_slot, Dim, DimVar, Fresh, Label, Row, RowVar, Shape, VarScope,
};
pub use solver::ShapeErrorKind;
