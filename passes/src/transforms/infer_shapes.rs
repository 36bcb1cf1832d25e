//! `ocannl-infer-shapes`: infers the OCANNL shape of every
//! `!ocannl_shape.tensor` value and rewrites its type to the concrete
//! canonical form, function signatures included.
//!
//! Each function is one inference problem: its entry block arguments, its
//! params and constants are the leaves; every `ocannl_shape` op adds the
//! constraints of its shape logic. Variable names written in shape strings
//! (`..v..`, dim names) are shared within the function. A value of tensor
//! type made by any other op is a leaf as well. Ops of other dialects (a
//! `func.call`) have types of their own to agree with: a tensor they make
//! or use must keep its type (a concrete, canonical shape), else the
//! rewrite would break them and is an error at the op.

use rustc_hash::FxHashMap;

use melior::ir::{
    attribute::AttributeLike, block::BlockLike, operation::OperationLike, Location, OperationRef,
    RegionLike, Value, ValueLike,
};
use ocannl_mlir::ir::{self, key};
use ocannl_shape::{InferError, Node, NodeDecl};
use ocannl_shape_dialect::{EinsumSpecs, OpKind, TensorType, TensorTypes};

use crate::{
    diag::Diagnostic,
    framework::{Options, PassError, PassResult},
    util::update_signature,
};

crate::define_pass!(
    DEF,
    run,
    "ocannl-infer-shapes",
    "OcannlInferShapes",
    "Infer the shapes of ocannl_shape tensors (row/dim constraints, broadcasting, staged closing) and make every tensor type concrete",
    [("explain", BOOL, "false", "Report, as remarks, the assumptions made while closing shapes (variables set to their least upper bound, to dim-1 or to no more axes), einsum result axes that no operand has, and single-char specs whose names read as words")],
    r#"infers every tensor's shape (OCANNL's row/dim constraints, broadcasting, staged closing; with the einsums' captured labels and the `set_dim`/`set_equal` constraints on the function's named variables) and rewrites all types, function signatures included, to concrete canonical shapes, and writes each capturing einsum's solutions in `captured`; `explain=true` reports as remarks the assumptions made while closing, einsum result axes that no operand has (they broadcast, as in OCANNL), and single-char specs whose names read as words (`"hidden"` is six axes)"#
);

fn run<'c>(module: OperationRef<'c, '_>, options: &Options) -> PassResult<'c> {
    let explain = options.flag("explain");
    // Each function is inferred; the errors of all of them are reported,
    // in order with the remarks of `explain`.
    let mut failed = false;
    for func in ir::ops_named(module, "func.func") {
        if let Err(e) = infer_function(func, explain) {
            for d in &e.diagnostics {
                d.emit();
            }
            failed = true;
        }
    }
    if failed {
        Err(PassError::emitted())
    } else {
        Ok(())
    }
}

/// Where a node is defined, for diagnostics.
struct Site<'c, 'a> {
    location: Location<'c>,
    value: Value<'c, 'a>,
    /// The declared type (its element type is kept).
    ty: std::rc::Rc<TensorType>,
    /// Made by an op of the function (not a function argument).
    from_op: bool,
}

fn infer_function<'c, 'a>(func: OperationRef<'c, 'a>, explain: bool) -> PassResult<'c> {
    let Ok(body) = func.region(0) else {
        return Ok(());
    };
    let Some(entry) = body.first_block() else {
        return Ok(());
    };
    // Reading and making types goes through a cache: most values share a
    // few types.
    let mut types = TensorTypes::default();
    let mut p = Problem::default();
    for i in 0..entry.argument_count() {
        let arg = entry.argument(i).expect("argument index in range");
        if let Some(tt) = types.read(arg.r#type()) {
            p.leaf(arg.into(), tt, arg.location(), false);
        }
    }
    for op in ir::collect(func, |_| true).into_iter().skip(1) {
        p.add_op(&mut types, op, explain)?;
    }
    if p.decls.is_empty() && p.refs.constraints.is_empty() {
        return Ok(());
    }
    tracing::debug!(nodes = p.decls.len(), "inferring shapes");

    let inference = ocannl_shape::infer_with_refs(&p.decls, &p.refs).map_err(|e| p.conflict(e))?;
    if explain {
        for a in &inference.assumptions {
            if let Some(site) = p.sites.get(a.op) {
                Diagnostic::remark(site.location, a.to_string()).emit();
            }
        }
    }
    let context = func.context();
    p.write_captured(ir::context(&context), &inference.named);
    write_dims(func, ir::context(&context), &inference.named)
        .map_err(|m| PassError::at(func.location(), m))?;
    p.rewrite_types(ir::context(&context), &mut types, &inference.shapes)?;
    update_signature(func);
    Ok(())
}

/// The function's named dimensions, solved (`ocannl.dims = {k = 7 : i64}`:
/// a dim's size, a row's total elements), kept through the lowerings for
/// whoever reads the module (the API's `Trainer::dim`).
fn write_dims<'c>(
    func: OperationRef<'c, '_>,
    context: &'c melior::Context,
    named: &[(String, ocannl_shape::Named)],
) -> Result<(), String> {
    if named.is_empty() {
        return Ok(());
    }
    let entries: Vec<String> = named
        .iter()
        .map(|(n, v)| {
            let key = n.replace('\\', "\\\\").replace('"', "\\\"");
            format!("\"{key}\" = {} : i64", v.total())
        })
        .collect();
    let text = format!("{{{}}}", entries.join(", "));
    let attr = melior::ir::Attribute::parse(context, &text)
        .ok_or_else(|| format!("internal error: cannot make the attribute {text}"))?;
    ir::set_attribute(func, DIMS, attr);
    Ok(())
}

/// The function attribute of its solved named dimensions.
pub const DIMS: &str = "ocannl.dims";

/// A function's inference problem, as its ops are read: the nodes, where
/// each is defined, and the tensors that ops of other dialects make or use.
#[derive(Default)]
struct Problem<'c, 'a> {
    decls: Vec<NodeDecl>,
    sites: Vec<Site<'c, 'a>>,
    /// The node of each value.
    index: FxHashMap<usize, usize>,
    /// Einsums with the same spec text share one parse.
    specs: EinsumSpecs,
    /// Tensors made or used by ops of other dialects (not returns): their
    /// types cannot change.
    foreign: FxHashMap<usize, (Location<'c>, String)>,
    /// The einsums' captures and the constraints on named variables.
    refs: ocannl_shape::Refs,
    /// The op of each capture (in `refs.captures`' order) and of each
    /// constraint.
    capture_ops: Vec<OperationRef<'c, 'a>>,
    constraint_sites: Vec<Location<'c>>,
    /// The `dim` ops (in `refs.reads`' order).
    dim_ops: Vec<OperationRef<'c, 'a>>,
}

impl<'c, 'a> Problem<'c, 'a> {
    /// A leaf node (a terminal) for the value `v`.
    fn leaf(
        &mut self,
        v: Value<'c, 'a>,
        tt: std::rc::Rc<TensorType>,
        location: Location<'c>,
        from_op: bool,
    ) {
        self.index.insert(key(v), self.decls.len());
        self.decls.push(NodeDecl {
            node: Node::Terminal { param: None },
            shape: tt.shape.clone(),
            elems: None,
        });
        self.sites.push(Site {
            location,
            value: v,
            ty: tt,
            from_op,
        });
    }

    /// The nodes of an op of the function: its result's, with the
    /// constraints of its shape logic for an `ocannl_shape` op, a leaf per
    /// tensor result for another op; tensor operands not seen yet are
    /// leaves.
    fn add_op<'t>(
        &mut self,
        types: &mut TensorTypes<'t>,
        op: OperationRef<'c, 'a>,
        explain: bool,
    ) -> PassResult<'c>
    where
        'c: 't,
    {
        if let Some(c) = ocannl_shape_dialect::constraint(&op)
            .map_err(|e| PassError::at(op.location(), e.to_string()))?
        {
            self.refs.constraints.push(c);
            self.constraint_sites.push(op.location());
            return Ok(());
        }
        let kind = OpKind::of(&op);
        // Operands of tensor type made outside this walk are leaves.
        for v in op.operands() {
            if let Some(tt) = types.read(v.r#type()) {
                if !self.index.contains_key(&key(v)) {
                    self.leaf(v, tt, op.location(), false);
                }
            }
        }
        let Some(kind) = kind else {
            if ir::name(&op) != "func.return" {
                for v in op.operands().chain(op.results().map(Into::into)) {
                    if types.read(v.r#type()).is_some() {
                        self.foreign
                            .entry(key(v))
                            .or_insert_with(|| (op.location(), ir::name(&op)));
                    }
                }
            }
            for r in op.results() {
                if let Some(tt) = types.read(r.r#type()) {
                    self.leaf(r.into(), tt, op.location(), true);
                }
            }
            return Ok(());
        };
        let ops: Vec<usize> = op
            .operands()
            .filter(|v| types.read(v.r#type()).is_some())
            .map(|v| self.index[&key(v)])
            .collect();
        let mut elems = None;
        let mut literal_dims: Option<Vec<i64>> = None;
        if kind == OpKind::Constant {
            if let Ok(v) = op.attribute("value") {
                if v.is_dense_elements() {
                    elems = ocannl_mlir::attr::element_count(v);
                    literal_dims = Some(ocannl_mlir::attr::dense_dims(v));
                }
            }
        }
        let node = ocannl_shape_dialect::solver_node(&op, kind, ops, &mut self.specs)
            .map_err(|m| PassError::at(op.location(), m.to_string()))?;
        let captured = match &node {
            ocannl_shape::Node::Einsum(spec, _) => ocannl_shape_dialect::captures(&op, spec)
                .map_err(|m| PassError::at(op.location(), m.to_string()))?,
            _ => vec![],
        };
        if explain {
            if let ocannl_shape::Node::Einsum(spec, _) = &node {
                let text = ocannl_shape_dialect::string_attr(&op, "spec")
                    .ok()
                    .flatten()
                    .unwrap_or_default();
                for remark in ocannl_shape_dialect::explain_spec(&text, spec) {
                    Diagnostic::remark(op.location(), remark).emit();
                }
            }
        }
        let Ok(result) = op.result(0) else {
            return Ok(());
        };
        let Some(tt) = types.read(result.r#type()) else {
            return Ok(());
        };
        if !captured.is_empty() {
            self.refs.captures.push((self.decls.len(), captured));
            self.capture_ops.push(op);
        }
        if kind == OpKind::Dim {
            let name = ocannl_shape_dialect::dim_ref(&op)
                .map_err(|m| PassError::at(op.location(), m.to_string()))?;
            self.refs.reads.push((self.decls.len(), name));
            self.dim_ops.push(op);
        }
        self.index.insert(key(result.into()), self.decls.len());
        // A dense literal of unknown shape has the literal's own shape, as
        // output axes.
        let shape = match literal_dims {
            // A named dimension is a scalar.
            _ if kind == OpKind::Dim => String::new(),
            Some(dims) if tt.shape.trim() == "?" && !dims.is_empty() => dims
                .iter()
                .map(|d| d.to_string())
                .collect::<Vec<_>>()
                .join(","),
            _ => tt.shape.clone(),
        };
        self.decls.push(NodeDecl { node, shape, elems });
        self.sites.push(Site {
            location: op.location(),
            value: result.into(),
            ty: tt,
            from_op: true,
        });
        Ok(())
    }

    /// An inference error at the node where the conflict surfaced, with
    /// notes at the ops that made the operands and the ops that decided the
    /// conflicting sizes (a function argument's shape is in the message
    /// already).
    fn conflict(&self, e: InferError) -> PassError<'c> {
        // A constraint's error is numbered after the nodes.
        let at = match self.sites.get(e.node) {
            Some(site) => site.location,
            None => self.constraint_sites[e.node - self.sites.len()],
        };
        let mut d = Diagnostic::error(at, e.message);
        for (n, msg) in e.notes {
            if self.sites[n].from_op && n != e.node {
                d = d.note(self.sites[n].location, msg);
            }
        }
        d.into()
    }

    /// Each capturing einsum gets the solutions of its captures
    /// (`captured`: a dim's size, a row's total elements, in the order of
    /// `capture`).
    fn write_captured(
        &self,
        context: &'c melior::Context,
        named: &[(String, ocannl_shape::Named)],
    ) {
        for ((_, labels), op) in self.refs.captures.iter().zip(&self.capture_ops) {
            let values: Option<Vec<i64>> = labels
                .iter()
                .map(|l| {
                    named
                        .iter()
                        .find(|(n, _)| n == l)
                        .and_then(|(_, v)| i64::try_from(v.total()).ok())
                })
                .collect();
            if let Some(values) = values {
                ir::set_attribute(
                    *op,
                    "captured",
                    melior::ir::attribute::DenseI64ArrayAttribute::new(context, &values).into(),
                );
            }
        }
        for ((_, name), op) in self.refs.reads.iter().zip(&self.dim_ops) {
            let value = named
                .iter()
                .find(|(n, _)| n == name)
                .and_then(|(_, v)| i64::try_from(v.total()).ok());
            if let Some(v) = value {
                ir::set_attribute(
                    *op,
                    "value",
                    melior::ir::attribute::IntegerAttribute::new(
                        melior::ir::r#type::IntegerType::new(context, 64).into(),
                        v,
                    )
                    .into(),
                );
            }
        }
    }

    /// Every node's value gets the type of its inferred shape; a tensor of
    /// an op of another dialect must have it already.
    fn rewrite_types<'t>(
        &self,
        context: &'t melior::Context,
        types: &mut TensorTypes<'t>,
        shapes: &[ocannl_shape::Shape],
    ) -> PassResult<'c> {
        for (site, shape) in self.sites.iter().zip(shapes) {
            let Some(ty) = types.make(context, shape, &site.ty.elt) else {
                return Err(PassError::at(
                    site.location,
                    format!("internal error: cannot build a tensor type of shape {shape}"),
                ));
            };
            if ty == site.value.r#type() {
                continue;
            }
            if let Some((location, name)) = self.foreign.get(&key(site.value)) {
                return Err(PassError::at(
                    *location,
                    format!(
                        "'{name}' has a tensor of shape \"{}\" that inference makes \"{shape}\"; ops of other dialects keep their types: write the shape \"{shape}\" in the type",
                        site.ty.shape
                    ),
                ));
            }
            site.value.set_type(ty);
        }
        Ok(())
    }
}
