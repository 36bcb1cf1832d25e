//! The one list of the project's passes and named pipelines, and their
//! registration in MLIR's global registry (so that textual pipelines, the
//! `--ocannl-...` flags and `--help` know them).
//!
//! Targets add their own named pipelines with [`register_pipeline`] and
//! [`register_pipeline_with_options`] (the CPU backend registers
//! `ocannl-loops-to-llvm` and `ocannl-to-llvm`, the GPU backend
//! `ocannl-loops-to-nvvm` and `ocannl-to-nvvm`).

use std::{
    ffi::{CStr, CString},
    sync::Once,
};

use crate::ffi;

/// Every pass of the project, in pipeline order.
pub fn all_passes() -> [&'static ffi::PassDef; 8] {
    [
        &crate::transforms::verify::DEF,
        &crate::transforms::infer_shapes::DEF,
        &crate::conversion::shape_to_assign::DEF,
        &crate::transforms::autodiff::DEF,
        &crate::transforms::train_step::DEF,
        &crate::transforms::virtualize::DEF,
        &crate::conversion::assign_to_loops::DEF,
        &crate::transforms::simplify::DEF,
    ]
}

/// The optimizations of `ocannl_assign` routines: virtualization (inlining)
/// of tensor nodes, then the e-graph simplification of the assignments'
/// bodies (exact rewrites only: values are kept bit for bit).
pub const OPTIMIZE: &str = "ocannl-virtualize,ocannl-simplify";

/// The target-neutral front of every lowering: from `ocannl_shape` to loops
/// on memrefs (upstream scf/memref/arith/math/vector), optimized.
pub const TO_LOOPS: &str = "ocannl-infer-shapes,ocannl-lower-to-assign,ocannl-virtualize,ocannl-simplify,ocannl-lower-to-loops,func.func(canonicalize,cse)";

/// [`TO_LOOPS`] with the loops lowered for the target named `target`
/// (`ocannl-lower-to-loops{target=...}`).
pub fn to_loops_for(target: &str) -> String {
    TO_LOOPS.replace(
        "ocannl-lower-to-loops",
        &format!("ocannl-lower-to-loops{{target={target}}}"),
    )
}

/// The project's dialects, each with its IRDL definition: registered in
/// every registry the shim fills (`ocannl-opt`'s, [`crate::new_context`]'s,
/// and the passes' dependent dialects), and loaded by a context the first
/// time it needs one.
static DIALECTS: [ffi::DialectDef; 2] = [
    ffi::DialectDef {
        name: c"ocannl_shape".as_ptr(),
        irdl: ocannl_shape_dialect::IRDL.as_ptr().cast(),
        irdl_len: ocannl_shape_dialect::IRDL.len(),
        verify_op: crate::transforms::verify::verify_op_hook,
        type_names: SHAPE_TYPES.0.as_ptr(),
        num_types: 1,
        verify_type: crate::transforms::verify::verify_type_hook,
    },
    ffi::DialectDef {
        name: c"ocannl_assign".as_ptr(),
        irdl: ocannl_assign_dialect::IRDL.as_ptr().cast(),
        irdl_len: ocannl_assign_dialect::IRDL.len(),
        verify_op: crate::transforms::verify::verify_op_hook,
        type_names: std::ptr::null(),
        num_types: 0,
        verify_type: crate::transforms::verify::verify_type_hook,
    },
];

static SHAPE_TYPES: ffi::CStrs<1> = ffi::CStrs([c"tensor".as_ptr()]);

/// Registers every pass of the project and declares its dialects to the
/// shim (once per process).
pub fn register_all() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        unsafe { ffi::ocannl_set_dialects(DIALECTS.as_ptr(), DIALECTS.len()) };
        for def in all_passes() {
            unsafe { ffi::ocannl_register_pass(def) };
        }
    });
}

/// Registers a pass defined outside this crate (a backend's, with
/// [`crate::define_pass!`]) under its name.
pub fn register_pass(def: &'static ffi::PassDef) {
    unsafe { ffi::ocannl_register_pass(def) };
}

/// Registers a named pipeline (a pass of `builtin.module` that runs
/// `pipeline`, itself text on `builtin.module`). Register a pipeline before
/// one that names it.
pub fn register_pipeline(name: &CStr, description: &CStr, pipeline: &str) {
    let text = CString::new(pipeline).expect("pipeline text has no NUL");
    unsafe { ffi::ocannl_register_pipeline(name.as_ptr(), description.as_ptr(), text.as_ptr()) };
}

/// Registers a named pipeline with string options: `pipeline` (text on
/// `builtin.module`) holds a `{name}` placeholder per option, filled with
/// the option's value (`--name="opt=value"`, `name{opt=value}`).
pub fn register_pipeline_with_options(
    name: &CStr,
    description: &CStr,
    pipeline: &str,
    options: &'static [ffi::PipelineOption],
) {
    let text = CString::new(pipeline).expect("pipeline text has no NUL");
    unsafe {
        ffi::ocannl_register_pipeline_with_options(
            name.as_ptr(),
            description.as_ptr(),
            text.as_ptr(),
            options.as_ptr(),
            options.len(),
        )
    };
}
