//! `ocannl-infer-shapes`: infers the OCANNL shape of every
//! `!ocannl_shape.tensor` value and rewrites its type to the concrete
//! canonical form, function signatures included.
//!
//! Each function is one inference problem: its entry block arguments, its
//! params and constants are the leaves; every `ocannl_shape` op adds the
//! constraints of its shape logic. Variable names written in shape strings
//! (`..v..`, dim names) are shared within the function. A value of tensor
//! type made by any other op is a leaf as well.

use rustc_hash::FxHashMap;

use melior::ir::{
    attribute::AttributeLike,
    block::BlockLike,
    operation::{OperationLike, WalkOrder, WalkResult},
    Location, OperationRef, RegionLike, TypeLike, ValueLike,
};
use ocannl_shape::{Node, NodeDecl};
use ocannl_shape_dialect::{einsum_spec, OpKind, TensorType, TensorTypes};

use crate::{
    diag::Diagnostic,
    registry::{Options, PassResult},
    util::{key, update_signature},
};

crate::define_pass!(
    DEF,
    run,
    "ocannl-infer-shapes",
    "OcannlInferShapes",
    "Infer the shapes of ocannl_shape tensors (row/dim constraints, broadcasting, staged closing) and make every tensor type concrete",
    [("explain", BOOL, "false", "Report, as remarks, the assumptions made while closing shapes (variables set to their least upper bound, to dim-1 or to no more axes)")]
);

fn run(module: OperationRef, options: &Options) -> PassResult {
    let explain = options.flag("explain");
    let mut ok = true;
    for f in crate::util::functions(module) {
        let func = unsafe { OperationRef::from_raw(f) };
        if infer_function(func, explain).is_err() {
            ok = false;
        }
    }
    if ok {
        Ok(())
    } else {
        Err(())
    }
}

/// Where a node is defined, for diagnostics.
struct Site {
    location: mlir_sys::MlirLocation,
    value: mlir_sys::MlirValue,
    /// The declared type (its element type is kept).
    ty: std::rc::Rc<TensorType>,
    /// Made by an op of the function (not a function argument).
    from_op: bool,
}

fn infer_function(func: OperationRef, explain: bool) -> PassResult {
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
    let mut sites: Vec<Site> = vec![];
    let loc = |l: mlir_sys::MlirLocation| unsafe { Location::from_raw(l) };
    let mut index: FxHashMap<usize, usize> = FxHashMap::default();

    let leaf = |decls: &mut Vec<NodeDecl>,
                sites: &mut Vec<Site>,
                index: &mut FxHashMap<usize, usize>,
                v: mlir_sys::MlirValue,
                tt: std::rc::Rc<TensorType>,
                loc,
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
                arg.to_raw(),
                tt,
                arg.location().to_raw(),
                false,
            );
        }
    }

    let mut failed = false;
    // Einsums with the same spec text share one parse.
    let mut specs = Default::default();
    func.walk(WalkOrder::PreOrder, |op| {
        if op.to_raw().ptr == func.to_raw().ptr {
            return WalkResult::Advance;
        }
        let kind = OpKind::of(&op);
        // Operands of tensor type made outside this walk are leaves.
        for v in op.operands() {
            if let Some(tt) = types.read(v.r#type()) {
                if !index.contains_key(&key(v.to_raw())) {
                    leaf(
                        &mut decls,
                        &mut sites,
                        &mut index,
                        v.to_raw(),
                        tt,
                        op.location().to_raw(),
                        false,
                    );
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
                        r.to_raw(),
                        tt,
                        op.location().to_raw(),
                        true,
                    );
                }
            }
            return WalkResult::Advance;
        };
        let ops: Vec<usize> = op
            .operands()
            .filter(|v| types.read(v.r#type()).is_some())
            .map(|v| index[&key(v.to_raw())])
            .collect();
        let mut elems = None;
        let mut literal_dims: Option<Vec<i64>> = None;
        let node = match kind {
            OpKind::Param => {
                let name = ocannl_shape_dialect::string_attr(&op, "name")
                    .ok()
                    .flatten()
                    .unwrap_or_default();
                Node::Terminal { param: Some(name) }
            }
            OpKind::Constant => {
                if let Ok(v) = op.attribute("value") {
                    if v.is_dense_elements() {
                        elems = Some(
                            unsafe { mlir_sys::mlirElementsAttrGetNumElements(v.to_raw()) } as u64,
                        );
                        literal_dims = Some(dense_dims(v));
                    }
                }
                Node::Terminal { param: None }
            }
            _ if ops.len() < kind.tensor_operands() => {
                Diagnostic::error(
                    op.location(),
                    format!(
                        "expected {} tensor operand(s), found {}",
                        kind.tensor_operands(),
                        ops.len()
                    ),
                )
                .emit();
                failed = true;
                return WalkResult::Interrupt;
            }
            OpKind::PointwiseUnary | OpKind::PointwiseBinary | OpKind::PointwiseTernary => {
                Node::Pointwise(ops)
            }
            OpKind::Compose => Node::Compose(ops[0], ops[1]),
            OpKind::Transpose => Node::Transpose(ops[0]),
            OpKind::BatchSlice => Node::BatchSlice(ops[0]),
            OpKind::Einsum => match einsum_spec(&op, &mut specs) {
                Ok(spec) => Node::Einsum(spec, ops),
                Err(m) => {
                    Diagnostic::error(op.location(), m).emit();
                    failed = true;
                    return WalkResult::Interrupt;
                }
            },
        };
        let Ok(result) = op.result(0) else {
            return WalkResult::Advance;
        };
        let Some(tt) = types.read(result.r#type()) else {
            return WalkResult::Advance;
        };
        index.insert(key(result.to_raw()), decls.len());
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
            location: op.location().to_raw(),
            value: result.to_raw(),
            ty: tt,
            from_op: true,
        });
        WalkResult::Advance
    });
    if failed {
        return Err(());
    }
    if decls.is_empty() {
        return Ok(());
    }
    tracing::debug!(nodes = decls.len(), "inferring shapes");

    let inference = match ocannl_shape::infer(&decls) {
        Ok(inf) => inf,
        Err(e) => {
            let mut d = Diagnostic::error(loc(sites[e.node].location), e.message);
            // Point at the ops that made the operands and the ops that
            // decided the conflicting sizes; a function argument's shape is
            // in the message already.
            for (n, msg) in e.notes {
                if sites[n].from_op && n != e.node {
                    d = d.note(loc(sites[n].location), msg);
                }
            }
            d.emit();
            return Err(());
        }
    };
    if explain {
        for a in &inference.assumptions {
            if let Some(site) = sites.get(a.op) {
                Diagnostic::remark(loc(site.location), a.to_string()).emit();
            }
        }
    }

    let context = func.context();
    for (site, shape) in sites.iter().zip(&inference.shapes) {
        let Some(ty) = types.make(unsafe { context.to_ref() }, shape, &site.ty.elt) else {
            Diagnostic::error(
                loc(site.location),
                format!("internal error: cannot build a tensor type of shape {shape}"),
            )
            .emit();
            return Err(());
        };
        unsafe { mlir_sys::mlirValueSetType(site.value, ty.to_raw()) };
    }
    update_signature(func);
    Ok(())
}

/// The dims of a dense literal's type.
fn dense_dims(v: melior::ir::Attribute) -> Vec<i64> {
    unsafe {
        let ty = mlir_sys::mlirAttributeGetType(v.to_raw());
        if !mlir_sys::mlirTypeIsAShaped(ty) || !mlir_sys::mlirShapedTypeHasRank(ty) {
            return vec![];
        }
        (0..mlir_sys::mlirShapedTypeGetRank(ty))
            .map(|i| mlir_sys::mlirShapedTypeGetDimSize(ty, i as isize))
            .collect()
    }
}
