//! The CPU target.
//!
//! - [`target`]: the [`target::Cpu`] loop target of `ocannl-lower-to-loops`:
//!   parallel outermost loops (OpenMP after the upstream lowering) and the
//!   register-blocked contraction [`kernel`], as `ocannl-cpu-plan` decides.
//! - [`pipeline`]: the named pipelines `ocannl-loops-to-llvm` (upstream
//!   conversions from the loops to the LLVM dialect) and `ocannl-to-llvm`
//!   (everything from `ocannl_shape`).
//! - [`runtime`]: compile a module once with MLIR's JIT, then call its
//!   functions many times with owned host buffers.
//!
//! [`install`] makes the CPU the target of the process's passes and
//! registers its pipelines; tools call it before anything else.
//!
//! Architecture invariant: everything specific to the CPU is here or in
//! `ocannl-cpu-plan`; `passes/` stays target-neutral.

pub mod kernel;
pub mod pipeline;
pub mod runtime;
pub mod target;

/// Makes the CPU the loop target of `ocannl-lower-to-loops`, and registers
/// the project's passes and the CPU pipelines (once per process).
pub fn install() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        ocannl_passes::conversion::assign_to_loops::target::install(&target::Cpu);
        ocannl_passes::register_all();
        pipeline::register();
    });
}
