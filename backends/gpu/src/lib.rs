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
//! - [`artifact`]: a module compiled for one or more chips into one
//!   artifact file (`ocannl-run --emit-artifact`), which the MLIR-free
//!   `ocannl-gpu` runs.
//!
//! [`register`] makes the target known by name and registers its passes,
//! pipelines and the `cuda` backend ([`Cuda`]); tools call it beside
//! `ocannl_cpu::install`.
//!
//! Architecture invariant: everything specific to the GPU is here or in
//! `ocannl-gpu-plan` / `ocannl-gpu-runtime`; `passes/` stays
//! target-neutral.

use std::{sync::OnceLock, time::Instant};

use melior::{ir::Module, Context};
use ocannl_gpu_runtime::{Compiled, Device};
use ocannl_passes::{conversion::assign_to_loops::target::LoopTarget, Backend};
use ocannl_runtime::{CompileOptions, Error, Executable};

pub mod artifact;
pub mod kernel;
pub mod matmul;
pub mod merge;
pub mod pipeline;
pub mod program;
pub mod ptx;
pub mod target;

/// The CUDA backend (`cuda`): loops lowered for the [`target::Gpu`] target,
/// compiled to PTX ([`program::compile`]) and run on the first NVIDIA GPU
/// by `ocannl-gpu-runtime`. Its options by name: `chip` (the GPU
/// architecture; default: the device's own, or sm_90 without a GPU) and
/// `ptx` (the PTX ISA version times ten; default: the first that knows the
/// chip). Without a GPU it compiles and describes schedules, and running
/// says why it cannot in one line.
pub struct Cuda {
    /// Device [`ORDINAL`], opened on first use (or why it cannot be).
    device: OnceLock<Result<Device, Error>>,
}

/// The device the backend runs on (0 unless [`use_device`] said another).
static ORDINAL: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// Makes the `cuda` backend run on device `ordinal` (the first is 0, the
/// default): one GPU per rank of a data-parallel job. Fails once the
/// backend has opened another device.
pub fn use_device(ordinal: usize) -> Result<(), ocannl_runtime::Error> {
    use std::sync::atomic::Ordering;
    let before = ORDINAL.swap(ordinal, Ordering::SeqCst);
    if CUDA.device.get().is_some() && before != ordinal {
        ORDINAL.store(before, Ordering::SeqCst);
        return Err(ocannl_runtime::Error::device(format!(
            "the cuda backend already runs on device {before}, not {ordinal}"
        )));
    }
    Ok(())
}

/// The options by name of [`Cuda`].
pub const OPTION_NAMES: &[&str] = &["chip", "ptx"];

static CUDA: Cuda = Cuda {
    device: OnceLock::new(),
};

impl Cuda {
    fn device(&self) -> Result<&Device, Error> {
        self.device
            .get_or_init(|| Device::open(ORDINAL.load(std::sync::atomic::Ordering::SeqCst)))
            .as_ref()
            .map_err(|e| Error::new(e.kind(), e.message()))
    }
}

impl Backend for Cuda {
    fn name(&self) -> &'static str {
        "cuda"
    }

    fn loop_target(&self) -> &'static str {
        target::Gpu.name()
    }

    fn unavailable(&self) -> Option<String> {
        ocannl_gpu_runtime::unavailable()
    }

    fn device_info(&self) -> Result<String, Error> {
        let device = self.device()?;
        Ok(format!(
            "cuda:{} {}",
            ORDINAL.load(std::sync::atomic::Ordering::SeqCst),
            device.name()
        ))
    }

    fn compile(
        &self,
        context: &Context,
        module: &mut Module,
        options: &CompileOptions,
    ) -> Result<Box<dyn Executable>, Error> {
        options.check_names(self.name(), OPTION_NAMES)?;
        let device = self.device();
        let chip = match options.get("chip") {
            Some(chip) => chip.to_string(),
            None => default_chip(device.as_ref().ok().copied()),
        };
        let ptx = match ptx_option(options)? {
            Some(p) => p,
            None => ocannl_gpu_plan::launch::ptx_version(&chip),
        };
        let options = program::CompileOptions {
            chip,
            ptx,
            opt_level: options.opt_level.unwrap_or(3),
        };
        let t = Instant::now();
        let program = program::compile(context, module, &options).map_err(Error::compile)?;
        let mut phases = vec![("to-ptx", t.elapsed())];
        let loaded = device.and_then(|d| {
            let t = Instant::now();
            let loaded = d.load(&program)?;
            phases.push(("load", t.elapsed()));
            Ok(loaded)
        });
        Ok(Box::new(Compiled::new(program, loaded, phases)))
    }

    /// The chips are `targets` (by default the option `chip`, else the
    /// device's own, else sm_90); no GPU is needed.
    fn artifact(
        &self,
        context: &Context,
        module: &mut Module,
        options: &CompileOptions,
        targets: &[String],
    ) -> Result<Vec<u8>, Error> {
        options.check_names(self.name(), OPTION_NAMES)?;
        let chips = if !targets.is_empty() {
            targets.to_vec()
        } else if let Some(chip) = options.get("chip") {
            vec![chip.to_string()]
        } else {
            vec![default_chip(self.device().ok())]
        };
        let art = artifact::compile(
            context,
            module,
            &chips,
            ptx_option(options)?,
            options.opt_level.unwrap_or(3),
        )?;
        Ok(art.to_bytes())
    }
}

/// The device's own chip, else sm_90.
fn default_chip(device: Option<&Device>) -> String {
    device
        .and_then(|d| d.chip())
        .unwrap_or_else(|| "sm_90".into())
}

/// The option `ptx`, if given.
fn ptx_option(options: &CompileOptions) -> Result<Option<u32>, Error> {
    options
        .get("ptx")
        .map(|p| {
            p.parse().map_err(|_| {
                Error::argument(format!(
                    "the option ptx is the PTX ISA version times ten (80 for PTX 8.0), not {p:?}"
                ))
            })
        })
        .transpose()
}

/// The GPU's passes, in pipeline order.
pub fn passes() -> [&'static ocannl_passes::framework::Pass; 3] {
    [&merge::DEF, &ptx::CHECK, &ptx::PRINT]
}

/// Registers the `gpu` loop target, the project's passes, the GPU passes
/// and pipelines, and the `cuda` backend (once per process). The CPU stays
/// the default target.
pub fn register() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        ocannl_passes::conversion::assign_to_loops::target::register(&target::Gpu);
        ocannl_passes::register_all();
        for pass in passes() {
            ocannl_passes::register_pass(pass);
        }
        pipeline::register();
        ocannl_passes::register_backend(&CUDA);
    });
}
