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
//! - [`rng`]: SplitMix64, the generator behind `uniform` and `normal`
//!   initialization (in compiled code and in the interpreter) and generated
//!   test data.
//! - The leaf types of the later stages: [`Affine`] index expressions
//!   ([`affine`]), the element type [`Elt`] (with its compute type and
//!   rounding), and buffer sizes
//!   ([`size`]: [`check_buffer`]). Shape inference (`ocannl-shape`) and the
//!   assignment model (`ocannl-assign`) both build on them, so neither
//!   depends on the other.
//!
//! Architecture invariant: no MLIR, and no dependency but `half` (the
//! 16-bit floats' rounding) and `libm` (`erf` in f64); this crate knows
//! nothing of shapes, routines or buffers' contents.

pub mod affine;
pub mod ops;
pub mod rng;
pub mod size;

pub use affine::Affine;
pub use ops::{Accum, BinaryOp, NumOp, TernaryOp, UnaryOp};
pub use rng::{normal01, threefry4x32, uniform01, Dist, Generator, SplitMix64};
pub use size::{check_buffer, element_bytes, SizeError, MAX_BUFFER_BYTES};

/// The element type of a buffer that runtimes exchange with the host.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Elt {
    /// IEEE binary16 (`f16`): 11 significant bits, subnormals below 2^-14.
    F16,
    /// bfloat16 (`bf16`): f32's exponent, 8 significant bits.
    BF16,
    F32,
    F64,
}

impl Elt {
    /// Every element type, narrowest first.
    pub const ALL: [Elt; 4] = [Elt::F16, Elt::BF16, Elt::F32, Elt::F64];

    pub fn name(self) -> &'static str {
        match self {
            Elt::F16 => "f16",
            Elt::BF16 => "bf16",
            Elt::F32 => "f32",
            Elt::F64 => "f64",
        }
    }

    /// Bytes per cell.
    pub fn size(self) -> u64 {
        match self {
            Elt::F16 | Elt::BF16 => 2,
            Elt::F32 => 4,
            Elt::F64 => 8,
        }
    }

    /// From an MLIR element type's text (`None` for other types).
    pub fn parse(text: &str) -> Option<Elt> {
        match text {
            "f16" => Some(Elt::F16),
            "bf16" => Some(Elt::BF16),
            "f32" => Some(Elt::F32),
            "f64" => Some(Elt::F64),
            _ => None,
        }
    }

    /// The type values of this element type are computed in: f32 for the
    /// 16-bit types (stored in 16 bits, loaded into f32, computed and
    /// summed in f32 and rounded once when stored, as PyTorch's CPU
    /// kernels and cuBLAS's default compute type do), else itself.
    pub fn compute(self) -> Elt {
        match self {
            Elt::F16 | Elt::BF16 => Elt::F32,
            e => e,
        }
    }

    /// `x` rounded to this type, to nearest with ties to even, as the
    /// hardware stores it: an f64 that is an f32 value (any result computed
    /// in f32) rounds to a 16-bit type exactly as a conversion from f32
    /// does; overflow gives an infinity, NaN stays NaN.
    pub fn round(self, x: f64) -> f64 {
        match self {
            Elt::F64 => x,
            Elt::F32 => f64::from(x as f32),
            // Through f32: exact for f32 values, and the 16-bit
            // conversions from f32 round to nearest-even on every bit.
            Elt::F16 => half::f16::from_f32(x as f32).to_f64(),
            Elt::BF16 => half::bf16::from_f32(x as f32).to_f64(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Elt;

    #[test]
    fn rounding_to_each_element_type() {
        let two = |e: i32| 2f64.powi(e);
        // bf16 keeps 8 significant bits: 1 + 2^-8 is halfway between 1 and
        // 1 + 2^-7 and goes to the even one; a hair above goes up.
        assert_eq!(Elt::BF16.round(1.0 + two(-8)), 1.0);
        assert_eq!(Elt::BF16.round(1.0 + 3.0 * two(-8)), 1.0 + 4.0 * two(-8));
        assert_eq!(Elt::BF16.round(1.0 + two(-8) + two(-20)), 1.0 + two(-7));
        assert_eq!(Elt::BF16.round(3.0e38), 226.0 * two(120));
        assert_eq!(Elt::BF16.round(f64::from(f32::MAX)), f64::INFINITY);
        // f16: 11 significant bits, largest 65504, subnormals to 2^-24.
        assert_eq!(Elt::F16.round(1.0 + two(-11)), 1.0);
        assert_eq!(Elt::F16.round(1.0 + 3.0 * two(-11)), 1.0 + two(-9));
        assert_eq!(Elt::F16.round(65504.0), 65504.0);
        assert_eq!(Elt::F16.round(65519.0), 65504.0);
        assert_eq!(Elt::F16.round(65520.0), f64::INFINITY);
        assert_eq!(Elt::F16.round(two(-24)), two(-24));
        assert_eq!(Elt::F16.round(two(-25)), 0.0);
        assert_eq!(Elt::F16.round(3.0 * two(-26)), two(-24));
        assert_eq!(Elt::F16.round(-3.0 * two(-26)), -two(-24));
        assert_eq!(Elt::F32.round(1.0 + two(-30)), 1.0);
        assert_eq!(Elt::F64.round(1.0 + two(-30)), 1.0 + two(-30));
        for e in Elt::ALL {
            assert!(e.round(f64::NAN).is_nan());
            assert_eq!(e.round(f64::NEG_INFINITY), f64::NEG_INFINITY);
            assert_eq!(Elt::parse(e.name()), Some(e));
            assert!(e.compute().size() >= 4);
        }
    }
}
