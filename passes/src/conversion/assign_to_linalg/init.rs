//! Tensor nodes and their initializations as tensor values: a node starts
//! as `tensor.empty` (its cells undefined until written, as a buffer's);
//! `fill` is `linalg.fill`; `literal` a dense `arith.constant`; `range`
//! and `uniform` a `linalg.generic` computing each cell from its linear
//! index (`linalg.index` of each axis), `uniform` with the loops'
//! generator (`numeric::uniform`).

use melior::ir::{operation::OperationLike, OperationRef, Type, Value, ValueLike};
use ocannl_mlir::{attr, At, Builder};

use super::{
    generic::{fill, structured_op},
    values::{memref_parts, tensor_type, Current, Values},
};
use crate::conversion::assign_to_loops::{init::check_virtual_unused, init::is_virtual, numeric};

/// `node`: the node's first value, `tensor.empty`. A virtual node has no
/// value and must have no uses.
pub(crate) fn node<'c, 'a>(
    e: &Builder<'c>,
    at: At<'c, 'a>,
    op: &OperationRef<'c, 'a>,
    values: &mut Values<'c, 'a>,
) -> Result<(), String> {
    if is_virtual(op) {
        return check_virtual_unused(op);
    }
    let buf: Value = op.result(0).map_err(|er| er.to_string())?.into();
    let (dims, elt) =
        memref_parts(buf.r#type()).ok_or("a node is a buffer of static sizes (a memref)")?;
    let empty = e.op1(at, "tensor.empty", &[], tensor_type(e, &dims, elt)?, &[]);
    values.start(e, buf, empty)
}

fn dest<'c, 'a>(
    op: &OperationRef<'c, 'a>,
    values: &Values<'c, 'a>,
) -> Result<(Value<'c, 'a>, Current<'c, 'a>), String> {
    let buf = op.operand(0).map_err(|er| er.to_string())?;
    Ok((buf, values.current(buf)?))
}

/// `fill`: `linalg.fill` of the attribute `value`.
pub(crate) fn fill_op<'c, 'a>(
    e: &Builder<'c>,
    at: At<'c, 'a>,
    op: &OperationRef<'c, 'a>,
    values: &mut Values<'c, 'a>,
) -> Result<(), String> {
    let (buf, cur) = dest(op, values)?;
    let v = op
        .attribute("value")
        .map_err(|_| "attribute 'value' is required")?;
    let c = e.op1(at, "arith.constant", &[], cur.elt, &[("value", v)]);
    let next = fill(e, at, cur, c)?;
    values.set(buf, next)
}

/// `literal`: the dense value as a constant of the node's type.
pub(crate) fn literal<'c, 'a>(
    e: &Builder<'c>,
    at: At<'c, 'a>,
    op: &OperationRef<'c, 'a>,
    values: &mut Values<'c, 'a>,
) -> Result<(), String> {
    let (buf, cur) = dest(op, values)?;
    let v = op
        .attribute("value")
        .map_err(|_| "attribute 'value' is required")?;
    let dense = attr::reshape_dense(v, cur.ty)
        .ok_or_else(|| format!("cannot read the literal as a value of {}", cur.ty))?;
    let c = e.op1(at, "arith.constant", &[], cur.ty, &[("value", dense)]);
    values.set(buf, c)
}

/// What a cell of `range`, `uniform` or `normal` is.
pub enum Cells {
    /// The cell's linear index.
    Range,
    /// `uniform`, `normal`: SplitMix64 of the seed and the linear index.
    Random,
}

/// `range`, `uniform`, `normal`: a `linalg.generic` over the cells computing each
/// from its linear index.
pub(crate) fn cells<'c, 'a>(
    e: &Builder<'c>,
    at: At<'c, 'a>,
    op: &OperationRef<'c, 'a>,
    what: Cells,
    values: &mut Values<'c, 'a>,
) -> Result<(), String> {
    let (buf, cur) = dest(op, values)?;
    let dims = values.dims(buf)?;
    let u = match what {
        Cells::Random => Some(ocannl_assign_dialect::random_attrs(op).map_err(|e| e.to_string())?),
        Cells::Range => None,
    };
    let strides = ocannl_assign::row_major_strides(&dims);
    // Computed in the compute type and rounded once, as the loops do.
    let compute = numeric::compute_type(e, cur.elt);
    let rank = dims.len();
    let identity: Vec<ocannl_assign::Affine> = (0..rank).map(ocannl_assign::Affine::Dim).collect();
    let maps = melior::ir::attribute::ArrayAttribute::new(
        e.ctx,
        &[attr::affine_map_attr(ocannl_mlir::affine::map_from_model(
            e.ctx, rank, 0, &identity,
        ))],
    );
    let parallel = e
        .attr(&format!(
            "[{}]",
            vec!["#linalg.iterator_type<parallel>"; rank].join(", ")
        ))
        .map_err(|e| e.to_string())?;
    let attrs = [("indexing_maps", maps.into()), ("iterator_types", parallel)];
    let index = Type::index(e.ctx);
    let next = structured_op(
        e,
        at,
        "linalg.generic",
        &[],
        cur,
        &attrs,
        &mut |inner, _| {
            let mut lin = e.index(inner, 0).map_err(|e| e.to_string())?;
            for (r, s) in strides.iter().enumerate() {
                let i = e.op1(
                    inner,
                    "linalg.index",
                    &[],
                    index,
                    &[("dim", e.i64_attr(r as i64))],
                );
                let sc = e.index(inner, *s as i64).map_err(|e| e.to_string())?;
                let t = e.op1(inner, "arith.muli", &[i, sc], index, &[]);
                lin = e.op1(inner, "arith.addi", &[lin, t], index, &[]);
            }
            match &u {
                Some(u) => {
                    let r = numeric::random_operands(e, inner, u, compute);
                    let v =
                        numeric::random(e, inner, lin, &r, compute).map_err(|e| e.to_string())?;
                    Ok(numeric::convert(e, inner, v, cur.elt))
                }
                None => {
                    numeric::range_value(e, inner, lin, compute, cur.elt).map_err(|e| e.to_string())
                }
            }
        },
    )?;
    values.set(buf, next)
}
