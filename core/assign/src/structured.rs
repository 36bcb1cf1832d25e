//! An accumulating assignment as a structured op (MLIR's `linalg.generic`
//! and its named contractions): the decisions a conversion to that form
//! needs, as data.
//!
//! A structured op iterates over a space whose extents it reads from its
//! operands' shapes: every iterator must index some operand's axis as
//! itself, over the whole axis, and every other index must stay inside its
//! axis. An assignment's operands do not always look like that: a padded
//! read (`o + k - 1`) leaves its axis, a plain iterator may cover only part
//! of a larger axis (a fixed index's neighbours, a result wider than what
//! one assignment writes), a slice's index is a run-time symbol. [`plan`]
//! says, per operand and axis, how the operand is presented to the op:
//! padded with the neutral element where its index leaves it, cut to the
//! window its index covers (a start that may depend on symbols, and a
//! size), and the index expressions within that window, with no symbols
//! left. It also gives each iterator its kind ([`IteratorKind`]) and the
//! iterators no operand indexes plainly (the op needs a shape-only operand
//! of their extents). [`named_contraction`] recognizes the sums of
//! products that are matrix products.

use ocannl_ops::{Accum, BinaryOp, NumOp};

use crate::{Affine, Body};

/// How the iterations along an iterator relate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IteratorKind {
    /// Distinct values write distinct cells of the result.
    Parallel,
    /// Values may write the same cell (a reduction, or a result index
    /// combining iterators): iterations run in order.
    Reduction,
}

/// The part of an axis a structured op sees: `size` cells from `start`,
/// an expression of symbols and constants only.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Window {
    pub start: Affine,
    pub size: u64,
}

impl Window {
    /// Whether the start is known without run-time values.
    pub fn is_static(&self) -> bool {
        !self.start.has_sym()
    }
}

/// How one axis of an operand is presented.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct AxisPlan {
    /// Cells of padding (the neutral element) before and after the axis.
    pub pad: (u64, u64),
    /// The window of the padded axis the op sees; `None`: all of it.
    pub window: Option<Window>,
}

/// How an operand is presented: per axis, and the index expressions of
/// the op into what it sees (iterators and constants, no symbols).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OperandPlan {
    pub axes: Vec<AxisPlan>,
    pub exprs: Vec<Affine>,
}

impl OperandPlan {
    /// Whether the operand is used as it is (no padding, no window).
    pub fn is_whole(&self) -> bool {
        self.axes
            .iter()
            .all(|a| a.pad == (0, 0) && a.window.is_none())
    }

    /// Whether the operand is padded along some axis.
    pub fn is_padded(&self) -> bool {
        self.axes.iter().any(|a| a.pad != (0, 0))
    }

    /// The shape the op sees, given the operand's `dims`.
    pub fn seen_dims(&self, dims: &[u64]) -> Vec<u64> {
        self.axes
            .iter()
            .zip(dims)
            .map(|(a, &d)| match &a.window {
                Some(w) => w.size,
                None => d + a.pad.0 + a.pad.1,
            })
            .collect()
    }
}

/// An assignment as a structured op.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Structured {
    /// One kind per iterator of the space.
    pub iterators: Vec<IteratorKind>,
    /// One plan per operand, the result first.
    pub operands: Vec<OperandPlan>,
    /// The iterators no operand indexes as itself, in order: the op needs
    /// one more operand of these extents to know its bounds.
    pub domain: Vec<usize>,
}

/// An index split into its run-time part (symbols and constants) and its
/// iterator part; `None` when a term mixes both (`s0 * d0`).
fn split_symbols(e: &Affine) -> Option<(Affine, Affine)> {
    if !e.has_sym() {
        return Some((Affine::Const(0), e.clone()));
    }
    let mentions_dim = e.any_leaf(&|l| matches!(l, Affine::Dim(_)));
    if !mentions_dim {
        return Some((e.clone(), Affine::Const(0)));
    }
    match e {
        Affine::Add(a, b) => {
            let (sa, da) = split_symbols(a)?;
            let (sb, db) = split_symbols(b)?;
            Some((simplify_sum(sa, sb), simplify_sum(da, db)))
        }
        _ => None,
    }
}

/// `a + b` without zero terms, constants folded.
fn simplify_sum(a: Affine, b: Affine) -> Affine {
    match (a, b) {
        (Affine::Const(0), x) | (x, Affine::Const(0)) => x,
        (Affine::Const(x), Affine::Const(y)) => Affine::Const(x.saturating_add(y)),
        (x, Affine::Add(l, r)) if matches!(*r, Affine::Const(_)) => {
            // Keep a constant last: `x + (y + c)` as `(x + y) + c`.
            simplify_sum(simplify_sum(x, *l), *r)
        }
        (Affine::Add(l, r), Affine::Const(c)) => match *r {
            Affine::Const(c0) => simplify_sum(*l, Affine::Const(c0.saturating_add(c))),
            r => Affine::sum(Affine::sum(*l, r), Affine::Const(c)),
        },
        (x, y) => Affine::sum(x, y),
    }
}

/// The plan of an assignment over `space` whose operands (result first)
/// have the index expressions `exprs` and the sizes `dims`. Errors name
/// what has no structured form (an index mixing iterators and symbols, an
/// index without known bounds).
pub fn plan(
    space: &[u64],
    exprs: &[Vec<Affine>],
    dims: &[Vec<u64>],
) -> Result<Structured, crate::Invalid> {
    plan_text(space, exprs, dims).map_err(crate::Invalid)
}

/// The same, the reason as text.
fn plan_text(
    space: &[u64],
    exprs: &[Vec<Affine>],
    dims: &[Vec<u64>],
) -> Result<Structured, String> {
    if exprs.len() != dims.len() || exprs.is_empty() {
        return Err("internal error: one index list and one shape per operand are needed".into());
    }
    let mut operands = Vec::with_capacity(exprs.len());
    for (i, (ex, ds)) in exprs.iter().zip(dims).enumerate() {
        if ex.len() != ds.len() {
            return Err(format!(
                "internal error: operand #{i} has {} indices for {} axes",
                ex.len(),
                ds.len()
            ));
        }
        let mut axes = Vec::with_capacity(ex.len());
        let mut seen = Vec::with_capacity(ex.len());
        for (r, (e, &d)) in ex.iter().zip(ds).enumerate() {
            let d =
                i64::try_from(d).map_err(|_| format!("axis {r} of operand #{i} is too large"))?;
            let (sym, iter) = split_symbols(e).ok_or_else(|| {
                format!("the index {e} of axis {r} of operand #{i} combines iterators with index operands")
            })?;
            let (lo, hi) = iter.range(space).ok_or_else(|| {
                format!("the index {e} of axis {r} of operand #{i} has no known bounds")
            })?;
            let size = (hi - lo + 1) as u64;
            let shifted = |by: i64| {
                if by == 0 {
                    iter.clone()
                } else {
                    simplify_sum(iter.clone(), Affine::Const(-by))
                }
            };
            if e.has_sym() {
                // A window at a run-time start (a slice), which the
                // conversion checks to be inside the axis when it runs:
                // such an index never pads.
                axes.push(AxisPlan {
                    pad: (0, 0),
                    window: Some(Window {
                        start: simplify_sum(sym, Affine::Const(lo)),
                        size,
                    }),
                });
                seen.push(shifted(lo));
            } else if lo < 0 || hi >= d {
                // Padding with the neutral element, then the window the
                // index covers (when it covers less than the padded axis).
                let pad = ((-lo).max(0) as u64, (hi - (d - 1)).max(0) as u64);
                let start = lo + pad.0 as i64;
                let padded = d as u64 + pad.0 + pad.1;
                let window = (size != padded).then_some(Window {
                    start: Affine::Const(start),
                    size,
                });
                axes.push(AxisPlan { pad, window });
                seen.push(shifted(lo));
            } else if i == 0 && matches!(iter, Affine::Const(_)) && d > 1 {
                // A fixed index of the result: the op writes the one-cell
                // window at it, so that its result map covers what it
                // sees (consumers such as IREE take the cells an output
                // map misses as undefined, not as the initial value).
                axes.push(AxisPlan {
                    pad: (0, 0),
                    window: Some(Window {
                        start: Affine::Const(lo),
                        size: 1,
                    }),
                });
                seen.push(Affine::Const(0));
            } else if matches!(iter, Affine::Dim(_)) && size != d as u64 {
                // A plain iterator over part of its axis: the op reads its
                // extent from the axis, so it sees only that part.
                axes.push(AxisPlan {
                    pad: (0, 0),
                    window: Some(Window {
                        start: Affine::Const(lo),
                        size,
                    }),
                });
                seen.push(shifted(lo));
            } else {
                axes.push(AxisPlan::default());
                seen.push(iter);
            }
        }
        operands.push(OperandPlan { axes, exprs: seen });
    }
    let lhs = &operands[0].exprs;
    let iterators = (0..space.len())
        .map(|p| {
            let plain = lhs.contains(&Affine::Dim(p));
            let combined = lhs.iter().any(|e| *e != Affine::Dim(p) && e.mentions(p));
            if plain && !combined {
                IteratorKind::Parallel
            } else {
                IteratorKind::Reduction
            }
        })
        .collect();
    let domain = (0..space.len())
        .filter(|&p| !operands.iter().any(|o| o.exprs.contains(&Affine::Dim(p))))
        .collect();
    Ok(Structured {
        iterators,
        operands,
        domain,
    })
}

/// The named structured ops a contraction may be.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NamedKind {
    /// `C[m, n] += A[m, k] * B[k, n]`, iterators `(m, n, k)`.
    Matmul,
    /// `C[b, m, n] += A[b, m, k] * B[b, k, n]`, iterators `(b, m, n, k)`.
    BatchMatmul,
}

impl NamedKind {
    /// The op's indexing maps when no operand is transposed: `A`'s, `B`'s,
    /// the result's.
    pub fn default_maps(self) -> [Vec<usize>; 3] {
        match self {
            NamedKind::Matmul => [vec![0, 2], vec![2, 1], vec![0, 1]],
            NamedKind::BatchMatmul => [vec![0, 1, 3], vec![0, 3, 2], vec![0, 1, 2]],
        }
    }

    /// The op's name in MLIR's `linalg` dialect.
    pub fn op_name(self) -> &'static str {
        match self {
            NamedKind::Matmul => "linalg.matmul",
            NamedKind::BatchMatmul => "linalg.batch_matmul",
        }
    }
}

/// A contraction recognized as a named op: which operand of the
/// assignment is the op's `A` (the other is `B`), and the op's indexing
/// maps over its own iterators (`(m, n, k)` or `(b, m, n, k)`), each map a
/// list of iterators: `A`'s, `B`'s, the result's. A transposed operand's
/// map lists its iterators in its own order (`(k, m)` for `A`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NamedContraction {
    pub kind: NamedKind,
    /// The assignment's operand (1 or 2) that is `A`.
    pub a: usize,
    pub maps: [Vec<usize>; 3],
}

impl NamedContraction {
    /// Whether the op reads an operand transposed (its maps differ from
    /// the op's default ones).
    pub fn is_transposed(&self) -> bool {
        self.maps != self.kind.default_maps()
    }
}

/// Whether the assignment `lhs =+ rhs1 * rhs2` over `iterators`
/// iterators (with `exprs`, result first) is a matrix product or a batch
/// of them, each operand indexed by plain distinct iterators over whole
/// axes (`whole`: the caller's plan keeps every operand whole): returns the
/// named op it is.
pub fn named_contraction(
    accum: Accum,
    body: &Body,
    exprs: &[Vec<Affine>],
    iterators: usize,
    whole: bool,
) -> Option<NamedContraction> {
    if accum != Accum::Add || body.as_op() != Some(NumOp::Binary(BinaryOp::Mul)) || !whole {
        return None;
    }
    let [c, x, y] = exprs else { return None };
    let plain = |e: &[Affine]| -> Option<Vec<usize>> {
        let v: Vec<usize> = e
            .iter()
            .map(|a| match a {
                Affine::Dim(p) => Some(*p),
                _ => None,
            })
            .collect::<Option<_>>()?;
        let mut s = v.clone();
        s.sort_unstable();
        s.dedup();
        (s.len() == v.len()).then_some(v)
    };
    let (c, x, y) = (plain(c)?, plain(x)?, plain(y)?);
    let (batch, m, n) = match c.as_slice() {
        [m, n] => (None, *m, *n),
        [b, m, n] => (Some(*b), *m, *n),
        _ => return None,
    };
    // `A` holds `m`, `B` holds `n`.
    let (a, av, bv) = if x.contains(&m) && !x.contains(&n) {
        (1, &x, &y)
    } else if y.contains(&m) && !y.contains(&n) {
        (2, &y, &x)
    } else {
        return None;
    };
    if bv.contains(&m) || !bv.contains(&n) {
        return None;
    }
    // Exactly one reduced iterator, in both.
    let k = *av.iter().find(|p| !c.contains(p))?;
    let rank = c.len();
    if iterators != rank + 1 || av.len() != rank || bv.len() != rank || !bv.contains(&k) {
        return None;
    }
    // The space has exactly `b, m, n, k` (`iterators` counts them).
    let (b_pos, m_pos, n_pos, k_pos) = match batch {
        Some(_) => (0, 1, 2, 3),
        None => (usize::MAX, 0, 1, 2),
    };
    let canon = |p: usize| -> Option<usize> {
        if Some(p) == batch {
            Some(b_pos)
        } else if p == m {
            Some(m_pos)
        } else if p == n {
            Some(n_pos)
        } else if p == k {
            Some(k_pos)
        } else {
            None
        }
    };
    let map = |v: &[usize]| v.iter().map(|&p| canon(p)).collect::<Option<Vec<_>>>();
    let (am, bm, cm) = (map(av)?, map(bv)?, map(&c)?);
    if let Some(b) = batch {
        // The batch iterator leads every operand.
        if av[0] != b || bv[0] != b {
            return None;
        }
    }
    let kind = if batch.is_some() {
        NamedKind::BatchMatmul
    } else {
        NamedKind::Matmul
    };
    Some(NamedContraction {
        kind,
        a,
        maps: [am, bm, cm],
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use Affine::{Const, Dim, Sym};

    fn add(a: Affine, b: Affine) -> Affine {
        Affine::sum(a, b)
    }

    #[test]
    fn plain_iterators_are_whole_and_kinds_follow_the_result() {
        // c[i, j] += a[i, k] * b[k, j]
        let exprs = vec![
            vec![Dim(0), Dim(1)],
            vec![Dim(0), Dim(2)],
            vec![Dim(2), Dim(1)],
        ];
        let p = plan(&[2, 3, 4], &exprs, &[vec![2, 3], vec![2, 4], vec![4, 3]]).unwrap();
        assert!(p.operands.iter().all(OperandPlan::is_whole));
        assert_eq!(
            p.iterators,
            vec![
                IteratorKind::Parallel,
                IteratorKind::Parallel,
                IteratorKind::Reduction
            ]
        );
        assert!(p.domain.is_empty());
    }

    #[test]
    fn a_padded_read_is_padded_by_what_leaves_the_axis() {
        // y[o] += x[o + k - 1] * w[k], o < 6, k < 3, x of 6.
        let xe = add(add(Dim(0), Dim(1)), Const(-1));
        let exprs = vec![vec![Dim(0)], vec![xe], vec![Dim(1)]];
        let p = plan(&[6, 3], &exprs, &[vec![6], vec![6], vec![3]]).unwrap();
        let x = &p.operands[1];
        assert_eq!(x.axes[0].pad, (1, 1));
        assert_eq!(x.axes[0].window, None);
        assert_eq!(x.exprs[0], add(Dim(0), Dim(1)));
        assert_eq!(x.seen_dims(&[6]), vec![8]);
    }

    #[test]
    fn a_strided_padded_read_keeps_only_its_window() {
        // y[o] max= x[2o + k - 1], o < 3, k < 3, x of 6: indices -1..=5.
        let xe = add(add(Affine::scaled(2, 0), Dim(1)), Const(-1));
        let exprs = vec![vec![Dim(0)], vec![xe]];
        let p = plan(&[3, 3], &exprs, &[vec![3], vec![6]]).unwrap();
        assert_eq!(p.operands[1].axes[0].pad, (1, 0));
        assert_eq!(p.operands[1].axes[0].window, None);
        assert_eq!(p.operands[1].seen_dims(&[6]), vec![7]);
    }

    #[test]
    fn a_slice_is_a_window_at_its_symbol() {
        // y[j] = x[s0, j]
        let exprs = vec![vec![Dim(0)], vec![Sym(0), Dim(0)]];
        let p = plan(&[2], &exprs, &[vec![2], vec![3, 2]]).unwrap();
        let x = &p.operands[1];
        assert_eq!(
            x.axes[0].window,
            Some(Window {
                start: Sym(0),
                size: 1
            })
        );
        assert!(!x.axes[0].window.as_ref().unwrap().is_static());
        assert_eq!(x.exprs, vec![Const(0), Dim(0)]);
    }

    #[test]
    fn a_plain_iterator_over_part_of_an_axis_sees_a_window() {
        // r[i, 2] = x[i, 2] with r of 5x3 and i < 4: the result of 5 rows
        // written over 4 gets a window, and its fixed index a one-cell
        // window read at 0; an operand's fixed index stays a constant.
        let exprs = vec![vec![Dim(0), Const(2)], vec![Dim(0), Const(2)]];
        let p = plan(&[4], &exprs, &[vec![5, 3], vec![4, 3]]).unwrap();
        let r = &p.operands[0];
        assert_eq!(
            r.axes[0].window,
            Some(Window {
                start: Const(0),
                size: 4
            })
        );
        assert_eq!(
            r.axes[1].window,
            Some(Window {
                start: Const(2),
                size: 1
            })
        );
        assert_eq!(r.exprs, vec![Dim(0), Const(0)]);
        assert_eq!(p.operands[1].axes[1], AxisPlan::default());
        assert_eq!(p.operands[1].exprs, vec![Dim(0), Const(2)]);
    }

    #[test]
    fn combined_result_indices_reduce_and_free_iterators_need_a_domain() {
        // g[o + k] += d[o] * w[k]: both iterators write shared cells.
        let exprs = vec![vec![add(Dim(0), Dim(1))], vec![Dim(0)], vec![Dim(1)]];
        let p = plan(&[4, 3], &exprs, &[vec![6], vec![4], vec![3]]).unwrap();
        assert_eq!(p.iterators, vec![IteratorKind::Reduction; 2]);
        assert!(p.domain.is_empty());
        // s[0] += x[2 * i]: no operand indexes i as itself.
        let exprs = vec![vec![Const(0)], vec![Affine::scaled(2, 0)]];
        let p = plan(&[3], &exprs, &[vec![1], vec![6]]).unwrap();
        assert_eq!(p.domain, vec![0]);
    }

    #[test]
    fn mixed_symbol_and_iterator_terms_are_refused() {
        let e = Affine::Mul(Box::new(Sym(0)), Box::new(Dim(0)));
        let err = plan(&[2], &[vec![Dim(0)], vec![e]], &[vec![2], vec![8]]).unwrap_err();
        assert!(
            err.0.contains("combines iterators with index operands"),
            "{err}"
        );
    }

    fn mul() -> Body {
        Body::from(NumOp::Binary(BinaryOp::Mul))
    }

    #[test]
    fn matrix_products_in_every_layout() {
        // c[i, j] += a[i, k] * b[k, j]
        let e = vec![
            vec![Dim(0), Dim(1)],
            vec![Dim(0), Dim(2)],
            vec![Dim(2), Dim(1)],
        ];
        let n = named_contraction(Accum::Add, &mul(), &e, e[0].len() + 1, true).unwrap();
        assert_eq!(n.kind, NamedKind::Matmul);
        assert_eq!((n.a, n.is_transposed()), (1, false));
        assert_eq!(n.maps, [vec![0, 2], vec![2, 1], vec![0, 1]]);
        // c[b, o] += w[o, i] * x[b, i]: x is A, w is B transposed.
        let e = vec![
            vec![Dim(0), Dim(1)],
            vec![Dim(1), Dim(2)],
            vec![Dim(0), Dim(2)],
        ];
        let n = named_contraction(Accum::Add, &mul(), &e, e[0].len() + 1, true).unwrap();
        assert_eq!(n.a, 2);
        assert_eq!(n.maps, [vec![0, 2], vec![1, 2], vec![0, 1]]);
        assert!(n.is_transposed());
        // A batch: c[b, i, j] += a[b, k, i] * y[b, k, j].
        let e = vec![
            vec![Dim(0), Dim(1), Dim(2)],
            vec![Dim(0), Dim(3), Dim(1)],
            vec![Dim(0), Dim(3), Dim(2)],
        ];
        let n = named_contraction(Accum::Add, &mul(), &e, e[0].len() + 1, true).unwrap();
        assert_eq!(n.kind, NamedKind::BatchMatmul);
        assert_eq!(n.maps, [vec![0, 3, 1], vec![0, 3, 2], vec![0, 1, 2]]);
    }

    #[test]
    fn other_assignments_are_not_named() {
        let e = vec![
            vec![Dim(0), Dim(1)],
            vec![Dim(0), Dim(2)],
            vec![Dim(2), Dim(1)],
        ];
        // Not a sum, not products, not whole.
        assert!(named_contraction(Accum::Max, &mul(), &e, e[0].len() + 1, true).is_none());
        let add_op = Body::from(NumOp::Binary(BinaryOp::Add));
        assert!(named_contraction(Accum::Add, &add_op, &e, e[0].len() + 1, true).is_none());
        assert!(named_contraction(Accum::Add, &mul(), &e, e[0].len() + 1, false).is_none());
        // Two reduced iterators.
        let e = vec![
            vec![Dim(0), Dim(1)],
            vec![Dim(0), Dim(2), Dim(3)],
            vec![Dim(2), Dim(3), Dim(1)],
        ];
        assert!(named_contraction(Accum::Add, &mul(), &e, e[0].len() + 1, true).is_none());
        // An outer product (no reduction) and a broadcast (a constant index).
        let e = vec![vec![Dim(0), Dim(1)], vec![Dim(0)], vec![Dim(1)]];
        assert!(named_contraction(Accum::Add, &mul(), &e, e[0].len() + 1, true).is_none());
        let e = vec![
            vec![Dim(0), Dim(1)],
            vec![Dim(0), Const(0)],
            vec![Const(0), Dim(1)],
        ];
        assert!(named_contraction(Accum::Add, &mul(), &e, e[0].len() + 1, true).is_none());
        // A batch iterator not leading.
        let e = vec![
            vec![Dim(0), Dim(1), Dim(2)],
            vec![Dim(1), Dim(0), Dim(3)],
            vec![Dim(0), Dim(3), Dim(2)],
        ];
        assert!(named_contraction(Accum::Add, &mul(), &e, e[0].len() + 1, true).is_none());
    }
}
