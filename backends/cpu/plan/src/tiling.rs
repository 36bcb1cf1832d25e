//! Register-blocked contractions: which assignments the loop lowering
//! computes with a vector micro-kernel, and over which iterators.
//!
//! A contraction `lhs =+ a * b` qualifies when the result's contiguous (last)
//! axis is indexed by an iterator `j` that also indexes `b` but not `a`, some
//! iterator `i` indexes the result and `a` but not `b`, and some iterator `k`
//! indexes `a` and `b` but not the result. The kernel keeps an `mr x nr`
//! tile of the result in vector registers (`nr` along `j`), runs `k` inside,
//! broadcasts one cell of `a` per tile row and reads `b` from a packed panel;
//! every other iterator is an ordinary loop around it. Matmuls, `compose`
//! in every operand layout, batched matmuls and multi-axis contractions all
//! fit; convolutions (compound index expressions on these iterators) do not.

use ocannl_assign::Affine;
use ocannl_ops::{Accum, BinaryOp, NumOp};

/// The iterators of a register-blocked contraction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Contraction {
    /// Along the result's contiguous axis: the vector lanes.
    pub j: usize,
    /// The rows of a register tile: indexes the result and `a` only.
    pub i: usize,
    /// The reduced iterator the kernel runs over: indexes `a` and `b`.
    pub k: usize,
    /// The operand (1 or 2) indexed by `i` and `k`, read by broadcast.
    pub a: usize,
    /// The operand (1 or 2) indexed by `j` and `k`, packed into panels.
    pub b: usize,
}

/// How an index expression list uses an iterator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Use {
    Absent,
    /// Exactly one axis is indexed by the plain iterator, and no other axis
    /// mentions it.
    Plain,
    /// In a compound expression, or on several axes.
    Other,
}

fn use_of(map: &[Affine], d: usize) -> Use {
    let plain = map.iter().filter(|e| **e == Affine::Dim(d)).count();
    let any = map.iter().filter(|e| e.mentions(d)).count();
    match (plain, any) {
        (_, 0) => Use::Absent,
        (1, 1) => Use::Plain,
        _ => Use::Other,
    }
}

/// The contraction plan of an assignment, if the micro-kernel applies and
/// the space holds at least one full `mr x nr` tile.
pub fn plan_contraction(
    accum: Accum,
    op: NumOp,
    space: &[u64],
    maps: &[Vec<Affine>],
    mr: u64,
    nr: u64,
) -> Option<Contraction> {
    if accum != Accum::Add || op != NumOp::Binary(BinaryOp::Mul) || maps.len() != 3 {
        return None;
    }
    let lhs = &maps[0];
    let Some(Affine::Dim(j)) = lhs.last() else {
        return None;
    };
    let j = *j;
    if use_of(lhs, j) != Use::Plain || space[j] < nr {
        return None;
    }
    let (a, b) = match (use_of(&maps[1], j), use_of(&maps[2], j)) {
        (Use::Absent, Use::Plain) => (1, 2),
        (Use::Plain, Use::Absent) => (2, 1),
        _ => return None,
    };
    // The largest qualifying iterators, the earliest on ties.
    let best = |ok: &dyn Fn(usize) -> bool| {
        (0..space.len())
            .filter(|&d| d != j && ok(d))
            .max_by_key(|&d| (space[d], std::cmp::Reverse(d)))
    };
    let i = best(&|d| {
        space[d] >= mr
            && use_of(lhs, d) == Use::Plain
            && use_of(&maps[a], d) == Use::Plain
            && use_of(&maps[b], d) == Use::Absent
    })?;
    let k = best(&|d| {
        use_of(lhs, d) == Use::Absent
            && use_of(&maps[a], d) == Use::Plain
            && use_of(&maps[b], d) == Use::Plain
    })?;
    Some(Contraction { j, i, k, a, b })
}

#[cfg(test)]
mod tests {
    use super::*;

    const MUL: NumOp = NumOp::Binary(BinaryOp::Mul);
    use Affine::{Const, Dim};

    fn add(a: Affine, b: Affine) -> Affine {
        Affine::Add(Box::new(a), Box::new(b))
    }

    fn plan(space: &[u64], maps: &[Vec<Affine>]) -> Option<Contraction> {
        plan_contraction(Accum::Add, MUL, space, maps, 4, 32)
    }

    #[test]
    fn plans() {
        // (space, maps lhs/rhs1/rhs2, expected (j, i, k, a, b)) — one line per rule.
        #[allow(clippy::type_complexity)]
        let cases: Vec<(
            Vec<u64>,
            Vec<Vec<Affine>>,
            Option<(usize, usize, usize, usize, usize)>,
        )> = vec![
            // C[i,j] += A[i,k] * B[k,j]
            (
                vec![64, 64, 64],
                vec![
                    vec![Dim(0), Dim(1)],
                    vec![Dim(0), Dim(2)],
                    vec![Dim(2), Dim(1)],
                ],
                Some((1, 0, 2, 1, 2)),
            ),
            // Operands swapped: C[i,j] += B[k,j] * A[i,k]
            (
                vec![64, 64, 64],
                vec![
                    vec![Dim(0), Dim(1)],
                    vec![Dim(2), Dim(1)],
                    vec![Dim(0), Dim(2)],
                ],
                Some((1, 0, 2, 2, 1)),
            ),
            // B with j strided (C = X W^T): still packed.
            (
                vec![64, 64, 64],
                vec![
                    vec![Dim(0), Dim(1)],
                    vec![Dim(0), Dim(2)],
                    vec![Dim(1), Dim(2)],
                ],
                Some((1, 0, 2, 1, 2)),
            ),
            // Batched: d0 indexes all three and is an outer loop.
            (
                vec![8, 64, 64, 64],
                vec![
                    vec![Dim(0), Dim(1), Dim(2)],
                    vec![Dim(0), Dim(1), Dim(3)],
                    vec![Dim(0), Dim(3), Dim(2)],
                ],
                Some((2, 1, 3, 1, 2)),
            ),
            // The largest reduced iterator is the kernel's k.
            (
                vec![64, 64, 3, 50],
                vec![
                    vec![Dim(0), Dim(1)],
                    vec![Dim(0), Dim(2), Dim(3)],
                    vec![Dim(2), Dim(3), Dim(1)],
                ],
                Some((1, 0, 3, 1, 2)),
            ),
            // Too narrow for one tile along j, or along i.
            (
                vec![64, 16, 64],
                vec![
                    vec![Dim(0), Dim(1)],
                    vec![Dim(0), Dim(2)],
                    vec![Dim(2), Dim(1)],
                ],
                None,
            ),
            (
                vec![2, 64, 64],
                vec![
                    vec![Dim(0), Dim(1)],
                    vec![Dim(0), Dim(2)],
                    vec![Dim(2), Dim(1)],
                ],
                None,
            ),
            // No reduction: an outer product is not a contraction.
            (
                vec![64, 64],
                vec![vec![Dim(0), Dim(1)], vec![Dim(0)], vec![Dim(1)]],
                None,
            ),
            // j in both operands (a batch axis), so nothing to broadcast.
            (
                vec![64, 64],
                vec![vec![Dim(1)], vec![Dim(0), Dim(1)], vec![Dim(0), Dim(1)]],
                None,
            ),
            // Convolution: k inside a compound index.
            (
                vec![64, 64, 3],
                vec![
                    vec![Dim(0), Dim(1)],
                    vec![Dim(0), add(Dim(1), Dim(2))],
                    vec![Dim(2), Dim(1)],
                ],
                None,
            ),
            // The result's last axis a fixed index.
            (
                vec![64, 64, 64],
                vec![
                    vec![Dim(0), Const(0)],
                    vec![Dim(0), Dim(2)],
                    vec![Dim(2), Dim(1)],
                ],
                None,
            ),
            // A diagonal result (j twice) is left to the scalar loops.
            (
                vec![64, 64, 64],
                vec![
                    vec![Dim(1), Dim(1)],
                    vec![Dim(0), Dim(2)],
                    vec![Dim(2), Dim(1)],
                ],
                None,
            ),
        ];
        for (space, maps, want) in cases {
            let got = plan(&space, &maps).map(|c| (c.j, c.i, c.k, c.a, c.b));
            assert_eq!(got, want, "space {space:?} maps {maps:?}");
        }
    }

    #[test]
    fn only_add_of_products() {
        let maps = vec![
            vec![Dim(0), Dim(1)],
            vec![Dim(0), Dim(2)],
            vec![Dim(2), Dim(1)],
        ];
        assert!(plan_contraction(Accum::Max, MUL, &[64, 64, 64], &maps, 4, 32).is_none());
        assert!(plan_contraction(
            Accum::Add,
            NumOp::Binary(BinaryOp::Add),
            &[64, 64, 64],
            &maps,
            4,
            32
        )
        .is_none());
        assert!(plan_contraction(Accum::Add, MUL, &[64, 64, 64], &maps, 4, 32).is_some());
    }
}
