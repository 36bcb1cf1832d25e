//! `ocannl-lower-to-assign`: lowers shape-inferred `ocannl_shape` tensor
//! expressions to `ocannl_assign` routines: tensor nodes become buffers
//! (memrefs laid out batch, output, input) and every op becomes the
//! accumulating assignment that computes it, with its projections as an
//! iteration space and affine maps.
//!
//! - function arguments become memref arguments (data fed in);
//! - params become `materialized` nodes initialized by `uniform` (seeded by
//!   the param's name, in [-0.25, 0.25) as OCANNL's default init);
//! - constants become nodes set by `fill` or `literal`;
//! - pointwise ops, transposes and slices become plain assignments
//!   (`accum = "assign"`); compose and einsum reset their result to the
//!   neutral element of `accum` and accumulate, unless every result cell is
//!   written exactly once.

use std::collections::HashMap;

use melior::ir::{
    attribute::{AttributeLike, IntegerAttribute, StringAttribute},
    block::BlockLike,
    operation::{OperationBuilder, OperationLike, WalkOrder, WalkResult},
    r#type::IntegerType,
    Attribute, Identifier, Location, OperationRef, RegionLike, Type, TypeLike, ValueLike,
};
use ocannl_shape::{
    projections::{derive, AxisIndex, Projections},
    Node, Shape,
};
use ocannl_shape_dialect::{
    einsum_spec, pointwise_op, reduction_ops, EinsumSpecs, OpKind, TensorTypes,
};
use rustc_hash::FxHashMap;

use crate::{
    diag::Diagnostic,
    registry::{Options, PassResult},
    util::{concrete_shape, key, update_signature},
};

crate::define_pass!(
    DEF,
    run,
    "ocannl-lower-to-assign",
    "OcannlLowerToAssign",
    "Lower shape-inferred ocannl_shape tensor expressions to ocannl_assign routines: tensor nodes as buffers, accumulating assignments with projections",
    []
);

fn run(module: OperationRef, _: &Options) -> PassResult {
    let mut ok = true;
    for f in crate::util::functions(module) {
        if lower_function(unsafe { OperationRef::from_raw(f) }).is_err() {
            ok = false;
        }
    }
    if ok {
        Ok(())
    } else {
        Err(())
    }
}

/// A tensor value: its solved shape and element type.
struct TensorInfo {
    shape: Shape,
    elt: String,
}

/// What a run reads and makes from text, each distinct one once: the
/// context uniques types and attributes, and printing or parsing one costs
/// microseconds while a graph has thousands of ops and a few distinct
/// shapes.
#[derive(Default)]
struct Cache {
    types: TensorTypes,
    /// Concrete shapes by their text (`None`: not concrete).
    shapes: FxHashMap<String, Option<Shape>>,
    parsed_types: FxHashMap<String, mlir_sys::MlirType>,
    parsed_attrs: FxHashMap<String, mlir_sys::MlirAttribute>,
    specs: EinsumSpecs,
}

impl Cache {
    fn concrete(&mut self, text: &str) -> Option<Shape> {
        if let Some(s) = self.shapes.get(text) {
            return s.clone();
        }
        let s = concrete_shape(text);
        self.shapes.insert(text.to_string(), s.clone());
        s
    }

    fn ty<'c>(&mut self, ctx: &'c melior::Context, text: &str) -> Option<Type<'c>> {
        let raw = parse_once(&mut self.parsed_types, text, || {
            Type::parse(ctx, text).map(|t| t.to_raw())
        })?;
        Some(unsafe { Type::from_raw(raw) })
    }

    fn attr<'c>(
        &mut self,
        ctx: &'c melior::Context,
        name: &str,
        text: &str,
    ) -> Result<(Identifier<'c>, Attribute<'c>), String> {
        let raw = parse_once(&mut self.parsed_attrs, text, || {
            Attribute::parse(ctx, text).map(|a| a.to_raw())
        })
        .ok_or_else(|| format!("internal error: cannot parse attribute {text}"))?;
        Ok((Identifier::new(ctx, name), unsafe {
            Attribute::from_raw(raw)
        }))
    }
}

/// The handle `parse` makes of `text`, parsed on first use only.
fn parse_once<T: Copy>(
    made: &mut FxHashMap<String, T>,
    text: &str,
    parse: impl FnOnce() -> Option<T>,
) -> Option<T> {
    if let Some(raw) = made.get(text) {
        return Some(*raw);
    }
    let raw = parse()?;
    made.insert(text.to_string(), raw);
    Some(raw)
}

fn memref_text(info: &TensorInfo) -> String {
    let dims = info.shape.to_dims().unwrap_or_default();
    let mut s = String::from("memref<");
    for d in dims {
        s += &format!("{d}x");
    }
    s + &info.elt + ">"
}

fn lower_function(func: OperationRef) -> PassResult {
    // The ContextRef must outlive the reference made from it.
    let ctx_ref = func.context();
    let ctx = unsafe { ctx_ref.to_ref() };
    let Ok(body) = func.region(0) else {
        return Ok(());
    };
    let Some(entry) = body.first_block() else {
        return Ok(());
    };

    let mut cache = Cache::default();
    // Collect the ops to lower, checking that every tensor type is concrete.
    let mut ops: Vec<mlir_sys::MlirOperation> = vec![];
    let mut bad: Option<(mlir_sys::MlirLocation, String)> = None;
    func.walk(WalkOrder::PreOrder, |op| {
        if OpKind::of(&op).is_some() {
            for r in op
                .results()
                .map(|r| r.r#type())
                .chain(op.operands().map(|v| v.r#type()))
            {
                if let Some(tt) = cache.types.read(r) {
                    if cache.concrete(&tt.shape).is_none() {
                        bad = Some((op.location().to_raw(), tt.shape.clone()));
                        return WalkResult::Interrupt;
                    }
                }
            }
            ops.push(op.to_raw());
        }
        WalkResult::Advance
    });
    if let Some((loc, shape)) = bad {
        Diagnostic::error(
            unsafe { Location::from_raw(loc) },
            format!("ocannl-lower-to-assign needs inferred shapes, but \"{shape}\" is not concrete; run ocannl-infer-shapes first"),
        )
        .emit();
        return Err(());
    }
    for i in 0..entry.argument_count() {
        let arg = entry.argument(i).expect("argument index in range");
        if let Some(tt) = cache.types.read(arg.r#type()) {
            if cache.concrete(&tt.shape).is_none() {
                Diagnostic::error(
                    func.location(),
                    format!("ocannl-lower-to-assign needs inferred shapes, but argument #{i} has \"{}\"; run ocannl-infer-shapes first", tt.shape),
                )
                .emit();
                return Err(());
            }
        }
    }
    if ops.is_empty() {
        return Ok(());
    }

    // Function arguments become memrefs in place.
    let mut infos: HashMap<usize, TensorInfo> = HashMap::new();
    for i in 0..entry.argument_count() {
        let arg = entry.argument(i).expect("argument index in range");
        if let Some(tt) = cache.types.read(arg.r#type()) {
            let info = TensorInfo {
                shape: cache.concrete(&tt.shape).expect("checked"),
                elt: tt.elt.clone(),
            };
            let ty = cache.ty(ctx, &memref_text(&info)).expect("memref type");
            arg.set_type(ty);
            infos.insert(key(arg.to_raw()), info);
        }
    }
    let mut counter: HashMap<&'static str, usize> = HashMap::new();
    let returned = returned_values(func);
    for raw in &ops {
        let op = unsafe { OperationRef::from_raw(*raw) };
        if let Err(msg) = lower_op(ctx, &op, &mut infos, &mut counter, &returned, &mut cache) {
            Diagnostic::error(op.location(), msg).emit();
            return Err(());
        }
    }
    // The old ops have no uses left: erase them, last first.
    for raw in ops.iter().rev() {
        unsafe { mlir_sys::mlirOperationDestroy(*raw) };
    }
    update_signature(func);
    Ok(())
}

/// Values returned by the function: their nodes are materialized.
fn returned_values(func: OperationRef) -> Vec<usize> {
    let mut out = vec![];
    func.walk(WalkOrder::PreOrder, |op| {
        if op.name().as_string_ref().as_str() == Ok("func.return") {
            out.extend(op.operands().map(|v| key(v.to_raw())));
        }
        WalkResult::Advance
    });
    out
}

fn str_attr<'c>(
    ctx: &'c melior::Context,
    name: &str,
    value: &str,
) -> (Identifier<'c>, Attribute<'c>) {
    (
        Identifier::new(ctx, name),
        StringAttribute::new(ctx, value).into(),
    )
}

fn lower_op(
    ctx: &melior::Context,
    op: &OperationRef,
    infos: &mut HashMap<usize, TensorInfo>,
    counter: &mut HashMap<&'static str, usize>,
    returned: &[usize],
    cache: &mut Cache,
) -> Result<(), String> {
    let kind = OpKind::of(op).expect("collected ops are ocannl_shape ops");
    let block = op.block().ok_or("internal error: op without a block")?;
    let loc = op.location();
    let result = op.result(0).map_err(|e| e.to_string())?;
    let tt = cache
        .types
        .read(result.r#type())
        .ok_or("internal error: result is not a tensor")?;
    let info = TensorInfo {
        shape: cache
            .concrete(&tt.shape)
            .ok_or("internal error: shape not concrete")?,
        elt: tt.elt.clone(),
    };
    let memref = cache
        .ty(ctx, &memref_text(&info))
        .ok_or("internal error: memref type")?;

    let tensor_operands: Vec<melior::ir::Value> = op
        .operands()
        .filter(|v| infos.contains_key(&key(v.to_raw())))
        .collect();
    let index_operands: Vec<melior::ir::Value> = op
        .operands()
        .filter(|v| !infos.contains_key(&key(v.to_raw())))
        .collect();
    if tensor_operands.len() < kind.tensor_operands() {
        return Err(format!(
            "expected {} tensor operand(s), found {}",
            kind.tensor_operands(),
            tensor_operands.len()
        ));
    }

    let base = match kind {
        OpKind::Param => "param",
        OpKind::Constant => "constant",
        OpKind::PointwiseUnary | OpKind::PointwiseBinary | OpKind::PointwiseTernary => "pointwise",
        OpKind::Compose => "compose",
        OpKind::Einsum => "einsum",
        OpKind::Transpose => "transpose",
        OpKind::BatchSlice => "slice",
    };
    let name = if kind == OpKind::Param {
        ocannl_shape_dialect::string_attr(op, "name")?.unwrap_or_default()
    } else {
        let n = counter.entry(base).or_insert(0);
        *n += 1;
        format!("{base}_{n}")
    };
    let memory = if kind == OpKind::Param || returned.contains(&key(result.to_raw())) {
        "materialized"
    } else {
        "undecided"
    };
    let node = OperationBuilder::new("ocannl_assign.node", loc)
        .add_attributes(&[
            str_attr(ctx, "name", &name),
            str_attr(ctx, "kind", "value"),
            str_attr(ctx, "memory", memory),
            str_attr(ctx, "shape", &info.shape.to_string()),
        ])
        .add_results(&[memref])
        .build()
        .map_err(|e| e.to_string())?;
    let node = block.insert_operation_before(*op, node);
    let dest = node.result(0).map_err(|e| e.to_string())?;

    let insert = |b: OperationBuilder| -> Result<(), String> {
        let new = b.build().map_err(|e| e.to_string())?;
        block.insert_operation_before(*op, new);
        Ok(())
    };
    match kind {
        OpKind::Param => {
            let seed = name.bytes().fold(0xcbf29ce484222325u64, |h, b| {
                (h ^ b as u64).wrapping_mul(0x100000001b3)
            }) >> 1;
            insert(
                OperationBuilder::new("ocannl_assign.uniform", loc)
                    .add_operands(&[dest.into()])
                    .add_attributes(&[
                        // A seed per param: made, not parsed.
                        (
                            Identifier::new(ctx, "seed"),
                            IntegerAttribute::new(IntegerType::new(ctx, 64).into(), seed as i64)
                                .into(),
                        ),
                        cache.attr(ctx, "low", &format!("-2.500000e-01 : {}", info.elt))?,
                        cache.attr(ctx, "high", &format!("2.500000e-01 : {}", info.elt))?,
                    ]),
            )?;
        }
        OpKind::Constant => {
            let v = op
                .attribute("value")
                .map_err(|_| "attribute 'value' is required")?;
            if v.is_dense_elements() {
                // The literal's cells in memory order; its own shape does not
                // matter, its element type must be the node's.
                let lit_elt = unsafe {
                    Type::from_raw(mlir_sys::mlirShapedTypeGetElementType(
                        mlir_sys::mlirAttributeGetType(v.to_raw()),
                    ))
                };
                if lit_elt.to_string() != info.elt {
                    return Err(format!(
                        "the literal's element type {lit_elt} differs from the tensor's {}",
                        info.elt
                    ));
                }
                insert(
                    OperationBuilder::new("ocannl_assign.literal", loc)
                        .add_operands(&[dest.into()])
                        .add_attributes(&[(Identifier::new(ctx, "value"), v)]),
                )?;
            } else {
                let value = if v.is_float() {
                    unsafe { mlir_sys::mlirFloatAttrGetValueDouble(v.to_raw()) }
                } else {
                    unsafe { mlir_sys::mlirIntegerAttrGetValueInt(v.to_raw()) as f64 }
                };
                let elt = cache
                    .ty(ctx, &info.elt)
                    .ok_or("internal error: element type")?;
                let attr = melior::ir::attribute::FloatAttribute::new(ctx, elt, value);
                insert(
                    OperationBuilder::new("ocannl_assign.fill", loc)
                        .add_operands(&[dest.into()])
                        .add_attributes(&[(Identifier::new(ctx, "value"), attr.into())]),
                )?;
            }
        }
        _ => {
            let operand_shapes: Vec<&Shape> = tensor_operands
                .iter()
                .map(|v| &infos[&key(v.to_raw())].shape)
                .collect();
            let ops_idx: Vec<usize> = (0..operand_shapes.len()).collect();
            let (node_kind, op_name, accum) = match kind {
                OpKind::PointwiseUnary | OpKind::PointwiseBinary | OpKind::PointwiseTernary => (
                    Node::Pointwise(ops_idx),
                    pointwise_op(op, kind)?,
                    "assign".to_string(),
                ),
                OpKind::Compose => {
                    let (o, a) = reduction_ops(op, false)?;
                    (Node::Compose(0, 1), o, a)
                }
                OpKind::Einsum => {
                    let spec = einsum_spec(op, &mut cache.specs)?;
                    let (o, a) = reduction_ops(op, spec.rhs.len() == 1)?;
                    (Node::Einsum(spec, ops_idx), o, a)
                }
                OpKind::Transpose => (
                    Node::Transpose(0),
                    "identity".to_string(),
                    "assign".to_string(),
                ),
                OpKind::BatchSlice => (
                    Node::BatchSlice(0),
                    "identity".to_string(),
                    "assign".to_string(),
                ),
                _ => unreachable!(),
            };
            let proj = derive(&node_kind, &info.shape, &operand_shapes)?;
            let (accum, init) = accumulation(&proj, &info.shape, &accum);
            let op_kind = match tensor_operands.len() {
                1 => "ocannl_assign.accum_unop",
                2 => "ocannl_assign.accum_binop",
                _ => "ocannl_assign.accum_ternop",
            };
            let maps: Vec<String> = std::iter::once(&proj.lhs)
                .chain(proj.rhs.iter())
                .map(|m| proj.affine_map(m))
                .collect();
            let space: Vec<String> = proj.space.iter().map(|d| d.to_string()).collect();
            let space = if space.is_empty() {
                "array<i64>".to_string()
            } else {
                format!("array<i64: {}>", space.join(", "))
            };
            let mut operands: Vec<melior::ir::Value> = vec![dest.into()];
            for v in &tensor_operands {
                operands.push(*v);
            }
            operands.extend(index_operands.iter().copied().take(proj.num_symbols));
            let mut attrs = vec![
                str_attr(ctx, "accum", &accum),
                str_attr(ctx, "op", ocannl_assign_dialect::assign_op_name(&op_name)),
                cache.attr(ctx, "space", &space)?,
                cache.attr(ctx, "indexing_maps", &format!("[{}]", maps.join(", ")))?,
            ];
            if init {
                attrs.push(cache.attr(ctx, "initialize_neutral", "true")?);
            }
            insert(
                OperationBuilder::new(op_kind, loc)
                    .add_operands(&operands)
                    .add_attributes(&attrs),
            )?;
        }
    }
    unsafe { mlir_sys::mlirValueReplaceAllUsesOfWith(result.to_raw(), dest.to_raw()) };
    infos.insert(key(dest.to_raw()), info);
    Ok(())
}

/// Plain assignment when every result cell is written exactly once;
/// otherwise reset to the neutral element of `accum` and accumulate.
fn accumulation(proj: &Projections, result: &Shape, accum: &str) -> (String, bool) {
    if accum == "assign" {
        return (accum.to_string(), false);
    }
    let dims = result.to_dims().unwrap_or_default();
    let reduced = proj.reduced().iter().any(|&r| r);
    let covers = proj
        .lhs
        .iter()
        .zip(&dims)
        .all(|(a, &d)| matches!(a, AxisIndex::Iter(_)) || d == 1);
    if !reduced && covers {
        ("assign".to_string(), false)
    } else {
        (accum.to_string(), true)
    }
}
