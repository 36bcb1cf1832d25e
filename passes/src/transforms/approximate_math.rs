//! `ocannl-approximate-math`: the `math` functions that the CPU would call
//! one cell at a time in libm (`expf`, `erff`, `tanhf`) rewritten
//! into polynomial approximations of `arith` ops and `math.fma`
//! (upstream's, the same as `mlir-opt --test-math-polynomial-approximation`
//! uses), which LLVM's loop vectorizer turns into vector code. Only f32
//! (and vectors of f32) is rewritten; f64 keeps libm's correctly rounded
//! functions, and 16-bit values are computed in f32 before.
//!
//! The CPU backend runs it on its kernels; the GPU keeps libdevice's
//! functions.

use melior::ir::{operation::OperationLike, OperationRef};
use mlir_sys::MlirStringRef;

use crate::{
    diag::Diagnostic,
    framework::{Options, PassResult},
};

crate::define_pass!(
    DEF,
    run,
    "ocannl-approximate-math",
    "OcannlApproximateMath",
    "Rewrite f32 math functions into polynomial approximations that vectorize",
    // The default: the functions models spend their element-wise time in
    // (softmax's `exp`, GELU's `erf`, `tanh`), measured within 5 ulp of
    // the exact values over the whole f32 range (`api/tests/nn.rs`). The
    // logarithms stay with libm: their approximations
    // treat a subnormal input as the least normal one (log(1e-40) gives
    // -87.3, not -92.1); `sin` and `cos` lose accuracy far from 0.
    [(
        "ops",
        TEXT,
        "exp,tanh,erf",
        "The math ops to rewrite, by name without the `math.` prefix, comma-separated"
    )],
    r#"rewrites the f32 (and vector of f32) `math` ops named by `ops` (by default `exp`, `tanh` and `erf`: within 5 ulp of the exact values over f32's range, and exact at 0, the infinities and NaN; a subnormal `exp` result is 0, and `exp` just below f32's overflow threshold may give the largest finite value instead of inf) into upstream's polynomial approximations (`arith` ops and `math.fma`), which LLVM vectorizes where a call of libm (`expf`, `erff`) would run one cell at a time; other element types and ops are left. The CPU backend runs it on its kernels; an unknown name is an error"#
);

/// The math ops upstream approximates (the names `ops` may give).
const KNOWN: [&str; 16] = [
    "acos", "asin", "atan", "atan2", "cbrt", "cos", "erf", "erfc", "exp", "expm1", "log", "log1p",
    "log2", "rsqrt", "sin", "tanh",
];

fn run<'c>(module: OperationRef<'c, '_>, options: &Options) -> PassResult<'c> {
    let mut names = vec![];
    for n in options
        .text("ops")
        .split(',')
        .map(str::trim)
        .filter(|n| !n.is_empty())
    {
        if !KNOWN.contains(&n) {
            return Err(Diagnostic::error(
                module.location(),
                format!(
                    "ocannl-approximate-math: no approximation of '{n}'; expected some of: {}",
                    KNOWN.join(", ")
                ),
            )
            .into());
        }
        names.push(format!("math.{n}"));
    }
    if names.is_empty() {
        return Ok(());
    }
    let refs: Vec<MlirStringRef> = names
        .iter()
        .map(|n| MlirStringRef {
            data: n.as_ptr().cast(),
            length: n.len(),
        })
        .collect();
    // SAFETY: `module` is a live operation; `refs` points to `names`'
    // strings, alive for the call, `refs.len()` of them.
    let ok =
        unsafe { crate::ffi::ocannl_approximate_math(module.to_raw(), refs.as_ptr(), refs.len()) };
    if ok {
        Ok(())
    } else {
        Err(Diagnostic::error(
            module.location(),
            "ocannl-approximate-math: the rewrite of the math functions failed",
        )
        .into())
    }
}
