//! The dialects' verifier: every op of `ocannl_shape` and `ocannl_assign`
//! checked against its definition (`dialects/spec`) and the rules beyond
//! it, and the parameters of `!ocannl_shape.tensor`.
//!
//! The shim installs [`verify_op_hook`] and [`verify_type_hook`] as the
//! verifiers of the dialects' ops and types (they include what IRDL checks),
//! so MLIR runs them whenever it verifies IR: after parsing, after every
//! pass, in `ocannl-opt` and in stock `mlir-opt` with the plugin. The pass
//! `ocannl-verify` runs the same checks over a module and reports every
//! failing op, for IR built without verification.

use std::ffi::c_void;

use melior::ir::{operation::OperationLike, Attribute, OperationRef};
use mlir_sys::{MlirAttribute, MlirOperation, MlirStringRef};

use crate::{
    diag::Diagnostic,
    ffi,
    framework::{Options, PassError, PassResult},
};

crate::define_pass!(
    DEF,
    run,
    "ocannl-verify",
    "OcannlVerify",
    "Check every ocannl_shape and ocannl_assign op (the checks MLIR's verifier runs on them), reporting every failing op",
    [],
    r#"runs the dialects' verifier over a module and reports every failing op (MLIR runs the same checks whenever it verifies IR; useful for IR built without verification)"#
);

fn run<'c>(module: OperationRef<'c, '_>, _: &Options) -> PassResult<'c> {
    let mut errors = vec![];
    for op in ocannl_mlir::ir::collect(module, |_| true) {
        if let Err(msg) = verify_one(&op) {
            let name = op.name();
            let name = name.as_string_ref();
            errors.push(Diagnostic::error(
                op.location(),
                format!("'{}' op {msg}", name.as_str().unwrap_or("?")),
            ));
        }
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(PassError::all(errors))
    }
}

/// Checks one op of the project's dialects (others pass); the message has
/// no op prefix.
pub(crate) fn verify_one(op: &OperationRef) -> Result<(), String> {
    ocannl_shape_dialect::verify_op(op).map_err(|e| e.to_string())?;
    ocannl_assign_dialect::verify_op(op).map_err(|e| e.to_string())
}

/// Runs `check`, giving its error (or a panic, as an internal error) to the
/// sink.
///
/// # Safety
/// `sink` and `state` come from the shim: `sink(state, message)` may be
/// called once during this call.
unsafe fn guarded(
    sink: ffi::Sink,
    state: *mut c_void,
    check: impl FnOnce() -> Result<(), String>,
) -> bool {
    let message = match std::panic::catch_unwind(std::panic::AssertUnwindSafe(check)) {
        Ok(Ok(())) => return true,
        Ok(Err(m)) => m,
        Err(panic) => format!(
            "internal error in the verifier: {}",
            panic
                .downcast_ref::<String>()
                .map(String::as_str)
                .or_else(|| panic.downcast_ref::<&str>().copied())
                .unwrap_or("unknown panic")
        ),
    };
    // SAFETY: the caller's contract; the message outlives the call.
    unsafe { sink(state, ffi::string_ref(&message)) };
    false
}

/// The verifier of the dialects' ops, called by MLIR through the shim.
///
/// # Safety
/// `op` is a live operation; `sink` and `state` come from the shim.
pub unsafe extern "C" fn verify_op_hook(
    op: MlirOperation,
    sink: ffi::Sink,
    state: *mut c_void,
) -> bool {
    // SAFETY: the caller passes a live operation, alive during the call.
    let op = unsafe { OperationRef::from_raw(op) };
    let check = || verify_one(&op);
    // SAFETY: `sink` and `state` come from the shim (this function's
    // contract).
    unsafe { guarded(sink, state, check) }
}

/// The verifier of `!ocannl_shape.tensor`'s parameters, called by MLIR
/// through the shim.
///
/// # Safety
/// `name` is a live string, `params` points to `n` live attributes; `sink`
/// and `state` come from the shim.
pub unsafe extern "C" fn verify_type_hook(
    name: MlirStringRef,
    params: *const MlirAttribute,
    n: usize,
    sink: ffi::Sink,
    state: *mut c_void,
) -> bool {
    // An empty name or parameter list may come as a null pointer.
    let name = if name.length == 0 {
        &[][..]
    } else {
        // SAFETY: `name.length` bytes at `name.data`, live during the call.
        unsafe { std::slice::from_raw_parts(name.data as *const u8, name.length) }
    };
    if name != b"tensor" {
        return true;
    }
    let params = if n == 0 {
        &[][..]
    } else {
        // SAFETY: `n` live attributes at `params` (this function's contract).
        unsafe { std::slice::from_raw_parts(params, n) }
    };
    let params = match params {
        // SAFETY: live attributes (this function's contract).
        [shape, elt] => Ok(unsafe { [Attribute::from_raw(*shape), Attribute::from_raw(*elt)] }),
        _ => Err(n),
    };
    let check = || verify_tensor_type(params);
    // SAFETY: `sink` and `state` come from the shim (this function's
    // contract).
    unsafe { guarded(sink, state, check) }
}

/// The checks of `!ocannl_shape.tensor<"SHAPE", ELT>`'s parameters (or
/// their number, when there are not two).
fn verify_tensor_type(params: Result<[Attribute; 2], usize>) -> Result<(), String> {
    let [shape, elt] = params.map_err(|n| {
        format!("!ocannl_shape.tensor takes 2 parameters (\"SHAPE\", ELT), but got {n}")
    })?;
    // Read without copies: this runs for every tensor type the parser or
    // a pass makes.
    let shape = ocannl_mlir::attr::str_value(shape);
    let elt = ocannl_mlir::attr::type_value(elt);
    match elt.and_then(ocannl_mlir::types::float_name) {
        Some(f) => ocannl_shape_dialect::verify_tensor_params(shape, Some(f)),
        None => ocannl_shape_dialect::verify_tensor_params(
            shape,
            Some(
                &elt.map(|t| t.to_string())
                    .unwrap_or_else(|| "no type".into()),
            ),
        ),
    }
    .map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    /// The dialects' errors have kinds: a type parameter that breaks a rule
    /// is `Invalid`, text that does not parse `Parse`; the message is the
    /// one the verifier shows.
    #[test]
    fn dialect_errors_have_kinds() {
        let e = ocannl_shape_dialect::verify_tensor_params(Some("2,3"), Some("i7")).unwrap_err();
        assert_eq!(e.kind(), ocannl_mlir::Kind::Invalid);
        assert!(e.to_string().starts_with("the element type must be"), "{e}");
        assert!(ocannl_shape_dialect::verify_tensor_params(Some("2,3"), Some("f32")).is_ok());
        let context = crate::new_context().unwrap();
        let b = ocannl_mlir::Builder::new(&context, melior::ir::Location::unknown(&context));
        let e = b.ty("memref<").unwrap_err();
        assert_eq!(e.kind(), ocannl_mlir::Kind::Parse);
    }
}
