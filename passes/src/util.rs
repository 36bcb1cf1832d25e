//! Helpers shared by the passes.

use melior::ir::{
    attribute::TypeAttribute, block::BlockLike, operation::OperationLike, r#type::FunctionType,
    OperationRef, RegionLike, Type, ValueLike,
};
use ocannl_mlir::ir;
use ocannl_shape::{parse_shape, Shape, VarScope};

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
