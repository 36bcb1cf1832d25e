//! `ocannl-verify`: checks what the IRDL definitions cannot express
//! (attribute values, optional attributes, einsum specs, shape strings).
//! `ocannl-opt` runs it before any other pass.

use melior::ir::{
    block::BlockLike, operation::OperationLike, OperationRef, RegionLike, TypeLike, ValueLike,
};

use crate::{
    diag::Diagnostic,
    registry::{Options, PassResult},
};

crate::define_pass!(
    DEF,
    run,
    "ocannl-verify",
    "OcannlVerify",
    "Check the ocannl_shape and ocannl_assign ops beyond their IRDL definitions",
    []
);

fn run(module: OperationRef, _: &Options) -> PassResult {
    let mut ok = true;
    let mut checked = Checked::default();
    module.walk(melior::ir::operation::WalkOrder::PreOrder, |op| {
        if let Err(msg) = verify_one(&op, &mut checked) {
            Diagnostic::error(op.location(), msg).emit();
            ok = false;
        }
        melior::ir::operation::WalkResult::Advance
    });
    if ok {
        Ok(())
    } else {
        Err(())
    }
}

/// The types found valid so far (by handle: the context uniques types, and
/// most values share a few), and the einsum specs parsed so far.
#[derive(Default)]
pub struct Checked {
    types: rustc_hash::FxHashSet<usize>,
    specs: ocannl_shape_dialect::EinsumSpecs,
}

impl Checked {
    fn check(&mut self, ty: melior::ir::Type) -> Result<(), String> {
        let key = ty.to_raw().ptr as usize;
        if !self.types.contains(&key) {
            ocannl_shape_dialect::check_type(ty)?;
            self.types.insert(key);
        }
        Ok(())
    }
}

/// Checks one op: its attributes, and the shape strings of the tensor types
/// it defines (results and block arguments of its regions).
pub fn verify_one(op: &OperationRef, checked: &mut Checked) -> Result<(), String> {
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
