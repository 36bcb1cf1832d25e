//! The CPU backend's decisions, in plain Rust (tested directly; the code
//! that emits them is in `ocannl-cpu`).
//!
//! - [`tiling`]: which assignments the register-blocked contraction kernel
//!   computes, and over which iterators.
//! - [`Tile`]: the kernel's register tile for an element type.
//! - [`parallel`]: when a loop nest is worth running on several cores.
//!
//! Architecture invariant: no MLIR.

pub mod tiling;

/// Rows of the contraction kernel's register tile.
pub const KERNEL_ROWS: i64 = 8;
/// Vectors per row of the register tile (64 bytes each).
pub const KERNEL_VECTORS: i64 = 2;
/// Reduction steps per packed block.
pub const KERNEL_DEPTH: i64 = 256;
/// Loops over fewer cells (times 16 for the kernel's multiply-adds) than
/// this stay sequential: starting the threads would cost more.
pub const PARALLEL_CELLS: i64 = 1 << 16;

/// The register tile of the contraction kernel: `mr` rows of `nr` lanes
/// (`nr / lanes` vectors each), over blocks of `kc` reduction steps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tile {
    pub mr: i64,
    pub nr: i64,
    pub lanes: i64,
    pub kc: i64,
}

impl Tile {
    /// The tile for an element type (`"f32"`, `"f64"`); `None` where the
    /// kernel does not apply.
    pub fn for_element(elt: &str) -> Option<Tile> {
        let lanes = match elt {
            "f32" => 16,
            "f64" => 8,
            _ => return None,
        };
        Some(Tile {
            mr: KERNEL_ROWS,
            nr: KERNEL_VECTORS * lanes,
            lanes,
            kc: KERNEL_DEPTH,
        })
    }
}

/// Whether a loop nest over `ranges` is worth running on several cores.
pub fn parallel(ranges: &[(i64, i64)]) -> bool {
    ranges.first().is_some_and(|(lo, hi)| hi - lo > 1)
        && ranges.iter().map(|(lo, hi)| hi - lo).product::<i64>() >= PARALLEL_CELLS
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parallel_thresholds() {
        assert!(!parallel(&[]));
        assert!(!parallel(&[(0, 1), (0, 1 << 20)]));
        assert!(!parallel(&[(0, 2), (0, 100)]));
        assert!(parallel(&[(0, 256), (0, 256)]));
    }

    #[test]
    fn tiles() {
        assert_eq!(Tile::for_element("f32").map(|t| t.nr), Some(32));
        assert_eq!(Tile::for_element("f64").map(|t| t.nr), Some(16));
        assert_eq!(Tile::for_element("f16"), None);
    }
}
