//! The pass framework: how a Rust pass body is run inside MLIR's pass
//! manager (options, the located error type, panics turned into internal
//! errors) and the `define_pass!` macro that declares one.
//!
//! Architecture invariant: this module depends on nothing else of the crate
//! but the diagnostics and the C ABI of the shim; passes depend on it, and
//! the registry ([`crate::registry`]) lists the passes.

use std::{
    ffi::{c_char, CStr},
    panic::{catch_unwind, AssertUnwindSafe},
};

use melior::ir::{operation::OperationLike, Location, OperationRef};

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

/// Why a pass failed: one or more located errors (with their notes), which
/// the framework emits as MLIR diagnostics when the pass body returns.
#[derive(Debug)]
pub struct PassError<'c> {
    pub diagnostics: Vec<Diagnostic<'c>>,
}

impl<'c> From<Diagnostic<'c>> for PassError<'c> {
    fn from(d: Diagnostic<'c>) -> Self {
        PassError {
            diagnostics: vec![d],
        }
    }
}

impl<'c> PassError<'c> {
    /// An error at `location`.
    pub fn at(location: Location<'c>, message: impl Into<String>) -> Self {
        Diagnostic::error(location, message).into()
    }

    /// Several errors gathered before failing.
    pub fn all(diagnostics: Vec<Diagnostic<'c>>) -> Self {
        PassError { diagnostics }
    }

    /// A failure whose diagnostics were emitted already (to keep them in
    /// order with the remarks of a pass that goes on after an error).
    pub fn emitted() -> Self {
        PassError {
            diagnostics: vec![],
        }
    }
}

/// What a pass body returns.
pub type PassResult<'c> = Result<(), PassError<'c>>;

/// Locating a message-only error at an op.
pub trait Locate<T> {
    fn at<'c>(self, location: Location<'c>) -> Result<T, PassError<'c>>;
}

impl<T> Locate<T> for Result<T, String> {
    fn at<'c>(self, location: Location<'c>) -> Result<T, PassError<'c>> {
        self.map_err(|m| PassError::at(location, m))
    }
}

/// The signature of a pass body.
pub type PassBody = for<'c, 'a> fn(OperationRef<'c, 'a>, &Options) -> PassResult<'c>;

/// Runs a pass body: emits its errors as diagnostics, and turns a panic
/// into a located internal error.
///
/// # Safety
/// `values` must point to `n` C strings, one per entry of `def.options`, and
/// `op` must be a live operation.
pub unsafe fn run_guarded(
    def: &ffi::PassDef,
    op: MlirOperation,
    values: *const *const c_char,
    n: usize,
    body: PassBody,
) -> bool {
    // SAFETY: `def` is a static registration record whose strings are
    // NUL-terminated literals (`define_pass!`).
    let arg = unsafe { CStr::from_ptr(def.argument) }
        .to_string_lossy()
        .into_owned();
    let mut opts = Vec::new();
    for i in 0..n.min(def.num_options) {
        // SAFETY: `i < def.num_options`, the length of the static option
        // table, whose names are NUL-terminated literals.
        let name = unsafe { CStr::from_ptr((*def.options.add(i)).name) }
            .to_string_lossy()
            .into_owned();
        // SAFETY: `i < n`, and the caller passes `n` C strings.
        let value = unsafe { CStr::from_ptr(*values.add(i)) }
            .to_string_lossy()
            .into_owned();
        opts.push((name, value));
    }
    let options = Options { values: opts };
    // SAFETY: the caller passes a live operation, which the pass manager
    // keeps alive while the pass runs.
    let module = unsafe { OperationRef::from_raw(op) };
    let span = tracing::info_span!("pass", name = %arg);
    let _guard = span.enter();
    tracing::debug!(options = ?options.values, "running");
    match catch_unwind(AssertUnwindSafe(|| body(module, &options))) {
        Ok(Ok(())) => true,
        Ok(Err(e)) => {
            for d in &e.diagnostics {
                d.emit();
            }
            false
        }
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

/// The handle a pass's entry receives (named for `define_pass!` in other
/// crates, which need not depend on `mlir-sys`).
#[doc(hidden)]
pub use mlir_sys::MlirOperation;

/// A pass of the project: its registration record (what MLIR's registry
/// and `--help` show: name, one-line description, options with their
/// defaults) and its documentation, the row of `docs/passes.md`
/// ([`crate::registry::passes_markdown`] generates the file).
pub struct Pass {
    pub def: ffi::PassDef,
    /// What the pass does, in Markdown (one paragraph).
    pub doc: &'static str,
}

impl Pass {
    /// The pass's argument (`ocannl-virtualize`).
    pub fn argument(&self) -> String {
        // SAFETY: a NUL-terminated literal (`define_pass!`).
        unsafe { CStr::from_ptr(self.def.argument) }
            .to_string_lossy()
            .into_owned()
    }

    /// Its options' names and defaults, in order.
    pub fn options(&self) -> Vec<(String, String)> {
        (0..self.def.num_options)
            .map(|i| {
                // SAFETY: `options` points to `num_options` records whose
                // strings are NUL-terminated literals (`define_pass!`).
                let o = unsafe { &*self.def.options.add(i) };
                // SAFETY: as above.
                let (name, default) =
                    unsafe { (CStr::from_ptr(o.name), CStr::from_ptr(o.default_value)) };
                (
                    name.to_string_lossy().into_owned(),
                    default.to_string_lossy().into_owned(),
                )
            })
            .collect()
    }
}

/// Defines the static registration record of a pass and its
/// documentation (a [`Pass`]).
///
/// ```ignore
/// define_pass!(DEF, run, "ocannl-x", "OcannlX", "What it does.", [("opt", BOOL, "false", "Help.")],
///     "What it does, in full (docs/passes.md).");
/// ```
#[macro_export]
macro_rules! define_pass {
    ($def:ident, $body:path, $arg:literal, $name:literal, $desc:literal,
     [$( ($oname:literal, $okind:ident, $odefault:literal, $odesc:literal) ),* $(,)?],
     $doc:literal $(,)?) => {
        // The record's parts are local to its initializer, so that a module
        // may define several passes.
        pub static $def: $crate::framework::Pass = $crate::framework::Pass { doc: $doc, def: {
            static OPTIONS: &[$crate::ffi::PassOption] = &[$(
                $crate::ffi::PassOption {
                    name: concat!($oname, "\0").as_ptr().cast(),
                    description: concat!($odesc, "\0").as_ptr().cast(),
                    kind: $crate::framework::option_kind(stringify!($okind)),
                    default_value: concat!($odefault, "\0").as_ptr().cast(),
                }
            ),*];
            static TYPE_ID_ANCHOR: u64 = 0;
            unsafe extern "C" fn trampoline(
                op: $crate::framework::MlirOperation,
                values: *const *const std::ffi::c_char,
                n: usize,
            ) -> bool {
                // SAFETY: the shim calls a pass's entry with the live
                // operation it runs on and one C string per declared option.
                unsafe { $crate::framework::run_guarded(&$def.def, op, values, n, $body) }
            }
            $crate::ffi::PassDef {
                argument: concat!($arg, "\0").as_ptr().cast(),
                name: concat!($name, "\0").as_ptr().cast(),
                description: concat!($desc, "\0").as_ptr().cast(),
                type_id: &TYPE_ID_ANCHOR as *const u64 as *const std::ffi::c_void,
                options: OPTIONS.as_ptr(),
                num_options: OPTIONS.len(),
                run: trampoline,
            }
        }};
    };
}

pub const fn option_kind(kind: &str) -> std::ffi::c_int {
    match kind.as_bytes() {
        b"BOOL" => ffi::OPTION_BOOL,
        _ => ffi::OPTION_STRING,
    }
}
