//! Registration of the project's passes in MLIR's global pass registry, so
//! that textual pipelines, the `--ocannl-...` flags and `--help` know them,
//! and the entry point of the `mlir-opt`-compatible driver.

use std::{
    ffi::{c_char, CStr, CString},
    panic::{catch_unwind, AssertUnwindSafe},
    sync::Once,
};

use melior::ir::{operation::OperationLike, OperationRef};
use mlir_sys::MlirOperation;

use crate::{diag::Diagnostic, ffi};

/// The option values a pass runs with, by name.
pub struct Options {
    values: Vec<(String, String)>,
}

impl Options {
    pub fn get(&self, name: &str) -> Option<&str> {
        self.values
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    pub fn flag(&self, name: &str) -> bool {
        matches!(self.get(name), Some("true" | "1"))
    }
}

/// What a pass body returns: `Err(())` once its diagnostics are emitted.
pub type PassResult = Result<(), ()>;

/// Runs a pass body, turning a panic into a located internal error.
///
/// # Safety
/// `values` must point to `n` C strings, one per entry of `def.options`.
pub unsafe fn run_guarded(
    def: &ffi::PassDef,
    op: MlirOperation,
    values: *const *const c_char,
    n: usize,
    body: fn(OperationRef, &Options) -> PassResult,
) -> bool {
    let arg = unsafe { CStr::from_ptr(def.argument) }
        .to_string_lossy()
        .into_owned();
    let mut opts = Vec::new();
    for i in 0..n.min(def.num_options) {
        let name = unsafe { CStr::from_ptr((*def.options.add(i)).name) }
            .to_string_lossy()
            .into_owned();
        let value = unsafe { CStr::from_ptr(*values.add(i)) }
            .to_string_lossy()
            .into_owned();
        opts.push((name, value));
    }
    let options = Options { values: opts };
    let module = unsafe { OperationRef::from_raw(op) };
    let span = tracing::info_span!("pass", name = %arg);
    let _guard = span.enter();
    tracing::debug!(options = ?options.values, "running");
    match catch_unwind(AssertUnwindSafe(|| body(module, &options))) {
        Ok(Ok(())) => true,
        Ok(Err(())) => false,
        Err(panic) => {
            let what = panic
                .downcast_ref::<String>()
                .map(String::as_str)
                .or_else(|| panic.downcast_ref::<&str>().copied())
                .unwrap_or("unknown panic");
            Diagnostic::error(
                module.location(),
                format!("internal error in pass '{arg}': {what}"),
            )
            .emit();
            false
        }
    }
}

/// Defines the static registration record of a pass.
///
/// ```ignore
/// define_pass!(DEF, run, "ocannl-x", "OcannlX", "What it does.", [("opt", BOOL, "false", "Help.")]);
/// ```
#[macro_export]
macro_rules! define_pass {
    ($def:ident, $body:path, $arg:literal, $name:literal, $desc:literal,
     [$( ($oname:literal, $okind:ident, $odefault:literal, $odesc:literal) ),* $(,)?]) => {
        static OPTIONS: &[$crate::ffi::PassOption] = &[$(
            $crate::ffi::PassOption {
                name: concat!($oname, "\0").as_ptr().cast(),
                description: concat!($odesc, "\0").as_ptr().cast(),
                kind: $crate::registry::option_kind(stringify!($okind)),
                default_value: concat!($odefault, "\0").as_ptr().cast(),
            }
        ),*];
        static TYPE_ID_ANCHOR: u64 = 0;
        unsafe extern "C" fn trampoline(
            op: mlir_sys::MlirOperation,
            values: *const *const std::ffi::c_char,
            n: usize,
        ) -> bool {
            unsafe { $crate::registry::run_guarded(&$def, op, values, n, $body) }
        }
        pub static $def: $crate::ffi::PassDef = $crate::ffi::PassDef {
            argument: concat!($arg, "\0").as_ptr().cast(),
            name: concat!($name, "\0").as_ptr().cast(),
            description: concat!($desc, "\0").as_ptr().cast(),
            type_id: &TYPE_ID_ANCHOR as *const u64 as *const std::ffi::c_void,
            options: OPTIONS.as_ptr(),
            num_options: OPTIONS.len(),
            run: trampoline,
        };
    };
}

pub const fn option_kind(kind: &str) -> std::ffi::c_int {
    match kind.as_bytes() {
        b"BOOL" => ffi::OPTION_BOOL,
        _ => ffi::OPTION_STRING,
    }
}

/// Every pass of the project, in pipeline order.
pub fn all_passes() -> [&'static ffi::PassDef; 4] {
    [
        &crate::verify::DEF,
        &crate::infer_shapes::DEF,
        &crate::lower_to_assign::DEF,
        &crate::lower_to_loops::DEF,
    ]
}

/// The upstream passes that take the loops of `ocannl-lower-to-loops` to
/// the LLVM dialect.
pub const LOOPS_TO_LLVM: &str = "convert-scf-to-openmp,lower-affine,expand-strided-metadata,convert-vector-to-llvm,\
finalize-memref-to-llvm,convert-scf-to-cf,convert-math-to-llvm,convert-math-to-libm,convert-arith-to-llvm,convert-cf-to-llvm,\
convert-func-to-llvm,convert-openmp-to-llvm,reconcile-unrealized-casts";

/// Named pipelines: (name, description, pipeline on `builtin.module`).
pub fn pipelines() -> Vec<(&'static CStr, &'static CStr, String)> {
    vec![(
        c"ocannl-to-llvm",
        c"From ocannl_shape to the LLVM dialect: infer shapes, lower to assignments, to loops, then upstream conversions to LLVM",
        format!(
            "ocannl-infer-shapes,ocannl-lower-to-assign,ocannl-lower-to-loops,func.func(canonicalize,cse),{LOOPS_TO_LLVM}"
        ),
    )]
}

/// Registers every pass and pipeline of the project (once per process).
pub fn register_all() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        for def in all_passes() {
            unsafe { ffi::ocannl_register_pass(def) };
        }
        for (name, desc, pipeline) in pipelines() {
            let text = CString::new(pipeline).expect("pipeline text has no NUL");
            unsafe { ffi::ocannl_register_pipeline(name.as_ptr(), desc.as_ptr(), text.as_ptr()) };
        }
    });
}

/// The IRDL text of every dialect of the project.
pub fn irdl_source() -> String {
    format!(
        "{}\n{}",
        ocannl_shape_dialect::IRDL,
        ocannl_assign_dialect::IRDL
    )
}

/// Writes the IRDL definitions to a file named by their content hash in the
/// temporary directory (atomically, once per content), for MLIR's driver,
/// which loads IRDL dialects from a file into each context it creates.
fn write_irdl_file() -> std::io::Result<std::path::PathBuf> {
    use std::hash::{Hash, Hasher};
    let src = irdl_source();
    let mut h = std::collections::hash_map::DefaultHasher::new();
    src.hash(&mut h);
    let dir = std::env::temp_dir();
    let path = dir.join(format!("ocannl-dialects-{:016x}.irdl.mlir", h.finish()));
    if std::fs::read_to_string(&path)
        .map(|s| s == src)
        .unwrap_or(false)
    {
        return Ok(path);
    }
    let tmp = dir.join(format!(
        "ocannl-dialects-{}-{:016x}.tmp",
        std::process::id(),
        h.finish()
    ));
    std::fs::write(&tmp, &src)?;
    std::fs::rename(&tmp, &path)?;
    Ok(path)
}

/// A context with every upstream dialect, the upstream passes and the
/// project's dialects and passes, for tools that drive MLIR themselves.
pub fn new_context() -> Result<melior::Context, String> {
    let registry = melior::dialect::DialectRegistry::new();
    melior::utility::register_all_dialects(&registry);
    let context = melior::Context::new();
    context.append_dialect_registry(&registry);
    context.load_all_available_dialects();
    melior::utility::register_all_passes();
    register_all();
    let src = irdl_source();
    if unsafe { ffi::ocannl_load_irdl(context.to_raw(), ffi::string_ref(&src)) } {
        Ok(context)
    } else {
        Err("internal error: cannot load the project's IRDL dialects".into())
    }
}

/// Runs `mlir-opt`'s driver with the project's dialects and passes; returns
/// the exit code.
pub fn opt_main(args: impl IntoIterator<Item = String>, tool_name: &str) -> i32 {
    register_all();
    let args: Vec<CString> = args
        .into_iter()
        .map(|a| CString::new(a).unwrap_or_else(|_| CString::new("?").unwrap()))
        .collect();
    let mut argv: Vec<*mut c_char> = args.iter().map(|a| a.as_ptr() as *mut c_char).collect();
    argv.push(std::ptr::null_mut());
    let irdl = match write_irdl_file() {
        Ok(path) => CString::new(path.to_string_lossy().into_owned()).unwrap_or_default(),
        Err(e) => {
            eprintln!("error: cannot write the dialect definitions to a temporary file: {e}");
            return 1;
        }
    };
    let tool = CString::new(tool_name).unwrap_or_default();
    unsafe {
        ffi::ocannl_opt_main(
            args.len() as i32,
            argv.as_mut_ptr(),
            irdl.as_ptr(),
            tool.as_ptr(),
            crate::verify::DEF.argument,
        )
    }
}
