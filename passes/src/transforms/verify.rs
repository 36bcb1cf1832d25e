//! `ocannl-verify`: checks what the IRDL definitions cannot express
//! (attribute values, optional attributes, einsum specs, shape strings).
//! `ocannl-opt` runs it before any other pass.

use melior::ir::{
    block::BlockLike, operation::OperationLike, OperationRef, RegionLike, ValueLike,
};

use crate::{
    diag::Diagnostic,
    framework::{Options, PassError, PassResult},
};

crate::define_pass!(
    DEF,
    run,
    "ocannl-verify",
    "OcannlVerify",
    "Check the ocannl_shape and ocannl_assign ops beyond their IRDL definitions",
    []
);

fn run<'c>(module: OperationRef<'c, '_>, _: &Options) -> PassResult<'c> {
    let mut errors = vec![];
    let mut checked = Checked::default();
    for op in ocannl_mlir::ir::collect(module, |_| true) {
        if let Err(msg) = verify_one(&op, &mut checked) {
            errors.push(Diagnostic::error(op.location(), msg));
        }
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(PassError::all(errors))
    }
}

/// The types found valid so far (by handle: the context uniques types, and
/// most values share a few), and the einsum specs parsed so far.
#[derive(Default)]
pub struct Checked<'c> {
    types: rustc_hash::FxHashSet<melior::ir::Type<'c>>,
    specs: ocannl_shape_dialect::EinsumSpecs,
}

impl<'c> Checked<'c> {
    fn check(&mut self, ty: melior::ir::Type<'c>) -> Result<(), String> {
        if !self.types.contains(&ty) {
            ocannl_shape_dialect::check_type(ty)?;
            self.types.insert(ty);
        }
        Ok(())
    }
}

/// Checks one op: its attributes, and the shape strings of the tensor types
/// it defines (results and block arguments of its regions).
pub fn verify_one<'c>(op: &OperationRef<'c, '_>, checked: &mut Checked<'c>) -> Result<(), String> {
    ocannl_shape_dialect::verify_op(op, &mut checked.specs)?;
    ocannl_assign_dialect::verify_op(op)?;
    for r in op.results() {
        checked
            .check(r.r#type())
            .map_err(|m| format!("result #{}: {m}", r.result_number()))?;
    }
    for region in op.regions() {
        let mut block = region.first_block();
        while let Some(b) = block {
            for i in 0..b.argument_count() {
                if let Ok(arg) = b.argument(i) {
                    checked
                        .check(arg.r#type())
                        .map_err(|m| format!("argument #{i}: {m}"))?;
                }
            }
            block = b.next_in_region();
        }
    }
    Ok(())
}
