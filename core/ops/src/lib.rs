//! The one vocabulary of numeric ops, in plain Rust.
//!
//! Every layer below the dialect boundary speaks of ops through these enums:
//! the dialects parse an op's name once ([`UnaryOp::parse`], ...) and
//! everything after matches exhaustively (the interpreter's f64 semantics
//! here, the loop lowering's `arith`/`math` ops, the contraction planner).
//! A new op is added here, and the compiler then names every place that
//! must handle it.
//!
//! - [`ops`]: [`UnaryOp`], [`BinaryOp`], [`TernaryOp`], [`NumOp`] (any of the
//!   three) and [`Accum`], each with its names, arity and f64 semantics.
//! - [`rng`]: SplitMix64, the generator behind `uniform` initialization (in
//!   compiled code and in the interpreter) and generated test data.
//!
//! Architecture invariant: no MLIR, no dependency; this crate knows nothing
//! of shapes or buffers.

pub mod ops;
pub mod rng;

pub use ops::{Accum, BinaryOp, NumOp, TernaryOp, UnaryOp};
pub use rng::{uniform01, SplitMix64};
