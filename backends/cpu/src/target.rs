//! The CPU's loop target: what `ocannl-lower-to-loops` runs in parallel,
//! and contractions computed by the register-blocked kernel.

use ocannl_cpu_plan::{tiling, Tile};
use ocannl_mlir::At;
use ocannl_passes::conversion::assign_to_loops::{accum::scalar, Assignment, LoopTarget};

/// The CPU target.
pub struct Cpu;

impl LoopTarget for Cpu {
    fn name(&self) -> &'static str {
        "cpu"
    }

    fn parallel(&self, ranges: &[(i64, i64)]) -> bool {
        ocannl_cpu_plan::parallel(ranges)
    }

    /// Full tiles in the kernel; the last rows and columns in scalar loops.
    fn lower_accumulation<'c, 'a>(
        &self,
        a: &Assignment<'_, 'c, 'a>,
        at: At<'c, 'a>,
    ) -> Result<bool, String> {
        let Some((plan, tile)) = contraction(a) else {
            return Ok(false);
        };
        let full: Vec<(i64, i64)> = a.space.iter().map(|&d| (0, d)).collect();
        let (m, n) = (a.space[plan.i], a.space[plan.j]);
        let (mt, nt) = (m / tile.mr * tile.mr, n / tile.nr * tile.nr);
        crate::kernel::emit(a, self, at, &plan, &tile, mt, nt)?;
        if mt < m {
            let mut r = full.clone();
            r[plan.i] = (mt, m);
            scalar(a, self, at, &r)?;
        }
        if nt < n {
            let mut r = full;
            r[plan.i] = (0, mt);
            r[plan.j] = (nt, n);
            scalar(a, self, at, &r)?;
        }
        Ok(true)
    }
}

/// The contraction plan and tile of an assignment, if the kernel applies.
fn contraction(a: &Assignment) -> Option<(tiling::Contraction, Tile)> {
    let tile = Tile::for_element(&a.elt)?;
    let space: Vec<u64> = a.space.iter().map(|&d| d as u64).collect();
    tiling::plan_contraction(
        a.accum,
        a.op?,
        &space,
        &a.exprs,
        tile.mr as u64,
        tile.nr as u64,
    )
    .map(|p| (p, tile))
}
