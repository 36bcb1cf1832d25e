//! Conversions from one dialect to the next (as MLIR's `XToY`).

pub mod assign_to_linalg;
pub mod assign_to_loops;
pub mod shape_to_assign;
