//! Operands presented to a structured op as its plan says
//! (`ocannl_assign::structured`): padded with the neutral element
//! (`tensor.pad`), cut to a window (`tensor.extract_slice`, whose start
//! may be a run-time index, checked by `cf.assert` first), and a result
//! seen through a window or padding written back (`tensor.insert_slice`,
//! the padding cut off again).

use melior::ir::{attribute::StringAttribute, operation::OperationLike, OperationRef, Type, Value};
use ocannl_assign::{
    structured::{OperandPlan, Window},
    Affine,
};
use ocannl_mlir::{builder::CmpI, At, Builder};

use super::values::{tensor_type, Current};
use crate::conversion::assign_to_loops::checks;

/// `ShapedType::kDynamic`: a size or offset given by an operand.
const DYNAMIC: i64 = i64::MIN;

/// An offset of a slice: known, or a run-time index.
#[derive(Clone, Copy)]
pub enum Offset<'c, 'a> {
    Static(i64),
    Dynamic(Value<'c, 'a>),
}

/// The offsets as `static_offsets` and the dynamic operands.
fn offsets<'c, 'a>(offsets: &[Offset<'c, 'a>]) -> (Vec<i64>, Vec<Value<'c, 'a>>) {
    let mut statics = vec![];
    let mut dynamic = vec![];
    for o in offsets {
        match o {
            Offset::Static(s) => statics.push(*s),
            Offset::Dynamic(v) => {
                statics.push(DYNAMIC);
                dynamic.push(*v);
            }
        }
    }
    (statics, dynamic)
}

fn sizes_i64(sizes: &[u64]) -> Vec<i64> {
    sizes.iter().map(|&s| s as i64).collect()
}

/// `tensor.extract_slice` of `sizes` cells at `at_offsets`, unit strides.
pub(crate) fn extract<'c, 'a>(
    e: &Builder<'c>,
    at: At<'c, 'a>,
    src: Value<'c, 'a>,
    at_offsets: &[Offset<'c, 'a>],
    sizes: &[u64],
    elt: Type<'c>,
) -> Result<Value<'c, 'a>, String> {
    let (statics, dynamic) = offsets(at_offsets);
    let mut operands = vec![src];
    operands.extend_from_slice(&dynamic);
    let ty = tensor_type(e, sizes, elt)?;
    Ok(e.op1(
        at,
        "tensor.extract_slice",
        &operands,
        ty,
        &[
            (
                "operandSegmentSizes",
                e.i32_array_attr(&[1, dynamic.len() as i32, 0, 0]),
            ),
            ("static_offsets", e.i64_array_attr(&statics)),
            ("static_sizes", e.i64_array_attr(&sizes_i64(sizes))),
            ("static_strides", e.i64_array_attr(&vec![1; sizes.len()])),
        ],
    ))
}

/// `tensor.insert_slice` of `src` (of `sizes`) into `dest` at
/// `at_offsets`.
pub fn insert<'c, 'a>(
    e: &Builder<'c>,
    at: At<'c, 'a>,
    src: Value<'c, 'a>,
    dest: Value<'c, 'a>,
    dest_ty: Type<'c>,
    at_offsets: &[Offset<'c, 'a>],
    sizes: &[u64],
) -> Value<'c, 'a> {
    let (statics, dynamic) = offsets(at_offsets);
    let mut operands = vec![src, dest];
    operands.extend_from_slice(&dynamic);
    e.op1(
        at,
        "tensor.insert_slice",
        &operands,
        dest_ty,
        &[
            (
                "operandSegmentSizes",
                e.i32_array_attr(&[1, 1, dynamic.len() as i32, 0, 0]),
            ),
            ("static_offsets", e.i64_array_attr(&statics)),
            ("static_sizes", e.i64_array_attr(&sizes_i64(sizes))),
            ("static_strides", e.i64_array_attr(&vec![1; sizes.len()])),
        ],
    )
}

/// `tensor.pad` of `src` (of `dims`) by `pads` cells before and after each
/// axis, with `value`.
fn pad<'c, 'a>(
    e: &Builder<'c>,
    at: At<'c, 'a>,
    src: Value<'c, 'a>,
    dims: &[u64],
    pads: &[(u64, u64)],
    value: f64,
    elt: Type<'c>,
) -> Result<(Value<'c, 'a>, Vec<u64>), String> {
    let padded: Vec<u64> = dims
        .iter()
        .zip(pads)
        .map(|(&d, &(lo, hi))| d + lo + hi)
        .collect();
    let ty = tensor_type(e, &padded, elt)?;
    let low: Vec<i64> = pads.iter().map(|p| p.0 as i64).collect();
    let high: Vec<i64> = pads.iter().map(|p| p.1 as i64).collect();
    let index = Type::index(e.ctx);
    let op = e
        .region_op(
            at,
            "tensor.pad",
            &[src],
            &[
                ("operandSegmentSizes", e.i32_array_attr(&[1, 0, 0])),
                ("static_low", e.i64_array_attr(&low)),
                ("static_high", e.i64_array_attr(&high)),
            ],
            &[ty],
            &vec![index; dims.len()],
            "tensor.yield",
            &mut |inner, _| Ok(vec![e.float(inner, value, elt)]),
        )
        .map_err(|e| e.to_string())?;
    Ok((op.result(0).map_err(|er| er.to_string())?.into(), padded))
}

/// The value of a window's start, an expression of the op's index
/// operands and constants, in `arith` ops.
fn start_value<'c, 'a>(
    e: &Builder<'c>,
    at: At<'c, 'a>,
    start: &Affine,
    symbols: &[Value<'c, 'a>],
) -> Result<Value<'c, 'a>, String> {
    let index = Type::index(e.ctx);
    Ok(match start {
        Affine::Const(c) => e.index(at, *c).map_err(|e| e.to_string())?,
        Affine::Sym(k) => *symbols
            .get(*k)
            .ok_or_else(|| format!("internal error: index operand {k} is missing"))?,
        Affine::Add(x, y) => {
            let (x, y) = (
                start_value(e, at, x, symbols)?,
                start_value(e, at, y, symbols)?,
            );
            e.op1(at, "arith.addi", &[x, y], index, &[])
        }
        Affine::Mul(x, y) => {
            let (x, y) = (
                start_value(e, at, x, symbols)?,
                start_value(e, at, y, symbols)?,
            );
            e.op1(at, "arith.muli", &[x, y], index, &[])
        }
        other => {
            return Err(format!(
                "the index operand expression {other} has no linalg form (sums and products of index operands and constants have)"
            ))
        }
    })
}

/// A padded operand: the padded tensor, the padding of each axis and the
/// padded sizes.
type Padded<'c, 'a> = (Value<'c, 'a>, Vec<(u64, u64)>, Vec<u64>);

/// An operand as the op sees it, and what writing it back needs.
pub struct Presented<'c, 'a> {
    /// What the op reads (or, for the result, updates).
    pub value: Value<'c, 'a>,
    /// The operand as it was.
    original: Current<'c, 'a>,
    dims: Vec<u64>,
    /// The padded tensor, its padding and sizes, when padded.
    padded: Option<Padded<'c, 'a>>,
    /// The window, when cut: its offsets and sizes.
    window: Option<(Vec<Offset<'c, 'a>>, Vec<u64>)>,
}

/// What the checks of a run-time window say where they fail.
pub struct CheckContext<'o, 'c, 'a> {
    pub op: &'o OperationRef<'c, 'a>,
    /// The op's operand number, for messages.
    pub operand: usize,
    pub symbols: &'o [Value<'c, 'a>],
}

/// Presents `operand` (of `dims`) as `plan` says: padding with
/// `pad_value`, then the window; a window starting at a run-time index is
/// checked to be inside the axis first (`cf.assert`).
pub(crate) fn present<'c, 'a>(
    e: &Builder<'c>,
    at: At<'c, 'a>,
    operand: Current<'c, 'a>,
    dims: &[u64],
    plan: &OperandPlan,
    pad_value: f64,
    cx: &CheckContext<'_, 'c, 'a>,
) -> Result<Presented<'c, 'a>, String> {
    let mut value = operand.value;
    let mut seen = dims.to_vec();
    let mut padded = None;
    if plan.is_padded() {
        let pads: Vec<(u64, u64)> = plan.axes.iter().map(|a| a.pad).collect();
        let (v, pdims) = pad(e, at, value, dims, &pads, pad_value, operand.elt)?;
        padded = Some((v, pads, pdims.clone()));
        value = v;
        seen = pdims;
    }
    let mut window = None;
    if plan.axes.iter().any(|a| a.window.is_some()) {
        let mut offs = vec![];
        let mut sizes = vec![];
        for (r, (a, &d)) in plan.axes.iter().zip(&seen).enumerate() {
            match &a.window {
                None => {
                    offs.push(Offset::Static(0));
                    sizes.push(d);
                }
                Some(w) if w.is_static() => {
                    offs.push(Offset::Static(constant(&w.start)?));
                    sizes.push(w.size);
                }
                Some(w) => {
                    let start = start_value(e, at, &w.start, cx.symbols)?;
                    check_window(e, at, start, w, d, r, cx)?;
                    offs.push(Offset::Dynamic(start));
                    sizes.push(w.size);
                }
            }
        }
        value = extract(e, at, value, &offs, &sizes, operand.elt)?;
        window = Some((offs, sizes));
    }
    Ok(Presented {
        value,
        original: operand,
        dims: dims.to_vec(),
        padded,
        window,
    })
}

fn constant(a: &Affine) -> Result<i64, String> {
    a.eval(&[], &[])
        .ok_or_else(|| format!("internal error: the window start {a} is not a constant"))
}

/// `cf.assert` that a window of `w.size` cells at `start` lies inside an
/// axis of `d` cells, with the message the loops' run-time checks give.
fn check_window<'c, 'a>(
    e: &Builder<'c>,
    at: At<'c, 'a>,
    start: Value<'c, 'a>,
    w: &Window,
    d: u64,
    axis: usize,
    cx: &CheckContext<'_, 'c, 'a>,
) -> Result<(), String> {
    let i1 = e.ty("i1").map_err(|e| e.to_string())?;
    let zero = e.index(at, 0).map_err(|e| e.to_string())?;
    let last_start = e
        .index(at, d as i64 - w.size as i64)
        .map_err(|e| e.to_string())?;
    let ge = e.cmpi(at, CmpI::Sge, start, zero);
    let le = e.cmpi(at, CmpI::Sle, start, last_start);
    let ok = e.op1(at, "arith.andi", &[ge, le], i1, &[]);
    let valid = d - w.size;
    let place = checks::place(cx.op.location());
    let message = match &w.start {
        Affine::Sym(k) if w.size == 1 => format!(
            "{place}: error: the slice index ({}) is outside the axis of {d} cell(s) (valid indices: 0 to {valid})",
            cx.symbols
                .get(*k)
                .map_or_else(|| "an index operand".to_string(), |v| checks::describe_index(*v))
        ),
        _ => format!(
            "{place}: error: the window of {} cell(s) of axis {axis} of operand #{}, which starts at a run-time index, does not fit in the axis of {d} cell(s) (valid starts: 0 to {valid})",
            w.size, cx.operand
        ),
    };
    e.op(
        at,
        "cf.assert",
        &[ok],
        &[],
        &[("msg", StringAttribute::new(e.ctx, &message).into())],
    );
    Ok(())
}

/// The operand's next value, given `result`, what the op made of the
/// presented value: the window inserted back, the padding cut off.
pub(crate) fn write_back<'c, 'a>(
    e: &Builder<'c>,
    at: At<'c, 'a>,
    p: &Presented<'c, 'a>,
    result: Value<'c, 'a>,
) -> Result<Value<'c, 'a>, String> {
    let mut value = result;
    let elt = p.original.elt;
    if let Some((offs, sizes)) = &p.window {
        let (base, base_ty) = match &p.padded {
            Some((v, _, pdims)) => (*v, tensor_type(e, pdims, elt)?),
            None => (p.original.value, p.original.ty),
        };
        value = insert(e, at, value, base, base_ty, offs, sizes);
    }
    if let Some((_, pads, _)) = &p.padded {
        let offs: Vec<Offset> = pads.iter().map(|pd| Offset::Static(pd.0 as i64)).collect();
        value = extract(e, at, value, &offs, &p.dims, elt)?;
    }
    Ok(value)
}
