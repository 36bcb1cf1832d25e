//! The tiled contraction kernel: which assignments it computes, and over
//! which iterators.
//!
//! A contraction `lhs =+ a * b` qualifies when the result is indexed by
//! plain iterators only (and constants), among them `j` (the result's
//! contiguous axis, in `b` and not in `a`) and `i` (in `a` and not in `b`),
//! and exactly one iterator `k` is reduced (in neither the result's
//! indices) and read by both operands. Every other iterator indexes the
//! result (a batch of independent products). A block computes a
//! `TILE.m x TILE.n` tile of the result: `a`'s `m x k` and `b`'s `k x n`
//! tiles go through shared memory `TILE.k` steps at a time, and each thread
//! keeps `TILE.tm x TILE.tn` sums in registers. Operands are read through
//! their own index expressions, so every layout (and padding) works; the
//! loads into shared memory are ordered along each operand's contiguous
//! axis.

use ocannl_assign::Affine;
use ocannl_ops::{Accum, BinaryOp, NumOp};

use crate::launch::MAX_GRID_YZ;

/// The tile of the contraction kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tile {
    /// Result rows per block (along `i`).
    pub m: u64,
    /// Result columns per block (along `j`).
    pub n: u64,
    /// Reduction steps per shared-memory tile.
    pub k: u64,
    /// Threads per block along `x` (columns) and `y` (rows).
    pub tx: u64,
    pub ty: u64,
}

impl Tile {
    /// Result rows each thread computes (`m / ty`).
    pub fn tm(&self) -> u64 {
        self.m / self.ty
    }
    /// Result columns each thread computes (`n / tx`).
    pub fn tn(&self) -> u64 {
        self.n / self.tx
    }
    /// Threads per block.
    pub fn threads(&self) -> u64 {
        self.tx * self.ty
    }
}

/// 64 x 64 result tiles, 16 reduction steps per shared tile, 16 x 16
/// threads of 4 x 4 sums each: 8 KiB of shared memory in f32, 16 in f64.
pub const TILE: Tile = Tile {
    m: 64,
    n: 64,
    k: 16,
    tx: 16,
    ty: 16,
};

/// Products smaller than this (on `i` and `j`) use one thread per result
/// cell: a 64 x 64 tile would leave most threads idle.
pub const MIN_ROWS: u64 = 32;
pub const MIN_COLS: u64 = 32;
/// Reductions shorter than this use one thread per result cell.
pub const MIN_DEPTH: u64 = 8;

/// The iterators of a tiled contraction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Matmul {
    /// The result's contiguous axis, in `b` only.
    pub j: usize,
    /// In the result and `a` only.
    pub i: usize,
    /// The reduced iterator, in `a` and `b`.
    pub k: usize,
    /// The operand (1 or 2) indexed by `i` and `k`.
    pub a: usize,
    /// The operand (1 or 2) indexed by `k` and `j`.
    pub b: usize,
    /// The other iterators (each indexes the result), in the result's axis
    /// order: the grid's `z`.
    pub batch: Vec<usize>,
}

/// The tiled plan of an assignment, if the kernel applies and the product
/// is large enough to fill its tiles.
pub fn plan_matmul(accum: Accum, op: NumOp, space: &[u64], maps: &[Vec<Affine>]) -> Option<Matmul> {
    if accum != Accum::Add || op != NumOp::Binary(BinaryOp::Mul) || maps.len() != 3 {
        return None;
    }
    let lhs = &maps[0];
    if !lhs
        .iter()
        .all(|e| matches!(e, Affine::Dim(_) | Affine::Const(_)))
    {
        return None;
    }
    let in_lhs = |d: usize| lhs.contains(&Affine::Dim(d));
    let mentions = |m: &[Affine], d: usize| m.iter().any(|e| e.mentions(d));
    let Some(Affine::Dim(j)) = lhs.last() else {
        return None;
    };
    let j = *j;
    let (a, b) = match (mentions(&maps[1], j), mentions(&maps[2], j)) {
        (false, true) => (1, 2),
        (true, false) => (2, 1),
        _ => return None,
    };
    let reduced: Vec<usize> = (0..space.len()).filter(|&d| !in_lhs(d)).collect();
    let [k] = reduced[..] else {
        return None;
    };
    if !mentions(&maps[a], k) || !mentions(&maps[b], k) {
        return None;
    }
    // The largest row iterator, the earliest on ties.
    let i = (0..space.len())
        .filter(|&d| d != j && in_lhs(d) && mentions(&maps[a], d) && !mentions(&maps[b], d))
        .max_by_key(|&d| (space[d], std::cmp::Reverse(d)))?;
    if space[i] < MIN_ROWS || space[j] < MIN_COLS || space[k] < MIN_DEPTH {
        return None;
    }
    let mut batch = vec![];
    for e in lhs {
        if let Affine::Dim(d) = e {
            if *d != i && *d != j && !batch.contains(d) {
                batch.push(*d);
            }
        }
    }
    let batches: u64 = batch.iter().map(|&d| space[d]).product();
    (batches <= MAX_GRID_YZ).then_some(Matmul {
        j,
        i,
        k,
        a,
        b,
        batch,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use Affine::{Const, Dim};

    const MUL: NumOp = NumOp::Binary(BinaryOp::Mul);

    fn plan(space: &[u64], maps: &[Vec<Affine>]) -> Option<(usize, usize, usize, usize, usize)> {
        plan_matmul(Accum::Add, MUL, space, maps).map(|p| (p.j, p.i, p.k, p.a, p.b))
    }

    #[test]
    fn plans() {
        let mm = vec![
            vec![Dim(0), Dim(1)],
            vec![Dim(0), Dim(2)],
            vec![Dim(2), Dim(1)],
        ];
        // C[i,j] += A[i,k] * B[k,j]
        assert_eq!(plan(&[64, 64, 64], &mm), Some((1, 0, 2, 1, 2)));
        // Operands swapped.
        let swapped = vec![mm[0].clone(), mm[2].clone(), mm[1].clone()];
        assert_eq!(plan(&[64, 64, 64], &swapped), Some((1, 0, 2, 2, 1)));
        // C = X W^T: b read along k.
        let xwt = vec![
            vec![Dim(0), Dim(1)],
            vec![Dim(0), Dim(2)],
            vec![Dim(1), Dim(2)],
        ];
        assert_eq!(plan(&[64, 64, 64], &xwt), Some((1, 0, 2, 1, 2)));
        // Too small for a tile.
        assert_eq!(plan(&[16, 64, 64], &mm), None);
        assert_eq!(plan(&[64, 64, 4], &mm), None);
        // Batched: C[b,i,j] += A[b,i,k] * B[k,j]
        let bmm = vec![
            vec![Dim(0), Dim(1), Dim(2)],
            vec![Dim(0), Dim(1), Dim(3)],
            vec![Dim(3), Dim(2)],
        ];
        let p = plan_matmul(Accum::Add, MUL, &[8, 64, 64, 64], &bmm).unwrap();
        assert_eq!((p.j, p.i, p.k, p.batch.clone()), (2, 1, 3, vec![0]));
        // A constant index in the result.
        let fixed = vec![vec![Dim(0), Const(0), Dim(1)], mm[1].clone(), mm[2].clone()];
        assert_eq!(plan(&[64, 64, 64], &fixed), Some((1, 0, 2, 1, 2)));
    }

    #[test]
    fn rejects() {
        let mm = vec![
            vec![Dim(0), Dim(1)],
            vec![Dim(0), Dim(2)],
            vec![Dim(2), Dim(1)],
        ];
        // Not a sum of products.
        assert_eq!(plan_matmul(Accum::Max, MUL, &[64, 64, 64], &mm), None);
        assert_eq!(
            plan_matmul(Accum::Add, NumOp::Binary(BinaryOp::Add), &[64, 64, 64], &mm),
            None
        );
        // Two reduced iterators.
        let two = vec![
            vec![Dim(0), Dim(1)],
            vec![Dim(0), Dim(2), Dim(3)],
            vec![Dim(2), Dim(3), Dim(1)],
        ];
        assert_eq!(plan(&[64, 64, 64, 4], &two), None);
        // A convolution's result index is compound.
        let conv = vec![
            vec![Affine::Add(Box::new(Dim(0)), Box::new(Dim(2))), Dim(1)],
            vec![Dim(0), Dim(2)],
            vec![Dim(2), Dim(1)],
        ];
        assert_eq!(plan(&[64, 64, 64], &conv), None);
        // Both operands read j: no shared tile of a.
        let both = vec![
            vec![Dim(0), Dim(1)],
            vec![Dim(0), Dim(1), Dim(2)],
            vec![Dim(2), Dim(1)],
        ];
        assert_eq!(plan(&[64, 64, 64], &both), None);
        // A pointwise product reduces nothing.
        let pw = vec![
            vec![Dim(0), Dim(1)],
            vec![Dim(0), Dim(1)],
            vec![Dim(0), Dim(1)],
        ];
        assert_eq!(plan(&[64, 64], &pw), None);
    }
}
