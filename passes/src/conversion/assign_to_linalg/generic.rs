//! An accumulating assignment (`accum_unop|binop|ternop`, `accum`) as a
//! structured op on tensors: the result reset to the neutral element by
//! `linalg.fill` when asked, then a named contraction (`linalg.matmul`,
//! `linalg.batch_matmul`, transposed operands through their indexing maps)
//! when `ocannl_assign::structured::named_contraction` recognizes one, else
//! a `linalg.generic` whose indexing maps are the projections (as the
//! structured plan presents the operands), whose iterator types follow the
//! result's indices, and whose body computes the assignment's body and
//! accumulates it.

use melior::ir::{attribute::ArrayAttribute, Attribute, OperationRef, Type, Value};
use ocannl_assign::{
    structured::{self, IteratorKind, NamedContraction},
    Accum, Affine,
};
use ocannl_mlir::{affine::map_from_model, attr, ir, At, Builder};

use super::{
    operand::{self, CheckContext},
    values::{tensor_type, Current, Values},
};
use crate::conversion::assign_to_loops::{numeric, Assignment};

/// `linalg.fill` of `value` into `dest`.
pub(crate) fn fill<'c, 'a>(
    e: &Builder<'c>,
    at: At<'c, 'a>,
    dest: Current<'c, 'a>,
    value: Value<'c, 'a>,
) -> Result<Value<'c, 'a>, String> {
    let op = e
        .region_op(
            at,
            "linalg.fill",
            &[value, dest.value],
            &[("operandSegmentSizes", e.i32_array_attr(&[1, 1]))],
            &[dest.ty],
            &[dest.elt, dest.elt],
            "linalg.yield",
            &mut |_, args| Ok(vec![args[0]]),
        )
        .map_err(|e| e.to_string())?;
    Ok(op.result(0).map_err(|er| er.to_string())?.into())
}

/// The `iterator_types` attribute.
fn iterator_types<'c>(e: &Builder<'c>, kinds: &[IteratorKind]) -> Result<Attribute<'c>, String> {
    let names: Vec<&str> = kinds
        .iter()
        .map(|k| match k {
            IteratorKind::Parallel => "#linalg.iterator_type<parallel>",
            IteratorKind::Reduction => "#linalg.iterator_type<reduction>",
        })
        .collect();
    e.attr(&format!("[{}]", names.join(", ")))
        .map_err(|e| e.to_string())
}

/// The `indexing_maps` attribute of maps over `dims` iterators.
fn indexing_maps<'c>(e: &Builder<'c>, dims: usize, maps: &[Vec<Affine>]) -> Attribute<'c> {
    let attrs: Vec<Attribute<'c>> = maps
        .iter()
        .map(|m| attr::affine_map_attr(map_from_model(e.ctx, dims, 0, m)))
        .collect();
    ArrayAttribute::new(e.ctx, &attrs).into()
}

/// Fills the region of a structured op given the block arguments (ins
/// then out) and returns the value it yields.
pub type RegionBody<'f, 'c, 'a> =
    dyn FnMut(At<'c, 'a>, &[Value<'c, 'a>]) -> Result<Value<'c, 'a>, String> + 'f;

/// A structured op with `ins` and one `outs`, its region filled by
/// `body`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn structured_op<'c, 'a>(
    e: &Builder<'c>,
    at: At<'c, 'a>,
    name: &str,
    ins: &[Value<'c, 'a>],
    out: Current<'c, 'a>,
    attrs: &[(&str, Attribute<'c>)],
    body: &mut RegionBody<'_, 'c, 'a>,
) -> Result<Value<'c, 'a>, String> {
    let mut operands = ins.to_vec();
    operands.push(out.value);
    let mut all_attrs = vec![(
        "operandSegmentSizes",
        e.i32_array_attr(&[ins.len() as i32, 1]),
    )];
    all_attrs.extend_from_slice(attrs);
    let block_args = vec![out.elt; ins.len() + 1];
    let op = e
        .region_op(
            at,
            name,
            &operands,
            &all_attrs,
            &[out.ty],
            &block_args,
            "linalg.yield",
            &mut |inner, args| Ok(vec![body(inner, args)?]),
        )
        .map_err(|e| e.to_string())?;
    Ok(op.result(0).map_err(|er| er.to_string())?.into())
}

/// Lowers an assignment op before itself, updating the current value of
/// its result. `named_ops`: contractions that are matrix products become
/// the named ops.
pub(crate) fn lower<'c, 'a>(
    e: &Builder<'c>,
    at: At<'c, 'a>,
    op: &OperationRef<'c, 'a>,
    values: &mut Values<'c, 'a>,
    named_ops: bool,
) -> Result<(), String> {
    let a = Assignment::read(e, op)?;
    if !a.dynamic.is_empty() {
        return Err("a dynamic index (a gather or scatter) has no form in linalg.generic, whose operands are read at affine maps; `ocannl-to-linalg` keeps one-hot contractions as contractions (`ocannl-one-hot-to-gather` is for the loop targets)".into());
    }
    let n = a.tensors.len();
    let dims = a
        .tensors
        .iter()
        .map(|t| values.dims(*t))
        .collect::<Result<Vec<_>, _>>()?;
    let space: Vec<u64> = a.space.iter().map(|&d| d as u64).collect();
    let plan = structured::plan(&space, &a.exprs, &dims).map_err(|e| e.to_string())?;
    // An operand that is the result read at the cell being written is the
    // op's own output value there (as the loops read it); read at other
    // cells, the order of the writes would matter.
    let lhs_key = ir::key(a.tensors[0]);
    let mut aliased = vec![false; n];
    for (i, (t, ex)) in a.tensors.iter().zip(&a.exprs).enumerate().skip(1) {
        if ir::key(*t) == lhs_key {
            if *ex != a.exprs[0] {
                return Err(format!(
                    "operand #{i} is the result read at other cells than the ones written; the result of a structured op cannot be read while it is written (copy the operand first)"
                ));
            }
            aliased[i] = true;
        }
    }
    let mut out = values.current(a.tensors[0])?;
    if a.initialize_neutral {
        let neutral = a.neutral(at);
        out.value = fill(e, at, out, neutral)?;
    }
    let whole = plan.operands.iter().all(|o| o.is_whole()) && plan.domain.is_empty();
    let named = (named_ops && !aliased.contains(&true))
        .then(|| structured::named_contraction(a.accum, &a.body, &a.exprs, space.len(), whole))
        .flatten();
    let result = match named {
        Some(nc) => named_op(e, at, &a, &nc, values, out)?,
        None => generic(e, at, op, &a, &plan, &dims, &aliased, values, out)?,
    };
    values.set(a.tensors[0], result)
}

/// A named contraction: `A` and `B` as the recognition says.
fn named_op<'c, 'a>(
    e: &Builder<'c>,
    at: At<'c, 'a>,
    a: &Assignment<'_, 'c, 'a>,
    nc: &NamedContraction,
    values: &Values<'c, 'a>,
    out: Current<'c, 'a>,
) -> Result<Value<'c, 'a>, String> {
    let b = 3 - nc.a;
    let ins = [
        values.current(a.tensors[nc.a])?.value,
        values.current(a.tensors[b])?.value,
    ];
    let maps: Vec<Vec<Affine>> = nc
        .maps
        .iter()
        .map(|m| m.iter().map(|&p| Affine::Dim(p)).collect())
        .collect();
    let dims = maps[2].len() + 1;
    let attrs = [("indexing_maps", indexing_maps(e, dims, &maps))];
    structured_op(
        e,
        at,
        nc.kind.op_name(),
        &ins,
        out,
        &attrs,
        &mut |inner, args| {
            let m = e.op1(inner, "arith.mulf", &[args[0], args[1]], out.elt, &[]);
            Ok(e.op1(inner, "arith.addf", &[args[2], m], out.elt, &[]))
        },
    )
}

/// A `linalg.generic` of the assignment, its operands presented as `plan`
/// says.
#[allow(clippy::too_many_arguments)]
fn generic<'c, 'a>(
    e: &Builder<'c>,
    at: At<'c, 'a>,
    op: &OperationRef<'c, 'a>,
    a: &Assignment<'_, 'c, 'a>,
    plan: &structured::Structured,
    dims: &[Vec<u64>],
    aliased: &[bool],
    values: &Values<'c, 'a>,
    out: Current<'c, 'a>,
) -> Result<Value<'c, 'a>, String> {
    let pad_value = a.accum.neutral();
    let cx = |operand| CheckContext {
        op,
        operand,
        symbols: &a.symbols,
    };
    let mut ins = vec![];
    let mut maps = vec![];
    // The block argument of each operand of the body.
    let mut arg_of: Vec<usize> = vec![];
    for i in 1..a.tensors.len() {
        if aliased[i] {
            arg_of.push(usize::MAX);
            continue;
        }
        let cur = values.current(a.tensors[i])?;
        let p = operand::present(e, at, cur, &dims[i], &plan.operands[i], pad_value, &cx(i))?;
        arg_of.push(ins.len());
        ins.push(p.value);
        maps.push(plan.operands[i].exprs.clone());
    }
    if !plan.domain.is_empty() {
        // A shape-only operand giving the extents of the iterators no
        // operand indexes plainly.
        let sizes: Vec<u64> = plan.domain.iter().map(|&p| a.space[p] as u64).collect();
        let ty = tensor_type(e, &sizes, out.elt)?;
        ins.push(e.op1(at, "tensor.empty", &[], ty, &[]));
        maps.push(plan.domain.iter().map(|&p| Affine::Dim(p)).collect());
    }
    let presented_out =
        operand::present(e, at, out, &dims[0], &plan.operands[0], pad_value, &cx(0))?;
    maps.push(plan.operands[0].exprs.clone());
    let seen_out = Current {
        value: presented_out.value,
        ty: tensor_type(e, &plan.operands[0].seen_dims(&dims[0]), out.elt)?,
        elt: out.elt,
    };
    let attrs = [
        ("indexing_maps", indexing_maps(e, a.space.len(), &maps)),
        ("iterator_types", iterator_types(e, &plan.iterators)?),
    ];
    let eltt: Type<'c> = out.elt;
    let r = structured_op(
        e,
        at,
        "linalg.generic",
        &ins,
        seen_out,
        &attrs,
        &mut |inner, args| {
            // Computed in the compute type (f32 for 16-bit buffers), the
            // result rounded to its element type when yielded.
            let old = numeric::convert(e, inner, args[args.len() - 1], a.compute);
            let operands: Vec<Value<'c, 'a>> = arg_of
                .iter()
                .map(|&k| {
                    if k == usize::MAX {
                        old
                    } else {
                        numeric::convert(e, inner, args[k], a.compute)
                    }
                })
                .collect();
            let v = numeric::body(e, inner, &a.body, &operands, a.compute)
                .map_err(|e| e.to_string())?;
            let v = if a.accum == Accum::Assign {
                v
            } else {
                a.combine_text(inner, old, v)?
            };
            Ok(numeric::convert(e, inner, v, eltt))
        },
    )?;
    operand::write_back(e, at, &presented_out, r)
}
