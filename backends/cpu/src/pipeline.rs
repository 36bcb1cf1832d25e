//! The CPU pipelines, registered once and used by `ocannl-opt`, the lit
//! configuration (which asks `ocannl-opt` for their text) and the runtime.

/// The upstream passes that take the loops of `ocannl-lower-to-loops` to
/// the LLVM dialect (parallel loops through OpenMP). Those that convert
/// within a function run nested on `func.func`, so that MLIR runs them on
/// the functions in parallel (a routine on one thread, its kernels on
/// others: a third less time on a deep model's train step, the same
/// output); those that add or change symbols run on the module.
pub const LOOPS_TO_LLVM: &str = "convert-scf-to-openmp,func.func(lower-affine,expand-strided-metadata,convert-vector-to-llvm),\
finalize-memref-to-llvm,func.func(convert-scf-to-cf,convert-math-to-llvm),convert-math-to-libm,func.func(convert-arith-to-llvm),\
convert-cf-to-llvm,convert-func-to-llvm,convert-openmp-to-llvm,reconcile-unrealized-casts";

/// The named pipeline running `ocannl-check-lowered` (an error at any op
/// of the project's dialects left, which the upstream conversions would
/// turn into IR that no longer verifies), then [`LOOPS_TO_LLVM`].
pub const LOOPS_TO_LLVM_NAME: &str = "ocannl-loops-to-llvm";

/// The upstream passes that take linalg on tensors (the output of
/// `ocannl-lower-to-linalg`) to the LLVM dialect: one-shot bufferization
/// across function boundaries (tensor arguments and results become
/// memrefs with identity layouts), upstream's ownership-based
/// deallocation, linalg ops as loops, the subviews of slices at run-time
/// offsets expanded (their `affine.apply` lowered), then
/// [`LOOPS_TO_LLVM`].
pub fn linalg_to_llvm() -> String {
    format!(
        "one-shot-bufferize{{bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map}},\
buffer-deallocation-pipeline,func.func(convert-linalg-to-loops),expand-strided-metadata,lower-affine,{LOOPS_TO_LLVM}"
    )
}

/// The named pipeline running [`linalg_to_llvm`].
pub const LINALG_TO_LLVM_NAME: &str = "ocannl-linalg-to-llvm";

/// What the CPU does to a module at the loops stage before
/// [`LOOPS_TO_LLVM`]: every loop nest a kernel of its own, identical ones
/// shared (`ocannl-outline-kernels`), f32 math functions as polynomials
/// that vectorize (`ocannl-approximate-math`), then `canonicalize` and `cse`
/// ([`ocannl_passes::pipelines::tidy`]), which so run once on each
/// distinct kernel rather than on every loop nest of the lowering (the
/// CPU's modules come from `ocannl-lower-to-loops{kernels=true}` with no
/// cleanup, [`ocannl_passes::backend::Backend::loops_pipeline`]); last, the
/// kernels take their statically shaped buffers as bare pointers
/// (`ocannl-kernel-bare-ptrs`), so that a call passes one pointer per
/// buffer rather than a descriptor. With `profile`, every kernel call is
/// timed first (`ocannl-profile-kernels`).
pub fn outline(profile: bool) -> ocannl_passes::Pipeline {
    let p = ocannl_passes::pipelines::outline_kernels()
        .pass("ocannl-approximate-math")
        .then(ocannl_passes::pipelines::tidy());
    let p = if profile {
        p.pass("ocannl-profile-kernels")
    } else {
        p
    };
    p.pass("ocannl-kernel-bare-ptrs")
}

/// The whole pipeline from `ocannl_shape` to the LLVM dialect, on
/// `builtin.module`.
pub fn to_llvm() -> ocannl_passes::Pipeline {
    ocannl_passes::pipelines::to_kernels(None)
        .then(outline(false))
        .pass(LOOPS_TO_LLVM_NAME)
}

/// Registers `ocannl-loops-to-llvm`, `ocannl-to-llvm` and
/// `ocannl-linalg-to-llvm`.
pub(crate) fn register() {
    ocannl_passes::register_pipeline(
        c"ocannl-linalg-to-llvm",
        c"From linalg on tensors (ocannl-to-linalg's output) to the LLVM dialect with upstream passes only: one-shot bufferization across function boundaries, ownership-based deallocation, linalg as loops, then ocannl-loops-to-llvm's conversions",
        &linalg_to_llvm(),
    );
    ocannl_passes::register_pipeline(
        c"ocannl-loops-to-llvm",
        c"From the loops of ocannl-lower-to-loops to the LLVM dialect for the CPU (ocannl-check-lowered, then upstream conversions; parallel loops through OpenMP)",
        &format!("ocannl-check-lowered,{LOOPS_TO_LLVM}"),
    );
    ocannl_passes::register_pipeline(
        c"ocannl-to-llvm",
        c"From ocannl_shape to the LLVM dialect: infer shapes, lower to assignments, to loops, outline the loop nests as kernels, then upstream conversions to LLVM",
        &to_llvm().to_string(),
    );
}
