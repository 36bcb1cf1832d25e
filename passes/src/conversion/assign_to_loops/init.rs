//! Tensor nodes and their initializations: `node` becomes `memref.alloc`;
//! `fill`, `range`, `literal` (from a `memref.global`) and `uniform` become
//! loops over the cells in memory order. [`fill`] is also the reset of an
//! assignment's result to the neutral element.

use melior::ir::{
    attribute::{StringAttribute, TypeAttribute},
    block::BlockLike,
    operation::{OperationBuilder, OperationLike},
    Attribute, Identifier, OperationRef, RegionLike, Type, Value, ValueLike,
};
use ocannl_mlir::{attr, ir, At, Builder};

use super::{assignment::memref_info, numeric, target::LoopTarget};
use crate::transforms::outline_kernels::KERNEL_ARGUMENT;

/// Whether a node's memory mode is `virtual` (it gets no buffer).
pub fn is_virtual(op: &OperationRef) -> bool {
    ocannl_assign_dialect::string_attr(op, "memory").is_ok_and(|m| m == "virtual")
}

/// A virtual node has no buffer: nothing may read or write it (an error
/// saying what to do otherwise).
pub(crate) fn check_virtual_unused(op: &OperationRef) -> Result<(), String> {
    let v: melior::ir::Value = op.result(0).map_err(|e| e.to_string())?.into();
    match ir::users(v).first() {
        None => Ok(()),
        Some(_) => Err(format!(
            "node '{}' is virtual but still read or written; run ocannl-virtualize to inline it, or give it a buffer (memory = \"local\")",
            ocannl_assign_dialect::string_attr(op, "name").unwrap_or_default()
        )),
    }
}

/// `node`: a buffer, replacing the node's value. Returns the buffer.
pub(crate) fn node<'c, 'a>(
    e: &Builder<'c>,
    at: At<'c, 'a>,
    op: &OperationRef<'c, 'a>,
) -> Result<Value<'c, 'a>, String> {
    let old: Value = op.result(0).map_err(|e| e.to_string())?.into();
    let alloc = e.alloc(at, old.r#type(), None).map_err(|e| e.to_string())?;
    ir::replace_all_uses(old, alloc);
    Ok(alloc)
}

/// Stores `value` into every cell of `buf`, in parallel where the target
/// says so.
pub(crate) fn fill<'c, 'a>(
    e: &Builder<'c>,
    target: &dyn LoopTarget,
    at: At<'c, 'a>,
    buf: Value<'c, 'a>,
    dims: &[i64],
    value: Value<'c, 'a>,
) -> Result<(), String> {
    let ranges: Vec<(i64, i64)> = dims.iter().map(|&d| (0, d)).collect();
    target.independent_nest(
        e,
        at,
        &ranges,
        target.parallel(&ranges),
        &mut |inner, ivs| {
            let mut ops = vec![value, buf];
            ops.extend_from_slice(ivs);
            e.op0(inner, "memref.store", &ops);
            Ok(())
        },
    )
}

/// `fill`: every cell set to the attribute `value`.
pub(crate) fn fill_op<'c, 'a>(
    e: &Builder<'c>,
    target: &dyn LoopTarget,
    at: At<'c, 'a>,
    op: &OperationRef<'c, 'a>,
) -> Result<(), String> {
    let dest = op.operand(0).map_err(|e| e.to_string())?;
    let (dims, elt) = memref_info(dest)?;
    let v = op
        .attribute("value")
        .map_err(|_| "attribute 'value' is required")?;
    let c = e.op1(
        at,
        "arith.constant",
        &[],
        e.ty(&elt).map_err(|e| e.to_string())?,
        &[("value", v)],
    );
    fill(e, target, at, dest, &dims, c)
}

/// What a cell-by-cell initialization computes.
pub enum Cells<'u, 'c, 'a> {
    /// The cell's linear index.
    Range,
    /// A dense literal's value at the linear index.
    Literal,
    /// `uniform`, `normal`: SplitMix64 of the seed and the linear index,
    /// scaled (the operands from [`random_operands`]).
    Random(&'u numeric::RandomOperands<'c, 'a>),
}

/// The seed, scale and offset of the `uniform` or `normal` op `op`, as
/// constants at
/// `at` (before the op's guard), each marked as a kernel's argument
/// ([`KERNEL_ARGUMENT`]): the initializations of params of one shape share
/// a kernel.
pub(crate) fn random_operands<'c, 'a>(
    e: &Builder<'c>,
    at: At<'c, 'a>,
    op: &OperationRef<'c, 'a>,
) -> Result<numeric::RandomOperands<'c, 'a>, String> {
    let dest = op.operand(0).map_err(|e| e.to_string())?;
    let (_, elt) = memref_info(dest)?;
    let r = ocannl_assign_dialect::random_attrs(op).map_err(|e| e.to_string())?;
    let stored = e.ty(&elt).map_err(|e| e.to_string())?;
    let o = numeric::random_operands(e, at, &r, numeric::compute_type(e, stored));
    for v in o.values() {
        if let Some(def) = ir::defining_op(v) {
            ir::set_attribute(def, KERNEL_ARGUMENT, Attribute::unit(e.ctx));
        }
    }
    Ok(o)
}

/// `range`, `literal`, `uniform`, `normal`: a loop nest over the cells computing
/// each from its linear index. `globals` counts the literals made global.
pub(crate) fn cells<'c, 'a>(
    e: &Builder<'c>,
    target: &dyn LoopTarget,
    module: OperationRef<'c, 'a>,
    at: At<'c, 'a>,
    op: &OperationRef<'c, 'a>,
    what: Cells<'_, 'c, 'a>,
    globals: &mut usize,
) -> Result<(), String> {
    let ctx = e.ctx;
    let dest = op.operand(0).map_err(|e| e.to_string())?;
    let (dims, elt) = memref_info(dest)?;
    let st: Vec<i64> =
        ocannl_assign::row_major_strides(&dims.iter().map(|&d| d as u64).collect::<Vec<_>>())
            .into_iter()
            .map(|s| s as i64)
            .collect();
    let total: i64 = dims.iter().product();
    let source = if let Cells::Literal = what {
        // The literal as a private global, read by linear index.
        *globals += 1;
        let gname = format!("__ocannl_literal_{globals}");
        let v = op
            .attribute("value")
            .map_err(|_| "attribute 'value' is required")?;
        let gty = format!("memref<{total}x{elt}>");
        let flat = e
            .ty(&format!("tensor<{total}x{elt}>"))
            .map_err(|e| e.to_string())?;
        let init = attr::reshape_dense(v, flat)
            .ok_or_else(|| format!("cannot read the literal as {total} cells of {elt}"))?;
        let global = OperationBuilder::new("memref.global", e.loc)
            .add_attributes(&[
                (
                    Identifier::new(ctx, "sym_name"),
                    StringAttribute::new(ctx, &gname).into(),
                ),
                (
                    Identifier::new(ctx, "sym_visibility"),
                    StringAttribute::new(ctx, "private").into(),
                ),
                (
                    Identifier::new(ctx, "type"),
                    TypeAttribute::new(e.ty(&gty).map_err(|e| e.to_string())?).into(),
                ),
                (Identifier::new(ctx, "initial_value"), init),
                (Identifier::new(ctx, "constant"), Attribute::unit(ctx)),
            ])
            .build()
            .map_err(|er| er.to_string())?;
        let body_block = module
            .region(0)
            .map_err(|er| er.to_string())?
            .first_block()
            .ok_or("empty module")?;
        body_block.insert_operation(0, global);
        Some(e.op1(
            at,
            "memref.get_global",
            &[],
            e.ty(&gty).map_err(|e| e.to_string())?,
            &[(
                "name",
                e.attr(&format!("@{gname}")).map_err(|e| e.to_string())?,
            )],
        ))
    } else {
        None
    };
    let eltt = e.ty(&elt).map_err(|e| e.to_string())?;
    // Generated values are computed in the compute type and rounded once.
    let compute = numeric::compute_type(e, eltt);
    let ranges: Vec<(i64, i64)> = dims.iter().map(|&d| (0, d)).collect();
    // Each cell from its own index: the cells of a large buffer on every
    // core (a GPT-2's 124M normal params take seconds on one).
    target.independent_nest(
        e,
        at,
        &ranges,
        target.parallel(&ranges),
        &mut |inner, ivs| {
            // The linear index of the cell.
            let mut lin = e.index(inner, 0).map_err(|e| e.to_string())?;
            for (iv, s) in ivs.iter().zip(&st) {
                let sc = e.index(inner, *s).map_err(|e| e.to_string())?;
                let t = e.op1(inner, "arith.muli", &[*iv, sc], Type::index(ctx), &[]);
                lin = e.op1(inner, "arith.addi", &[lin, t], Type::index(ctx), &[]);
            }
            let value = match what {
                Cells::Literal => e.op1(
                    inner,
                    "memref.load",
                    &[source.ok_or("internal error: no global")?, lin],
                    eltt,
                    &[],
                ),
                Cells::Range => {
                    numeric::range_value(e, inner, lin, compute, eltt).map_err(|e| e.to_string())?
                }
                Cells::Random(r) => {
                    let v =
                        numeric::random(e, inner, lin, r, compute).map_err(|e| e.to_string())?;
                    numeric::convert(e, inner, v, eltt)
                }
            };
            let mut ops = vec![value, dest];
            ops.extend_from_slice(ivs);
            e.op0(inner, "memref.store", &ops);
            Ok(())
        },
    )
}
