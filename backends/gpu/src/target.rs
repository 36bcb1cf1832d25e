//! The GPU's loop target: every loop nest of `ocannl-lower-to-loops`
//! becomes a kernel (`gpu.launch`). Loops over independent cells get one
//! thread per cell; an assignment gets one thread per result cell (the
//! other iterators looped over in the thread, reductions in a register),
//! or the shared-memory tiled kernel when it is a large enough
//! contraction. A kernel whose threads own their result cells starts them
//! at the neutral element itself, without a fill kernel before it. The host
//! code left is allocations, launches and frees, without the run-time
//! checks of the CPU's compiled code (the GPU runtime checks allocations).

use ocannl_gpu_plan::tiling;
use ocannl_mlir::{At, Builder};
use ocannl_passes::conversion::assign_to_loops::{target::NestBody, Assignment, LoopTarget};

/// The GPU target (`ocannl-lower-to-loops{target=gpu}`).
pub struct Gpu;

impl LoopTarget for Gpu {
    fn name(&self) -> &'static str {
        "gpu"
    }

    /// Nothing runs on the host: every nest is a kernel.
    fn parallel(&self, _: &[(i64, i64)]) -> bool {
        false
    }

    fn independent_nest<'c, 'a>(
        &self,
        e: &Builder<'c>,
        at: At<'c, 'a>,
        ranges: &[(i64, i64)],
        _: bool,
        body: &mut NestBody<'_, 'c, 'a>,
    ) -> Result<(), String> {
        crate::kernel::cells(e, at, ranges, body)
    }

    /// The kernels start the result at the neutral element where each
    /// thread owns its result cells (no fill kernel before them).
    fn initializes(&self, a: &Assignment<'_, '_, '_>) -> bool {
        crate::kernel::owns_result(a)
    }

    /// No checks in the compiled code: the host code is the runtime's
    /// steps (allocations, launches, frees), and the runtime checks each
    /// allocation itself. Index operands are not checked on the GPU.
    fn runtime_checks(&self) -> bool {
        false
    }

    fn lower_accumulation<'c, 'a>(
        &self,
        a: &Assignment<'_, 'c, 'a>,
        at: At<'c, 'a>,
    ) -> Result<bool, ocannl_mlir::Error> {
        let space: Vec<u64> = a.space.iter().map(|&d| d as u64).collect();
        let tiled = (matches!(a.elt.as_str(), "f32" | "f64") && a.computes_as_stored())
            .then(|| tiling::plan_matmul(a.accum, a.op?, &space, &a.exprs))
            .flatten();
        match tiled {
            Some(plan) => crate::matmul::emit(a, at, &plan),
            None => crate::kernel::per_result_cell(a, at),
        }
        .map_err(ocannl_mlir::Error::unsupported)?;
        Ok(true)
    }
}
