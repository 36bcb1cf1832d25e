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
use ocannl_shape::{Node, NodeDecl};
use ocannl_shape_dialect::{OpKind, TensorType, TensorTypes};

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
    [("explain", BOOL, "false", "Report, as remarks, the assumptions made while closing shapes (variables set to their least upper bound, to dim-1 or to no more axes), einsum result axes that no operand has, and single-char specs whose names read as words")]
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
    let mut decls: Vec<NodeDecl> = vec![];
    let mut sites: Vec<Site<'c, 'a>> = vec![];
    let mut index: FxHashMap<usize, usize> = FxHashMap::default();

    let leaf = |decls: &mut Vec<NodeDecl>,
                sites: &mut Vec<Site<'c, 'a>>,
                index: &mut FxHashMap<usize, usize>,
                v: Value<'c, 'a>,
                tt: std::rc::Rc<TensorType>,
                loc: Location<'c>,
                from_op| {
        index.insert(key(v), decls.len());
        decls.push(NodeDecl {
            node: Node::Terminal { param: None },
            shape: tt.shape.clone(),
            elems: None,
        });
        sites.push(Site {
            location: loc,
            value: v,
            ty: tt,
            from_op,
        });
    };
    for i in 0..entry.argument_count() {
        let arg = entry.argument(i).expect("argument index in range");
        if let Some(tt) = types.read(arg.r#type()) {
            leaf(
                &mut decls,
                &mut sites,
                &mut index,
                arg.into(),
                tt,
                arg.location(),
                false,
            );
        }
    }

    // Einsums with the same spec text share one parse.
    let mut specs = Default::default();
    // Tensors made or used by ops of other dialects (not returns): their
    // types cannot change.
    let mut foreign: FxHashMap<usize, (Location<'c>, String)> = FxHashMap::default();
    for op in ir::collect(func, |_| true).into_iter().skip(1) {
        let kind = OpKind::of(&op);
        // Operands of tensor type made outside this walk are leaves.
        for v in op.operands() {
            if let Some(tt) = types.read(v.r#type()) {
                if !index.contains_key(&key(v)) {
                    leaf(
                        &mut decls,
                        &mut sites,
                        &mut index,
                        v,
                        tt,
                        op.location(),
                        false,
                    );
                }
            }
        }
        if kind.is_none() && ir::name(&op) != "func.return" {
            for v in op.operands().chain(op.results().map(Into::into)) {
                if types.read(v.r#type()).is_some() {
                    foreign
                        .entry(key(v))
                        .or_insert_with(|| (op.location(), ir::name(&op)));
                }
            }
        }
        let Some(kind) = kind else {
            for r in op.results() {
                if let Some(tt) = types.read(r.r#type()) {
                    leaf(
                        &mut decls,
                        &mut sites,
                        &mut index,
                        r.into(),
                        tt,
                        op.location(),
                        true,
                    );
                }
            }
            continue;
        };
        let ops: Vec<usize> = op
            .operands()
            .filter(|v| types.read(v.r#type()).is_some())
            .map(|v| index[&key(v)])
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
        let node = ocannl_shape_dialect::solver_node(&op, kind, ops, &mut specs)
            .map_err(|m| PassError::at(op.location(), m))?;
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
            continue;
        };
        let Some(tt) = types.read(result.r#type()) else {
            continue;
        };
        index.insert(key(result.into()), decls.len());
        // A dense literal of unknown shape has the literal's own shape, as
        // output axes.
        let shape = match literal_dims {
            Some(dims) if tt.shape.trim() == "?" && !dims.is_empty() => dims
                .iter()
                .map(|d| d.to_string())
                .collect::<Vec<_>>()
                .join(","),
            _ => tt.shape.clone(),
        };
        decls.push(NodeDecl { node, shape, elems });
        sites.push(Site {
            location: op.location(),
            value: result.into(),
            ty: tt,
            from_op: true,
        });
    }
    if decls.is_empty() {
        return Ok(());
    }
    tracing::debug!(nodes = decls.len(), "inferring shapes");

    let inference = match ocannl_shape::infer(&decls) {
        Ok(inf) => inf,
        Err(e) => {
            let mut d = Diagnostic::error(sites[e.node].location, e.message);
            // Point at the ops that made the operands and the ops that
            // decided the conflicting sizes; a function argument's shape is
            // in the message already.
            for (n, msg) in e.notes {
                if sites[n].from_op && n != e.node {
                    d = d.note(sites[n].location, msg);
                }
            }
            return Err(d.into());
        }
    };
    if explain {
        for a in &inference.assumptions {
            if let Some(site) = sites.get(a.op) {
                Diagnostic::remark(site.location, a.to_string()).emit();
            }
        }
    }

    let context = func.context();
    let context = ir::context(&context);
    for (site, shape) in sites.iter().zip(&inference.shapes) {
        let Some(ty) = types.make(context, shape, &site.ty.elt) else {
            return Err(PassError::at(
                site.location,
                format!("internal error: cannot build a tensor type of shape {shape}"),
            ));
        };
        if ty == site.value.r#type() {
            continue;
        }
        if let Some((location, name)) = foreign.get(&key(site.value)) {
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
    update_signature(func);
    Ok(())
}
