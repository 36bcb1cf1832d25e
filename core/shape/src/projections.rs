//! Projections inference: from an operation's solved shapes to the loops
//! that compute it and the index of every operand axis.
//!
//! Each operation is derived on its own, from its concrete shapes and its
//! shape logic (so one operation's conclusions never leak into another's):
//! every class of axes that must move together gets one iterator over the
//! product space; an axis of size 1 broadcast against a larger one is read at
//! the fixed index 0; fixed indices of einsum specs stay fixed; convolution
//! axes get the affine index `stride*o + dilation*k (+ offset)`; the sliced
//! axis of a batch slice is indexed by a symbol (the slice index).
//!
//! Axes are listed in memory order: batch, output, input.

use std::collections::HashMap;

use ocannl_ops::Affine;

use crate::{
    infer::Node,
    notation::{AxisSpec, EinsumSpec, Kind, RowSpec},
    shape::Shape,
};

/// How one axis of a tensor is indexed, while projections are derived
/// (the result is given as the assignment model's [`Affine`]).
#[derive(Clone, Debug, PartialEq, Eq)]
enum AxisIndex {
    Fixed(u64),
    Iter(usize),
    /// `sum(coeff * iterator) + offset`.
    Affine {
        terms: Vec<(u64, usize)>,
        offset: i64,
    },
    /// A symbol: a dynamic index bound at run time (the batch-slice index).
    Symbol(usize),
}

impl AxisIndex {
    /// The index as an affine expression of the iterators (`d`) and
    /// symbols (`s`).
    fn to_affine(&self) -> Affine {
        match self {
            AxisIndex::Fixed(i) => Affine::Const(*i as i64),
            AxisIndex::Iter(i) => Affine::Dim(*i),
            AxisIndex::Symbol(s) => Affine::Sym(*s),
            AxisIndex::Affine { terms, offset } => {
                let mut e = terms
                    .iter()
                    .map(|&(c, i)| Affine::scaled(c, i))
                    .reduce(Affine::sum)
                    .unwrap_or(Affine::Const(0));
                if *offset != 0 {
                    e = Affine::sum(e, Affine::Const(*offset));
                }
                e
            }
        }
    }
}

/// The loops of an operation and the indices of its result and operands:
/// one affine expression of the iterators (`Affine::Dim`) and symbols
/// (`Affine::Sym`) per axis, in memory order. The dialect layer prints them
/// as MLIR affine maps.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Projections {
    /// The size of every iterator.
    pub space: Vec<u64>,
    pub lhs: Vec<Affine>,
    pub rhs: Vec<Vec<Affine>>,
    pub num_symbols: usize,
}

fn rows(s: &Shape) -> [Vec<u64>; 3] {
    let r = |row: &crate::shape::Row| {
        row.dims()
            .map(|d| d.known_size().unwrap_or(1))
            .collect::<Vec<u64>>()
    };
    [r(&s.batch), r(&s.input), r(&s.output)]
}

/// Memory order of per-kind index lists (given in Kind order batch, input,
/// output): batch, output, input.
fn memory_order(per_kind: [Vec<AxisIndex>; 3]) -> Vec<AxisIndex> {
    let [b, i, o] = per_kind;
    b.into_iter().chain(o).chain(i).collect()
}

#[derive(Default)]
struct Space {
    sizes: Vec<u64>,
}

impl Space {
    /// An iterator over `size` values; a size-1 axis is simply index 0.
    fn iter(&mut self, size: u64) -> AxisIndex {
        if size <= 1 {
            return AxisIndex::Fixed(0);
        }
        self.iter_kept(size)
    }

    /// An iterator even of size 1.
    fn iter_kept(&mut self, size: u64) -> AxisIndex {
        self.sizes.push(size.max(1));
        AxisIndex::Iter(self.sizes.len() - 1)
    }

    fn row(&mut self, dims: &[u64]) -> Vec<AxisIndex> {
        dims.iter().map(|&d| self.iter(d)).collect()
    }
}

/// Iterators over the result's axes, numbered in memory order (batch,
/// output, input), returned per kind (batch, input, output).
fn result_iters(sp: &mut Space, res: &[Vec<u64>; 3]) -> [Vec<AxisIndex>; 3] {
    let b = sp.row(&res[0]);
    let o = sp.row(&res[2]);
    let i = sp.row(&res[1]);
    [b, i, o]
}

/// The index of an operand row broadcast to a result row (right-aligned):
/// a size-1 axis against a larger one is read at 0.
fn broadcast(res: &[u64], res_idx: &[AxisIndex], op: &[u64]) -> Result<Vec<AxisIndex>, String> {
    if op.len() > res.len() {
        return Err(format!(
            "operand row {op:?} has more axes than the result row {res:?}"
        ));
    }
    let off = res.len() - op.len();
    Ok(op
        .iter()
        .enumerate()
        .map(|(i, &d)| {
            if d == 1 && res[off + i] != 1 {
                AxisIndex::Fixed(0)
            } else {
                res_idx[off + i].clone()
            }
        })
        .collect())
}

/// Why an operation's projections cannot be derived from its shapes (an
/// index that would leave an axis, a broadcast that does not align), in
/// words.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProjectionError(pub String);

impl std::fmt::Display for ProjectionError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ProjectionError {}

/// Derives the projections of `node` from the solved shapes of its result
/// and operands.
pub fn derive(
    node: &Node,
    result: &Shape,
    operands: &[&Shape],
) -> Result<Projections, ProjectionError> {
    derive_text(node, result, operands).map_err(ProjectionError)
}

fn derive_text(node: &Node, result: &Shape, operands: &[&Shape]) -> Result<Projections, String> {
    let mut sp = Space::default();
    let res = rows(result);
    let ops: Vec<[Vec<u64>; 3]> = operands.iter().map(|s| rows(s)).collect();
    let mut num_symbols = 0;
    let (lhs, rhs) = match node {
        Node::Terminal { .. } => {
            let l = result_iters(&mut sp, &res);
            (memory_order(l), vec![])
        }
        Node::Pointwise(_) => {
            let l = result_iters(&mut sp, &res);
            let mut rhs = vec![];
            for op in &ops {
                let r = [
                    broadcast(&res[0], &l[0], &op[0])?,
                    broadcast(&res[1], &l[1], &op[1])?,
                    broadcast(&res[2], &l[2], &op[2])?,
                ];
                rhs.push(memory_order(r));
            }
            (memory_order(l), rhs)
        }
        Node::Compose(..) => {
            let (a, b) = (&ops[0], &ops[1]);
            let l = result_iters(&mut sp, &res);
            // The contracted axes: the input row of `a`.
            let contracted = sp.row(&a[1]);
            let ra = [
                broadcast(&res[0], &l[0], &a[0])?,
                contracted.clone(),
                broadcast(&res[2], &l[2], &a[2])?,
            ];
            let rb = [
                broadcast(&res[0], &l[0], &b[0])?,
                broadcast(&res[1], &l[1], &b[1])?,
                broadcast(&a[1], &contracted, &b[2])?,
            ];
            (memory_order(l), vec![memory_order(ra), memory_order(rb)])
        }
        Node::Transpose(_) => {
            let x = &ops[0];
            let l = result_iters(&mut sp, &res);
            let r = [
                broadcast(&res[0], &l[0], &x[0])?,
                broadcast(&res[2], &l[2], &x[1])?,
                broadcast(&res[1], &l[1], &x[2])?,
            ];
            (memory_order(l), vec![memory_order(r)])
        }
        Node::BatchSlice(_) => {
            let l = result_iters(&mut sp, &res);
            num_symbols = 1;
            let batch: Vec<AxisIndex> = std::iter::once(AxisIndex::Symbol(0))
                .chain(l[0].iter().cloned())
                .collect();
            let r = [batch, l[1].clone(), l[2].clone()];
            (memory_order(l), vec![memory_order(r)])
        }
        Node::Einsum(spec, _) => einsum(&mut sp, spec, &res, &ops)?,
    };
    let affine = |v: Vec<AxisIndex>| v.iter().map(AxisIndex::to_affine).collect();
    let p = Projections {
        space: sp.sizes,
        lhs: affine(lhs),
        rhs: rhs.into_iter().map(affine).collect(),
        num_symbols,
    };
    check_inside(&p, &res, &ops)?;
    Ok(p)
}

/// Every index that is not a padded one (a compound index reads the
/// padding outside its axis) stays inside the axis that inference sized,
/// over the whole iteration space: what the assignment dialect's verifier
/// requires, checked where the projections are made, so that a program
/// whose shapes admit no such index is refused here, at its op, and never
/// lowered into IR the verifier rejects.
fn check_inside(p: &Projections, res: &[Vec<u64>; 3], ops: &[[Vec<u64>; 3]]) -> Result<(), String> {
    let dims = |t: &[Vec<u64>; 3]| -> Vec<u64> {
        t[0].iter().chain(&t[2]).chain(&t[1]).copied().collect()
    };
    let tensors = std::iter::once((&p.lhs, dims(res), "the result".to_string())).chain(
        p.rhs
            .iter()
            .zip(ops)
            .enumerate()
            .map(|(i, (m, t))| (m, dims(t), format!("operand #{i}"))),
    );
    for (map, dims, of) in tensors {
        for (axis, (e, &d)) in map.iter().zip(&dims).enumerate() {
            if e.has_sym() || e.is_padded() {
                continue;
            }
            match e.range(&p.space) {
                Some((lo, hi)) if lo >= 0 && u64::try_from(hi).is_ok_and(|h| h < d) => {}
                _ => {
                    return Err(format!(
                        "axis {axis} of {of} (in memory order: batch, output, input) has size {d}, but the operation reads it over a range its shapes do not give: the shapes disagree"
                    ))
                }
            }
        }
    }
    Ok(())
}

/// What an axis of a tensor is, according to the spec.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Key {
    Label(String),
    /// Position `pos` (from the right) of the row variable's expansion.
    VarPos(String, usize),
    /// An untracked axis: its own iterator.
    Own(usize),
}

#[derive(Clone, Debug)]
enum Occ {
    Key(Key),
    Fixed(u64),
    Affine {
        stride: u64,
        over: String,
        dilation: u64,
        kernel: Option<String>,
        offset: u64,
        padded: bool,
    },
}

/// Lines up a spec row with a tensor row: one occurrence per tensor axis.
fn align(
    spec: &RowSpec,
    kind: Kind,
    dims: &[u64],
    is_lhs: bool,
    fresh: &mut usize,
) -> Result<Vec<Occ>, String> {
    let conv = |a: &AxisSpec, fresh: &mut usize| -> Occ {
        match a {
            AxisSpec::Var(n) => Occ::Key(Key::Label(n.clone())),
            AxisSpec::Fixed(i) => Occ::Fixed(*i),
            AxisSpec::Size { .. } | AxisSpec::Placeholder => {
                *fresh += 1;
                Occ::Key(Key::Own(*fresh))
            }
            AxisSpec::Affine {
                stride,
                over,
                dilation,
                kernel,
                offset,
                use_padding,
            } => Occ::Affine {
                stride: *stride,
                over: over.clone(),
                dilation: *dilation,
                kernel: kernel.clone(),
                offset: *offset,
                padded: *use_padding == Some(true),
            },
        }
    };
    let beg: Vec<Occ> = spec.beg.iter().map(|a| conv(a, fresh)).collect();
    let end: Vec<Occ> = spec.end.iter().map(|a| conv(a, fresh)).collect();
    let var = spec.var.as_ref().map(|v| v.name(kind));
    let n = dims.len();
    // An operand slot may name more axes than the operand has (it broadcasts):
    // keep the rightmost ones.
    let mut out: Vec<Occ> = vec![];
    let fixed = beg.len() + end.len();
    if var.is_none() && !is_lhs && n > fixed {
        // Untracked axes on the left of an operand row: reduced.
        for _ in 0..n - fixed {
            *fresh += 1;
            out.push(Occ::Key(Key::Own(*fresh)));
        }
    }
    if n >= fixed {
        out.extend(beg);
        if let Some(v) = &var {
            let m = n - fixed;
            for j in 0..m {
                out.push(Occ::Key(Key::VarPos(v.to_string(), m - 1 - j)));
            }
        } else if is_lhs && n > fixed {
            return Err(format!(
                "the result row has {n} axes but its spec names {fixed}"
            ));
        }
        out.extend(end);
    } else {
        // Fewer axes than the spec names: right-aligned, the leftmost spec
        // axes do not exist in this tensor.
        let all: Vec<Occ> = beg.into_iter().chain(end).collect();
        out.extend(all.into_iter().skip(fixed - n));
    }
    Ok(out)
}

/// The size a convolution's (or strided) axis has by its equation: padded,
/// `stride * output`; valid, `stride * (output - 1) + dilation * (kernel -
/// 1) + 1`, with the offset of a strided index.
fn extent(
    stride: u64,
    over: u64,
    dilation: u64,
    kernel: Option<u64>,
    offset: u64,
    padded: bool,
) -> u64 {
    if padded {
        return stride.saturating_mul(over);
    }
    let span = kernel.map_or(1, |k| {
        dilation
            .saturating_mul(k.saturating_sub(1))
            .saturating_add(1)
    });
    stride
        .saturating_mul(over.saturating_sub(1))
        .saturating_add(span)
        .saturating_add(offset)
}

/// The occurrences of a tensor's axes in a spec, per row kind.
type Occurrences = [Vec<Occ>; 3];

fn einsum(
    sp: &mut Space,
    spec: &EinsumSpec,
    res: &[Vec<u64>; 3],
    ops: &[[Vec<u64>; 3]],
) -> Result<(Vec<AxisIndex>, Vec<Vec<AxisIndex>>), String> {
    let mut fresh = 0;
    let kinds = [Kind::Batch, Kind::Input, Kind::Output];
    // Occurrences per tensor (operands, then the result), per kind.
    let mut tensors: Vec<(Occurrences, &[Vec<u64>; 3])> = vec![];
    for (slot, op) in spec.rhs.iter().zip(ops) {
        let occ = [
            align(slot.row(kinds[0]), kinds[0], &op[0], false, &mut fresh)?,
            align(slot.row(kinds[1]), kinds[1], &op[1], false, &mut fresh)?,
            align(slot.row(kinds[2]), kinds[2], &op[2], false, &mut fresh)?,
        ];
        tensors.push((occ, op));
    }
    let lhs_occ = [
        align(spec.lhs.row(kinds[0]), kinds[0], &res[0], true, &mut fresh)?,
        align(spec.lhs.row(kinds[1]), kinds[1], &res[1], true, &mut fresh)?,
        align(spec.lhs.row(kinds[2]), kinds[2], &res[2], true, &mut fresh)?,
    ];
    tensors.push((lhs_occ, res));
    // The size of every key: the largest size it meets.
    let mut sizes: HashMap<Key, u64> = HashMap::new();
    let mut order: Vec<Key> = vec![];
    for (occ, dims) in &tensors {
        // Memory order: batch, output, input.
        for k in [0, 2, 1] {
            for (o, &d) in occ[k].iter().zip(&dims[k]) {
                if let Occ::Key(key) = o {
                    let e = sizes.entry(key.clone()).or_insert_with(|| {
                        order.push(key.clone());
                        0
                    });
                    *e = (*e).max(d);
                }
            }
        }
    }
    // Iterators: result keys first (in result order), then the reduced ones.
    let mut iter_of: HashMap<Key, AxisIndex> = HashMap::new();
    let res_keys: Vec<Key> = tensors
        .last()
        .into_iter()
        .flat_map(|(occ, _)| {
            [&occ[0], &occ[2], &occ[1]]
                .into_iter()
                .flatten()
                .filter_map(|o| match o {
                    Occ::Key(k) => Some(k.clone()),
                    _ => None,
                })
        })
        .collect();
    // The output axis of a padded convolution keeps its iterator at size 1:
    // its index `stride*o + dilation*k - pad` then stays a compound (padded)
    // index, whose reads outside the axis give the padding, where dropping
    // the iterator would leave a plain `k` that must stay inside the axis.
    let padded_over: Vec<Key> = tensors
        .iter()
        .flat_map(|(occ, _)| occ.iter().flatten())
        .filter_map(|o| match o {
            Occ::Affine {
                over, padded: true, ..
            } => Some(Key::Label(over.clone())),
            _ => None,
        })
        .collect();
    for key in res_keys.iter().chain(order.iter()) {
        if !iter_of.contains_key(key) {
            let size = sizes.get(key).copied().unwrap_or(1);
            let i = if padded_over.contains(key) {
                sp.iter_kept(size)
            } else {
                sp.iter(size)
            };
            iter_of.insert(key.clone(), i);
        }
    }
    let size_of = |name: &str| {
        sizes
            .get(&Key::Label(name.to_string()))
            .copied()
            .unwrap_or(1)
    };
    let index = |o: &Occ, d: u64, iter_of: &HashMap<Key, AxisIndex>| -> Result<AxisIndex, String> {
        Ok(match o {
            Occ::Key(k) => {
                let i = iter_of.get(k).cloned().unwrap_or(AxisIndex::Fixed(0));
                if d == 1 {
                    AxisIndex::Fixed(0)
                } else {
                    i
                }
            }
            // A fixed index reads (or writes) exactly its position: never a
            // clamp or a broadcast.
            Occ::Fixed(i) if *i >= d => {
                return Err(format!("the fixed index {i} is beyond an axis of size {d}"))
            }
            Occ::Fixed(i) => AxisIndex::Fixed(*i),
            // An axis of size 1 where the convolution's equation asks for
            // another size broadcasts, as any axis of size 1: every read at
            // index 0 (OCANNL projects a broadcast dimension to the fixed
            // index 0). Where the equation gives 1 (a padded convolution of
            // one output, stride 1) it is the convolution's own axis.
            Occ::Affine {
                stride,
                over,
                dilation,
                kernel,
                offset,
                padded,
            } if d == 1
                && extent(
                    *stride,
                    size_of(over),
                    *dilation,
                    kernel.as_deref().map(size_of),
                    *offset,
                    *padded,
                ) != 1 =>
            {
                AxisIndex::Fixed(0)
            }
            Occ::Affine {
                stride,
                over,
                dilation,
                kernel,
                offset,
                padded,
            } => {
                let it = |name: &str| match iter_of.get(&Key::Label(name.to_string())) {
                    Some(AxisIndex::Iter(i)) => Some(*i),
                    _ => None,
                };
                let mut terms = vec![];
                if let Some(i) = it(over) {
                    terms.push((*stride, i));
                }
                let mut off = *offset as i64;
                if let Some(k) = kernel {
                    if let Some(i) = it(k) {
                        terms.push((*dilation, i));
                    }
                    if *padded {
                        let ksize = sizes.get(&Key::Label(k.clone())).copied().unwrap_or(1);
                        off -= (dilation.saturating_mul(ksize.saturating_sub(1)) / 2)
                            .min(i64::MAX as u64) as i64;
                    }
                }
                if terms.is_empty() {
                    AxisIndex::Fixed(off.max(0) as u64)
                } else {
                    AxisIndex::Affine { terms, offset: off }
                }
            }
        })
    };
    let mut per_tensor = vec![];
    for (t, (occ, dims)) in tensors.iter().enumerate() {
        let mut per_kind: [Vec<AxisIndex>; 3] = [vec![], vec![], vec![]];
        for k in 0..3 {
            for (o, &d) in occ[k].iter().zip(&dims[k]) {
                per_kind[k].push(index(o, d, &iter_of).map_err(|m| {
                    let of = if t == ops.len() {
                        "the result".to_string()
                    } else {
                        format!("operand #{t}")
                    };
                    format!("{m} in the {} row of {of}", kinds[k].name())
                })?);
            }
        }
        per_tensor.push(memory_order(per_kind));
    }
    let lhs = per_tensor.pop().unwrap_or_default();
    Ok((lhs, per_tensor))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{infer, infer::NodeDecl};

    /// Infers a graph (as in the solver tests) and derives the projections
    /// of its last node, printed as affine maps.
    fn maps(nodes: Vec<NodeDecl>) -> String {
        let inf = infer::infer(&nodes).unwrap();
        let last = nodes.len() - 1;
        let ops: Vec<&Shape> = nodes[last]
            .node
            .operands()
            .iter()
            .map(|&j| &inf.shapes[j])
            .collect();
        let p = derive(&nodes[last].node, &inf.shapes[last], &ops).unwrap();
        let map = |exprs: &[Affine]| {
            let dims: Vec<String> = (0..p.space.len()).map(|i| format!("d{i}")).collect();
            let syms: Vec<String> = (0..p.num_symbols).map(|i| format!("s{i}")).collect();
            let syms = if syms.is_empty() {
                String::new()
            } else {
                format!("[{}]", syms.join(", "))
            };
            let exprs: Vec<String> = exprs.iter().map(|e| e.to_string()).collect();
            format!(
                "affine_map<({}){syms} -> ({})>",
                dims.join(", "),
                exprs.join(", ")
            )
        };
        let mut out = format!("space {:?} lhs {}", p.space, map(&p.lhs));
        for r in &p.rhs {
            out += &format!(" rhs {}", map(r));
        }
        out
    }

    fn arg(shape: &str) -> NodeDecl {
        NodeDecl {
            node: Node::Terminal { param: None },
            shape: shape.into(),
            elems: None,
        }
    }

    fn node(n: Node) -> NodeDecl {
        NodeDecl {
            node: n,
            shape: "?".into(),
            elems: None,
        }
    }

    fn ein(spec: &str, args: Vec<usize>) -> NodeDecl {
        node(Node::Einsum(
            crate::parse_einsum(spec).unwrap().into(),
            args,
        ))
    }

    /// One line per case: a graph and the projections of its last node.
    #[test]
    fn projections_table() {
        let cases: Vec<(Vec<NodeDecl>, &str)> = vec![
            // matmul as compose: batch b, output o, contracted k
            (vec![arg("3->4"), arg("10|3"), node(Node::Compose(0, 1))],
             "space [10, 4, 3] lhs affine_map<(d0, d1, d2) -> (d0, d1)> rhs affine_map<(d0, d1, d2) -> (d1, d2)> rhs affine_map<(d0, d1, d2) -> (d0, d2)>"),
            // broadcasting a dim-1 axis reads index 0
            (vec![arg("3,1"), arg("1,4"), node(Node::Pointwise(vec![0, 1]))],
             "space [3, 4] lhs affine_map<(d0, d1) -> (d0, d1)> rhs affine_map<(d0, d1) -> (d0, 0)> rhs affine_map<(d0, d1) -> (0, d1)>"),
            // broadcasting to more axes
            (vec![arg("5|3"), arg("3"), node(Node::Pointwise(vec![0, 1]))],
             "space [5, 3] lhs affine_map<(d0, d1) -> (d0, d1)> rhs affine_map<(d0, d1) -> (d0, d1)> rhs affine_map<(d0, d1) -> (d1)>"),
            // reduction to a scalar
            (vec![arg("7|3->4"), ein("...|...->... => 0", vec![0])],
             "space [7, 4, 3] lhs affine_map<(d0, d1, d2) -> (0)> rhs affine_map<(d0, d1, d2) -> (d0, d1, d2)>"),
            // einsum matmul
            (vec![arg("2,3"), arg("3,4"), ein("ij;jk=>ik", vec![0, 1])],
             "space [2, 4, 3] lhs affine_map<(d0, d1, d2) -> (d0, d1)> rhs affine_map<(d0, d1, d2) -> (d0, d2)> rhs affine_map<(d0, d1, d2) -> (d2, d1)>"),
            // fixed index selection
            (vec![arg("7|3,5"), ein("...|2,j => ...|j", vec![0])],
             "space [7, 5] lhs affine_map<(d0, d1) -> (d0, d1)> rhs affine_map<(d0, d1) -> (d0, 2, d1)>"),
            // diagonal
            (vec![arg("3,3"), ein("ii=>i", vec![0])],
             "space [3] lhs affine_map<(d0) -> (d0)> rhs affine_map<(d0) -> (d0, d0)>"),
            // transpose swaps input and output
            (vec![arg("2|3->4"), node(Node::Transpose(0))],
             "space [2, 3, 4] lhs affine_map<(d0, d1, d2) -> (d0, d1, d2)> rhs affine_map<(d0, d1, d2) -> (d0, d2, d1)>"),
            // convolution with stride 2 and dilation 1
            (vec![arg("10"), arg("3"), ein("2*o<+k; k => o", vec![0, 1])],
             "space [4, 3] lhs affine_map<(d0, d1) -> (d0)> rhs affine_map<(d0, d1) -> (d0 * 2 + d1)> rhs affine_map<(d0, d1) -> (d1)>"),
            // dilation 2
            (vec![arg("10"), arg("3"), ein("o<+2*k; k => o", vec![0, 1])],
             "space [6, 3] lhs affine_map<(d0, d1) -> (d0)> rhs affine_map<(d0, d1) -> (d0 + d1 * 2)> rhs affine_map<(d0, d1) -> (d1)>"),
            // a padded one of one output reads an input of 1 as its own axis
            (vec![arg("1"), arg("3"), ein("o=+k; k => o", vec![0, 1])],
             "space [1, 3] lhs affine_map<(d0, d1) -> (0)> rhs affine_map<(d0, d1) -> (d0 + d1 - 1)> rhs affine_map<(d0, d1) -> (d1)>"),
            // batch slice: the sliced axis is a symbol
            (vec![arg("7,2|3"), node(Node::BatchSlice(0))],
             "space [2, 3] lhs affine_map<(d0, d1)[s0] -> (d0, d1)> rhs affine_map<(d0, d1)[s0] -> (s0, d0, d1)>"),
            // a row variable in the middle
            (vec![arg("2,3,4,5"), ein("a, ..r.., b => b, ..r.., a", vec![0])],
             "space [5, 3, 4, 2] lhs affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)> rhs affine_map<(d0, d1, d2, d3) -> (d3, d1, d2, d0)>"),
        ];
        for (nodes, want) in cases {
            assert_eq!(maps(nodes), want);
        }
    }

    /// A convolution over an input of size 1 whose equation asks for more
    /// reads it at index 0: it broadcasts; no index leaves an axis.
    #[test]
    fn a_convolution_over_a_size_one_input_broadcasts() {
        let shape = |s: &str| infer::infer(&[arg(s)]).unwrap().shapes.remove(0);
        let (one, three, four) = (shape("1"), shape("3"), shape("4"));
        for spec in ["o<+k; k => o", "2*o=+k; k => o", "o<+2*k; k => o"] {
            let nodes = [arg("1"), arg("3"), ein(spec, vec![0, 1])];
            let p = derive(&nodes[2].node, &four, &[&one, &three]).unwrap();
            assert_eq!(p.space, [4, 3], "{spec}");
            assert_eq!(p.rhs[0], [Affine::Const(0)], "{spec}");
            assert_eq!(p.rhs[1], [Affine::Dim(1)], "{spec}");
        }
    }

    /// Shapes that would need an index past an axis are refused where the
    /// projections are made.
    #[test]
    fn an_index_past_an_axis_is_refused() {
        let nodes = vec![arg("3"), arg("5"), node(Node::Pointwise(vec![0, 1]))];
        let inf = infer::infer(&nodes);
        // Inference itself refuses these; derive checks what it is given.
        assert!(inf.is_err());
        let nodes = vec![arg("5"), node(Node::Pointwise(vec![0]))];
        let inf = infer::infer(&nodes).unwrap();
        let three = infer::infer(&[arg("3")]).unwrap().shapes.remove(0);
        let e = derive(&nodes[1].node, &inf.shapes[1], &[&three])
            .unwrap_err()
            .0;
        assert!(
            e.contains("has size 3, but the operation reads it over a range"),
            "{e}"
        );
    }

    /// A fixed index reads exactly its position: the consumer of OCANNL's
    /// `sparse` reads index 2 of the axis its producer writes at 0.
    #[test]
    fn fixed_indices_read_their_position() {
        let sparse = || vec![arg("4"), ein("i=>i0", vec![0]), ein("i2=>i", vec![1])];
        assert_eq!(
            maps(sparse()),
            "space [4] lhs affine_map<(d0) -> (d0)> rhs affine_map<(d0) -> (d0, 2)>"
        );
        assert_eq!(
            maps(sparse()[..2].to_vec()),
            "space [4] lhs affine_map<(d0) -> (d0, 0)> rhs affine_map<(d0) -> (d0)>"
        );
        // Shapes that were not inferred: an index beyond its axis is an
        // error, never a clamp or a broadcast.
        let x: Shape = crate::parse_shape(
            "4,1",
            &mut Default::default(),
            &mut crate::solver::Solver::new(),
        )
        .unwrap();
        let y: Shape = crate::parse_shape(
            "4",
            &mut Default::default(),
            &mut crate::solver::Solver::new(),
        )
        .unwrap();
        let spec = crate::parse_einsum("i2=>i").unwrap();
        let e = derive(&Node::Einsum(spec.into(), vec![0]), &y, &[&x])
            .unwrap_err()
            .0;
        assert_eq!(
            e,
            "the fixed index 2 is beyond an axis of size 1 in the output row of operand #0"
        );
    }
}
