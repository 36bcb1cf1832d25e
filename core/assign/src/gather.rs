//! One-hot contractions as gathers and scatters (OCANNL's
//! `rewrite_one_hot_reductions`, gh-343).
//!
//! A one-hot node is computed as `h[.., k, ..] = (x[..] == r[k])`, where
//! `r` counts (`r[k] = k`: a `range`, or a literal `0, 1, ..`) and `x`
//! holds class ids: cell `k` of a row
//! is 1 where the row's id is `k`, else 0. A sum of products with such an
//! operand, `y[..] += h[.., v, ..] * e(..)`, gets nothing from the points
//! where `h` is 0. So it is computed over the points where `v` is the id
//! only: the iterator `v` leaves the iteration space and each index it
//! gave becomes a dynamic index ([`crate::Dynamic`]) read from `x`. An
//! embedding `tokens[b, d] += h[b, v] * table[v, d]` becomes the gather
//! `tokens[b, d] += table[x[b], d]` (O(dim) per token instead of
//! O(vocab × dim)); its gradient `dtable[v, d] += h[b, v] * dtokens[b, d]`
//! becomes the scatter-add `dtable[x[b], d] += dtokens[b, d]`; a
//! cross-entropy's `sum_v h[b, v] * logp[b, v]` reads one cell per row.
//!
//! The sums are the same up to IEEE special values: a product `0 * inf`
//! (or `0 * NaN`) of a row not selected is NaN in the contraction and
//! absent from the gather, as in OCANNL and as an embedding lookup in any
//! framework. An id that is not an integer in range selects nothing in
//! both.

use crate::{
    writes_each_cell_once, Affine, Assignment, Body, CmpPred, Dynamic, Instr, Routine, Stmt,
};
use ocannl_ops::{Accum, BinaryOp, NumOp, UnaryOp};

/// An assignment rewritten: statement `stmt` becomes `new`, which reads
/// the ids `ids` where it read a one-hot row: the node `one_hot`, or a
/// comparison of the ids with a range in its own body (after inlining).
#[derive(Clone, Debug)]
pub struct Gather {
    pub stmt: usize,
    pub one_hot: Option<usize>,
    pub ids: usize,
    pub new: Assignment,
    /// The points of the iteration space before and after.
    pub points: (u64, u64),
}

/// A one-hot node's definition: `h[map] = (x[x_map] == r[k])` over
/// `space`, with `class` the axis of `h` that iterator `k` indexes.
struct OneHot<'a> {
    writer: usize,
    def: &'a Assignment,
    ids: usize,
    ids_map: &'a [Affine],
    class: usize,
}

/// What multiplies a one-hot factor: an instruction of the body, or a
/// constant (`-h` is `h * -1`, `h` alone `h * 1`).
#[derive(Clone, Copy, Debug, PartialEq)]
enum Rest {
    Instr(usize),
    Const(f64),
}

/// A one-hot factor of an assignment's value, in the assignment's terms:
/// the value is `factor * rest`, `factor` is 1 where iterator `v` equals
/// the ids read at `ids_map`, and the operand slots `drop` are read only
/// by it.
struct Factor {
    rest: Rest,
    one_hot: Option<usize>,
    ids: usize,
    ids_map: Vec<Affine>,
    v: usize,
    drop: Vec<usize>,
}

/// Every assignment of `r` whose value is a product with a one-hot factor,
/// rewritten as a gather or scatter (in statement order).
pub fn one_hot_gathers(r: &Routine) -> Vec<Gather> {
    let bufs = Buffers::of(r);
    let mut out = vec![];
    for (c, s) in r.stmts.iter().enumerate() {
        let Stmt::Accum(a) = s else { continue };
        // A sum, or an assignment that writes each cell once: the cells
        // the one-hot does not select are 0 (the same as a sum from 0).
        let overwrite = a.accum == Accum::Assign
            && bufs
                .dims(a.lhs)
                .is_some_and(|d| writes_each_cell_once(&a.maps[0], &a.space, d));
        if !a.dynamic.is_empty() || !(matches!(a.accum, Accum::Add | Accum::Sub) || overwrite) {
            continue;
        }
        // A one-hot node's own definition stays (its readers change).
        if one_hot(r, &bufs, a.lhs, usize::MAX).is_some() {
            continue;
        }
        let new = factors(r, &bufs, a, c)
            .into_iter()
            .find_map(|f| Some((rewrite(a, &f)?, f)));
        if let Some((new, f)) = new {
            let points = |s: &[u64]| s.iter().product::<u64>();
            out.push(Gather {
                stmt: c,
                one_hot: f.one_hot,
                ids: f.ids,
                points: (points(&a.space), points(&new.space)),
                new,
            });
        }
    }
    out
}

/// The one-hot factors of assignment `a` (statement `c`): a one-hot node
/// read as a factor, or a comparison of ids with a range in the body.
fn factors(r: &Routine, bufs: &Buffers, a: &Assignment, c: usize) -> Vec<Factor> {
    let body = &a.op;
    // The value as a product `factor * rest`.
    let products: Vec<(usize, Rest)> = match body.instrs.get(body.result) {
        Some(Instr::Op(NumOp::Binary(BinaryOp::Mul), f)) => {
            vec![(f[0], Rest::Instr(f[1])), (f[1], Rest::Instr(f[0]))]
        }
        Some(Instr::Op(NumOp::Unary(UnaryOp::Neg), f)) => vec![(f[0], Rest::Const(-1.0))],
        Some(Instr::Op(NumOp::Unary(UnaryOp::Identity), f)) => vec![(f[0], Rest::Const(1.0))],
        Some(_) => vec![(body.result, Rest::Const(1.0))],
        None => vec![],
    };
    // An instruction that only the product reads (or the value itself).
    let only_in_product = |i: usize| {
        !body
            .instrs
            .iter()
            .enumerate()
            .any(|(k, ins)| k != body.result && ins.operands().contains(&i))
    };
    let mut out = vec![];
    for (fi, rest) in products {
        if rest == Rest::Instr(fi) || !only_in_product(fi) {
            continue;
        }
        match body.instrs[fi] {
            Instr::Arg(kh) => {
                let h = a.rhs[kh];
                let Some(def) = one_hot(r, bufs, h, c) else {
                    continue;
                };
                // The ids must hold the same values where `a` reads them.
                let kept = !r.stmts[def.writer + 1..c].iter().any(|s| s.writes(def.ids))
                    && a.lhs != def.ids;
                // The class axis is read at a plain iterator, the others
                // at iterators or constants (a padded read of `h` would
                // read ids outside their buffer).
                let hmap = &a.maps[kh + 1];
                let Affine::Dim(v) = hmap[def.class] else {
                    continue;
                };
                let simple = hmap
                    .iter()
                    .all(|e| matches!(e, Affine::Dim(_) | Affine::Const(_)));
                let once = hmap.iter().filter(|e| e.mentions(v)).count() == 1;
                if !kept || !simple || !once {
                    continue;
                }
                // The definition's iterator of each axis of `h` is the
                // reader's index of that axis.
                let bind = |e: &Affine| match e {
                    Affine::Dim(_) => def.def.maps[0]
                        .iter()
                        .position(|m| m == e)
                        .map(|axis| hmap[axis].clone())
                        .unwrap_or(Affine::Const(0)),
                    other => other.clone(),
                };
                out.push(Factor {
                    rest,
                    one_hot: Some(h),
                    ids: def.ids,
                    ids_map: def.ids_map.iter().map(|e| e.map_leaves(&bind)).collect(),
                    v,
                    drop: vec![kh],
                });
            }
            _ => {
                let Some((p, q)) = equality(body, fi) else {
                    continue;
                };
                let counted = |k: usize| match a.maps[k + 1][..] {
                    [Affine::Dim(v)] if counts(r, bufs, a.rhs[k], c) => Some(v),
                    _ => None,
                };
                let (kx, kr, v) = match (counted(p), counted(q)) {
                    (None, Some(v)) => (p, q, v),
                    (Some(v), None) => (q, p, v),
                    _ => continue,
                };
                if a.maps[kx + 1].iter().any(|e| e.mentions(v)) {
                    continue;
                }
                let mut drop = vec![kr];
                if !rest_body(body, rest).reads(kx) {
                    drop.push(kx);
                }
                out.push(Factor {
                    rest,
                    one_hot: None,
                    ids: a.rhs[kx],
                    ids_map: a.maps[kx + 1].clone(),
                    v,
                    drop,
                });
            }
        }
    }
    out
}

/// What the rewrite asks of a routine's buffers, found in one pass over
/// its statements: each buffer's sizes and the statements that write it.
struct Buffers {
    dims: Vec<Option<Vec<u64>>>,
    writers: Vec<Vec<usize>>,
}

impl Buffers {
    fn of(r: &Routine) -> Buffers {
        let dims = r.buffer_dims();
        let mut writers: Vec<Vec<usize>> = vec![vec![]; dims.len()];
        for (k, s) in r.stmts.iter().enumerate() {
            if let Some(b) = s.written() {
                if writers.len() <= b {
                    writers.resize(b + 1, vec![]);
                }
                writers[b].push(k);
            }
        }
        Buffers { dims, writers }
    }

    /// The sizes of buffer `b`, if known.
    fn dims(&self, b: usize) -> Option<&[u64]> {
        self.dims.get(b)?.as_deref()
    }

    /// The statements that write buffer `b`.
    fn writers(&self, b: usize) -> &[usize] {
        self.writers.get(b).map_or(&[], Vec::as_slice)
    }
}

/// The two operands that instruction `at` of a body compares for
/// equality, when its value is `x == y` (the `eq` op, or
/// `select(x oeq y, 1, 0)`).
fn equality(body: &Body, at: usize) -> Option<(usize, usize)> {
    let arg = |i: usize| match body.instrs.get(i) {
        Some(Instr::Arg(k)) => Some(*k),
        _ => None,
    };
    let konst = |i: usize, c: f64| body.instrs.get(i) == Some(&Instr::Const(c));
    match body.instrs.get(at)? {
        Instr::Op(NumOp::Binary(BinaryOp::Eq), a) => Some((arg(a[0])?, arg(a[1])?)),
        Instr::Select(c, t, f) if konst(*t, 1.0) && konst(*f, 0.0) => match body.instrs.get(*c)? {
            Instr::Cmp(CmpPred::OEQ, x, y) => Some((arg(*x)?, arg(*y)?)),
            _ => None,
        },
        _ => None,
    }
}

/// The body computing `rest` (what multiplies the one-hot factor).
fn rest_body(body: &Body, rest: Rest) -> Body {
    match rest {
        Rest::Instr(result) => Body {
            instrs: body.instrs.clone(),
            result,
        },
        Rest::Const(c) => Body::constant(c),
    }
}

/// Whether buffer `b` counts (`b[k] = k`: written only by a `range` or a
/// literal `0, 1, ..`, before statement `before`, and 1-d).
fn counts(r: &Routine, bufs: &Buffers, b: usize, before: usize) -> bool {
    let [w] = *bufs.writers(b) else { return false };
    let counting = match &r.stmts[w] {
        Stmt::Range { .. } => true,
        Stmt::Literal { values, .. } => values.iter().enumerate().all(|(k, &v)| v == k as f64),
        _ => false,
    };
    counting && w < before && bufs.dims(b).is_some_and(|d| d.len() == 1)
}

/// Buffer `h`'s definition when it is a one-hot node written once, before
/// statement `reader`, by an assignment comparing ids with a range.
fn one_hot<'a>(r: &'a Routine, bufs: &Buffers, h: usize, reader: usize) -> Option<OneHot<'a>> {
    if h < r.args.len() {
        return None;
    }
    let [writer] = *bufs.writers(h) else {
        return None;
    };
    let Stmt::Accum(def) = &r.stmts[writer] else {
        return None;
    };
    let overwrites =
        def.accum == Accum::Assign || (def.accum == Accum::Add && def.initialize_neutral);
    if writer >= reader
        || !overwrites
        || !def.dynamic.is_empty()
        || !def.symbols.is_empty()
        || !writes_each_cell_once(&def.maps[0], &def.space, bufs.dims(h)?)
    {
        return None;
    }
    let (p, q) = equality(&def.op, def.op.result)?;
    // Which side is the range: it counts, and is read at a plain iterator
    // that indexes an axis of `h`.
    let is_range = |k: usize| -> Option<usize> {
        if !counts(r, bufs, def.rhs[k], writer) {
            return None;
        }
        match def.maps[k + 1][..] {
            [Affine::Dim(j)] => def.maps[0].iter().position(|e| *e == Affine::Dim(j)),
            _ => None,
        }
    };
    let (x, class) = match (is_range(p), is_range(q)) {
        (None, Some(class)) => (p, class),
        (Some(class), None) => (q, class),
        _ => return None,
    };
    let Affine::Dim(j) = def.maps[0][class] else {
        return None;
    };
    let ids_map = &def.maps[x + 1];
    if ids_map.iter().any(|e| e.mentions(j)) {
        return None;
    }
    Some(OneHot {
        writer,
        def,
        ids: def.rhs[x],
        ids_map,
        class,
    })
}

/// Assignment `a` with its one-hot factor `f` gone: the value is the
/// rest, iterator `f.v` leaves the space and each index it gave is a
/// dynamic index read from the ids (in the first dropped slot; the other
/// dropped slots go). `None` when `v` indexes some operand other than as a
/// whole index, or the rest reads a dropped slot.
fn rewrite(a: &Assignment, f: &Factor) -> Option<Assignment> {
    let body = rest_body(&a.op, f.rest).cleaned();
    if f.drop.iter().any(|&k| body.reads(k)) {
        return None;
    }
    let kept = |k: &usize| !f.drop.contains(k);
    let whole_only = std::iter::once(&a.maps[0])
        .chain((0..a.rhs.len()).filter(kept).map(|k| &a.maps[k + 1]))
        .flatten()
        .all(|e| *e == Affine::Dim(f.v) || !e.mentions(f.v));
    if !whole_only {
        return None;
    }
    // The ids in the first dropped slot; the other dropped slots go, and
    // the operands after them move down.
    let source = *f.drop.iter().min()?;
    let gone: Vec<usize> = f.drop.iter().copied().filter(|&k| k != source).collect();
    let slot = |k: usize| k - gone.iter().filter(|&&g| g < k).count();
    let mut rhs = vec![];
    let mut maps = vec![a.maps[0].clone()];
    for k in 0..a.rhs.len() {
        if k == source {
            rhs.push(f.ids);
            maps.push(f.ids_map.clone());
        } else if !gone.contains(&k) {
            rhs.push(a.rhs[k]);
            maps.push(a.maps[k + 1].clone());
        }
    }
    let instrs = body
        .instrs
        .iter()
        .map(|i| match i {
            Instr::Arg(k) => Instr::Arg(slot(*k)),
            other => other.clone(),
        })
        .collect();
    // `v` leaves the space: later iterators move down, and its indices
    // become the new dynamic index, the maps' last symbol.
    let sym = a.symbols.len() + a.dynamic.len();
    let renumber = |e: &Affine| match e {
        Affine::Dim(u) if *u == f.v => Affine::Sym(sym),
        Affine::Dim(u) if *u > f.v => Affine::Dim(u - 1),
        other => other.clone(),
    };
    let maps = maps
        .iter()
        .map(|m| m.iter().map(|e| e.map_leaves(&renumber)).collect())
        .collect();
    let mut space = a.space.clone();
    let bound = space.remove(f.v);
    let mut dynamic = a.dynamic.clone();
    dynamic.push(Dynamic { source, bound });
    let new = Assignment {
        lhs: a.lhs,
        rhs,
        // An overwrite of each cell once is a sum from 0 of the selected
        // points.
        accum: if a.accum == Accum::Assign {
            Accum::Add
        } else {
            a.accum
        },
        op: Body {
            instrs,
            result: body.result,
        },
        initialize_neutral: a.initialize_neutral || a.accum == Accum::Assign,
        space,
        maps,
        symbols: a.symbols.clone(),
        dynamic,
    };
    new.check().ok()?;
    Some(new)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{run, Arg, Value};
    use Affine::{Const, Dim};

    fn accum(
        lhs: usize,
        rhs: Vec<usize>,
        op: NumOp,
        space: Vec<u64>,
        maps: Vec<Vec<Affine>>,
    ) -> Stmt {
        Stmt::Accum(Assignment {
            lhs,
            rhs,
            accum: Accum::Add,
            op: op.into(),
            initialize_neutral: true,
            space,
            maps,
            symbols: vec![],
            dynamic: vec![],
        })
    }

    /// ids `x[4, 1]`, table `t[5, 3]`, gradient `g[4, 3]`: the one-hot
    /// `h[b, v] = x[b, 0] == r[v]`, the embedding `y[b, d] = sum_v h t`,
    /// the table's gradient `dt[v, d] = sum_b h g`, and a selection
    /// `s[b] = sum_v h[b, v] * y2[b, v]` (a cross-entropy's pick).
    fn embedding() -> Routine {
        let mul = NumOp::Binary(BinaryOp::Mul);
        Routine {
            elts: Default::default(),
            args: vec![
                Arg::Buffer { dims: vec![4, 1] },
                Arg::Buffer { dims: vec![5, 3] },
                Arg::Buffer { dims: vec![4, 3] },
                Arg::Buffer { dims: vec![4, 5] },
            ],
            stmts: vec![
                Stmt::Alloc {
                    buf: 4,
                    dims: vec![5],
                },
                Stmt::Range { buf: 4 },
                Stmt::Alloc {
                    buf: 5,
                    dims: vec![4, 5],
                },
                Stmt::Accum(Assignment {
                    lhs: 5,
                    rhs: vec![0, 4],
                    accum: Accum::Assign,
                    op: NumOp::Binary(BinaryOp::Eq).into(),
                    initialize_neutral: false,
                    space: vec![4, 5],
                    maps: vec![vec![Dim(0), Dim(1)], vec![Dim(0), Const(0)], vec![Dim(1)]],
                    symbols: vec![],
                    dynamic: vec![],
                }),
                Stmt::Alloc {
                    buf: 6,
                    dims: vec![4, 3],
                },
                accum(
                    6,
                    vec![5, 1],
                    mul,
                    vec![4, 5, 3],
                    vec![
                        vec![Dim(0), Dim(2)],
                        vec![Dim(0), Dim(1)],
                        vec![Dim(1), Dim(2)],
                    ],
                ),
                Stmt::Alloc {
                    buf: 7,
                    dims: vec![5, 3],
                },
                accum(
                    7,
                    vec![2, 5],
                    mul,
                    vec![4, 3, 5],
                    vec![
                        vec![Dim(2), Dim(1)],
                        vec![Dim(0), Dim(1)],
                        vec![Dim(0), Dim(2)],
                    ],
                ),
                Stmt::Alloc {
                    buf: 8,
                    dims: vec![4],
                },
                accum(
                    8,
                    vec![5, 3],
                    mul,
                    vec![4, 5],
                    vec![vec![Dim(0)], vec![Dim(0), Dim(1)], vec![Dim(0), Dim(1)]],
                ),
            ],
            results: vec![6, 7, 8],
        }
    }

    fn rewritten(r: &Routine) -> (Routine, Vec<Gather>) {
        let gathers = one_hot_gathers(r);
        let mut out = r.clone();
        for g in &gathers {
            out.stmts[g.stmt] = Stmt::Accum(g.new.clone());
        }
        (out, gathers)
    }

    fn args(ids: [f64; 4]) -> Vec<Value> {
        let buf = |dims: Vec<u64>, f: &dyn Fn(usize) -> f64| {
            let n = dims.iter().product::<u64>() as usize;
            Value::Buffer {
                dims,
                data: (0..n).map(f).collect(),
            }
        };
        vec![
            buf(vec![4, 1], &|i| ids[i]),
            buf(vec![5, 3], &|i| 0.5 + i as f64),
            buf(vec![4, 3], &|i| 1.0 - 0.25 * i as f64),
            buf(vec![4, 5], &|i| (i * i) as f64 / 7.0),
        ]
    }

    #[test]
    fn embedding_gradient_and_selection_become_gathers_with_the_same_values() {
        let r = embedding();
        let (g, gathers) = rewritten(&r);
        let stmts: Vec<usize> = gathers.iter().map(|g| g.stmt).collect();
        assert_eq!(stmts, vec![5, 7, 9]);
        // The one-hot's class iterator is gone from every space.
        let points: Vec<(u64, u64)> = gathers.iter().map(|g| g.points).collect();
        assert_eq!(points, vec![(60, 12), (60, 12), (20, 4)]);
        let Stmt::Accum(scatter) = &g.stmts[7] else {
            unreachable!()
        };
        assert_eq!(scatter.rhs, vec![2, 0]);
        assert_eq!(scatter.maps[0], vec![Affine::Sym(0), Dim(1)]);
        assert_eq!(
            scatter.dynamic,
            vec![Dynamic {
                source: 1,
                bound: 5
            }]
        );
        // Ids in range, repeated (the scatter adds both rows), and ids
        // that select nothing: out of range, negative, fractional.
        for ids in [[1.0, 4.0, 1.0, 0.0], [7.0, -1.0, 2.5, 3.0]] {
            let want = run(&r, &args(ids)).unwrap();
            let got = run(&g, &args(ids)).unwrap();
            assert_eq!(got, want, "ids {ids:?}");
        }
    }

    #[test]
    fn a_comparison_with_a_range_inlined_into_a_sum_is_a_gather() {
        // s[b] += (x[b, 0] == r[v]) * y2[b, v], as after inlining the
        // one-hot into the sum: the ids and the range slots become one.
        let mut r = embedding();
        let body = Body {
            instrs: vec![
                Instr::Arg(0),
                Instr::Arg(1),
                Instr::Op(NumOp::Binary(BinaryOp::Eq), vec![0, 1]),
                Instr::Arg(2),
                Instr::Op(NumOp::Binary(BinaryOp::Mul), vec![2, 3]),
            ],
            result: 4,
        };
        r.stmts[9] = Stmt::Accum(Assignment {
            lhs: 8,
            rhs: vec![0, 4, 3],
            accum: Accum::Add,
            op: body,
            initialize_neutral: true,
            space: vec![4, 5],
            maps: vec![
                vec![Dim(0)],
                vec![Dim(0), Const(0)],
                vec![Dim(1)],
                vec![Dim(0), Dim(1)],
            ],
            symbols: vec![],
            dynamic: vec![],
        });
        let (g, gathers) = rewritten(&r);
        let pick = gathers.iter().find(|g| g.stmt == 9).expect("rewritten");
        assert_eq!((pick.one_hot, pick.ids, pick.points), (None, 0, (20, 4)));
        assert_eq!(pick.new.rhs, vec![0, 3]);
        assert_eq!(pick.new.maps[2], vec![Dim(0), Affine::Sym(0)]);
        for ids in [[1.0, 4.0, 1.0, 0.0], [7.0, -1.0, 2.5, 3.0]] {
            assert_eq!(run(&g, &args(ids)).unwrap(), run(&r, &args(ids)).unwrap());
        }
    }

    #[test]
    fn an_overwrite_of_each_cell_by_a_one_hot_product_is_a_scatter_from_zero() {
        // dl[b, v] = h[b, v] * g[b, 0] (a cross-entropy's gradient): zeros,
        // then g[b, 0] in the row's selected cell.
        let mut r = embedding();
        r.stmts.push(Stmt::Alloc {
            buf: 9,
            dims: vec![4, 5],
        });
        r.stmts.push(Stmt::Accum(Assignment {
            lhs: 9,
            rhs: vec![5, 2],
            accum: Accum::Assign,
            op: NumOp::Binary(BinaryOp::Mul).into(),
            initialize_neutral: false,
            space: vec![4, 5],
            maps: vec![
                vec![Dim(0), Dim(1)],
                vec![Dim(0), Dim(1)],
                vec![Dim(0), Const(0)],
            ],
            symbols: vec![],
            dynamic: vec![],
        }));
        // dn[b, v] = -h[b, v] (the same gradient with g folded to -1).
        r.stmts.push(Stmt::Alloc {
            buf: 10,
            dims: vec![4, 5],
        });
        r.stmts.push(Stmt::Accum(Assignment {
            lhs: 10,
            rhs: vec![5],
            accum: Accum::Assign,
            op: NumOp::Unary(UnaryOp::Neg).into(),
            initialize_neutral: false,
            space: vec![4, 5],
            maps: vec![vec![Dim(0), Dim(1)], vec![Dim(0), Dim(1)]],
            symbols: vec![],
            dynamic: vec![],
        }));
        r.results.extend([9, 10]);
        let (g, gathers) = rewritten(&r);
        let neg = gathers.iter().find(|g| g.stmt == 13).expect("rewritten");
        assert_eq!(neg.new.op, Body::constant(-1.0));
        let grad = gathers.iter().find(|g| g.stmt == 11).expect("rewritten");
        assert_eq!(grad.new.accum, Accum::Add);
        assert!(grad.new.initialize_neutral);
        assert_eq!(grad.new.maps[0], vec![Dim(0), Affine::Sym(0)]);
        for ids in [[1.0, 4.0, 1.0, 0.0], [7.0, -1.0, 2.5, 3.0]] {
            assert_eq!(run(&g, &args(ids)).unwrap(), run(&r, &args(ids)).unwrap());
        }
        // An overwrite of some cells several times (a reduction) stays.
        if let Some(Stmt::Accum(a)) = r.stmts.get_mut(11) {
            a.space = vec![4, 5, 2];
            a.maps[2] = vec![Dim(0), Dim(2)];
        }
        assert!(one_hot_gathers(&r).iter().all(|g| g.stmt != 11));
    }

    #[test]
    fn what_is_not_a_one_hot_factor_stays() {
        // The ids written after the one-hot, before the reader: the
        // reader would see other ids.
        let mut r = embedding();
        r.stmts.insert(4, Stmt::Fill { buf: 0, value: 2.0 });
        assert!(one_hot_gathers(&r).is_empty());
        // A sum of the one-hot with another operand is not a product.
        let mut r = embedding();
        if let Stmt::Accum(a) = &mut r.stmts[5] {
            a.op = NumOp::Binary(BinaryOp::Add).into();
        }
        assert_eq!(one_hot_gathers(&r).len(), 2);
        // A max over the row is not a sum.
        let mut r = embedding();
        if let Stmt::Accum(a) = &mut r.stmts[9] {
            a.accum = Accum::Max;
        }
        assert_eq!(one_hot_gathers(&r).len(), 2);
        // A literal that counts is a range too; one that does not is not.
        let mut r = embedding();
        r.stmts[1] = Stmt::Literal {
            buf: 4,
            values: vec![0.0, 1.0, 2.0, 3.0, 4.0],
        };
        assert_eq!(one_hot_gathers(&r).len(), 3);
        r.stmts[1] = Stmt::Literal {
            buf: 4,
            values: vec![0.0, 1.0, 2.0, 4.0, 3.0],
        };
        assert!(one_hot_gathers(&r).is_empty());
        // Compared with a node that is not a range.
        let mut r = embedding();
        r.stmts[1] = Stmt::Fill { buf: 4, value: 1.0 };
        assert!(one_hot_gathers(&r).is_empty());
        // The class iterator inside a compound index of another operand.
        let mut r = embedding();
        if let Stmt::Accum(a) = &mut r.stmts[9] {
            a.maps[2] = vec![Dim(0), Affine::Mod(Box::new(Dim(1)), Box::new(Const(5)))];
        }
        assert!(one_hot_gathers(&r).iter().all(|g| g.stmt != 9));
    }
}
