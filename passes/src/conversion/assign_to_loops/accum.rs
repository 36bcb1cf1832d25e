//! Accumulating assignments (`accum_unop|binop|ternop`, `accum`) lowered for
//! a target: the fill of the result when it starts at the neutral element
//! and the target's code does not start it there, then the target's kernel
//! or the scalar loops, in parallel where the target says so.

use melior::ir::OperationRef;
use ocannl_mlir::{At, Builder};

use super::{
    assignment::{memref_info, Assignment, Iter},
    init::fill,
    target::LoopTarget,
};

/// Lowers an `accum_unop|binop|ternop` or `accum` op before itself.
pub(crate) fn lower<'c, 'a>(
    e: &Builder<'c>,
    target: &dyn LoopTarget,
    at: At<'c, 'a>,
    op: &OperationRef<'c, 'a>,
) -> Result<(), String> {
    let a = Assignment::read(e, op)?;
    if a.initialize_neutral && !target.initializes(&a) {
        let (lhs_dims, _) = memref_info(a.tensors[0])?;
        let c = a.neutral(at);
        fill(e, target, at, a.tensors[0], &lhs_dims, c)?;
    }
    if target.lower_accumulation(&a, at)? {
        return Ok(());
    }
    let full: Vec<(i64, i64)> = a.space.iter().map(|&d| (0, d)).collect();
    scalar(&a, target, at, &full)
}

/// Scalar loops of `a` over the given `ranges` of its iteration space
/// ([`Assignment::loops`]), the outermost loop parallel when `target` says
/// so for them.
pub(crate) fn scalar<'c, 'a>(
    a: &Assignment<'_, 'c, 'a>,
    target: &dyn LoopTarget,
    at: At<'c, 'a>,
    ranges: &[(i64, i64)],
) -> Result<(), String> {
    let iters = Iter::ranges(ranges);
    let parallel = target.parallel(&a.loop_ranges(&iters));
    a.loops(at, &iters, parallel, false).map_err(String::from)
}
