//! The CPU backend's decisions, in plain Rust (tested directly; the code
//! that emits them is in `ocannl-cpu`).
//!
//! - [`tiling`]: which assignments the register-blocked contraction kernel
//!   computes, over which iterators, with which tile, how it reads its
//!   operands and which of its loops runs in parallel.
//! - [`gather`]: the gather form of an assignment whose result is indexed
//!   by sums of iterators (a convolution's input gradient).
//! - [`linear`]: cell indices as linear functions of the iterators, and
//!   padded copies of operands.
//! - [`parallel`]: when a loop nest is worth running on several cores.
//! - [`target`]: the machine the kernels are planned for (vectors,
//!   registers, caches).
//!
//! Architecture invariant: no MLIR.

pub mod gather;
pub mod linear;
pub mod target;
pub mod tiling;

/// Reduction steps per packed block of the contraction kernel.
pub const KERNEL_DEPTH: u64 = 256;
/// Loops over fewer cells than this stay sequential: starting the threads
/// would cost more.
pub const PARALLEL_CELLS: i64 = 1 << 16;
/// Contraction kernels of at most this many multiply-adds (a 64³ matmul)
/// stay sequential: they take a few microseconds on one core, about what
/// handing half of them to a second thread costs. Larger ones are split:
/// an 84³ matmul already runs 1.5-1.8× faster on two threads. OpenBLAS
/// draws its line at the same size (`GEMM_MULTITHREAD_THRESHOLD`).
pub const PARALLEL_WORK: u64 = 1 << 18;

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
}
