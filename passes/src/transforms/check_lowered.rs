//! `ocannl-check-lowered`: an error at every op of `ocannl_shape` or
//! `ocannl_assign` left in a module. The pipelines that start from the
//! loops stage (`ocannl-loops-to-llvm`, `ocannl-loops-to-nvvm`) run it
//! first: their upstream conversions would otherwise rewrite the scalar
//! ops inside an assignment's body and leave IR that no longer verifies,
//! where the user needs to hear that the module is not lowered yet.

use melior::ir::{operation::OperationLike, OperationRef};

use crate::{
    diag::Diagnostic,
    framework::{Options, PassError, PassResult},
};

crate::define_pass!(
    DEF,
    run,
    "ocannl-check-lowered",
    "OcannlCheckLowered",
    "Fail at every ocannl_shape and ocannl_assign op left in the module (the pipelines from the loops stage start with it)",
    [],
    r#"fails at every `ocannl_shape` or `ocannl_assign` op left in a module (the outermost ones), saying to lower to loops first: the pipelines from the loops stage (`ocannl-loops-to-llvm`, `ocannl-loops-to-nvvm`) start with it, since their upstream conversions would otherwise rewrite the scalar ops inside an assignment's body and leave IR that no longer verifies"#
);

/// Whether `op` belongs to one of the project's dialects.
fn ours(op: &OperationRef) -> bool {
    let name = ocannl_mlir::ir::name(op);
    name.starts_with("ocannl_shape.") || name.starts_with("ocannl_assign.")
}

fn run<'c>(module: OperationRef<'c, '_>, _: &Options) -> PassResult<'c> {
    // The outermost ones (not those inside an op of ours).
    let left = ocannl_mlir::ir::collect(module, |op| {
        ours(op) && !op.parent_operation().is_some_and(|p| ours(&p))
    });
    if left.is_empty() {
        return Ok(());
    }
    Err(PassError::all(
        left.iter()
            .map(|op| {
                Diagnostic::error(
                    op.location(),
                    format!(
                        "'{}' is not lowered: this pipeline takes the loops stage (run ocannl-lower-to-loops first, or the whole pipeline from ocannl_shape: ocannl-to-llvm, ocannl-to-nvvm)",
                        ocannl_mlir::ir::name(op)
                    ),
                )
            })
            .collect(),
    ))
}
