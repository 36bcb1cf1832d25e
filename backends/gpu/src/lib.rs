//! The GPU target.
//!
//! - [`target`]: the [`target::Gpu`] loop target of
//!   `ocannl-lower-to-loops{target=gpu}`: every loop nest a kernel
//!   (`gpu.launch`): one thread per cell ([`kernel`]) or, for large
//!   contractions, the shared-memory tiled kernel ([`matmul`]), as
//!   `ocannl-gpu-plan` decides.
//! - [`pipeline`]: the named pipelines `ocannl-loops-to-nvvm` and
//!   `ocannl-to-nvvm` (chip, PTX version and optimization level as
//!   options).
//! - [`merge`]: `ocannl-merge-gpu-modules`, every kernel in one
//!   `gpu.module` (one PTX module per program).
//! - [`ptx`]: `ocannl-check-ptx` (no function left unresolved) and
//!   `ocannl-print-ptx`.
//! - [`program`]: a compiled module read into the runtime's program (PTX,
//!   constants, each function's host steps), which `ocannl-gpu-runtime`
//!   runs.
//!
//! [`register`] makes the target known by name and registers its passes
//! and pipelines; tools call it beside `ocannl_cpu::install`.
//!
//! Architecture invariant: everything specific to the GPU is here or in
//! `ocannl-gpu-plan` / `ocannl-gpu-runtime`; `passes/` stays
//! target-neutral.

pub mod kernel;
pub mod matmul;
pub mod merge;
pub mod pipeline;
pub mod program;
pub mod ptx;
pub mod target;

/// Registers the `gpu` loop target, the project's passes, the GPU passes
/// and pipelines (once per process). The CPU stays the default target.
pub fn register() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        ocannl_passes::conversion::assign_to_loops::target::register(&target::Gpu);
        ocannl_passes::register_all();
        ocannl_passes::register_pass(&merge::DEF);
        ocannl_passes::register_pass(&ptx::CHECK);
        ocannl_passes::register_pass(&ptx::PRINT);
        pipeline::register();
    });
}
