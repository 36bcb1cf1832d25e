//! Accumulating assignments (`accum_unop|binop|ternop`, `accum`) lowered for
//! a target: the fill of the result when it starts at the neutral element
//! and the target's code does not start it there, then the target's kernel
//! or the scalar loops, in parallel where the target says so.

use melior::ir::{operation::OperationLike, OperationRef};
use ocannl_mlir::{At, Builder};

use crate::diag::Diagnostic;

use super::{
    assignment::{memref_info, Assignment, Iter},
    init::fill,
    target::LoopTarget,
};

/// Contractions of fewer points than this are not reported by `explain`:
/// scalar loops take microseconds.
pub const EXPLAIN_POINTS: i64 = 1 << 16;

/// Points per cell of its buffers from which `explain` reports a
/// contraction in scalar loops.
pub const EXPLAIN_REUSE: i64 = 8;

/// Lowers an `accum_unop|binop|ternop` or `accum` op before itself; with
/// `explain`, a contraction that the target's kernels do not take is
/// reported as a remark at the op.
pub(crate) fn lower<'c, 'a>(
    e: &Builder<'c>,
    target: &dyn LoopTarget,
    at: At<'c, 'a>,
    op: &OperationRef<'c, 'a>,
    explain: bool,
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
    if explain {
        if let Some(points) = contraction_points(&a) {
            Diagnostic::remark(
                op.location(),
                format!(
                    "a contraction of {points} points runs in scalar loops: no kernel of the '{}' target computes it",
                    target.name()
                ),
            )
            .emit();
        }
    }
    let full: Vec<(i64, i64)> = a.space.iter().map(|&d| (0, d)).collect();
    scalar(&a, target, at, &full)
}

/// The points of `a` when it is a contraction worth a kernel: a sum
/// without dynamic indices (a gather's or a scatter's points are not a
/// kernel's), reducing over an iterator the result's indices do not mention, of at
/// least [`EXPLAIN_POINTS`] points, and at least [`EXPLAIN_REUSE`] points
/// per cell of its buffers (each cell read many times: work a kernel does
/// from registers, where a dot product or a sum over a buffer is bound by
/// memory in any loops).
fn contraction_points(a: &Assignment) -> Option<i64> {
    let reduces = (0..a.space.len()).any(|d| !a.exprs[0].iter().any(|e| e.mentions(d)));
    let points = a
        .space
        .iter()
        .try_fold(1i64, |p, &d| p.checked_mul(d))
        .unwrap_or(i64::MAX);
    let cells: i64 = a
        .tensors
        .iter()
        .map(|&t| memref_info(t).map_or(0, |(dims, _)| dims.iter().product::<i64>()))
        .sum();
    (a.accum == ocannl_assign::Accum::Add
        && a.dynamic.is_empty()
        && reduces
        && points >= EXPLAIN_POINTS
        && points / cells.max(1) >= EXPLAIN_REUSE)
        .then_some(points)
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
    a.loops_text(at, &iters, parallel, false)
}
