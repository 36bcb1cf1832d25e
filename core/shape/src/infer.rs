//! Shape inference over a dataflow graph of nodes: the entry point that the
//! `ocannl-infer-shapes` pass (and the benchmarks) call.

use std::collections::{hash_map::Entry, HashMap};

use crate::{
    logic,
    notation::{parse_slot, Context, EinsumSpec, Kind, SlotSpec, SpecError},
    shape::{parse_shape, shape_of_slot, Dim, Row, Shape, VarScope},
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
    infer_with_order(nodes, None)
}

/// As [`infer`], but adds the constraints in the given order of nodes (a
/// permutation), to check that the solution does not depend on it.
pub fn infer_with_order(
    nodes: &[NodeDecl],
    order: Option<&[usize]>,
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
        add_node(&mut solver, nodes, i, &operands, &shapes, used[i])?;
        solver
            .propagate()
            .map_err(|e| to_error(&solver, nodes, &shapes, e))?;
    }
    let fail = |solver: &Solver, e: ShapeError| to_error(solver, nodes, &shapes, e);
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
    Ok(Inference {
        shapes: out,
        assumptions: std::mem::take(&mut solver.assumptions),
    })
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
) -> Result<(), InferError> {
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
            logic::einsum(solver, spec, r, &ops, &origin).map_err(|m| InferError {
                kind: InferErrorKind::Spec,
                node: i,
                message: m.0,
                notes: vec![],
            })?;
        }
    }
    if let Some(elems) = n.elems {
        let rows = vec![r.batch.clone(), r.input.clone(), r.output.clone()];
        solver.add(
            Constraint::TotalElems { rows, n: elems },
            Origin {
                what: What::text("the elements of the literal"),
                ..origin
            },
        );
    }
    Ok(())
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

fn to_error(solver: &Solver, nodes: &[NodeDecl], shapes: &[Shape], e: ShapeError) -> InferError {
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
