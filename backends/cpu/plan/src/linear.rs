//! Cell indices as linear functions of the iterators, and the padded
//! copies that keep every read of an operand inside its buffer.
//!
//! The contraction kernel addresses every buffer as one flat row-major
//! array: a buffer's cell at a point of the iteration space is
//! `offset + Σ coef[d] * d` ([`Linear`]) when every index expression is a
//! sum of iterators times constants. An operand whose index may leave its
//! axis by design (a padded convolution's `o + k - p`) is read from a copy
//! with room around it holding the padding value ([`Padded`]), so the
//! kernel reads without checks.

use ocannl_assign::Affine;

/// `offset + Σ coef[d] * d` over the iterators `d` of a space.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Linear {
    pub offset: i64,
    /// One coefficient per iterator.
    pub coef: Vec<i64>,
}

impl Linear {
    /// The constant `c` over `n` iterators.
    pub fn constant(c: i64, n: usize) -> Linear {
        Linear {
            offset: c,
            coef: vec![0; n],
        }
    }

    /// An index expression as a linear function of `n` iterators: sums,
    /// products by constants, iterators and constants (`None` for symbols,
    /// divisions, remainders, an iterator beyond `n` and on overflow).
    pub fn of_expr(e: &Affine, n: usize) -> Option<Linear> {
        Some(match e {
            Affine::Const(c) => Linear::constant(*c, n),
            Affine::Dim(d) => {
                let mut l = Linear::constant(0, n);
                *l.coef.get_mut(*d)? = 1;
                l
            }
            Affine::Add(a, b) => Linear::of_expr(a, n)?.plus(&Linear::of_expr(b, n)?, 1)?,
            Affine::Mul(a, b) => match (&**a, &**b) {
                (x, Affine::Const(c)) | (Affine::Const(c), x) => {
                    Linear::of_expr(x, n)?.times(*c)?
                }
                _ => return None,
            },
            Affine::Sym(_) | Affine::Mod(..) | Affine::FloorDiv(..) | Affine::CeilDiv(..) => {
                return None
            }
        })
    }

    /// The row-major cell index of the indices `exprs` into a buffer of
    /// `dims`, over `n` iterators.
    pub fn row_major(exprs: &[Affine], dims: &[u64], n: usize) -> Option<Linear> {
        if exprs.len() != dims.len() {
            return None;
        }
        let mut out = Linear::constant(0, n);
        let mut stride: i64 = 1;
        for (e, &d) in exprs.iter().zip(dims).rev() {
            out = out.plus(&Linear::of_expr(e, n)?, stride)?;
            stride = stride.checked_mul(i64::try_from(d).ok()?)?;
        }
        Some(out)
    }

    /// `self + scale * other`.
    pub fn plus(&self, other: &Linear, scale: i64) -> Option<Linear> {
        let term = |a: i64, b: i64| a.checked_add(b.checked_mul(scale)?);
        Some(Linear {
            offset: term(self.offset, other.offset)?,
            coef: self
                .coef
                .iter()
                .zip(&other.coef)
                .map(|(&a, &b)| term(a, b))
                .collect::<Option<_>>()?,
        })
    }

    /// `c * self`.
    pub fn times(&self, c: i64) -> Option<Linear> {
        Linear::constant(0, self.coef.len()).plus(self, c)
    }

    /// Whether the value depends on iterator `d`.
    pub fn uses(&self, d: usize) -> bool {
        self.coef.get(d).is_some_and(|&c| c != 0)
    }

    /// The value at the iterators `ivs`.
    pub fn at(&self, ivs: &[i64]) -> i64 {
        self.offset + self.coef.iter().zip(ivs).map(|(c, v)| c * v).sum::<i64>()
    }

    /// The expression `offset + Σ coef[d] * d` in the assignment model.
    pub fn to_affine(&self) -> Affine {
        let mut e = Affine::Const(self.offset);
        for (d, &c) in self.coef.iter().enumerate() {
            if c != 0 {
                let term = if c == 1 {
                    Affine::Dim(d)
                } else {
                    Affine::Mul(Box::new(Affine::Dim(d)), Box::new(Affine::Const(c)))
                };
                e = Affine::sum(e, term);
            }
        }
        e
    }
}

/// A copy of an operand with `low[r]` cells of the padding value before
/// each axis `r` and enough after it for every index the assignment reads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Padded {
    /// Cells before each axis.
    pub low: Vec<u64>,
    /// The copy's sizes.
    pub dims: Vec<u64>,
}

impl Padded {
    /// The cells of the copy.
    pub fn cells(&self) -> u64 {
        self.dims.iter().product()
    }
}

/// Whether reading an operand of `dims` at `exprs` over `space` needs a
/// padded copy: `Some(None)` when every index stays inside its axis,
/// `Some(Some(p))` when some may leave it, `None` when the range of an
/// index is unknown.
pub fn padding(exprs: &[Affine], dims: &[u64], space: &[u64]) -> Option<Option<Padded>> {
    let mut low = Vec::with_capacity(dims.len());
    let mut padded = Vec::with_capacity(dims.len());
    let mut any = false;
    for (e, &d) in exprs.iter().zip(dims) {
        let (lo, hi) = e.range(space)?;
        let below = u64::try_from(lo.min(0).checked_neg()?).ok()?;
        let last = i64::try_from(d).ok()? - 1;
        let above = u64::try_from((hi - last).max(0)).ok()?;
        any |= below > 0 || above > 0;
        low.push(below);
        padded.push(d.checked_add(below)?.checked_add(above)?);
    }
    Some(any.then_some(Padded { low, dims: padded }))
}

/// The indices of a padded copy: each index shifted by the copy's `low`.
pub fn shifted(exprs: &[Affine], p: &Padded) -> Vec<Affine> {
    exprs
        .iter()
        .zip(&p.low)
        .map(|(e, &l)| {
            if l == 0 {
                e.clone()
            } else {
                Affine::sum(e.clone(), Affine::Const(l as i64))
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use Affine::{Const, Dim};

    fn add(a: Affine, b: Affine) -> Affine {
        Affine::sum(a, b)
    }

    fn mul(a: Affine, c: i64) -> Affine {
        Affine::Mul(Box::new(a), Box::new(Const(c)))
    }

    #[test]
    fn linear_forms() {
        // 2*d0 + d2 - 1 over three iterators.
        let e = add(add(mul(Dim(0), 2), Dim(2)), Const(-1));
        let l = Linear::of_expr(&e, 3).unwrap();
        assert_eq!(
            l,
            Linear {
                offset: -1,
                coef: vec![2, 0, 1]
            }
        );
        assert_eq!(l.at(&[3, 7, 4]), 9);
        assert!(Linear::of_expr(&Affine::Sym(0), 3).is_none());
        let fd = Affine::FloorDiv(Box::new(Dim(0)), Box::new(Const(2)));
        assert!(Linear::of_expr(&fd, 3).is_none());
        assert!(Linear::of_expr(&Dim(3), 3).is_none());
        // Back to an expression with the same values.
        let back = l.to_affine();
        for ivs in [[0, 0, 0], [3, 7, 4], [1, 2, 5]] {
            assert_eq!(back.eval(&ivs, &[]), Some(l.at(&ivs)));
        }
    }

    #[test]
    fn row_major_cells() {
        // x[b, oh + kh, ow + kw, c] in a 2x6x6x3 buffer, space (b, oh, ow, kh, kw, c).
        let exprs = vec![Dim(0), add(Dim(1), Dim(3)), add(Dim(2), Dim(4)), Dim(5)];
        let l = Linear::row_major(&exprs, &[2, 6, 6, 3], 6).unwrap();
        assert_eq!(l.coef, vec![108, 18, 3, 18, 3, 1]);
        assert_eq!(l.at(&[1, 2, 1, 1, 2, 0]), 108 + 3 * 18 + 3 * 3);
        assert!(Linear::row_major(&exprs, &[2, 6], 6).is_none());
    }

    #[test]
    fn paddings() {
        // o + k - 2 over o < 4, k < 5 reads -2..=5 of an axis of 4.
        let e = add(add(Dim(0), Dim(1)), Const(-2));
        let p = padding(std::slice::from_ref(&e), &[4], &[4, 5])
            .unwrap()
            .unwrap();
        assert_eq!(
            p,
            Padded {
                low: vec![2],
                dims: vec![8]
            }
        );
        let s = shifted(&[e], &p);
        assert_eq!(s[0].range(&[4, 5]), Some((0, 7)));
        // A valid window stays inside: no copy.
        assert_eq!(padding(&[add(Dim(0), Dim(1))], &[8], &[4, 5]), Some(None));
        // Unknown ranges.
        assert_eq!(padding(&[Affine::Sym(0)], &[8], &[4]), None);
    }
}
