//! Constraint generation: the shape logic of every kind of operation, as
//! constraints between the shapes of its result and operands.
//!
//! Direction: the result refines its operands (`result >= operand`), so
//! operands broadcast to the result. For an einsum, the spec's operand slots
//! refine the operands (`slot >= operand`) and the result refines the spec's
//! result slot (`result >= slot`). In an operand slot, a row written without
//! a row variable (or not written at all) names the rightmost axes of the
//! operand's row; axes further left are untracked and reduced, so
//! `...|... => 0`, `... => 0` and `...|...->... => 0` all reduce everything.

use crate::{
    notation::{AxisSpec, EinsumSpec, Kind, RowSpec, SlotSpec},
    shape::{Dim, DimVar, Fresh, Row, RowVar, Shape},
    solver::{Constraint, Origin, Solver, Terminal, What},
};

fn ineq_rows(
    s: &mut Solver,
    cur: &Shape,
    ck: Kind,
    subr: &Shape,
    sk: Kind,
    origin: &Origin,
    what: What,
) {
    ineq(s, cur.row(ck).clone(), subr.row(sk).clone(), origin, what);
}

/// `cur >= subr`, described by `what`.
fn ineq(s: &mut Solver, cur: Row, subr: Row, origin: &Origin, what: What) {
    s.add(
        Constraint::RowIneq { cur, subr },
        Origin { what, ..*origin },
    );
}

/// A description naming a row kind and an operand.
fn about(text: &'static str, kind: Kind, operand: usize, of: usize) -> What {
    What {
        text,
        kind: Some(kind),
        operand: Some((operand as u32, of as u32)),
        n: 0,
    }
}

/// Broadcasting pointwise: `result.k >= operand.k` for every kind.
pub fn pointwise(s: &mut Solver, result: &Shape, operands: &[&Shape], origin: &Origin) {
    let n = operands.len();
    for (i, op) in operands.iter().enumerate() {
        for k in Kind::ALL {
            ineq_rows(
                s,
                result,
                k,
                op,
                k,
                origin,
                about(
                    "the {kind} row of {operand} broadcast to the result's",
                    k,
                    i,
                    n,
                ),
            );
        }
    }
}

/// OCANNL's `*`: the input row of `a` contracts with the output row of `b`.
pub fn compose(s: &mut Solver, result: &Shape, a: &Shape, b: &Shape, origin: &Origin) {
    ineq_rows(
        s,
        a,
        Kind::Input,
        b,
        Kind::Output,
        origin,
        What::text("the output row of operand #1 against the input row of operand #0"),
    );
    ineq_rows(
        s,
        result,
        Kind::Batch,
        a,
        Kind::Batch,
        origin,
        What::text("the batch row of operand #0 broadcast to the result's"),
    );
    ineq_rows(
        s,
        result,
        Kind::Batch,
        b,
        Kind::Batch,
        origin,
        What::text("the batch row of operand #1 broadcast to the result's"),
    );
    ineq_rows(
        s,
        result,
        Kind::Input,
        b,
        Kind::Input,
        origin,
        What::text("the input row of operand #1 against the result's input row"),
    );
    ineq_rows(
        s,
        result,
        Kind::Output,
        a,
        Kind::Output,
        origin,
        What::text("the output row of operand #0 against the result's output row"),
    );
}

/// Swaps the input and output rows.
pub fn transpose(s: &mut Solver, result: &Shape, x: &Shape, origin: &Origin) {
    ineq_rows(
        s,
        result,
        Kind::Batch,
        x,
        Kind::Batch,
        origin,
        What::text("the batch row of the operand against the result's"),
    );
    ineq_rows(
        s,
        result,
        Kind::Input,
        x,
        Kind::Output,
        origin,
        What::text("the output row of the operand against the result's input row"),
    );
    ineq_rows(
        s,
        result,
        Kind::Output,
        x,
        Kind::Input,
        origin,
        What::text("the input row of the operand against the result's output row"),
    );
}

/// Removes the leftmost batch axis: `x.batch = [d] ++ result.batch`, the
/// other rows are equal. The sliced axis is the operand's own leftmost one
/// (the result is forced from below). Returns the sliced dim.
pub fn batch_slice(s: &mut Solver, result: &Shape, x: &Shape, origin: &Origin) -> Dim {
    let d = Dim::Var(s.fresh_dim());
    let o = |w: &'static str| Origin {
        what: What::text(w),
        ..*origin
    };
    s.add(
        Constraint::Slice {
            operand: x.batch.clone(),
            result: result.batch.clone(),
            sliced: d,
        },
        o("the operand's batch row against the result's with the sliced axis in front"),
    );
    s.add(
        Constraint::RowEq(x.input.clone(), result.input.clone()),
        o("the input rows of the operand and the result"),
    );
    s.add(
        Constraint::RowEq(x.output.clone(), result.output.clone()),
        o("the output rows of the operand and the result"),
    );
    s.add(Constraint::AtLeast(d, 1), o("the sliced axis"));
    d
}

/// A leaf tensor, `used` if any op uses it. A param never has batch axes.
pub fn terminal(s: &mut Solver, shape: &Shape, param: Option<&str>, used: bool, origin: &Origin) {
    if param.is_some() {
        s.add(
            Constraint::RowEq(shape.batch.clone(), Row::closed(vec![])),
            Origin {
                what: What::text("a param has no batch axes"),
                ..*origin
            },
        );
    }
    s.add_terminal(Terminal {
        shape: shape.clone(),
        param: param.map(std::sync::Arc::from),
        used,
        origin: *origin,
    });
}

/// Generalized einsum: `slot_i >= operand_i` and `result = lhs slot` (the
/// result's rows are exactly as the spec writes them), the spec's labels
/// shared across slots.
pub fn einsum(
    s: &mut Solver,
    spec: &EinsumSpec,
    result: &Shape,
    operands: &[&Shape],
    origin: &Origin,
) -> Result<SpecVars, SpecError> {
    einsum_text(s, spec, result, operands, origin).map_err(SpecError)
}

/// The variables an einsum's spec gave its labels (`i`) and row variables
/// (`r` for `..r..`; `batch`, `input`, `output` for `...` in that row):
/// what a capture of a label binds.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SpecVars {
    pub dims: Vec<(String, DimVar)>,
    pub rows: Vec<(String, RowVar)>,
}

/// Why an einsum spec cannot be applied to an op (an affine axis in the
/// result slot, a solver conflict while posting its constraints), in words.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpecError(pub String);

impl std::fmt::Display for SpecError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for SpecError {}

fn einsum_text(
    s: &mut Solver,
    spec: &EinsumSpec,
    result: &Shape,
    operands: &[&Shape],
    origin: &Origin,
) -> Result<SpecVars, String> {
    let mut b = SpecBuilder {
        labels: vec![],
        rows: vec![],
    };
    let mut rhs = vec![];
    for slot in &spec.rhs {
        rhs.push(b.slot(s, slot, false, origin)?);
    }
    let mut lhs = b.slot(s, &spec.lhs, true, origin)?;
    let n = operands.len();
    // The slots' rows are used once: they move into the constraints.
    for (i, (mut slot, op)) in rhs.into_iter().zip(operands).enumerate() {
        for k in Kind::ALL {
            ineq(
                s,
                std::mem::take(slot.row_mut(k)),
                op.row(k).clone(),
                origin,
                about("the {kind} row of {operand} against its spec", k, i, n),
            );
        }
    }
    for k in Kind::ALL {
        s.add(
            Constraint::RowEq(result.row(k).clone(), std::mem::take(lhs.row_mut(k))),
            Origin {
                what: What {
                    kind: Some(k),
                    ..What::text("the result's {kind} row against its spec")
                },
                ..*origin
            },
        );
    }
    Ok(SpecVars {
        dims: b.labels.iter().map(|(n, v)| (n.to_string(), *v)).collect(),
        rows: b.rows.iter().map(|(n, v)| (n.to_string(), *v)).collect(),
    })
}

/// The variables of one spec's labels and row variables. A spec has a
/// handful of names: a linear search beats hashing them.
struct SpecBuilder<'a> {
    labels: Vec<(&'a str, DimVar)>,
    rows: Vec<(&'a str, RowVar)>,
}

fn lookup<'a, V: Copy>(map: &mut Vec<(&'a str, V)>, name: &'a str, fresh: impl FnOnce() -> V) -> V {
    match map.iter().find(|(n, _)| *n == name) {
        Some((_, v)) => *v,
        None => {
            let v = fresh();
            map.push((name, v));
            v
        }
    }
}

impl<'a> SpecBuilder<'a> {
    fn label(&mut self, s: &mut Solver, name: &'a str) -> Dim {
        Dim::Var(lookup(&mut self.labels, name, || s.fresh_dim()))
    }

    fn slot(
        &mut self,
        s: &mut Solver,
        slot: &'a SlotSpec,
        is_lhs: bool,
        origin: &Origin,
    ) -> Result<Shape, String> {
        let mut shape = Shape::default();
        for k in Kind::ALL {
            *shape.row_mut(k) = self.row(s, slot.row(k), k, is_lhs, origin)?;
        }
        Ok(shape)
    }

    fn row(
        &mut self,
        s: &mut Solver,
        spec: &'a RowSpec,
        kind: Kind,
        is_lhs: bool,
        origin: &Origin,
    ) -> Result<Row, String> {
        // Both parts go into one vector, split afterwards if the row has
        // a variable in the middle.
        let mut out = Vec::with_capacity(spec.beg.len() + spec.end.len());
        let mut conv = |axes: &'a [AxisSpec],
                        out: &mut Vec<Dim>,
                        s: &mut Solver|
         -> Result<(), String> {
            for a in axes {
                out.push(match a {
                    AxisSpec::Var(name) => self.label(s, name),
                    AxisSpec::Size { size, label } => Dim::Known { size: *size, label: label.as_deref().map(crate::shape::Label::intern) },
                    AxisSpec::Placeholder => Dim::Var(s.fresh_dim()),
                    // A fixed index in the result makes an axis of at least
                    // i+1 (a consumer may need more); in an operand it reads
                    // the operand's axis, which cannot broadcast.
                    AxisSpec::Fixed(i) => {
                        let v = if is_lhs { s.fresh_dim() } else { s.fresh_index_dim() };
                        s.add(Constraint::AtLeast(Dim::Var(v), i + 1), Origin { what: What { n: *i, ..What::text("fixed index {n}") }, ..*origin });
                        Dim::Var(v)
                    }
                    AxisSpec::Affine { stride, over, dilation, kernel, use_padding, .. } => {
                        if is_lhs {
                            return Err("affine (convolution) axes are only allowed in operand slots, not in the result".into());
                        }
                        let input = Dim::Var(s.fresh_dim());
                        let over = self.label(s, over);
                        let kernel = kernel.as_ref().map(|k| self.label(s, k));
                        s.add(
                            Constraint::Affine {
                                input,
                                stride: *stride,
                                over,
                                dilation: *dilation,
                                kernel,
                                padded: *use_padding == Some(true),
                            },
                            Origin { what: What::text("a convolution axis"), ..*origin },
                        );
                        input
                    }
                });
            }
            Ok(())
        };
        conv(&spec.beg, &mut out, s)?;
        conv(&spec.end, &mut out, s)?;
        let var = match &spec.var {
            Some(v) => Some(lookup(&mut self.rows, v.name(kind), || s.fresh_row())),
            // An operand row written without a row variable (or not
            // written) gives its rightmost axes; further axes to the left
            // are untracked (and reduced). A result row is exactly as
            // written.
            None if !is_lhs => Some(s.fresh_untracked_row()),
            None => None,
        };
        Ok(match (var, spec.beg.len()) {
            (None, _) => Row::closed(out),
            (Some(_), 0) => Row {
                beg: vec![],
                var,
                end: out,
            },
            (Some(_), n) => {
                let end = out.split_off(n);
                Row { beg: out, var, end }
            }
        })
    }
}
