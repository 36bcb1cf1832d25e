//! The GPU pipelines, registered once and used by `ocannl-opt`, the lit
//! configuration and the runtime.
//!
//! - `ocannl-loops-to-nvvm{chip ptx opt-level}`: from the kernels of
//!   `ocannl-lower-to-loops{target=gpu}` to PTX: constants sunk into the
//!   launches, each launch outlined into a kernel of one `gpu.module`, the NVVM
//!   target attached, the kernels lowered to NVVM (memrefs passed as bare
//!   pointers), then serialized to PTX (`gpu.binary`), which is checked
//!   for functions left unresolved.
//! - `ocannl-to-nvvm{chip ptx opt-level}`: everything from `ocannl_shape`.

use ocannl_passes::{
    conversion::assign_to_loops::target::LoopTarget, ffi::PipelineOption, Pipeline,
};

/// The options of both pipelines, with their defaults.
pub static OPTIONS: [PipelineOption; 3] = [
    PipelineOption {
        name: c"chip".as_ptr(),
        description: c"The GPU architecture (sm_70, sm_80, sm_90, ...)".as_ptr(),
        default_value: c"sm_90".as_ptr(),
    },
    PipelineOption {
        name: c"ptx".as_ptr(),
        description: c"The PTX ISA version times ten (80 for PTX 8.0)".as_ptr(),
        default_value: c"80".as_ptr(),
    },
    PipelineOption {
        name: c"opt-level".as_ptr(),
        description: c"The optimization level of the NVPTX backend (0 to 3)".as_ptr(),
        default_value: c"3".as_ptr(),
    },
];

/// The upstream passes from the kernels to PTX, with the options'
/// placeholders.
pub const LOOPS_TO_NVVM: &str = "ocannl-check-lowered,gpu-launch-sink-index-computations,gpu-kernel-outlining,ocannl-merge-gpu-modules,\
nvvm-attach-target{chip={chip} features=+ptx{ptx} O={opt-level}},\
gpu.module(lower-affine,convert-scf-to-cf,convert-gpu-to-nvvm{use-bare-ptr-memref-call-conv=true},canonicalize,cse,reconcile-unrealized-casts),\
gpu-module-to-binary{format=isa},ocannl-check-ptx";

/// The named pipeline running [`LOOPS_TO_NVVM`].
pub const LOOPS_TO_NVVM_NAME: &str = "ocannl-loops-to-nvvm";

/// `ocannl-loops-to-nvvm` with the given options.
pub fn loops_to_nvvm(chip: &str, ptx: u32, opt_level: u32) -> Pipeline {
    with_options(chip, &ptx.to_string(), &opt_level.to_string())
}

/// `ocannl-loops-to-nvvm` with the options' values as written.
fn with_options(chip: &str, ptx: &str, opt_level: &str) -> Pipeline {
    Pipeline::new().pass_with(
        LOOPS_TO_NVVM_NAME,
        [("chip", chip), ("ptx", ptx), ("opt-level", opt_level)],
    )
}

/// The whole pipeline from `ocannl_shape` to PTX, with the options'
/// placeholders.
pub fn to_nvvm() -> Pipeline {
    ocannl_passes::pipelines::to_loops(Some(crate::target::Gpu.name())).then(with_options(
        "{chip}",
        "{ptx}",
        "{opt-level}",
    ))
}

/// Registers `ocannl-loops-to-nvvm` and `ocannl-to-nvvm`.
pub(crate) fn register() {
    ocannl_passes::register_pipeline_with_options(
        c"ocannl-loops-to-nvvm",
        c"From the kernels of ocannl-lower-to-loops{target=gpu} to PTX: outlined into gpu.modules, lowered to NVVM, serialized with gpu-module-to-binary{format=isa}",
        LOOPS_TO_NVVM,
        &OPTIONS,
    );
    ocannl_passes::register_pipeline_with_options(
        c"ocannl-to-nvvm",
        c"From ocannl_shape to PTX: infer shapes, lower to assignments, to GPU kernels, then to NVVM and PTX",
        &to_nvvm().to_string(),
        &OPTIONS,
    );
}
