//! The gather form of an assignment whose result is indexed by sums of
//! iterators (a convolution's gradient with respect to its input:
//! `dx[b, oh + kh - p, ..] += dy[b, oh, ..] * w[kh, ..]`).
//!
//! Such an assignment scatters: distinct points add into the same cell, so
//! a kernel that keeps result cells in registers cannot run over its space.
//! Its gather form runs over the result's cells instead: for a result axis
//! indexed by `o + rest` (`o` an iterator with coefficient 1 that no other
//! result axis mentions, `rest` free of `o`), the iterator `o` is replaced
//! by `y`, the result's index along that axis, and every read of `o`
//! becomes a read of `y - rest`. `o` must index exactly one operand, as a
//! plain iterator over its whole axis, and nothing else: then the points of
//! the original space are exactly the points of the new one whose read of
//! that operand stays inside its axis, and the others read the padding
//! value 0, adding `0 * w`. The sum of each cell is the same for finite
//! values. Only accumulations by addition of products qualify (the caller
//! checks); a result axis with a coefficient other than 1 on every
//! candidate (a strided convolution's gradient) has no gather form here.

use ocannl_assign::Affine;

use crate::linear::Linear;

/// How many times more points the gather form may run over.
pub const MAX_GROWTH: u64 = 4;

/// The gather form of the assignment over `space` with the index lists
/// `maps` (the result's first) into buffers of `dims`: the new space and
/// index lists, in which the result is indexed by plain iterators and
/// constants; `None` when some result axis has none, or when the new space
/// has more than [`MAX_GROWTH`] times the points of the old one (the
/// reads of `0 * w` would cost more than the gather saves). An assignment
/// whose result already is comes back unchanged.
pub fn gather_form(
    space: &[u64],
    maps: &[Vec<Affine>],
    dims: &[Vec<u64>],
) -> Option<(Vec<u64>, Vec<Vec<Affine>>)> {
    let n = space.len();
    let old = space;
    let mut space = space.to_vec();
    let mut maps = maps.to_vec();
    let mut replaced: Vec<usize> = vec![];
    for r in 0..maps.first()?.len() {
        let e = &maps[0][r];
        if matches!(e, Affine::Dim(_) | Affine::Const(_)) {
            continue;
        }
        let lin = Linear::of_expr(e, n)?;
        // The candidates: coefficient 1, on no other result axis, indexing
        // one operand as a plain iterator over its whole axis; the one
        // whose loop is longest is replaced (the new space is the
        // smallest).
        let o = (0..n)
            .filter(|&o| {
                lin.coef[o] == 1
                    && !replaced.contains(&o)
                    && !lin
                        .coef
                        .iter()
                        .enumerate()
                        .any(|(d, &c)| c != 0 && replaced.contains(&d))
                    && maps[0]
                        .iter()
                        .enumerate()
                        .all(|(q, x)| q == r || !x.mentions(o))
                    && plain_in_one_operand(&maps, dims, &space, o).is_some()
            })
            .max_by_key(|&o| (space[o], std::cmp::Reverse(o)))?;
        let (operand, axis) = plain_in_one_operand(&maps, dims, &space, o)?;
        // o = y - rest, with rest = lin - o.
        let mut rest = lin.clone();
        rest.coef[o] = 0;
        let y_minus_rest = Linear::of_expr(&Affine::Dim(o), n)?.plus(&rest, -1)?;
        maps[operand][axis] = y_minus_rest.to_affine();
        maps[0][r] = Affine::Dim(o);
        space[o] = dims[0][r];
        replaced.push(o);
    }
    let points = |s: &[u64]| s.iter().try_fold(1u64, |p, &d| p.checked_mul(d));
    (points(&space)? <= points(old)?.checked_mul(MAX_GROWTH)?).then_some((space, maps))
}

/// The operand and axis that iterator `o` indexes, when exactly one
/// operand mentions it, as a plain iterator on exactly one axis whose size
/// is the iterator's range.
fn plain_in_one_operand(
    maps: &[Vec<Affine>],
    dims: &[Vec<u64>],
    space: &[u64],
    o: usize,
) -> Option<(usize, usize)> {
    let users: Vec<usize> = (1..maps.len())
        .filter(|&i| maps[i].iter().any(|e| e.mentions(o)))
        .collect();
    let [operand] = users[..] else {
        return None;
    };
    let axes: Vec<usize> = (0..maps[operand].len())
        .filter(|&a| maps[operand][a].mentions(o))
        .collect();
    let [axis] = axes[..] else {
        return None;
    };
    (maps[operand][axis] == Affine::Dim(o) && dims[operand].get(axis) == Some(&space[o]))
        .then_some((operand, axis))
}

#[cfg(test)]
mod tests {
    use super::*;
    use Affine::{Const, Dim};

    fn add(a: Affine, b: Affine) -> Affine {
        Affine::sum(a, b)
    }

    /// Sums every cell of the result over the space, reading operands as
    /// functions of their indices (0 outside their axes), point by point.
    fn sums(space: &[u64], maps: &[Vec<Affine>], dims: &[Vec<u64>]) -> Vec<i64> {
        let cells = |d: &[u64]| d.iter().product::<u64>() as usize;
        let mut out = vec![0i64; cells(&dims[0])];
        let total: u64 = space.iter().product();
        for p in 0..total {
            let mut ivs = vec![0i64; space.len()];
            let mut q = p;
            for d in (0..space.len()).rev() {
                ivs[d] = (q % space[d]) as i64;
                q /= space[d];
            }
            let at = |i: usize| -> Option<usize> {
                let mut cell = 0usize;
                for (e, &d) in maps[i].iter().zip(&dims[i]) {
                    let v = e.eval(&ivs, &[])?;
                    if v < 0 || v >= d as i64 {
                        return None;
                    }
                    cell = cell * d as usize + v as usize;
                }
                Some(cell)
            };
            let Some(c) = at(0) else { continue };
            // Operand i's cell value: a distinct odd weight per cell.
            let value = |i: usize| at(i).map_or(0, |c| (2 * c as i64 + 1) * (i as i64 + 3));
            out[c] += value(1) * value(2);
        }
        out
    }

    #[test]
    fn input_gradient_of_a_padded_convolution() {
        // dx[o + k - 1] += dy[o] * w[k], o < 6, k < 3, dx of 6: space (o, k).
        let maps = vec![
            vec![add(add(Dim(0), Dim(1)), Const(-1))],
            vec![Dim(0)],
            vec![Dim(1)],
        ];
        let dims = vec![vec![6], vec![6], vec![3]];
        let (space, g) = gather_form(&[6, 3], &maps, &dims).unwrap();
        assert_eq!(space, vec![6, 3]);
        assert_eq!(g[0], vec![Dim(0)]);
        // dy is read at y - k + 1.
        assert_eq!(g[1][0].eval(&[2, 1], &[]), Some(2));
        assert_eq!(g[2], vec![Dim(1)]);
        assert_eq!(sums(&[6, 3], &maps, &dims), sums(&space, &g, &dims));
    }

    #[test]
    fn input_gradient_of_a_valid_2d_convolution() {
        // dx[b, oh + kh, ow + kw, c] += dy[b, oh, ow, f] * w[f, kh, kw, c]:
        // space (b, oh, ow, f, c, kh, kw) = (2, 3, 4, 2, 2, 3, 2).
        let space = [2, 3, 4, 2, 2, 3, 2];
        let maps = vec![
            vec![Dim(0), add(Dim(1), Dim(5)), add(Dim(2), Dim(6)), Dim(4)],
            vec![Dim(0), Dim(1), Dim(2), Dim(3)],
            vec![Dim(3), Dim(5), Dim(6), Dim(4)],
        ];
        let dims = vec![vec![2, 5, 5, 2], vec![2, 3, 4, 2], vec![2, 3, 2, 2]];
        let (s, g) = gather_form(&space, &maps, &dims).unwrap();
        // oh and ow run over the result's rows and columns now.
        assert_eq!(s, vec![2, 5, 5, 2, 2, 3, 2]);
        assert!(g[0].iter().all(|e| matches!(e, Dim(_))));
        assert_eq!(sums(&space, &maps, &dims), sums(&s, &g, &dims));
    }

    #[test]
    fn strided_and_unsupported_forms() {
        // dx[2*o + k] += dy[o] * w[k]: no coefficient-1 iterator indexes one
        // operand only... k does (w), so k is replaced: w read at y - 2*o.
        let maps = vec![
            vec![add(
                Affine::Mul(Box::new(Dim(0)), Box::new(Const(2))),
                Dim(1),
            )],
            vec![Dim(0)],
            vec![Dim(1)],
        ];
        let dims = vec![vec![9], vec![4], vec![3]];
        let (s, g) = gather_form(&[4, 3], &maps, &dims).unwrap();
        assert_eq!(s, vec![4, 9]);
        assert_eq!(sums(&[4, 3], &maps, &dims), sums(&s, &g, &dims));
        // With a wider result, the new space grows too much.
        let dims = vec![vec![29], vec![14], vec![3]];
        assert!(gather_form(&[14, 3], &maps, &dims).is_none());
        // Both operands read o: no gather form.
        let maps = vec![
            vec![add(Dim(0), Dim(1))],
            vec![Dim(0)],
            vec![add(Dim(0), Dim(1))],
        ];
        assert!(gather_form(&[4, 3], &maps, &[vec![6], vec![4], vec![6]]).is_none());
        // Plain results come back as they are.
        let maps = vec![vec![Dim(0)], vec![Dim(0), Dim(1)], vec![Dim(1)]];
        let dims = vec![vec![4], vec![4, 3], vec![3]];
        assert_eq!(
            gather_form(&[4, 3], &maps, &dims),
            Some((vec![4, 3], maps.clone()))
        );
    }
}
