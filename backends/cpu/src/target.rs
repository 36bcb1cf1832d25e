//! The CPU's loop target: what `ocannl-lower-to-loops` runs in parallel,
//! and contractions computed by the register-blocked kernel.

use std::sync::OnceLock;

use ocannl_cpu_plan::{
    target::Target,
    tiling::{plan_contraction, Contraction},
};
use ocannl_mlir::At;
use ocannl_passes::conversion::assign_to_loops::{assignment::memref_info, Assignment, LoopTarget};

use crate::jit::{Machine, TARGET_CPU_ENV};

/// The CPU target, planning its kernels for one machine: the process's
/// ([`CPU`]: `OCANNL_TARGET_CPU`, else the host), or the one the pass
/// option `cpu=NAME` names ([`LoopTarget::for_cpu`]).
pub struct Cpu {
    target: OnceLock<Target>,
}

/// The CPU target of the process's machine.
pub static CPU: Cpu = Cpu {
    target: OnceLock::new(),
};

impl Cpu {
    /// The machine's description the kernels are planned from. For the
    /// process's target, a name in `OCANNL_TARGET_CPU` that LLVM does not
    /// know plans for the host (compiling then reports the name).
    pub fn target(&self) -> &Target {
        self.target.get_or_init(|| {
            let name = std::env::var(TARGET_CPU_ENV).unwrap_or_default();
            Machine::named(&name)
                .unwrap_or_else(|_| Machine::host().clone())
                .target()
        })
    }
}

impl LoopTarget for Cpu {
    fn name(&self) -> &'static str {
        "cpu"
    }

    fn for_cpu(&self, cpu: &str) -> Result<Box<dyn LoopTarget>, ocannl_mlir::Error> {
        let machine =
            Machine::named(cpu).map_err(|e| ocannl_mlir::Error::invalid(e.to_string()))?;
        Ok(Box::new(Cpu {
            target: OnceLock::from(machine.target()),
        }))
    }

    fn parallel(&self, ranges: &[(i64, i64)]) -> bool {
        ocannl_cpu_plan::parallel(ranges)
    }

    /// A contraction whose kernel starts every result cell at 0 itself
    /// (see `Contraction::starts_result`) needs no fill before it.
    fn initializes(&self, a: &Assignment<'_, '_, '_>) -> bool {
        a.initialize_neutral
            && contraction(a, self.target())
                .is_some_and(|plans| plans.iter().all(Contraction::starts_result))
    }

    /// Contractions in the kernel, whole (tails and gather forms
    /// included: one kernel per phase of a strided one); the rest in
    /// scalar loops.
    fn lower_accumulation<'c, 'a>(
        &self,
        a: &Assignment<'_, 'c, 'a>,
        at: At<'c, 'a>,
    ) -> Result<bool, ocannl_mlir::Error> {
        let Some(plans) = contraction(a, self.target()) else {
            return Ok(false);
        };
        for plan in &plans {
            let fresh = a.initialize_neutral && plan.starts_result();
            crate::kernel::emit(a, at, plan, fresh).map_err(ocannl_mlir::Error::unsupported)?;
        }
        Ok(true)
    }
}

/// The contraction plans of an assignment, if the kernel applies (not
/// when the result is also an operand: the kernel reads operands while
/// it holds result cells in registers; not for buffers of mixed element
/// types). 16-bit cells are computed in f32.
fn contraction(a: &Assignment, target: &Target) -> Option<Vec<Contraction>> {
    if a.tensors[1..].contains(&a.tensors[0]) || !a.one_elt() {
        return None;
    }
    let space: Vec<u64> = a.space.iter().map(|&d| d as u64).collect();
    let dims = a
        .tensors
        .iter()
        .map(|&t| {
            memref_info(t)
                .ok()
                .map(|(d, _)| d.iter().map(|&x| x as u64).collect())
        })
        .collect::<Option<Vec<Vec<u64>>>>()?;
    plan_contraction(a.accum, a.op?, &space, &a.exprs, &dims, &a.elt, target)
}
