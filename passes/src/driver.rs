//! The entry points of the tools: a context with every dialect and pass,
//! and `mlir-opt`'s own driver with the project's dialects and passes.

use std::ffi::{c_char, CString};

use crate::{ffi, registry::register_all};

/// A context with every upstream dialect, the upstream passes and the
/// project's dialects and passes, for tools that drive MLIR themselves.
pub fn new_context() -> Result<melior::Context, ocannl_mlir::Error> {
    register_all();
    let registry = melior::dialect::DialectRegistry::new();
    melior::utility::register_all_dialects(&registry);
    // SAFETY: a live registry, alive during the call.
    unsafe { ffi::ocannl_register_dialects(registry.to_raw()) };
    let context = melior::Context::new();
    context.append_dialect_registry(&registry);
    context.load_all_available_dialects();
    melior::utility::register_all_passes();
    // Every registered dialect is loaded now; the ops of a project dialect
    // whose definition did not load are unknown.
    for op in ["ocannl_shape.param", "ocannl_assign.node"] {
        if !context.is_registered_operation(op) {
            return Err(ocannl_mlir::Error::internal(format!(
                "internal error: the dialect of '{op}' did not load from its IRDL definition"
            )));
        }
    }
    Ok(context)
}

/// Registers the project's dialects (and passes) in a C++
/// `mlir::DialectRegistry`, for the dialect plugin of stock MLIR tools.
///
/// # Safety
/// `registry` points to a live `mlir::DialectRegistry`.
pub unsafe fn register_dialects_in(registry: *mut std::ffi::c_void) {
    register_all();
    // SAFETY: the caller passes a live registry.
    unsafe { ffi::ocannl_register_dialects(mlir_sys::MlirDialectRegistry { ptr: registry }) };
}

/// Parses `source` as a module whose locations name `name` (a file name,
/// or `<stdin>`); `None` when it does not parse (the diagnostics went to the
/// context's handlers).
pub fn parse_module<'c>(
    context: &'c melior::Context,
    source: &str,
    name: &str,
) -> Option<melior::ir::Module<'c>> {
    // SAFETY: a live context and strings that outlive the call; a null
    // module is `None`.
    unsafe {
        melior::ir::Module::from_option_raw(ffi::ocannl_parse_module(
            context.to_raw(),
            ffi::string_ref(source),
            ffi::string_ref(name),
        ))
    }
}

/// Runs `mlir-opt`'s driver with the project's dialects and passes; returns
/// the exit code. `overview` heads `--help`; `--version` prints `version`
/// after LLVM's version.
pub fn opt_main(args: impl IntoIterator<Item = String>, overview: &str, version: &str) -> i32 {
    register_all();
    let args: Vec<CString> = args
        .into_iter()
        .map(|a| CString::new(a).unwrap_or_else(|_| CString::new("?").unwrap()))
        .collect();
    let mut argv: Vec<*mut c_char> = args.iter().map(|a| a.as_ptr() as *mut c_char).collect();
    argv.push(std::ptr::null_mut());
    let overview = CString::new(overview).unwrap_or_default();
    let version = CString::new(version).unwrap_or_default();
    // SAFETY: `argv` holds `args.len()` C strings (and a final null) that
    // outlive the call, as do `overview` and `version`.
    unsafe {
        ffi::ocannl_opt_main(
            args.len() as i32,
            argv.as_mut_ptr(),
            overview.as_ptr(),
            version.as_ptr(),
        )
    }
}

/// Whether [`run_pipeline`] verifies the IR after every pass
/// (`OCANNL_VERIFY_EACH=1`) rather than once at the end.
fn verify_each() -> bool {
    std::env::var("OCANNL_VERIFY_EACH").is_ok_and(|v| v == "1")
}

/// Whether [`run_pipeline`] reports each pass's time on stderr, as
/// `mlir-opt --mlir-timing` does (`OCANNL_PASS_TIMING=1`).
fn pass_timing() -> bool {
    std::env::var("OCANNL_PASS_TIMING").is_ok_and(|v| v == "1")
}

/// Runs a textual pipeline on `builtin.module` over the module (the
/// diagnostics go to the context's handlers). The IR is verified once,
/// after the whole pipeline, rather than after each pass as `mlir-opt`
/// does (`ocannl-opt` keeps that): on a deep model's train step, verifying
/// after each of the project's passes and each upstream conversion took a
/// fifth of the compile time, and an input module is verified when it is
/// parsed. `OCANNL_VERIFY_EACH=1` verifies after every pass, to find the
/// pass that broke the IR. `OCANNL_PASS_TIMING=1` prints each pass's time.
/// A pass that fails reports at its op and the error is
/// [`Kind::Invalid`](ocannl_mlir::Kind::Invalid); a pipeline that does not
/// parse or IR that does not verify after it is `Internal`.
pub fn run_pipeline(
    context: &melior::Context,
    module: &mut melior::ir::Module,
    pipeline: impl std::fmt::Display,
) -> Result<(), ocannl_mlir::Error> {
    let pm = melior::pass::PassManager::new(context);
    let each = verify_each();
    pm.enable_verifier(each);
    if pass_timing() {
        // SAFETY: a live pass manager; the report is printed when it is
        // destroyed.
        unsafe { mlir_sys::mlirPassManagerEnableTiming(pm.to_raw()) };
    }
    melior::utility::parse_pass_pipeline(
        pm.as_operation_pass_manager(),
        &format!("builtin.module({pipeline})"),
    )
    .map_err(|e| {
        ocannl_mlir::Error::internal(format!("internal error: bad pipeline {pipeline}: {e}"))
    })?;
    pm.run(module)
        .map_err(|_| ocannl_mlir::Error::invalid("the pipeline failed"))?;
    if !each && !melior::ir::operation::OperationLike::verify(&module.as_operation()) {
        return Err(ocannl_mlir::Error::internal(format!(
            "internal error: the pipeline {pipeline} produced IR that does not verify (OCANNL_VERIFY_EACH=1 finds the pass)"
        )));
    }
    Ok(())
}

/// Keeps the functions of `module` named in `keep` and what they use, so
/// that a backend compiles only what runs: every other public function
/// becomes private, then upstream `symbol-dce` erases the private symbols
/// that nothing kept refers to (the functions, and the globals and
/// functions only they used). A kept function that another calls stays.
pub fn keep_only(module: &mut melior::ir::Module, keep: &[&str]) -> Result<(), ocannl_mlir::Error> {
    use melior::ir::{attribute::StringAttribute, operation::OperationLike};
    let ctx_ref = module.context();
    let context = ocannl_mlir::ir::context(&ctx_ref);
    let top = module.as_operation();
    for f in ocannl_mlir::ir::ops_named(top, "func.func") {
        if f.parent_operation().is_none_or(|p| p != top) {
            continue;
        }
        let attr = |n| {
            f.attribute(n)
                .ok()
                .and_then(ocannl_mlir::attr::string_value)
        };
        let name = attr("sym_name").unwrap_or_default();
        if !keep.contains(&name.as_str()) && attr("sym_visibility").is_none_or(|v| v == "public") {
            ocannl_mlir::ir::set_attribute(
                f,
                "sym_visibility",
                StringAttribute::new(context, "private").into(),
            );
        }
    }
    run_pipeline(context, module, "symbol-dce")
        .map_err(|e| e.map_message(|m| format!("keeping only {}: {m}", keep.join(", "))))
}
