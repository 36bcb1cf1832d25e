//! The CPU target.
//!
//! - [`target`]: the [`target::Cpu`] loop target of `ocannl-lower-to-loops`:
//!   parallel outermost loops (OpenMP after the upstream lowering) and the
//!   register-blocked contraction [`kernel`], as `ocannl-cpu-plan` decides.
//! - [`pipeline`]: the named pipelines `ocannl-loops-to-llvm` (upstream
//!   conversions from the loops to the LLVM dialect) and `ocannl-to-llvm`
//!   (everything from `ocannl_shape`).
//! - [`jit`]: the JIT on LLVM's C++ API: a module translated to LLVM IR,
//!   split into parts, the parts compiled on threads or taken from the
//!   compilation cache, and linked.
//! - [`runtime`]: compile a module once with the [`jit`], then call its
//!   functions many times with owned host buffers.
//! - [`kernel_bare_ptrs`]: `ocannl-kernel-bare-ptrs`, kernels taking their
//!   static buffers as bare pointers (the CPU's calling convention).
//!
//! [`install`] makes the CPU the target of the process's passes, registers
//! its pipelines and the `cpu` backend ([`Cpu`]); tools call it before
//! anything else.
//!
//! Architecture invariant: everything specific to the CPU is here or in
//! `ocannl-cpu-plan`; `passes/` stays target-neutral.

use std::time::Duration;

use melior::{ir::Module, Context};
use ocannl_passes::{conversion::assign_to_loops::target::LoopTarget, Backend};
use ocannl_runtime::{ArgInfo, CompileOptions, Error, Executable, HostValue, Session, Signature};
use runtime::Program;

pub mod jit;
pub mod kernel;
pub mod kernel_bare_ptrs;
pub mod pipeline;
pub mod profile_kernels;
pub mod roof;
pub mod runtime;
pub mod target;

/// The CPU backend (`cpu`): loops lowered for the [`target::Cpu`] target,
/// compiled by the [`jit`] into a [`runtime::Program`].
pub struct Cpu;

impl Backend for Cpu {
    fn name(&self) -> &'static str {
        "cpu"
    }

    fn loop_target(&self) -> &'static str {
        target::CPU.name()
    }

    /// Kernels planned for the machine of `target-cpu`, else that of
    /// `OCANNL_TARGET_CPU` (the loop target's own), else the host.
    fn loops_pipeline(&self, options: &CompileOptions) -> ocannl_passes::Pipeline {
        ocannl_passes::pipelines::lower_to_kernels(
            Some(self.loop_target()),
            options.get("target-cpu"),
        )
    }

    fn compile(
        &self,
        context: &Context,
        module: &mut Module,
        options: &CompileOptions,
    ) -> Result<Box<dyn Executable>, ocannl_runtime::Error> {
        Ok(Box::new(runtime::Program::compile(
            context, module, options,
        )?))
    }

    fn cache_tag(&self, options: &CompileOptions) -> Option<String> {
        runtime::cache_tag(options)
    }

    fn load(
        &self,
        bytes: &[u8],
        options: &CompileOptions,
    ) -> Result<Box<dyn Executable>, ocannl_runtime::Error> {
        Ok(Box::new(runtime::Program::load(bytes, options)?))
    }
}

/// The CPU's own passes.
pub fn passes() -> [&'static ocannl_passes::framework::Pass; 2] {
    [&kernel_bare_ptrs::DEF, &profile_kernels::DEF]
}

/// Makes the CPU the loop target of `ocannl-lower-to-loops`, and registers
/// the project's passes, the CPU pipelines and the `cpu` backend (once per
/// process).
pub fn install() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        ocannl_passes::conversion::assign_to_loops::target::install(&target::CPU);
        ocannl_passes::register_all();
        for pass in passes() {
            ocannl_passes::register_pass(pass);
        }
        pipeline::register();
        ocannl_passes::register_backend(&Cpu);
    });
}

/// The CPU's executable: a [`Program`].
impl Executable for Program {
    fn signature(&self, entry: &str) -> Result<&Signature, Error> {
        Program::signature(self, entry)
    }

    fn arg_info(&self, entry: &str) -> Result<&[ArgInfo], Error> {
        self.args
            .get(entry)
            .map(Vec::as_slice)
            .ok_or_else(|| Error::argument(format!("no function @{entry} in the module")))
    }

    fn prepare(&self, entry: &str, args: &[HostValue]) -> Result<Box<dyn Session>, Error> {
        Ok(Box::new(Program::prepare(self, entry, args)?))
    }

    fn prepare_zeroed(&self, entry: &str) -> Result<Box<dyn Session>, Error> {
        Ok(Box::new(Program::prepare_zeroed(self, entry)?))
    }

    fn call(&self, entry: &str, args: &[HostValue]) -> Result<Vec<HostValue>, Error> {
        Program::call(self, entry, args)
    }

    fn phases(&self) -> &[(&'static str, Duration)] {
        &self.phases
    }

    fn stats(&self) -> Vec<(&'static str, u64)> {
        self.stats.clone()
    }

    fn serialize(&self) -> Option<Vec<u8>> {
        Some(Program::serialize(self))
    }

    /// The kernels' profile with the machine's measured roof.
    fn profile(&self) -> Option<ocannl_runtime::Profile> {
        let mut p = Program::profile(self)?;
        p.roof_gflops = roof::fma_peak_gflops(&self.machine);
        Some(p)
    }
}
