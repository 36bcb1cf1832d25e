//! Shape inference over a dataflow graph of nodes: the entry point that the
//! `ocannl-infer-shapes` pass (and the benchmarks) call.

use std::collections::{hash_map::Entry, HashMap};

use crate::{
    logic,
    notation::{parse_slot, Context, EinsumSpec, SlotSpec, SpecError},
    shape::{parse_shape, shape_of_slot, Shape, VarScope},
    solver::{
        display_partial, Assumption, Constraint, Origin, ShapeError, ShapeErrorKind, Solver,
        What,
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
        match self {
            Node::Terminal { .. } => vec![],
            Node::Pointwise(v) | Node::Einsum(_, v) => v.clone(),
            Node::Compose(a, b) => vec![*a, *b],
            Node::Transpose(a) | Node::BatchSlice(a) => vec![*a],
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
        for j in n.node.operands() {
            if let Some(u) = used.get_mut(j) {
                *u = true;
            }
        }
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
        let origin = Origin::new(i, n.node.name());
        let r = &shapes[i];
        let ops: Vec<&Shape> = operands.iter().map(|&j| &shapes[j]).collect();
        match &n.node {
            Node::Terminal { param } => {
                logic::terminal(&mut solver, r, param.as_deref(), used[i], &origin)
            }
            Node::Pointwise(_) => logic::pointwise(&mut solver, r, &ops, &origin),
            Node::Compose(..) => logic::compose(&mut solver, r, ops[0], ops[1], &origin),
            Node::Transpose(_) => logic::transpose(&mut solver, r, ops[0], &origin),
            Node::BatchSlice(_) => {
                logic::batch_slice(&mut solver, r, ops[0], &origin);
            }
            Node::Einsum(spec, _) => {
                logic::einsum(&mut solver, spec, r, &ops, &origin).map_err(|m| InferError {
                    kind: InferErrorKind::Spec,
                    node: i,
                    message: m,
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
    // A closed shape is concrete: closing the earlier shapes afterwards
    // cannot change it.
    debug_assert!(out.iter().all(Shape::is_concrete));
    Ok(Inference {
        shapes: out,
        assumptions: std::mem::take(&mut solver.assumptions),
    })
}

fn shape_error(node: usize, e: SpecError) -> InferError {
    InferError {
        kind: InferErrorKind::Annotation,
        node,
        message: format!(
            "invalid shape: {} at position {} in \"{}\"",
            e.message, e.pos, e.text
        ),
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
            .map(|(k, &j)| format!("#{} \"{}\"", k + 1, show(j)))
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
                    k + 1,
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
