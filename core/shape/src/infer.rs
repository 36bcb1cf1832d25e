//! Shape inference over a dataflow graph of nodes: the entry point that the
//! `ocannl-infer-shapes` pass (and the benchmarks) call.

use std::collections::{hash_map::Entry, HashMap};

use crate::{
    logic::{self, SpecVars},
    notation::{parse_slot, Context, EinsumSpec, Kind, SlotSpec, SpecError},
    shape::{parse_shape, shape_of_slot, Dim, DimVar, Row, RowVar, Shape, VarScope},
    solver::{
        display_partial, Assumption, Constraint, Origin, ShapeError, ShapeErrorKind, Solver, What,
    },
};

/// What computes a node, with the indices of its operand nodes.
#[derive(Clone, Debug)]
pub enum Node {
    /// A leaf: a function argument, a constant, or (with a name) a param.
    Terminal {
        param: Option<String>,
    },
    Pointwise(Vec<usize>),
    Compose(usize, usize),
    /// Einsums with the same spec may share its parse.
    Einsum(std::sync::Arc<EinsumSpec>, Vec<usize>),
    Transpose(usize),
    BatchSlice(usize),
}

impl Node {
    pub fn operands(&self) -> Vec<usize> {
        let mut out = vec![];
        self.each_operand(|j| out.push(j));
        out
    }

    /// Calls `f` with each operand, without allocating.
    fn each_operand(&self, mut f: impl FnMut(usize)) {
        match self {
            Node::Terminal { .. } => {}
            Node::Pointwise(v) | Node::Einsum(_, v) => v.iter().for_each(|&j| f(j)),
            Node::Compose(a, b) => {
                f(*a);
                f(*b);
            }
            Node::Transpose(a) | Node::BatchSlice(a) => f(*a),
        }
    }

    fn name(&self) -> &'static str {
        match self {
            Node::Terminal { param: Some(_) } => "param",
            Node::Terminal { param: None } => "leaf tensor",
            Node::Pointwise(_) => "pointwise",
            Node::Compose(..) => "compose",
            Node::Einsum(..) => "einsum",
            Node::Transpose(_) => "transpose",
            Node::BatchSlice(_) => "batch_slice",
        }
    }
}

/// A node with its declared shape (the SHAPE of its type, `?` if unknown)
/// and, for a dense literal, its number of elements.
#[derive(Clone, Debug)]
pub struct NodeDecl {
    pub node: Node,
    pub shape: String,
    pub elems: Option<u64>,
}

/// The solved shapes, one per node, and the assumptions made while closing.
#[derive(Clone, Debug)]
pub struct Inference {
    pub shapes: Vec<Shape>,
    pub assumptions: Vec<Assumption>,
    /// The solution of each variable [`Refs`] names, by name, in the order
    /// of first mention (captures, then constraints).
    pub named: Vec<(String, Named)>,
}

/// The solution of a named variable: a dim's size, or a row's dims.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Named {
    Dim(u64),
    Row(Vec<u64>),
}

impl Named {
    /// The dim, or a row's total elements (OCANNL's `solved_dim`).
    pub fn total(&self) -> u64 {
        match self {
            Named::Dim(d) => *d,
            Named::Row(dims) => dims.iter().product(),
        }
    }
}

/// A constraint on a function's named variables (the shape API's
/// `set_dim` and `set_equal`). A name is a dim or row variable of the
/// function's scope: written in a shape annotation (`h`, `..r..`) or
/// captured from an einsum's spec ([`Refs::captures`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RefConstraint {
    /// A dim is `value`; a row's dims multiply to `value` (its total
    /// elements).
    SetDim { name: String, value: u64 },
    /// Two dims are equal, two rows are equal (the same axes); a dim and a
    /// row: the row's dims multiply to the dim.
    SetEqual(String, String),
}

/// What a function says of its named variables besides its shapes.
#[derive(Clone, Debug, Default)]
pub struct Refs {
    /// For an einsum node: labels of its spec (`i`; `r` for `..r..`;
    /// `batch`, `input`, `output` for `...` in that row) that are the
    /// function's variables of the same names. A name captured by several
    /// einsums is one variable: their labels are equal.
    pub captures: Vec<(usize, Vec<String>)>,
    /// The constraints; an error in the `k`-th is reported at node
    /// `nodes.len() + k`.
    pub constraints: Vec<RefConstraint>,
    /// Nodes that read a named variable's solution as a number (a `dim`
    /// op): the node and the name.
    pub reads: Vec<(usize, String)>,
}

/// What kind of failure an [`InferError`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InferErrorKind {
    /// A shape annotation that does not parse.
    Annotation,
    /// An einsum spec the shape logic cannot use.
    Spec,
    /// An operand defined after the node that uses it.
    Order,
    /// The shapes cannot satisfy the constraints.
    Shape(ShapeErrorKind),
    /// The inferred shapes violate an op's constraints: a bug in inference,
    /// caught before it reaches code generation.
    Internal,
}

/// A failure located at a node, with notes at other nodes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InferError {
    pub kind: InferErrorKind,
    pub node: usize,
    pub message: String,
    pub notes: Vec<(usize, String)>,
}

impl std::fmt::Display for InferError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "node {}: {}", self.node, self.message)
    }
}

/// Infers every node's shape. Variable names written in the declared shapes
/// (`..v..`, dim names) are shared by all nodes: they form one scope.
pub fn infer(nodes: &[NodeDecl]) -> Result<Inference, InferError> {
    infer_with_order(nodes, None, &Refs::default())
}

/// As [`infer`], with captures of einsum labels and constraints on named
/// variables; their solutions are [`Inference::named`].
pub fn infer_with_refs(nodes: &[NodeDecl], refs: &Refs) -> Result<Inference, InferError> {
    infer_with_order(nodes, None, refs)
}

/// As [`infer`], but adds the constraints in the given order of nodes (a
/// permutation), to check that the solution does not depend on it.
pub fn infer_with_order(
    nodes: &[NodeDecl],
    order: Option<&[usize]>,
    refs: &Refs,
) -> Result<Inference, InferError> {
    let mut solver = Solver::new();
    solver.reserve(nodes.len());
    let mut scope = VarScope::default();
    let mut shapes = Vec::with_capacity(nodes.len());
    // Graphs repeat a few annotations: each distinct one is parsed once.
    let mut parsed: HashMap<&str, SlotSpec> = HashMap::new();
    for (i, n) in nodes.iter().enumerate() {
        let text = n.shape.as_str();
        let shape = if text.trim() == "?" {
            parse_shape(text, &mut scope, &mut solver)
        } else {
            let slot = match parsed.entry(text) {
                Entry::Occupied(e) => e.into_mut(),
                Entry::Vacant(e) => match parse_slot(text, Context::Shape) {
                    Ok(slot) => e.insert(slot),
                    Err(err) => return Err(shape_error(i, err)),
                },
            };
            shape_of_slot(slot, text, &mut scope, &mut solver)
        };
        shapes.push(shape.map_err(|e| shape_error(i, e))?);
    }
    let mut used = vec![false; nodes.len()];
    for n in nodes {
        n.node.each_operand(|j| {
            if let Some(u) = used.get_mut(j) {
                *u = true;
            }
        });
    }
    let default_order: Vec<usize> = (0..nodes.len()).collect();
    for &i in order.unwrap_or(&default_order) {
        let n = &nodes[i];
        let operands = n.node.operands();
        if let Some(&j) = operands.iter().find(|&&j| j >= i) {
            return Err(InferError {
                kind: InferErrorKind::Order,
                node: i,
                message: format!("operand node {j} is not defined before node {i}"),
                notes: vec![],
            });
        }
        let vars = add_node(&mut solver, nodes, i, &operands, &shapes, used[i])?;
        for (_, labels) in refs.captures.iter().filter(|(n, _)| *n == i) {
            bind_captures(&mut solver, &mut scope, i, labels, vars.as_ref())?;
        }
        solver
            .propagate()
            .map_err(|e| to_error(&solver, nodes, &shapes, refs, e))?;
    }
    for (k, c) in refs.constraints.iter().enumerate() {
        add_ref_constraint(&mut solver, &mut scope, nodes.len() + k, c)?;
    }
    for (i, name) in &refs.reads {
        if scope_var(&scope, name).is_none() {
            return Err(unknown_name(*i, name));
        }
    }
    let fail = |solver: &Solver, e: ShapeError| to_error(solver, nodes, &shapes, refs, e);
    solver.solve().map_err(|e| fail(&solver, e))?;
    // Close what is left from the results back to the inputs: a consumer's
    // rows are then settled when its operands' rows are bounded by them.
    let mut out = Vec::with_capacity(nodes.len());
    for (i, s) in shapes.iter().enumerate().rev() {
        let origin = Origin::new(i, nodes[i].node.name());
        out.push(
            solver
                .close_shape(s, &origin)
                .map_err(|e| fail(&solver, e))?,
        );
    }
    out.reverse();
    check_solution(nodes, &out, &used)?;
    let named =
        named_solutions(&mut solver, &scope, refs, nodes.len()).map_err(|e| fail(&solver, e))?;
    Ok(Inference {
        shapes: out,
        assumptions: std::mem::take(&mut solver.assumptions),
        named,
    })
}

/// A named variable of the function's scope: a dim or a row.
#[derive(Clone, Copy)]
enum ScopeVar {
    Dim(DimVar),
    Row(RowVar),
}

fn scope_var(scope: &VarScope, name: &str) -> Option<ScopeVar> {
    match (scope.dims.get(name), scope.rows.get(name)) {
        (Some(&d), _) => Some(ScopeVar::Dim(d)),
        (None, Some(&r)) => Some(ScopeVar::Row(r)),
        _ => None,
    }
}

/// Makes the captured labels of node `i`'s spec (`vars`) the scope's
/// variables of the same names.
fn bind_captures(
    solver: &mut Solver,
    scope: &mut VarScope,
    i: usize,
    labels: &[String],
    vars: Option<&SpecVars>,
) -> Result<(), InferError> {
    let spec_error = |message: String| InferError {
        kind: InferErrorKind::Spec,
        node: i,
        message,
        notes: vec![],
    };
    let Some(vars) = vars else {
        return Err(spec_error(
            "only an einsum captures labels of its spec".to_string(),
        ));
    };
    for name in labels {
        let origin = Origin::new(i, "a captured label against its other uses");
        let dim = vars.dims.iter().find(|(n, _)| n == name).map(|(_, v)| *v);
        let row = vars.rows.iter().find(|(n, _)| n == name).map(|(_, v)| *v);
        match (dim, row, scope_var(scope, name)) {
            (None, None, _) => {
                let mut known: Vec<&str> = vars.dims.iter().map(|(n, _)| n.as_str()).collect();
                known.extend(vars.rows.iter().map(|(n, _)| n.as_str()));
                return Err(spec_error(format!(
                    "the spec has no label or row variable '{name}' to capture (it has: {})",
                    known.join(", ")
                )));
            }
            (Some(v), _, None) => {
                scope.dims.insert(name.clone(), v);
            }
            (Some(v), _, Some(ScopeVar::Dim(w))) => {
                solver.add(Constraint::DimEq(Dim::Var(v), Dim::Var(w)), origin)
            }
            (None, Some(v), None) => {
                scope.rows.insert(name.clone(), v);
            }
            (None, Some(v), Some(ScopeVar::Row(w))) => {
                solver.add(Constraint::RowEq(Row::open(v), Row::open(w)), origin)
            }
            (Some(_), _, Some(ScopeVar::Row(_))) | (None, Some(_), Some(ScopeVar::Dim(_))) => {
                return Err(spec_error(format!(
                    "'{name}' is a {} here but a {} elsewhere in the function",
                    if dim.is_some() {
                        "dimension"
                    } else {
                        "row variable"
                    },
                    if dim.is_some() {
                        "row variable"
                    } else {
                        "dimension"
                    }
                )));
            }
        }
    }
    Ok(())
}

/// The error of a name that no capture and no shape annotation gives,
/// reported at node `at`.
fn unknown_name(at: usize, name: &str) -> InferError {
    InferError {
        kind: InferErrorKind::Spec,
        node: at,
        message: format!("no einsum of the function captures '{name}' and no shape names it"),
        notes: vec![],
    }
}

/// Adds the `k`-th constraint on named variables, reported as node `at`.
fn add_ref_constraint(
    solver: &mut Solver,
    scope: &mut VarScope,
    at: usize,
    c: &RefConstraint,
) -> Result<(), InferError> {
    let unknown = |name: &str| unknown_name(at, name);
    let origin = Origin::new(at, "the constraint on named dimensions");
    let total = |rows: Vec<Row>, n: u64| Constraint::TotalElems {
        rows,
        n,
        literal: false,
    };
    match c {
        RefConstraint::SetDim { name, value } => {
            let c = match scope_var(scope, name).ok_or_else(|| unknown(name))? {
                ScopeVar::Dim(v) => Constraint::DimEq(Dim::Var(v), Dim::size(*value)),
                ScopeVar::Row(r) => total(vec![Row::open(r)], *value),
            };
            solver.add(c, origin);
        }
        RefConstraint::SetEqual(a, b) => {
            let va = scope_var(scope, a).ok_or_else(|| unknown(a))?;
            let vb = scope_var(scope, b).ok_or_else(|| unknown(b))?;
            let c = match (va, vb) {
                (ScopeVar::Dim(x), ScopeVar::Dim(y)) => Constraint::DimEq(Dim::Var(x), Dim::Var(y)),
                (ScopeVar::Row(x), ScopeVar::Row(y)) => {
                    Constraint::RowEq(Row::open(x), Row::open(y))
                }
                (ScopeVar::Dim(d), ScopeVar::Row(r)) | (ScopeVar::Row(r), ScopeVar::Dim(d)) => {
                    Constraint::TotalElemsOfDim {
                        rows: vec![Row::open(r)],
                        dim: Dim::Var(d),
                    }
                }
            };
            solver.add(c, origin);
        }
    }
    Ok(())
}

/// The solution of every name that `refs` mentions, once each, in order.
/// A variable no node's shape holds (a row variable of a spec bounded by
/// its operands) is closed as the shapes are: from below.
fn named_solutions(
    solver: &mut Solver,
    scope: &VarScope,
    refs: &Refs,
    n_nodes: usize,
) -> Result<Vec<(String, Named)>, ShapeError> {
    // Each name with the node (or constraint) that first mentions it,
    // where a failure to close it is reported.
    let mut names: Vec<(&str, usize)> = vec![];
    for (i, labels) in &refs.captures {
        names.extend(labels.iter().map(|l| (l.as_str(), *i)));
    }
    for (k, c) in refs.constraints.iter().enumerate() {
        let at = n_nodes + k;
        match c {
            RefConstraint::SetDim { name, .. } => names.push((name, at)),
            RefConstraint::SetEqual(a, b) => names.extend([(a.as_str(), at), (b.as_str(), at)]),
        }
    }
    names.extend(refs.reads.iter().map(|(i, n)| (n.as_str(), *i)));
    let mut out: Vec<(String, Named)> = vec![];
    for (name, at) in names {
        if out.iter().any(|(n, _)| n == name) {
            continue;
        }
        let origin = Origin::new(at, "a named dimension");
        let closed = |solver: &mut Solver, row: Row| -> Result<Vec<Option<u64>>, ShapeError> {
            let shape = Shape {
                output: row,
                ..Shape::default()
            };
            let s = solver.close_shape(&shape, &origin)?;
            Ok(s.output.dims().map(|d| d.known_size()).collect())
        };
        let value = match scope_var(scope, name) {
            Some(ScopeVar::Dim(v)) => closed(solver, Row::closed(vec![Dim::Var(v)]))?
                .first()
                .copied()
                .flatten()
                .map(Named::Dim),
            Some(ScopeVar::Row(r)) => closed(solver, Row::open(r))?
                .into_iter()
                .collect::<Option<Vec<u64>>>()
                .map(Named::Row),
            None => None,
        };
        if let Some(v) = value {
            out.push((name.to_string(), v));
        }
    }
    Ok(out)
}

/// Adds the constraints of node `i`: its shape logic over `shapes`, and
/// the element count of a literal.
fn add_node(
    solver: &mut Solver,
    nodes: &[NodeDecl],
    i: usize,
    operands: &[usize],
    shapes: &[Shape],
    used: bool,
) -> Result<Option<SpecVars>, InferError> {
    let mut vars = None;
    let n = &nodes[i];
    let origin = Origin::new(i, n.node.name());
    let r = &shapes[i];
    let ops: Vec<&Shape> = operands.iter().map(|&j| &shapes[j]).collect();
    match &n.node {
        Node::Terminal { param } => logic::terminal(solver, r, param.as_deref(), used, &origin),
        Node::Pointwise(_) => logic::pointwise(solver, r, &ops, &origin),
        Node::Compose(..) => logic::compose(solver, r, ops[0], ops[1], &origin),
        Node::Transpose(_) => logic::transpose(solver, r, ops[0], &origin),
        Node::BatchSlice(_) => {
            logic::batch_slice(solver, r, ops[0], &origin);
        }
        Node::Einsum(spec, _) => {
            vars = Some(
                logic::einsum(solver, spec, r, &ops, &origin).map_err(|m| InferError {
                    kind: InferErrorKind::Spec,
                    node: i,
                    message: m.0,
                    notes: vec![],
                })?,
            );
        }
    }
    if let Some(elems) = n.elems {
        let rows = vec![r.batch.clone(), r.input.clone(), r.output.clone()];
        solver.add(
            Constraint::TotalElems {
                rows,
                n: elems,
                literal: true,
            },
            Origin {
                what: What::text("the elements of the literal"),
                ..origin
            },
        );
    }
    Ok(vars)
}

/// Checks the solution before anything uses it: every node's constraints
/// must hold on the concrete shapes. Broadcasting ops and leaves are checked
/// directly, always (a linear scan). Einsums and slices have their
/// constraints solved again, all in one solver, over the concrete shapes:
/// that costs about a quarter of inference on einsum-heavy graphs, so it runs
/// in debug builds (every test, fuzzer and differential run) and when
/// `OCANNL_CHECK_SHAPES=1`. A failure is a bug in inference, reported as an
/// internal error at the node rather than passed on to code generation.
pub(crate) fn check_solution(
    nodes: &[NodeDecl],
    shapes: &[Shape],
    used: &[bool],
) -> Result<(), InferError> {
    let internal = |i: usize, what: String| {
        let list: Vec<String> = nodes[i]
            .node
            .operands()
            .iter()
            .enumerate()
            .map(|(k, &j)| format!("#{k} \"{}\"", shapes[j]))
            .collect();
        InferError {
            kind: InferErrorKind::Internal,
            node: i,
            message: format!(
                "internal error: the inferred shapes break the shape logic of this {}: {what}; shape \"{}\", operand shapes: [{}]",
                nodes[i].node.name(),
                display_partial(&shapes[i]),
                list.join(", ")
            ),
            notes: vec![],
        }
    };
    let mut solver = Solver::new();
    solver.reserve(
        nodes
            .iter()
            .filter(|n| matches!(n.node, Node::Einsum(..) | Node::BatchSlice(_)))
            .count(),
    );
    let mut solved = false;
    let resolve =
        cfg!(debug_assertions) || std::env::var_os("OCANNL_CHECK_SHAPES").is_some_and(|v| v == "1");
    for (i, n) in nodes.iter().enumerate() {
        let r = &shapes[i];
        if !r.is_concrete() {
            return Err(internal(i, "the shape is not concrete".into()));
        }
        let bcast = |cur: &Shape, ck: Kind, subr: &Shape, sk: Kind| {
            if broadcasts(cur.row(ck), subr.row(sk)) {
                Ok(())
            } else {
                Err(internal(
                    i,
                    format!("[{}] does not broadcast to [{}]", subr.row(sk), cur.row(ck)),
                ))
            }
        };
        match &n.node {
            Node::Terminal { param } => {
                if param.is_some() && r.batch.num_fixed() > 0 {
                    return Err(internal(i, "a param has batch axes".into()));
                }
            }
            Node::Pointwise(ops) => {
                for &j in ops {
                    for k in Kind::ALL {
                        bcast(r, k, &shapes[j], k)?;
                    }
                }
            }
            Node::Compose(a, b) => {
                let (a, b) = (&shapes[*a], &shapes[*b]);
                bcast(a, Kind::Input, b, Kind::Output)?;
                bcast(r, Kind::Batch, a, Kind::Batch)?;
                bcast(r, Kind::Batch, b, Kind::Batch)?;
                bcast(r, Kind::Input, b, Kind::Input)?;
                bcast(r, Kind::Output, a, Kind::Output)?;
            }
            Node::Transpose(x) => {
                let x = &shapes[*x];
                bcast(r, Kind::Batch, x, Kind::Batch)?;
                bcast(r, Kind::Input, x, Kind::Output)?;
                bcast(r, Kind::Output, x, Kind::Input)?;
            }
            Node::Einsum(..) | Node::BatchSlice(_) if !resolve => continue,
            Node::Einsum(..) | Node::BatchSlice(_) => {
                let operands = n.node.operands();
                add_node(&mut solver, nodes, i, &operands, shapes, used[i])?;
                solved = true;
                continue;
            }
        }
        if let Some(elems) = n.elems {
            let total = r
                .to_dims()
                .map(|d| d.iter().try_fold(1u64, |a, &x| a.checked_mul(x)));
            if total != Some(Some(elems)) {
                return Err(internal(i, format!("the literal has {elems} elements")));
            }
        }
    }
    if solved {
        if let Err(e) = solver.propagate().and_then(|()| solver.solve()) {
            let i = e.origin.op.min(nodes.len() - 1);
            return Err(internal(i, e.to_string()));
        }
    }
    Ok(())
}

/// Whether the concrete row `subr` broadcasts to the concrete row `cur`:
/// no more axes, and right-aligned, each dim an unlabelled 1 or the same
/// size with no conflicting labels.
fn broadcasts(cur: &Row, subr: &Row) -> bool {
    let (c, s) = (cur.num_fixed(), subr.num_fixed());
    s <= c
        && cur
            .dims()
            .skip(c - s)
            .zip(subr.dims())
            .all(|(c, s)| match (c, s) {
                (
                    _,
                    Dim::Known {
                        size: 1,
                        label: None,
                    },
                ) => true,
                (Dim::Known { size: a, label: la }, Dim::Known { size: b, label: lb }) => {
                    a == b && (la.is_none() || lb.is_none() || la == lb)
                }
                _ => false,
            })
}

fn shape_error(node: usize, e: SpecError) -> InferError {
    InferError {
        kind: InferErrorKind::Annotation,
        node,
        message: format!("invalid shape: {e}"),
        notes: vec![],
    }
}

fn to_error(
    solver: &Solver,
    nodes: &[NodeDecl],
    shapes: &[Shape],
    refs: &Refs,
    e: ShapeError,
) -> InferError {
    if let Some(c) = e
        .origin
        .op
        .checked_sub(nodes.len())
        .and_then(|k| refs.constraints.get(k))
    {
        let what = match c {
            RefConstraint::SetDim { name, value } => format!("cannot set '{name}' to {value}"),
            RefConstraint::SetEqual(a, b) => format!("cannot make '{a}' and '{b}' equal"),
        };
        let notes = e
            .decided_by
            .iter()
            .filter(|&&j| j < nodes.len())
            .map(|&j| {
                (
                    j,
                    format!(
                        "a conflicting dimension was decided by this {} (shape \"{}\")",
                        nodes[j].node.name(),
                        display_partial(&solver.subst_shape(&shapes[j]))
                    ),
                )
            })
            .collect();
        return InferError {
            kind: InferErrorKind::Shape(e.kind),
            node: e.origin.op,
            message: format!("{what}: {}", e.message),
            notes,
        };
    }
    let i = e.origin.op.min(nodes.len().saturating_sub(1));
    let show = |j: usize| display_partial(&solver.subst_shape(&shapes[j]));
    let operands = nodes[i].node.operands();
    if let ShapeErrorKind::ForgotHiddenDims { row } = e.kind {
        // A param: the error is at the param, with notes at its uses.
        let notes = nodes
            .iter()
            .enumerate()
            .filter(|(_, n)| n.node.operands().contains(&i))
            .map(|(j, n)| {
                (
                    j,
                    format!(
                        "the param is used here by this {} (shape \"{}\"), which does not determine its {row} row",
                        n.node.name(),
                        show(j)
                    ),
                )
            })
            .collect();
        return InferError {
            kind: InferErrorKind::Shape(e.kind),
            node: i,
            message: e.message,
            notes,
        };
    }
    let mut message = format!(
        "shape mismatch in {}: {} ({})",
        nodes[i].node.name(),
        e.message,
        e.origin.what
    );
    if !operands.is_empty() {
        let list: Vec<String> = operands
            .iter()
            .enumerate()
            .map(|(k, &j)| format!("#{k} \"{}\"", show(j)))
            .collect();
        message += &format!(
            "; operand shapes: {}; result shape so far: \"{}\"",
            list.join(", "),
            show(i)
        );
    } else {
        message += &format!("; shape so far: \"{}\"", show(i));
    }
    let mut notes: Vec<(usize, String)> = operands
        .iter()
        .enumerate()
        .map(|(k, &j)| {
            (
                j,
                format!(
                    "operand #{} ({}) has shape \"{}\"",
                    k,
                    nodes[j].node.name(),
                    show(j)
                ),
            )
        })
        .collect();
    for &j in &e.decided_by {
        if j < nodes.len() && !operands.contains(&j) {
            notes.push((
                j,
                format!(
                    "a conflicting dimension was decided by this {} (shape \"{}\")",
                    nodes[j].node.name(),
                    show(j)
                ),
            ));
        }
    }
    InferError {
        kind: InferErrorKind::Shape(e.kind),
        node: i,
        message,
        notes,
    }
}
