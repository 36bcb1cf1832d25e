//! The gather form of an assignment whose result is indexed by sums of
//! iterators (a convolution's gradient with respect to its input:
//! `dx[b, s*oh + kh - p, ..] += dy[b, oh, ..] * w[kh, ..]`).
//!
//! Such an assignment scatters: distinct points add into the same cell, so
//! a kernel that keeps result cells in registers cannot run over its space.
//! Its gather form runs over the result's cells instead, in one of two
//! ways per result axis:
//!
//! - **Unit stride.** For an axis indexed by `o + rest` (`o` an iterator
//!   with coefficient 1 that no other result axis mentions, `rest` free of
//!   `o`), the iterator `o` is replaced by `y`, the result's index along
//!   that axis, and every read of `o` becomes a read of `y - rest`.
//! - **Strided: one phase per residue** (the sub-pixel decomposition of a
//!   transposed convolution). For an axis indexed by `S*o + D*t + c`
//!   (`S >= 2`, `t` the tap, `g = gcd(S, D)`, `L = S / g`), the tap is
//!   split as `t = L*t' + r` for each phase `r < L`: the axis becomes
//!   `S*(o + (D/g)*t') + D*r + c`, so within a phase the result is indexed
//!   by `S*q + c_r` (`0 <= c_r < S`), `q` runs over the cells of that
//!   residue, and every read of `o` becomes a read of
//!   `q - q_r - (D/g)*t'`. Each phase is an assignment of its own that
//!   writes every `S`-th cell; the phases write disjoint cells and
//!   together every point of the original space that lands inside the
//!   result, with no extra points (a stride-2 kernel of 5 taps: phases of
//!   3 and 2 taps).
//!
//! Either way `o` must index exactly one operand, as a plain iterator over
//! its whole axis, and nothing else: then the points of the original space
//! are exactly the points of the new one whose read of that operand stays
//! inside its axis, and the others read the padding value 0, adding
//! `0 * w`. The sum of each cell is the same for finite values. Only
//! accumulations by addition of products qualify (the caller checks).

use ocannl_assign::Affine;

use crate::linear::Linear;

/// How many times more points the gather form may run over.
pub const MAX_GROWTH: u64 = 4;

/// One assignment of a gather form: its space, its index lists (the
/// result's first) and the multiply-adds of the original assignment it
/// computes (its points whose result cell is inside the result, less
/// those that read only padding in a strided phase).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Form {
    pub space: Vec<u64>,
    pub maps: Vec<Vec<Affine>>,
    pub work: u64,
}

/// The gather form of the assignment over `space` with the index lists
/// `maps` (the result's first) into buffers of `dims`: one [`Form`], or
/// one per phase of its strided result axes, in which the result is
/// indexed by plain iterators, constants and `S*q + c` with `0 <= c < S`
/// (each such `q` on no other result axis); `None` when some result axis
/// has neither form, or when the new spaces have more than [`MAX_GROWTH`]
/// times the points of the old one (the reads of `0 * w` would cost more
/// than the gather saves). An assignment whose result already is comes
/// back unchanged.
pub fn gather_forms(space: &[u64], maps: &[Vec<Affine>], dims: &[Vec<u64>]) -> Option<Vec<Form>> {
    let points = |s: &[u64]| s.iter().try_fold(1u64, |p, &d| p.checked_mul(d));
    let old = points(space)?;
    let mut forms = vec![Form {
        space: space.to_vec(),
        maps: maps.to_vec(),
        work: old,
    }];
    let mut phased: Vec<usize> = vec![];
    for r in 0..maps.first()?.len() {
        // Every phase has the same iterators on the same axes, so the
        // first decides for all.
        let Some((o, t)) = strided(&forms[0], dims, r) else {
            continue;
        };
        forms = forms
            .iter()
            .map(|f| phases(f, dims, r, o, t))
            .collect::<Option<Vec<_>>>()?
            .concat();
        phased.push(r);
        if forms.is_empty() {
            return None;
        }
    }
    let forms = forms
        .into_iter()
        .map(|f| unit_gather(f, dims, &phased))
        .collect::<Option<Vec<_>>>()?;
    let new = forms
        .iter()
        .try_fold(0u64, |p, f| p.checked_add(points(&f.space)?))?;
    (new <= old.checked_mul(MAX_GROWTH)?).then_some(forms)
}

/// The iterators `(o, t)` of result axis `r` when it is strided: indexed
/// by `S*o + D*t + c` with `S >= 2` and `S >= D >= 1` (the larger
/// coefficient on `o`; on a tie the longer loop), neither iterator on
/// another result axis, and `o` a plain iterator in one operand only.
fn strided(f: &Form, dims: &[Vec<u64>], r: usize) -> Option<(usize, usize)> {
    let (space, maps) = (&f.space, &f.maps);
    let e = &maps[0][r];
    if matches!(e, Affine::Dim(_) | Affine::Const(_)) {
        return None;
    }
    let lin = Linear::of_expr(e, space.len())?;
    let used: Vec<usize> = (0..space.len()).filter(|&d| lin.uses(d)).collect();
    let [x, y] = used[..] else {
        return None;
    };
    let key = |d: usize| (lin.coef[d], space[d], std::cmp::Reverse(d));
    let (o, t) = if key(x) >= key(y) { (x, y) } else { (y, x) };
    let alone = maps[0]
        .iter()
        .enumerate()
        .all(|(q, e)| q == r || !(e.mentions(o) || e.mentions(t)));
    (lin.coef[o] >= 2 && lin.coef[t] >= 1 && alone)
        .then(|| plain_in_one_operand(maps, dims, space, o))??;
    Some((o, t))
}

/// The phases of form `f` along its strided result axis `r` (see the
/// module's notes), empty phases (no tap, or no cell) left out.
fn phases(f: &Form, dims: &[Vec<u64>], r: usize, o: usize, t: usize) -> Option<Vec<Form>> {
    let n = f.space.len();
    let lin = Linear::of_expr(&f.maps[0][r], n)?;
    let (stride, dil) = (lin.coef[o], lin.coef[t]);
    let g = gcd(stride, dil);
    let (l, dg) = (stride / g, dil / g);
    let (taps, outs) = (f.space[t], f.space[o]);
    let cells = i64::try_from(dims[0][r]).ok()?;
    let (operand, axis) = plain_in_one_operand(&f.maps, dims, &f.space, o)?;
    let unit = |d: usize, c: i64, offset: i64| {
        let mut x = Linear::constant(offset, n);
        x.coef[d] = c;
        x
    };
    let mut out = vec![];
    for phase in 0..u64::try_from(l).ok()?.min(taps) {
        let ph = i64::try_from(phase).ok()?;
        let v = dil.checked_mul(ph)?.checked_add(lin.offset)?;
        let c = v.rem_euclid(stride);
        let q_off = (v - c) / stride;
        if cells <= c {
            continue;
        }
        let q = u64::try_from(cells - c).ok()?.div_ceil(stride as u64);
        let tp = (taps - phase).div_ceil(l as u64);
        // The points that read inside o's axis: per tap, the q with
        // 0 <= q - q_off - dg*t' < outs.
        let pairs = (0..tp).try_fold(0u64, |sum, tap| {
            let lo = q_off.checked_add(dg.checked_mul(i64::try_from(tap).ok()?)?)?;
            let hi = lo.checked_add(i64::try_from(outs).ok()?)?;
            let span = hi.min(i64::try_from(q).ok()?) - lo.max(0);
            sum.checked_add(u64::try_from(span.max(0)).ok()?)
        })?;
        let mut space = f.space.clone();
        space[o] = q;
        space[t] = tp;
        // t -> l*t' + phase wherever it is read.
        let tap = unit(t, l, ph);
        let mut maps = f
            .maps
            .iter()
            .map(|xs| {
                xs.iter()
                    .map(|e| {
                        if !e.mentions(t) {
                            return Some(e.clone());
                        }
                        let mut x = Linear::of_expr(e, n)?;
                        let ct = std::mem::replace(&mut x.coef[t], 0);
                        Some(x.plus(&tap, ct)?.to_affine())
                    })
                    .collect::<Option<Vec<_>>>()
            })
            .collect::<Option<Vec<_>>>()?;
        let mut read = unit(o, 1, -q_off);
        read.coef[t] = -dg;
        maps[operand][axis] = read.to_affine();
        maps[0][r] = unit(o, stride, c).to_affine();
        let rest = f.work / (taps * outs).max(1);
        out.push(Form {
            space,
            maps,
            work: rest.checked_mul(pairs)?,
        });
    }
    Some(out)
}

fn gcd(a: i64, b: i64) -> i64 {
    if b == 0 {
        a.abs()
    } else {
        gcd(b, a % b)
    }
}

/// The unit-stride gather of form `f` along its result axes other than
/// `phased` (see the module's notes).
fn unit_gather(f: Form, dims: &[Vec<u64>], phased: &[usize]) -> Option<Form> {
    let n = f.space.len();
    let Form {
        mut space,
        mut maps,
        work,
    } = f;
    let mut replaced: Vec<usize> = vec![];
    for r in 0..maps[0].len() {
        let e = &maps[0][r];
        if phased.contains(&r) || matches!(e, Affine::Dim(_) | Affine::Const(_)) {
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
    Some(Form { space, maps, work })
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

    /// The sums of the forms' points, added up cell by cell.
    fn form_sums(forms: &[Form], dims: &[Vec<u64>]) -> Vec<i64> {
        let mut out = vec![0i64; dims[0].iter().product::<u64>() as usize];
        for f in forms {
            for (o, x) in out.iter_mut().zip(sums(&f.space, &f.maps, dims)) {
                *o += x;
            }
        }
        out
    }

    fn one(space: &[u64], maps: &[Vec<Affine>], dims: &[Vec<u64>]) -> Option<Form> {
        let mut forms = gather_forms(space, maps, dims)?;
        assert_eq!(forms.len(), 1);
        forms.pop()
    }

    fn strided(s: i64, o: usize, d: i64, t: usize, c: i64) -> Affine {
        let term = |x: usize, k: i64| Affine::Mul(Box::new(Dim(x)), Box::new(Const(k)));
        add(add(term(o, s), term(t, d)), Const(c))
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
        let f = one(&[6, 3], &maps, &dims).unwrap();
        assert_eq!(f.space, vec![6, 3]);
        assert_eq!(f.maps[0], vec![Dim(0)]);
        // dy is read at y - k + 1.
        assert_eq!(f.maps[1][0].eval(&[2, 1], &[]), Some(2));
        assert_eq!(f.maps[2], vec![Dim(1)]);
        assert_eq!(f.work, 18);
        assert_eq!(sums(&[6, 3], &maps, &dims), sums(&f.space, &f.maps, &dims));
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
        let f = one(&space, &maps, &dims).unwrap();
        // oh and ow run over the result's rows and columns now.
        assert_eq!(f.space, vec![2, 5, 5, 2, 2, 3, 2]);
        assert!(f.maps[0].iter().all(|e| matches!(e, Dim(_))));
        assert_eq!(sums(&space, &maps, &dims), sums(&f.space, &f.maps, &dims));
    }

    #[test]
    fn strided_input_gradients_in_phases() {
        // Stride 2, 5 taps, padding 2 ("SAME"): dx[2*o + k - 2] over o < 7,
        // k < 5 into 14 cells. Phases of taps {0, 2, 4} and {1, 3}, each
        // over the 7 cells of its residue: no point more than before.
        let maps = vec![vec![strided(2, 0, 1, 1, -2)], vec![Dim(0)], vec![Dim(1)]];
        let dims = vec![vec![14], vec![7], vec![5]];
        let forms = gather_forms(&[7, 5], &maps, &dims).unwrap();
        let spaces: Vec<_> = forms.iter().map(|f| f.space.clone()).collect();
        assert_eq!(spaces, vec![vec![7, 3], vec![7, 2]]);
        // Each phase writes every other cell: 2*q, then 2*q + 1.
        let written: Vec<_> = forms
            .iter()
            .map(|f| {
                let lin = Linear::of_expr(&f.maps[0][0], 2).unwrap();
                (lin.coef, lin.offset)
            })
            .collect();
        assert_eq!(written, vec![(vec![2, 0], 0), (vec![2, 0], 1)]);
        assert_eq!(sums(&[7, 5], &maps, &dims), form_sums(&forms, &dims));
        // The work: the original points that write inside dx (35 less the
        // 3 that land at -2, -1 and 14).
        assert_eq!(forms.iter().map(|f| f.work).sum::<u64>(), 32);
        // Every stride, dilation, padding and size, in 1-D and with a
        // second strided axis and a batch.
        for (st, dil, k, outs, pad) in [
            (2, 1, 3, 4, 1),
            (3, 1, 5, 5, 2),
            (2, 2, 3, 6, 2),
            (3, 2, 4, 3, 0),
            (4, 6, 3, 5, 3),
            (2, 1, 1, 4, 0),
            (3, 1, 2, 3, -1),
        ] {
            let cells = (st * outs) as u64;
            let maps = vec![
                vec![Dim(2), strided(st, 0, dil, 1, -pad)],
                vec![Dim(2), Dim(0)],
                vec![Dim(1)],
            ];
            let dims = vec![vec![2, cells], vec![2, outs as u64], vec![k]];
            let space = [outs as u64, k, 2];
            let forms = gather_forms(&space, &maps, &dims).unwrap();
            assert_eq!(
                sums(&space, &maps, &dims),
                form_sums(&forms, &dims),
                "stride {st} dilation {dil} taps {k} padding {pad}"
            );
        }
        // 2-D: dx[2*oh + kh - 1, 2*ow + kw - 1] += dy[oh, ow] * w[kh, kw]
        // over (oh, ow, kh, kw): four phases.
        let maps = vec![
            vec![strided(2, 0, 1, 2, -1), strided(2, 1, 1, 3, -1)],
            vec![Dim(0), Dim(1)],
            vec![Dim(2), Dim(3)],
        ];
        let dims = vec![vec![8, 6], vec![4, 3], vec![3, 3]];
        let forms = gather_forms(&[4, 3, 3, 3], &maps, &dims).unwrap();
        assert_eq!(forms.len(), 4);
        assert_eq!(sums(&[4, 3, 3, 3], &maps, &dims), form_sums(&forms, &dims));
    }

    #[test]
    fn unsupported_forms() {
        // dx[2*o + k] += dy[o, o] * w[k], o on two axes of dy: not in
        // phases; k (in w only) gathers instead, w read at y - 2*o.
        let maps = vec![
            vec![strided(2, 0, 1, 1, 0)],
            vec![Dim(0), Dim(0)],
            vec![Dim(1)],
        ];
        let dims = vec![vec![9], vec![4, 4], vec![3]];
        let f = one(&[4, 3], &maps, &dims).unwrap();
        assert_eq!(f.space, vec![4, 9]);
        assert_eq!(sums(&[4, 3], &maps, &dims), sums(&f.space, &f.maps, &dims));
        // With a wider result, the new space grows too much.
        let dims = vec![vec![29], vec![14, 14], vec![3]];
        assert!(gather_forms(&[14, 3], &maps, &dims).is_none());
        // Both operands read o: no gather form.
        let maps = vec![
            vec![add(Dim(0), Dim(1))],
            vec![Dim(0)],
            vec![add(Dim(0), Dim(1))],
        ];
        assert!(gather_forms(&[4, 3], &maps, &[vec![6], vec![4], vec![6]]).is_none());
        // Plain results come back as they are.
        let maps = vec![vec![Dim(0)], vec![Dim(0), Dim(1)], vec![Dim(1)]];
        let dims = vec![vec![4], vec![4, 3], vec![3]];
        let f = one(&[4, 3], &maps, &dims).unwrap();
        assert_eq!((f.space, f.maps, f.work), (vec![4, 3], maps.clone(), 12));
    }
}
