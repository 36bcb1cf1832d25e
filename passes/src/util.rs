//! Helpers shared by the passes.

use melior::ir::Value;
use melior::ir::{
    attribute::TypeAttribute, block::BlockLike, operation::OperationLike, r#type::FunctionType,
    OperationRef, RegionLike, Type, ValueLike,
};
use ocannl_mlir::{ir, At, Builder};
use ocannl_shape::{parse_shape, Shape, VarScope};

/// The op before `op` in its block (`None` for the first; melior's
/// `previous_in_block` is not implemented, MLIR's C API lacking it).
pub fn previous_in_block<'c, 'a>(op: OperationRef<'c, 'a>) -> Option<OperationRef<'c, 'a>> {
    // SAFETY: a live op, read only; a non-null result is the op before it
    // in the same block, alive while the block is.
    let raw = unsafe { crate::ffi::ocannl_op_previous_in_block(op.to_raw()) };
    // SAFETY: as above.
    (!raw.ptr.is_null()).then(|| unsafe { OperationRef::from_raw(raw) })
}

/// The op just before the insertion point `at` (`None` when `at` is the
/// start of its block).
pub fn op_before<'c, 'a>(at: At<'c, 'a>) -> Option<OperationRef<'c, 'a>> {
    match at.before {
        Some(anchor) => previous_in_block(anchor),
        None => {
            let mut last = None;
            let mut op = at.block.first_operation();
            while let Some(o) = op {
                last = Some(o);
                op = o.next_in_block();
            }
            last
        }
    }
}

/// The type a boolean (`i1`) crosses a call as, between the functions the
/// passes make (a routine and its kernels, the run-time checks' record):
/// LLVM's fast instruction selector, which compiles the host code at -O0,
/// takes no call with an `i1` argument and falls back to the slow one for
/// each. [`bool_to_call`] and [`bool_from_call`] convert.
pub const CALL_BOOL: &str = "i8";

/// The run-time checks' function checking an allocation (made by
/// `ocannl-lower-to-loops`): `(address: index, check: i64, bytes: i64)`,
/// recording a failure when the address is null. `ocannl-kernel-bare-ptrs`
/// folds a buffer's `malloc` and its check into one call.
pub const CHECK_ALLOCATION: &str = "__ocannl_check_allocation";

/// A boolean as a call's argument ([`CALL_BOOL`]).
pub(crate) fn bool_to_call<'c, 'a>(
    b: &Builder<'c>,
    at: At<'c, 'a>,
    v: Value<'c, 'a>,
) -> Result<Value<'c, 'a>, String> {
    Ok(b.op1(
        at,
        "arith.extui",
        &[v],
        b.ty(CALL_BOOL).map_err(|e| e.to_string())?,
        &[],
    ))
}

/// A call's argument ([`CALL_BOOL`]) as the boolean it carries.
pub(crate) fn bool_from_call<'c, 'a>(
    b: &Builder<'c>,
    at: At<'c, 'a>,
    v: Value<'c, 'a>,
) -> Result<Value<'c, 'a>, String> {
    Ok(b.op1(
        at,
        "arith.trunci",
        &[v],
        b.ty("i1").map_err(|e| e.to_string())?,
        &[],
    ))
}

/// The shape of a concrete SHAPE string (`None` if it has variables or does
/// not parse).
pub fn concrete_shape(text: &str) -> Option<Shape> {
    let mut scope = VarScope::default();
    let s = parse_shape(text, &mut scope, &mut ocannl_shape::solver::Solver::new()).ok()?;
    s.is_concrete().then_some(s)
}

/// Makes the function type agree with the entry block and the returns.
pub fn update_signature(func: OperationRef) {
    let Ok(body) = func.region(0) else { return };
    let Some(entry) = body.first_block() else {
        return;
    };
    let inputs: Vec<Type> = (0..entry.argument_count())
        .filter_map(|i| entry.argument(i).ok())
        .map(|a| a.r#type())
        .collect();
    let returned: Option<Vec<Type>> = ir::ops_named(func, "func.return")
        .first()
        .map(|r| r.operands().map(|v| v.r#type()).collect());
    let results = match (returned, ir::function_type(func)) {
        (Some(r), _) => r,
        (None, Some(ft)) => (0..ft.result_count())
            .filter_map(|i| ft.result(i).ok())
            .collect(),
        (None, None) => vec![],
    };
    let context = func.context();
    let ft = FunctionType::new(ir::context(&context), &inputs, &results);
    ir::set_attribute(func, "function_type", TypeAttribute::new(ft.into()).into());
}
