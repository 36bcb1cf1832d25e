//! `ocannl-lower-to-loops`: lowers `ocannl_assign` routines to upstream MLIR
//! on memrefs: tensor nodes become `memref.alloc`, every accumulating
//! assignment becomes an `scf.for` nest over its iteration space (after a
//! nest resetting the result to the neutral element when asked), operand
//! indices come from the projections through `affine.apply`, and numeric ops
//! become `arith` / `math` ops. Initialization ops become loops over the
//! cells (in memory order): `fill`, `range`, `literal` (from a
//! `memref.global`), and `uniform` and `normal` (a counter-based generator:
//! SplitMix64 of the seed and the cell's index, so the values depend on
//! nothing else).
//! Nodes that are not returned are freed after their last use.
//!
//! What can only fail at run time is checked by the compiled code
//! ([`checks`]): every allocation, and every index that depends on index
//! operands (a slice's); after a failure, recorded in the module's status
//! global, the assignments that follow are skipped. A target whose host
//! code is not compiled code (the GPU's, which its runtime carries out)
//! asks for none ([`LoopTarget::runtime_checks`]).
//!
//! The conversion is target-neutral; the [`target::LoopTarget`] (the
//! option `target=NAME`, or the tool's default) decides which loops run in
//! parallel and how, and may compute an assignment with its own kernel. The
//! result is plain upstream MLIR (scf, memref, arith, math, affine, vector)
//! that stock `mlir-opt` processes and lowers to LLVM.
//!
//! - [`assignment`]: an accumulating assignment as loops, which asks no
//!   target (what a target decides comes in as arguments).
//! - [`accum`]: an accumulating assignment lowered for a target: the fill
//!   before it, the target's kernel or the scalar loops.
//! - [`init`]: nodes and initializations.
//! - [`numeric`] (in the dialect crate): numeric ops and bodies as
//!   `arith`/`math` ops.
//! - [`dealloc`]: buffer lifetimes.
//! - [`repeat`]: an assignment equal to one lowered before up to its
//!   operands gets a clone of its code; with the option `kernels=true`
//!   (the CPU backend's), each assignment's guarded loops are outlined as
//!   a kernel as they are lowered (`transforms::outline_kernels::Outliner`),
//!   so the clone of a repeat is a call.
//! - [`target`]: the target interface.

pub mod accum;
pub mod assignment;
pub mod checks;
pub mod dealloc;
pub use ocannl_assign_dialect::numeric;
pub mod init;
pub mod repeat;
pub mod target;

use melior::ir::{operation::OperationLike, OperationRef};
use ocannl_mlir::{
    ir::{self, Graveyard},
    At, Builder,
};

use crate::framework::{Locate, Options, PassResult};

use crate::transforms::outline_kernels::Outliner;
pub use assignment::Assignment;
pub use target::LoopTarget;

crate::define_pass!(
    DEF,
    run,
    "ocannl-lower-to-loops",
    "OcannlLowerToLoops",
    "Lower ocannl_assign routines to scf loops over memrefs with arith/math ops (plain upstream MLIR)",
    [
        (
            "target",
            TEXT,
            "",
            "The loop target by name (cpu, gpu, sequential; default: the tool's target)"
        ),
        (
            "cpu",
            TEXT,
            "",
            "The CPU a CPU target plans its kernels for, as LLVM names it (x86-64-v3, skylake-avx512, neoverse-n1; default: OCANNL_TARGET_CPU, else the host)"
        ),
        (
            "explain",
            BOOL,
            "false",
            "Report, as a remark at the op, each contraction that no kernel of the target computes (a sum of at least 65536 points, at least 8 per cell of its buffers): it runs in scalar loops"
        ),
        (
            "kernels",
            BOOL,
            "false",
            "Outline each assignment's loops into a kernel as it is lowered (what ocannl-outline-kernels does), so that an assignment repeated on other buffers is only a call (targets whose compiled code holds the run-time checks: not the GPU, whose launches upstream passes outline)"
        )
    ],
    r#"lowers `ocannl_assign` routines to plain upstream MLIR for a loop target (`cpu`, the default in the tools; `gpu`; `sequential`): `memref.alloc` buffers, `scf.for` nests with `affine.apply` indices, `arith`/`math` numeric ops (reductions carry `fastmath<reassoc,contract>`), neutral-element initialization, literals as `memref.global`s, a counter-based `uniform` and `normal` (Box-Muller); contractions (`compose`, matmul-like einsums, convolutions and their kernel gradients, input gradients in gather form, a strided one in a phase per residue) as a register-blocked `vector` kernel with masked tails; large loops as `scf.parallel` (OpenMP after the upstream lowering); intermediate nodes freed after their last use; an allocation's run-time check is one call of the private `@__ocannl_check_allocation` (address, check number, bytes). An assignment equal to one lowered before up to its buffers (same op, attributes, body and operand types, the same operands shared: a transformer's blocks, a gradient's repeated contributions) gets a clone of that one's code on its own buffers rather than being lowered again. With `kernels=true` (the CPU backend's pipelines) each assignment's guarded loops become a kernel as they are lowered, exactly as `ocannl-outline-kernels` would outline them next (same kernels, same names), so a repeated assignment is only another call of its kernel: a deep model's routine is never materialized as thousands of loop nests"#
);

fn run<'c, 'a>(module: OperationRef<'c, 'a>, options: &Options) -> PassResult<'c> {
    let target = target::select(options.text("target")).at(module.location())?;
    let for_cpu = match options.text("cpu") {
        "" => None,
        cpu => Some(target.for_cpu(cpu).at(module.location())?),
    };
    let target: &dyn LoopTarget = for_cpu.as_deref().unwrap_or(target);
    let ops = ir::collect(module, |op| {
        op.name()
            .as_string_ref()
            .as_str()
            .is_ok_and(|n| n.starts_with("ocannl_assign."))
    });
    for op in &ops {
        if op.name().as_string_ref().as_str() == Ok("ocannl_assign.node") && !init::is_virtual(op) {
            dealloc::free_after_last_use(op).at(op.location())?;
        }
    }
    tracing::debug!(target = target.name(), "lowering to loops");
    let mut globals = 0usize;
    let mut lowered = Graveyard::new();
    let ctx_ref = module.context();
    let ctx = ir::context(&ctx_ref);
    let mut checks = checks::Checks::new(module);
    let mut repeats = repeat::Repeats::default();
    let mut outliner = match options.flag("kernels") {
        true => Outliner::new(ctx, module, true),
        false => None,
    };
    for op in ops {
        let mut s = State {
            globals: &mut globals,
            checks: &mut checks,
            repeats: &mut repeats,
            outliner: outliner.as_mut(),
            explain: options.flag("explain"),
        };
        lower(ctx, module, &op, target, &mut s).at(op.location())?;
        lowered.bury(op);
    }
    tracing::debug!(
        lowered = repeats.lowered,
        reused = repeats.reused,
        "assignments lowered, and cloned from an equal one"
    );
    // SAFETY: the lowered ops were moved into the graveyard; nothing else
    // holds them.
    unsafe { lowered.erase_all() }.at(module.location())?;
    checks.finish(ctx);
    Ok(())
}

/// What the lowering of one op updates.
struct State<'s, 'c, 'a> {
    /// The literals' globals made so far.
    globals: &'s mut usize,
    checks: &'s mut checks::Checks<'c, 'a>,
    repeats: &'s mut repeat::Repeats<'c, 'a>,
    /// With `kernels=true`, what outlines each assignment's loops.
    outliner: Option<&'s mut Outliner<'c, 'a>>,
    /// Report contractions left to scalar loops.
    explain: bool,
}

fn lower<'c, 'a>(
    ctx: &'c melior::Context,
    module: OperationRef<'c, 'a>,
    op: &OperationRef<'c, 'a>,
    target: &dyn LoopTarget,
    s: &mut State<'_, 'c, 'a>,
) -> Result<(), String> {
    let globals = &mut *s.globals;
    let checks = &mut *s.checks;
    let repeats = &mut *s.repeats;
    let e = Builder::new(ctx, op.location());
    let at = At::before(*op).map_err(|e| e.to_string())?;
    let name = op.name();
    let name = name
        .as_string_ref()
        .as_str()
        .map_err(|e| e.to_string())?
        .trim_start_matches("ocannl_assign.");
    match name {
        "node" if init::is_virtual(op) => init::check_virtual_unused(op),
        "node" => {
            let buf = init::node(&e, at, op)?;
            if !target.runtime_checks() {
                return Ok(());
            }
            checks.allocation(&e, at, op, buf)
        }
        "fill" | "range" | "literal" | "uniform" | "normal" | "accum_unop" | "accum_binop"
        | "accum_ternop" | "accum" => {
            // (A random initialization's operands outside its guard, so
            // that they can be its kernel's arguments.)
            let random = match name {
                "uniform" | "normal" => Some(init::random_operands(&e, at, op)?),
                _ => None,
            };
            let mut work = |inner: At<'c, 'a>| match name {
                "fill" => init::fill_op(&e, target, inner, op),
                "range" => init::cells(&e, target, module, inner, op, init::Cells::Range, globals),
                "literal" => {
                    init::cells(&e, target, module, inner, op, init::Cells::Literal, globals)
                }
                "uniform" | "normal" => {
                    let r = random
                        .as_ref()
                        .ok_or("internal error: no random operands")?;
                    init::cells(
                        &e,
                        target,
                        module,
                        inner,
                        op,
                        init::Cells::Random(r),
                        globals,
                    )
                }
                _ => accum::lower(&e, target, inner, op, s.explain),
            };
            let none = &mut |_: &[OperationRef<'c, 'a>]| Ok(());
            if !target.runtime_checks() {
                return repeats.lower(op, at, &mut work, none);
            }
            if name.starts_with("accum") {
                checks.indices(&e, at, op)?;
            }
            // The work runs only while every check so far passed.
            match s.outliner.as_deref_mut() {
                None => checks.guard(&e, at, &mut |inner| {
                    repeats.lower(op, inner, &mut work, none)
                }),
                // The guard with the work, outlined: a repeat is a call.
                Some(outliner) => repeats.lower(
                    op,
                    at,
                    &mut |at| checks.guard(&e, at, &mut work),
                    &mut |made| {
                        for &nest in made {
                            if Outliner::is_nest(nest) {
                                outliner.outline(nest)?;
                            }
                        }
                        outliner.erase_unused()
                    },
                ),
            }
        }
        other => Err(format!("cannot lower 'ocannl_assign.{other}'")),
    }
}
