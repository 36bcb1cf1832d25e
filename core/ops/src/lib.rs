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
//! - The leaf types of the later stages: [`Affine`] index expressions
//!   ([`affine`]), the host element type [`Elt`], and buffer sizes
//!   ([`size`]: [`check_buffer`]). Shape inference (`ocannl-shape`) and the
//!   assignment model (`ocannl-assign`) both build on them, so neither
//!   depends on the other.
//!
//! Architecture invariant: no MLIR, no dependency; this crate knows nothing
//! of shapes, routines or buffers' contents.

pub mod affine;
pub mod ops;
pub mod rng;
pub mod size;

pub use affine::Affine;
pub use ops::{Accum, BinaryOp, NumOp, TernaryOp, UnaryOp};
pub use rng::{uniform01, SplitMix64};
pub use size::{check_buffer, element_bytes, SizeError, MAX_BUFFER_BYTES};

/// The element type of a buffer that runtimes exchange with the host.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Elt {
    F32,
    F64,
}

impl Elt {
    pub fn name(self) -> &'static str {
        match self {
            Elt::F32 => "f32",
            Elt::F64 => "f64",
        }
    }

    /// Bytes per cell.
    pub fn size(self) -> u64 {
        match self {
            Elt::F32 => 4,
            Elt::F64 => 8,
        }
    }

    /// From an MLIR element type's text (`None` for other types).
    pub fn parse(text: &str) -> Option<Elt> {
        match text {
            "f32" => Some(Elt::F32),
            "f64" => Some(Elt::F64),
            _ => None,
        }
    }
}
