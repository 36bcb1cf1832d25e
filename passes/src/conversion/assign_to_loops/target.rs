//! What `ocannl-lower-to-loops` asks of a target: which loop nests run in
//! parallel, how loops over independent cells are run, and whether an
//! assignment is better computed by a target-specific kernel. The
//! conversion itself is target-neutral.
//!
//! Targets are registered by name ([`register`]); the pass option
//! `ocannl-lower-to-loops{target=NAME}` picks one, and without it the pass
//! uses the process's default target ([`install`]: the CPU backend installs
//! itself, so `ocannl-opt --ocannl-lower-to-loops` lowers for the CPU). The
//! default target emits plain sequential loops.

use std::sync::{Mutex, OnceLock};

use melior::ir::Value;
use ocannl_mlir::{At, Builder};

use super::assignment::Assignment;

/// The body of a loop nest: gets the insertion point inside and the
/// induction variables (outermost first).
pub type NestBody<'f, 'c, 'a> = dyn FnMut(At<'c, 'a>, &[Value<'c, 'a>]) -> Result<(), String> + 'f;

/// A target's loop policy and kernels.
pub trait LoopTarget: Send + Sync {
    /// The target's name (`ocannl-lower-to-loops{target=NAME}`, logs).
    fn name(&self) -> &'static str;

    /// The same target planning for the CPU LLVM knows as `cpu` (the pass
    /// option `cpu=NAME`). Targets that plan for no CPU refuse.
    fn for_cpu(&self, cpu: &str) -> Result<Box<dyn LoopTarget>, ocannl_mlir::Error> {
        Err(ocannl_mlir::Error::unsupported(format!(
            "the loop target '{}' plans for no CPU, not '{cpu}'",
            self.name()
        )))
    }

    /// Whether a loop nest over `ranges` (half-open, outermost first) whose
    /// outermost iterations touch disjoint cells is worth running in
    /// parallel (as an `scf.parallel` outermost loop).
    fn parallel(&self, ranges: &[(i64, i64)]) -> bool;

    /// Emits a loop nest over `ranges` in which every iteration writes only
    /// its own cells (fills and initializations). `parallel_outer` is the
    /// conversion's choice for targets that run loops where they are
    /// (whether [`LoopTarget::parallel`] was asked and said yes); the
    /// default emits `scf.for` loops, the outermost an `scf.parallel` when
    /// it holds. Targets that launch kernels override it.
    fn independent_nest<'c, 'a>(
        &self,
        e: &Builder<'c>,
        at: At<'c, 'a>,
        ranges: &[(i64, i64)],
        parallel_outer: bool,
        body: &mut NestBody<'_, 'c, 'a>,
    ) -> Result<(), String> {
        e.nest_parallel(at, ranges, parallel_outer, body)
            .map_err(|e| e.to_string())
    }

    /// Whether the target's code for `a` (with `a.initialize_neutral`)
    /// starts the result at the neutral element itself, so that the
    /// conversion emits no fill before it. By default it does not.
    fn initializes(&self, _a: &Assignment<'_, '_, '_>) -> bool {
        false
    }

    /// Whether the compiled code checks what can only fail at run time
    /// (allocations, index operands) into the module's status global and
    /// skips the work after a failure (see `checks`). By default it does;
    /// a target whose host code is carried out by its own runtime rather
    /// than compiled (the GPU's: allocations, launches and frees) checks
    /// there instead and says no.
    fn runtime_checks(&self) -> bool {
        true
    }

    /// Emits `a` with a target-specific kernel at `at` and returns `true`,
    /// or returns `false` (emitting nothing) when no kernel applies: the
    /// conversion then emits scalar loops.
    fn lower_accumulation<'c, 'a>(
        &self,
        a: &Assignment<'_, 'c, 'a>,
        at: At<'c, 'a>,
    ) -> Result<bool, ocannl_mlir::Error>;
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
    ) -> Result<bool, ocannl_mlir::Error> {
        Ok(false)
    }
}

static TARGET: OnceLock<&'static dyn LoopTarget> = OnceLock::new();

static REGISTRY: Mutex<Vec<&'static dyn LoopTarget>> = Mutex::new(Vec::new());

/// Makes `target` known by its name to `ocannl-lower-to-loops{target=...}`
/// (a later registration of the same name replaces the earlier one).
pub fn register(target: &'static dyn LoopTarget) {
    let mut r = REGISTRY.lock().unwrap_or_else(|p| p.into_inner());
    r.retain(|t| t.name() != target.name());
    r.push(target);
}

/// The registered target named `name` (`sequential` is always known).
pub fn by_name(name: &str) -> Option<&'static dyn LoopTarget> {
    if name == Sequential.name() {
        return Some(&Sequential);
    }
    let r = REGISTRY.lock().unwrap_or_else(|p| p.into_inner());
    r.iter().find(|t| t.name() == name).copied()
}

/// The names of the known targets, sorted.
pub fn names() -> Vec<&'static str> {
    let r = REGISTRY.lock().unwrap_or_else(|p| p.into_inner());
    let mut n: Vec<&'static str> = r.iter().map(|t| t.name()).collect();
    n.push(Sequential.name());
    n.sort_unstable();
    n.dedup();
    n
}

/// Installs the process's default loop target (the first call wins;
/// returns whether `target` is the one installed) and registers it.
pub fn install(target: &'static dyn LoopTarget) -> bool {
    register(target);
    TARGET.set(target).is_ok()
}

/// The installed loop target, [`Sequential`] if none was.
pub fn current() -> &'static dyn LoopTarget {
    *TARGET.get_or_init(|| &Sequential)
}

/// The target an `ocannl-lower-to-loops` run uses: the one named (an
/// error naming the known ones if there is none), or the default for an
/// empty name.
pub(crate) fn select(name: &str) -> Result<&'static dyn LoopTarget, String> {
    if name.is_empty() {
        return Ok(current());
    }
    by_name(name).ok_or_else(|| {
        format!(
            "unknown loop target '{name}' (known targets: {})",
            names().join(", ")
        )
    })
}
