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

/// The type of a pass option's values: what `define_pass!` declares
/// (`BOOL`, `COUNT`, `NUMBER`, `CHOICE(WORDS)`, `TEXT`), what the framework
/// parses an option's text into before the pass runs (an error at the op
/// when it does not parse), and what `docs/passes.md` shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// `true` or `false` (also `1` or `0`).
    Bool,
    /// An integer at least 0.
    Count,
    /// A finite number at least 0; empty for none (the pass's own default).
    Number,
    /// One of the listed words.
    Choice(&'static [&'static str]),
    /// Any text (names, a file), which the pass reads itself.
    Text,
}

impl Kind {
    /// What values the kind takes, in words (`docs/passes.md`).
    pub fn describe(self) -> String {
        match self {
            Kind::Bool => "`true` or `false`".into(),
            Kind::Count => "an integer ≥ 0".into(),
            Kind::Number => "a number ≥ 0".into(),
            Kind::Choice(words) => {
                let words: Vec<String> = words.iter().map(|w| format!("`{w}`")).collect();
                format!("one of {}", words.join(", "))
            }
            Kind::Text => "text".into(),
        }
    }

    /// The value of option `name` given as `text`.
    pub fn parse(self, name: &str, text: &str) -> Result<Value, ocannl_mlir::Error> {
        self.parse_text(name, text)
            .map_err(ocannl_mlir::Error::parse)
    }

    fn parse_text(self, name: &str, text: &str) -> Result<Value, String> {
        match self {
            Kind::Bool => match text {
                "true" | "1" => Ok(Value::Bool(true)),
                "false" | "0" => Ok(Value::Bool(false)),
                _ => Err(format!(
                    "option '{name}' must be true or false, not '{text}'"
                )),
            },
            Kind::Count => text.parse().map(Value::Count).map_err(|_| {
                format!("option '{name}' must be a non-negative integer, not '{text}'")
            }),
            Kind::Number if text.is_empty() => Ok(Value::Number(None)),
            Kind::Number => text
                .parse::<f64>()
                .ok()
                .filter(|x| x.is_finite() && *x >= 0.0)
                .map(|x| Value::Number(Some(x)))
                .ok_or_else(|| {
                    format!("option '{name}' must be a non-negative number, not '{text}'")
                }),
            Kind::Choice(words) => words
                .iter()
                .find(|w| **w == text)
                .map(|w| Value::Choice(w))
                .ok_or_else(|| {
                    format!(
                        "option '{name}' must be one of {}, not '{text}'",
                        words.join(", ")
                    )
                }),
            Kind::Text => Ok(Value::Text(text.to_string())),
        }
    }
}

/// The value of an option, of its [`Kind`].
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Bool(bool),
    Count(u64),
    Number(Option<f64>),
    Choice(&'static str),
    Text(String),
}

/// A pass option as `define_pass!` declares it.
#[derive(Clone, Copy, Debug)]
pub struct OptionSpec {
    pub name: &'static str,
    pub kind: Kind,
    /// Its value when not given, as text.
    pub default: &'static str,
    pub description: &'static str,
}

/// The option values a pass runs with, typed, by name.
#[derive(Clone, Debug)]
pub struct Options {
    values: Vec<(&'static str, Value)>,
}

impl Options {
    /// The values of the options `specs` declares, from the `given`
    /// `(name, text)` pairs (a later pair of a name wins; the declared
    /// default for a name not given). An error names an option that is not
    /// declared, or one whose text is not of its kind.
    pub fn parse(
        specs: &[OptionSpec],
        given: &[(&str, &str)],
    ) -> Result<Options, ocannl_mlir::Error> {
        if let Some((name, _)) = given
            .iter()
            .find(|(n, _)| !specs.iter().any(|s| s.name == *n))
        {
            let names: Vec<&str> = specs.iter().map(|s| s.name).collect();
            return Err(ocannl_mlir::Error::parse(format!(
                "unknown option '{name}' (expected one of {})",
                names.join(", ")
            )));
        }
        let values = specs
            .iter()
            .map(|s| {
                let text = given
                    .iter()
                    .rev()
                    .find(|(n, _)| *n == s.name)
                    .map_or(s.default, |(_, t)| *t);
                Ok((s.name, s.kind.parse(s.name, text)?))
            })
            .collect::<Result<_, ocannl_mlir::Error>>()?;
        Ok(Options { values })
    }

    fn value(&self, name: &str) -> &Value {
        self.values
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v)
            .unwrap_or_else(|| panic!("the pass reads option '{name}', which it does not declare"))
    }

    fn wrong(&self, name: &str, kind: &str) -> ! {
        panic!("the pass reads option '{name}' as {kind}, which it is not declared as")
    }

    /// A `BOOL` option.
    pub fn flag(&self, name: &str) -> bool {
        match self.value(name) {
            Value::Bool(b) => *b,
            _ => self.wrong(name, "BOOL"),
        }
    }

    /// A `COUNT` option.
    pub fn count(&self, name: &str) -> u64 {
        match self.value(name) {
            Value::Count(n) => *n,
            _ => self.wrong(name, "COUNT"),
        }
    }

    /// A `NUMBER` option (`None` when empty).
    pub fn number(&self, name: &str) -> Option<f64> {
        match self.value(name) {
            Value::Number(x) => *x,
            _ => self.wrong(name, "NUMBER"),
        }
    }

    /// A `CHOICE` option: the word given.
    pub fn choice(&self, name: &str) -> &'static str {
        match self.value(name) {
            Value::Choice(w) => w,
            _ => self.wrong(name, "CHOICE"),
        }
    }

    /// A `TEXT` option.
    pub fn text(&self, name: &str) -> &str {
        match self.value(name) {
            Value::Text(t) => t,
            _ => self.wrong(name, "TEXT"),
        }
    }

    /// Every option's value, in declaration order.
    pub fn values(&self) -> &[(&'static str, Value)] {
        &self.values
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

impl<T, E: std::fmt::Display> Locate<T> for Result<T, E> {
    fn at<'c>(self, location: Location<'c>) -> Result<T, PassError<'c>> {
        self.map_err(|e| PassError::at(location, e.to_string()))
    }
}

/// The signature of a pass body.
pub type PassBody = for<'c, 'a> fn(OperationRef<'c, 'a>, &Options) -> PassResult<'c>;

/// Runs a pass body: emits its errors as diagnostics, and turns a panic
/// into a located internal error.
///
/// # Safety
/// `values` must point to `n` C strings, one per entry of `pass.def.options`, and
/// `op` must be a live operation.
pub unsafe fn run_guarded(
    pass: &Pass,
    op: MlirOperation,
    values: *const *const c_char,
    n: usize,
    body: PassBody,
) -> bool {
    let def = &pass.def;
    // SAFETY: `def` is a static registration record whose strings are
    // NUL-terminated literals (`define_pass!`).
    let arg = unsafe { CStr::from_ptr(def.argument) }
        .to_string_lossy()
        .into_owned();
    let mut given = Vec::new();
    for (i, spec) in pass.options.iter().enumerate().take(n) {
        // SAFETY: `i < n`, and the caller passes `n` C strings.
        let value = unsafe { CStr::from_ptr(*values.add(i)) }
            .to_string_lossy()
            .into_owned();
        given.push((spec.name, value));
    }
    // SAFETY: the caller passes a live operation, which the pass manager
    // keeps alive while the pass runs.
    let module = unsafe { OperationRef::from_raw(op) };
    let span = tracing::info_span!("pass", name = %arg);
    let _guard = span.enter();
    let given: Vec<(&str, &str)> = given.iter().map(|(n, v)| (*n, v.as_str())).collect();
    let options = match Options::parse(pass.options, &given) {
        Ok(o) => o,
        Err(m) => {
            Diagnostic::error(module.location(), m).emit();
            return false;
        }
    };
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
    /// Its options, typed (the same names, in the same order, as `def`'s).
    pub options: &'static [OptionSpec],
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

    /// Its options, in order.
    pub fn options(&self) -> &'static [OptionSpec] {
        self.options
    }
}

/// Defines the static registration record of a pass and its
/// documentation (a [`Pass`]).
///
/// ```ignore
/// define_pass!(DEF, run, "ocannl-x", "OcannlX", "What it does.",
///     [("opt", BOOL, "false", "Help."), ("mode", CHOICE(&["a", "b"]), "a", "Help.")],
///     "What it does, in full (docs/passes.md).");
/// ```
#[macro_export]
macro_rules! define_pass {
    ($def:ident, $body:path, $arg:literal, $name:literal, $desc:literal,
     [$( ($oname:literal, $okind:ident $(($ochoices:expr))?, $odefault:literal, $odesc:literal) ),* $(,)?],
     $doc:literal $(,)?) => {
        // The record's parts are local to its initializer, so that a module
        // may define several passes.
        pub static $def: $crate::framework::Pass = $crate::framework::Pass { doc: $doc,
        options: &[$(
            $crate::framework::OptionSpec {
                name: $oname,
                kind: $crate::option_kind!($okind $(($ochoices))?),
                default: $odefault,
                description: $odesc,
            }
        ),*],
        def: {
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
                unsafe { $crate::framework::run_guarded(&$def, op, values, n, $body) }
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

/// The [`Kind`] of a `define_pass!` option (`BOOL`, `COUNT`, `NUMBER`,
/// `CHOICE(WORDS)`, `TEXT`).
#[doc(hidden)]
#[macro_export]
macro_rules! option_kind {
    (BOOL) => {
        $crate::framework::Kind::Bool
    };
    (COUNT) => {
        $crate::framework::Kind::Count
    };
    (NUMBER) => {
        $crate::framework::Kind::Number
    };
    (CHOICE($words:expr)) => {
        $crate::framework::Kind::Choice($words)
    };
    (TEXT) => {
        $crate::framework::Kind::Text
    };
}

/// How the shim registers an option with MLIR: booleans as `bool`, every
/// other kind as a string that the framework parses into its kind (so that
/// a malformed value is an error located at the op, in the same words for
/// every pass).
pub const fn option_kind(kind: &str) -> std::ffi::c_int {
    match kind.as_bytes() {
        b"BOOL" => ffi::OPTION_BOOL,
        _ => ffi::OPTION_STRING,
    }
}
