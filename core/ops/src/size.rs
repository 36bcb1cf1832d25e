//! Buffer sizes, checked once: a buffer's axes are at least 1 long, and its
//! size in bytes (the product of its sizes and its element size) fits the
//! compiled code's `index` type, a signed 64-bit integer. Every size that
//! passed [`check_buffer`] can be converted to `i64` and multiplied out
//! without overflow.

use std::fmt;

/// The largest buffer, in bytes: the compiled code computes offsets as
/// 64-bit signed integers.
pub const MAX_BUFFER_BYTES: u64 = i64::MAX as u64;

/// Why a buffer's sizes are not usable.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SizeError {
    /// An axis of size 0 (axis number, all the sizes).
    ZeroAxis { axis: usize, dims: Vec<u64> },
    /// More than [`MAX_BUFFER_BYTES`] bytes (or a product that overflows).
    TooLarge { dims: Vec<u64>, elt_bytes: u64 },
    /// The memory for so many cells cannot be had here (what failed).
    Memory(String),
}

impl fmt::Display for SizeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SizeError::ZeroAxis { axis, dims } => write!(
                f,
                "axis {axis} of the buffer of sizes {dims:?} (batch, output, input) has size 0; every axis needs at least one cell"
            ),
            SizeError::TooLarge { dims, elt_bytes } => write!(
                f,
                "the buffer of sizes {dims:?} (batch, output, input) with {elt_bytes}-byte elements needs more than {MAX_BUFFER_BYTES} bytes (2^63 - 1), the most a buffer can address"
            ),
            SizeError::Memory(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for SizeError {}

/// The number of cells of a buffer of sizes `dims` whose elements take
/// `elt_bytes` bytes, if every axis is at least 1 long and the buffer takes
/// at most [`MAX_BUFFER_BYTES`] bytes.
pub fn check_buffer(dims: &[u64], elt_bytes: u64) -> Result<u64, SizeError> {
    if let Some(axis) = dims.iter().position(|&d| d == 0) {
        return Err(SizeError::ZeroAxis {
            axis,
            dims: dims.to_vec(),
        });
    }
    let too_large = || SizeError::TooLarge {
        dims: dims.to_vec(),
        elt_bytes,
    };
    let cells = dims
        .iter()
        .try_fold(1u64, |n, &d| n.checked_mul(d))
        .ok_or_else(too_large)?;
    match cells.checked_mul(elt_bytes.max(1)) {
        Some(bytes) if bytes <= MAX_BUFFER_BYTES => Ok(cells),
        _ => Err(too_large()),
    }
}

/// The size in bytes of an element type written as MLIR text (`f32`,
/// `bf16`, ...), if it is a float type the project knows.
pub fn element_bytes(elt: &str) -> Option<u64> {
    match elt {
        "f16" | "bf16" => Some(2),
        "f32" => Some(4),
        "f64" => Some(8),
        _ => None,
    }
}

/// A vector of `n` copies of `value`, or an error instead of aborting when
/// the memory cannot be had.
pub fn filled(n: u64, value: f64) -> Result<Vec<f64>, SizeError> {
    let len = usize::try_from(n)
        .map_err(|_| SizeError::Memory(format!("cannot hold {n} values on this machine")))?;
    let mut v = Vec::new();
    v.try_reserve_exact(len).map_err(|_| {
        SizeError::Memory(format!(
            "cannot allocate {n} values ({} bytes)",
            n.saturating_mul(8)
        ))
    })?;
    v.resize(len, value);
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes() {
        assert_eq!(check_buffer(&[], 4), Ok(1));
        assert_eq!(check_buffer(&[3, 4], 8), Ok(12));
        assert_eq!(
            check_buffer(&[2, 0], 4),
            Err(SizeError::ZeroAxis {
                axis: 1,
                dims: vec![2, 0]
            })
        );
        // The product overflows u64; the bytes overflow; the bytes exceed
        // 2^63 - 1; the largest f32 buffer.
        for dims in [
            vec![1 << 32, 1 << 32],
            vec![1 << 62, 4],
            vec![1 << 61],
            vec![u64::MAX],
        ] {
            assert!(
                matches!(check_buffer(&dims, 4), Err(SizeError::TooLarge { .. })),
                "{dims:?}"
            );
        }
        assert_eq!(check_buffer(&[(1 << 61) - 1], 4), Ok((1 << 61) - 1));
        let e = check_buffer(&[1 << 32, 1 << 32], 4)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("[4294967296, 4294967296]") && e.contains("2^63 - 1"),
            "{e}"
        );
    }

    #[test]
    fn zeros_fail_instead_of_aborting() {
        assert_eq!(filled(3, 0.5), Ok(vec![0.5; 3]));
        assert!(matches!(
            filled(u64::MAX / 2, 0.0),
            Err(SizeError::Memory(m)) if m.contains("cannot")
        ));
    }
}
