//! Helpers shared by the passes.

use melior::ir::{
    attribute::TypeAttribute,
    block::BlockLike,
    operation::{OperationLike, OperationMutLike, WalkOrder, WalkResult},
    r#type::FunctionType,
    OperationRef, RegionLike, Type, TypeLike, ValueLike,
};
use ocannl_shape::{parse_shape, Shape, VarScope};

/// A value as a map key.
pub fn key(v: mlir_sys::MlirValue) -> usize {
    v.ptr as usize
}

/// The `func.func` ops of a module.
pub fn functions(module: OperationRef) -> Vec<mlir_sys::MlirOperation> {
    let mut funcs = vec![];
    module.walk(WalkOrder::PreOrder, |op| {
        if op.name().as_string_ref().as_str() == Ok("func.func") {
            funcs.push(op.to_raw());
        }
        WalkResult::Advance
    });
    funcs
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
    let mut raw_results: Option<Vec<mlir_sys::MlirType>> = None;
    func.walk(WalkOrder::PreOrder, |op| {
        if raw_results.is_none() && op.name().as_string_ref().as_str() == Ok("func.return") {
            raw_results = Some(op.operands().map(|v| v.r#type().to_raw()).collect());
        }
        WalkResult::Advance
    });
    let results: Option<Vec<Type>> = raw_results.map(|r| {
        r.into_iter()
            .map(|t| unsafe { Type::from_raw(t) })
            .collect()
    });
    let old = func
        .attribute("function_type")
        .ok()
        .and_then(|a| TypeAttribute::try_from(a).ok())
        .map(|t| t.value());
    let results = match (results, old.and_then(|t| FunctionType::try_from(t).ok())) {
        (Some(r), _) => r,
        (None, Some(ft)) => (0..ft.result_count())
            .filter_map(|i| ft.result(i).ok())
            .collect(),
        (None, None) => vec![],
    };
    let context = func.context();
    let ft = FunctionType::new(unsafe { context.to_ref() }, &inputs, &results);
    let attr = TypeAttribute::new(ft.into());
    let mut func_mut = unsafe { melior::ir::operation::OperationRefMut::from_raw(func.to_raw()) };
    func_mut.set_attribute("function_type", attr.into());
}
