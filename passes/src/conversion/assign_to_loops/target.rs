//! What `ocannl-lower-to-loops` asks of a target: which loop nests run in
//! parallel, and whether an assignment is better computed by a
//! target-specific kernel. The conversion itself is target-neutral; a
//! backend installs its [`LoopTarget`] once per process (the CPU backend's
//! register-blocked contraction kernel and OpenMP policy live in
//! `backends/cpu`), and the default target emits plain sequential loops.

use std::sync::OnceLock;

use ocannl_mlir::At;

use super::accum::Assignment;

/// A target's loop policy and kernels.
pub trait LoopTarget: Send + Sync {
    /// The target's name (for logs).
    fn name(&self) -> &'static str;

    /// Whether a loop nest over `ranges` (half-open, outermost first) whose
    /// outermost iterations touch disjoint cells is worth running in
    /// parallel (as an `scf.parallel` outermost loop).
    fn parallel(&self, ranges: &[(i64, i64)]) -> bool;

    /// Emits `a` with a target-specific kernel at `at` and returns `true`,
    /// or returns `false` (emitting nothing) when no kernel applies: the
    /// conversion then emits scalar loops.
    fn lower_accumulation<'c, 'a>(
        &self,
        a: &Assignment<'_, 'c, 'a>,
        at: At<'c, 'a>,
    ) -> Result<bool, String>;
}

/// Plain sequential loops: no kernel, no parallelism.
pub struct Sequential;

impl LoopTarget for Sequential {
    fn name(&self) -> &'static str {
        "sequential"
    }

    fn parallel(&self, _: &[(i64, i64)]) -> bool {
        false
    }

    fn lower_accumulation<'c, 'a>(
        &self,
        _: &Assignment<'_, 'c, 'a>,
        _: At<'c, 'a>,
    ) -> Result<bool, String> {
        Ok(false)
    }
}

static TARGET: OnceLock<&'static dyn LoopTarget> = OnceLock::new();

/// Installs the process's loop target (the first call wins; returns whether
/// `target` is the one installed).
pub fn install(target: &'static dyn LoopTarget) -> bool {
    TARGET.set(target).is_ok()
}

/// The installed loop target, [`Sequential`] if none was.
pub fn current() -> &'static dyn LoopTarget {
    *TARGET.get_or_init(|| &Sequential)
}
