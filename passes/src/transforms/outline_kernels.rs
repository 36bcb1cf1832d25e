//! `ocannl-outline-kernels{dedup=true explain=false}`: every loop nest of
//! a routine becomes a function of its own, a kernel, and identical kernels
//! are one function.
//!
//! At the loops stage (the output of `ocannl-lower-to-loops`), in every
//! `func.func` of the module with a body (other than the kernels
//! themselves), each maximal loop nest (an `scf.for`, `scf.parallel`,
//! `affine.for` or `affine.parallel` with no loop around it in the
//! function) is moved into a `func.func private` with the `no_inline`
//! attribute (and `passthrough = ["noinline"]`, which upstream
//! `convert-func-to-llvm` carries to the LLVM function, where `no_inline`
//! is dropped) and replaced by a `func.call`. A nest may sit inside `scf.if`
//! (or `affine.if`) guards, the run-time checks: an `scf.if` without `else`
//! and results moves into the kernel with the nest, and with whatever else
//! it holds (other nests, a packing buffer's allocation and free), its
//! condition an argument, so that the routine stays one block of
//! straight-line code (upstream `convert-scf-to-cf` splits the block at
//! each `scf.if`, which costs time quadratic in the routine's length);
//! other guards stay in the routine, around the call. A nest inside any
//! other op (a `gpu.launch` body) is left as it is, and so is any op that
//! is not a loop. So the routine keeps its allocations, checks, calls and
//! frees.
//!
//! A kernel's arguments are the values defined outside the nest that it
//! uses (buffers, index operands, other scalars), in order of first use in
//! a pre-order walk of the nest, an `i1` passed as an `i8` (`arith.extui`
//! before the call, `arith.trunci` in the kernel: LLVM's fast instruction
//! selector, which compiles the host code, takes no call with an `i1`);
//! its results are the nest's results.
//! Constants defined outside (`arith.constant`, and `memref.get_global` of
//! the module's globals, such as the status global) are cloned into the
//! kernel instead, in the same order, so that a kernel does not depend on
//! where its constants were materialized (but for a constant marked
//! `ocannl.kernel_argument`, passed as an argument so that kernels that
//! differ only in it, the uniform initializations of params of one shape
//! with their seeds and ranges, are one function); so is a guard's
//! condition read
//! from a global (the run-time checks' "no failure so far": a
//! `memref.load` of the status global compared with `arith.cmpi`) when
//! only `arith` ops, global reads and loads lie between that load and the
//! nest, so the kernel reads what the routine would have and the routine
//! keeps no load, comparison or argument per call (what the routine no
//! longer uses is erased from it). A condition read before a call or a
//! store crosses as an argument.
//!
//! A kernel is named after the SHA-256 of its text: the function printed
//! on its own (values numbered from the function, `%arg0`, `%0`, ...;
//! no locations) under a placeholder name,
//! `@__ocannl_kernel_<first 16 hex digits>`. So kernels equal up to the
//! buffers they are given (same argument types, same body) are one
//! function, and a kernel has the same name in every run and every module.
//! A name already held by another symbol, or by a kernel of another text,
//! is extended (32 hex digits, then all 64, then a number): two different
//! kernels are never merged. With `dedup=false` every nest gets a function
//! of its own (a repeated kernel's name gets a number).
//!
//! For the backend, each kernel carries:
//! - `ocannl.kernel_work` (i64): the iterations of the nest, from the
//!   static trip counts: a loop's trips times the iterations of what it
//!   holds (at least one), summed over sibling loops and over both
//!   branches of an `if`; saturating. Absent when a trip count is not a
//!   constant (a bound from an argument, an `affine.parallel`).
//! - `ocannl.kernel_kind` (string): `"contraction"` when the nest holds a
//!   `vector.fma` or `vector.contract` (the CPU's contraction kernel) or a
//!   loop carrying values (`scf.for`/`affine.for` with results: a reduction
//!   carried in registers), else `"elementwise"`.
//!
//! With `explain=true`, each routine gets a remark: `@F: N kernels, M distinct`
//! (the kernels it calls, and how many of them are different functions).
//! The pass is target-neutral; the CPU backend runs it before lowering to
//! LLVM (the GPU's nests are `gpu.launch` ops, outlined by upstream
//! `gpu-kernel-outlining`). Running it again changes nothing: kernels are
//! not outlined again.

use melior::ir::{
    attribute::{
        ArrayAttribute, FlatSymbolRefAttribute, IntegerAttribute, StringAttribute, TypeAttribute,
    },
    block::BlockLike,
    operation::OperationLike,
    r#type::{FunctionType, IntegerType},
    Attribute, Block, BlockRef, Identifier, OperationRef, Region, RegionLike, Type, Value,
    ValueLike,
};
use melior::Context;
use ocannl_mlir::{attr, ir, At, Builder};
use rustc_hash::{FxHashMap, FxHashSet};
use sha2::{Digest, Sha256};

use crate::{
    diag::Diagnostic,
    framework::{Locate, Options, PassResult},
    util::{bool_from_call, bool_to_call},
};

crate::define_pass!(
    DEF,
    run,
    "ocannl-outline-kernels",
    "OcannlOutlineKernels",
    "Move every loop nest of a routine into a private no_inline function (a kernel) called from the routine; identical kernels are one function, named after the hash of its text",
    [
        (
            "dedup",
            BOOL,
            "true",
            "Share one function among identical kernels (of the same or different routines)"
        ),
        (
            "explain",
            BOOL,
            "false",
            "Report per routine the number of kernels and of distinct ones as a remark"
        ),
    ],
    r#"at the loops stage, moves every maximal loop nest of a routine (an `scf.for`/`scf.parallel`/`affine.for`/`affine.parallel` with no loop around it, possibly inside the `scf.if` guards of the run-time checks, which stay) into a kernel, a `func.func private` with `no_inline` (and `passthrough = ["noinline"]`, which the conversion to LLVM keeps), called in its place: the routine keeps its allocations, checks, calls and frees. A kernel's arguments are the values from outside the nest that it uses, in order of first use; constants (`arith.constant`, `memref.get_global`) are cloned into it (but for a constant marked `ocannl.kernel_argument`, passed as an argument: `ocannl-lower-to-loops` marks a uniform initialization's seed, scale and offset so, and the initializations of params of one shape share a kernel), and so is a guard's condition read from a global (the status of the run-time checks) when nothing but `arith` ops and reads lie between the read and the nest. Kernels equal up to their buffers are one function, named after the SHA-256 of its text (printed once per distinct kernel: one equivalent to a kernel already named, found by a structural hash and MLIR's `OperationEquivalence`, takes its name) (`@__ocannl_kernel_<16 hex digits>`, the same in every run and module; a name taken by another symbol or another kernel is extended, never merged); `dedup=false` keeps a function per nest. Each kernel has `ocannl.kernel_work` (iterations from static trip counts, saturating; absent when a bound is not constant), `ocannl.kernel_madds` (multiply-adds: the nest's `ocannl.madds` when a backend's kernel marked it so, else each `vector.fma`, `math.fma` or `arith.mulf` times its lanes and the trips around it; absent without any or when a bound is not constant) and `ocannl.kernel_kind` (`"contraction"` with `vector.fma`/`vector.contract` or a loop carrying values, else `"elementwise"`); `explain=true` reports `@F: N kernels, M distinct` per routine (the kernels it calls, outlined by this pass or before it). Ops other than loops (a `gpu.launch`) and loops under them are left alone; kernels are not outlined again. The CPU backend runs it before lowering to LLVM; the GPU's pipeline does not"#
);

/// The loop ops whose outermost instances become kernels.
const LOOPS: [&str; 4] = ["scf.for", "scf.parallel", "affine.for", "affine.parallel"];

/// The ops a nest may sit in and still be outlined (they stay in the
/// routine).
const GUARDS: [&str; 2] = ["scf.if", "affine.if"];

/// Ops defined outside a nest that are cloned into its kernel rather than
/// passed.
const CONSTANTS: [&str; 2] = ["arith.constant", "memref.get_global"];

/// The attribute of a constant that a kernel takes as an argument rather
/// than a copy, so that kernels differing only in it are one function (a
/// uniform initialization's seed and range).
pub const KERNEL_ARGUMENT: &str = "ocannl.kernel_argument";

/// The prefix of kernels' names.
pub const PREFIX: &str = "__ocannl_kernel_";

/// A kernel's name while its text is printed and hashed.
const PLACEHOLDER: &str = "__ocannl_kernel";

/// The kernel attribute naming its kind (`"contraction"`,
/// `"elementwise"`); it also marks a function as a kernel.
pub const KIND: &str = "ocannl.kernel_kind";

/// The kind of a kernel holding a contraction.
pub const CONTRACTION: &str = "contraction";

/// The kind of every other kernel.
pub const ELEMENTWISE: &str = "elementwise";

/// The kernel attribute holding its iterations.
pub const WORK: &str = "ocannl.kernel_work";
/// A kernel's multiply-adds per call (each `vector.fma`, `math.fma` or
/// `arith.mulf` times its lanes and the trips of the loops around it; a
/// masked tail counted whole), when every trip count is static.
pub const MADDS: &str = "ocannl.kernel_madds";

/// The attribute of a loop nest that says its multiply-adds (set by a
/// backend's kernel, whose loops' bounds may be dynamic): [`MADDS`] counts
/// that for the nest instead of what is inside it.
pub const NEST_MADDS: &str = "ocannl.madds";

fn run<'c>(module: OperationRef<'c, '_>, options: &Options) -> PassResult<'c> {
    let dedup = options.flag("dedup");
    let explain = options.flag("explain");
    let ctx_ref = module.context();
    let ctx = ir::context(&ctx_ref);
    let Some(mut outliner) = Outliner::new(ctx, module, dedup) else {
        return Ok(());
    };
    for func in routines(module) {
        for nest in nests(func) {
            let loc = nest.location();
            outliner.outline(nest).at(loc)?;
        }
        outliner.erase_unused().at(func.location())?;
        if explain {
            // The kernels it calls: outlined now, or before (by
            // `ocannl-lower-to-loops{kernels=true}`).
            let mut called: Vec<String> = ir::ops_named(func, "func.call")
                .into_iter()
                .filter_map(ir::callee)
                .filter(|c| outliner.is_kernel(c))
                .collect();
            let n = called.len();
            called.sort();
            called.dedup();
            let plural = if n == 1 { "" } else { "s" };
            let name = func
                .attribute("sym_name")
                .ok()
                .and_then(attr::string_value)
                .unwrap_or_default();
            Diagnostic::remark(
                func.location(),
                format!("@{name}: {n} kernel{plural}, {} distinct", called.len()),
            )
            .emit();
        }
    }
    Ok(())
}

/// Outlines nests one at a time under the module's names: what the pass
/// does to each nest, which `ocannl-lower-to-loops{kernels=true}` also
/// does as it lowers each assignment.
pub struct Outliner<'c, 'a> {
    ctx: &'c Context,
    body: BlockRef<'c, 'a>,
    names: Names,
    dedup: bool,
    /// The constants and conditions cloned into kernels, which the routine
    /// may no longer use.
    cloned: Vec<OperationRef<'c, 'a>>,
}

impl<'c, 'a> Outliner<'c, 'a> {
    /// An outliner of `module`'s nests (every symbol's name taken,
    /// existing kernels known); `None` for a module without a body.
    pub fn new(ctx: &'c Context, module: OperationRef<'c, 'a>, dedup: bool) -> Option<Self> {
        let body = module.region(0).ok().and_then(|r| r.first_block())?;
        let mut names = Names::default();
        let mut cur = body.first_operation();
        while let Some(op) = cur {
            cur = op.next_in_block();
            let Some(name) = op.attribute("sym_name").ok().and_then(attr::string_value) else {
                continue;
            };
            if is_kernel(op) {
                names.existing(ctx, op, name);
            } else {
                names.taken.insert(name, Taken::Symbol);
            }
        }
        Some(Outliner {
            ctx,
            body,
            names,
            dedup,
            cloned: vec![],
        })
    }

    /// Whether `op`, an op of a routine's body, is a nest the pass would
    /// outline: a loop, or an `scf.if` guard (no results, no `else`)
    /// holding one.
    pub fn is_nest(op: OperationRef) -> bool {
        let name = ir::name(&op);
        if LOOPS.contains(&name.as_str()) {
            return true;
        }
        name == "scf.if"
            && op.result_count() == 0
            && op.region(1).ok().is_some_and(|r| r.first_block().is_none())
            && !ir::collect(op, |o| LOOPS.contains(&ir::name(o).as_str())).is_empty()
    }

    /// Whether `name` is a kernel's (made by this outliner or found in
    /// the module).
    pub fn is_kernel(&self, name: &str) -> bool {
        matches!(
            self.names.taken.get(name),
            Some(Taken::Kernel(_) | Taken::Text(_))
        )
    }

    /// Moves `nest` into a kernel called in its place; returns the
    /// kernel's name.
    pub(crate) fn outline(&mut self, nest: OperationRef<'c, 'a>) -> Result<String, String> {
        outline(
            self.ctx,
            self.body,
            nest,
            &mut self.names,
            self.dedup,
            &mut self.cloned,
        )
    }

    /// Erases the constants (and the guards' recomputed conditions) the
    /// kernels took that the routines no longer use.
    pub(crate) fn erase_unused(&mut self) -> Result<(), String> {
        // Found users first (an op whose users all go goes too), buried in
        // order.
        let mut unused = ir::Graveyard::new();
        let mut gone: FxHashSet<usize> = FxHashSet::default();
        let mut dead = vec![];
        for c in self.cloned.iter().rev() {
            let Ok(r) = c.result(0) else { continue };
            if gone.contains(&ir::key_op(*c)) {
                continue;
            }
            if ir::users(r.into())
                .iter()
                .all(|u| gone.contains(&ir::key_op(*u)))
            {
                gone.insert(ir::key_op(*c));
                dead.push(*c);
            }
        }
        self.cloned.clear();
        for c in dead.into_iter().rev() {
            unused.bury(c);
        }
        // SAFETY: the buried ops are used only by ops buried after them,
        // and no handle to them (in `cloned`, now empty) is used after.
        unsafe { unused.erase_all() }
    }
}

/// Whether `op` is a kernel (a function with the [`KIND`] attribute).
fn is_kernel(op: OperationRef) -> bool {
    ir::name(&op) == "func.func" && op.has_attribute(KIND)
}

/// The functions of `module` with a body that are not kernels: the
/// routines, whose nests the pass outlines.
fn routines<'c, 'a>(module: OperationRef<'c, 'a>) -> Vec<OperationRef<'c, 'a>> {
    let Some(body) = module.region(0).ok().and_then(|r| r.first_block()) else {
        return vec![];
    };
    let mut routines = vec![];
    let mut cur = body.first_operation();
    while let Some(op) = cur {
        cur = op.next_in_block();
        // (Asked of functions only: asking an op for a region it lacks
        // prints the op, a global's whole initial value.)
        if ir::name(&op) == "func.func"
            && !is_kernel(op)
            && op.region(0).ok().and_then(|r| r.first_block()).is_some()
        {
            routines.push(op);
        }
    }
    routines
}

/// What a function's kernels are made of: its maximal loop nests that can
/// be outlined (loops with no loop around them, and only guards between
/// them and the function), each with the `scf.if` guards around it that
/// have no `else` and no results (see [`enclosing_guard`]), in order, each
/// once (a guard may hold several nests).
fn nests<'c, 'a>(func: OperationRef<'c, 'a>) -> Vec<OperationRef<'c, 'a>> {
    let loops = ir::collect(func, |op| {
        if !LOOPS.contains(&ir::name(op).as_str()) {
            return false;
        }
        let mut p = op.parent_operation();
        while let Some(q) = p {
            if q == func {
                return true;
            }
            if !GUARDS.contains(&ir::name(&q).as_str()) {
                return false;
            }
            p = q.parent_operation();
        }
        false
    });
    let mut roots: Vec<OperationRef<'c, 'a>> = vec![];
    let mut seen: FxHashSet<usize> = FxHashSet::default();
    for mut root in loops {
        while let Some(guard) = enclosing_guard(root) {
            root = guard;
        }
        if seen.insert(root.to_raw().ptr as usize) {
            roots.push(root);
        }
    }
    roots
}

/// The `scf.if` around `op` when it can move into a kernel with it: no
/// results and no `else`, so that what it holds (the nest, and the host
/// code around it such as a packing buffer's allocation) runs only when
/// its condition holds, and nothing it defines is used outside.
fn enclosing_guard<'c, 'a>(op: OperationRef<'c, 'a>) -> Option<OperationRef<'c, 'a>> {
    let guard = op.parent_operation()?;
    // (The name first: asking an op for a region it lacks prints it.)
    if ir::name(&guard) != "scf.if" || guard.result_count() != 0 {
        return None;
    }
    guard
        .region(1)
        .ok()?
        .first_block()
        .is_none()
        .then_some(guard)
}

/// Whether `v`, defined outside `nest`, is recomputed in the kernel rather
/// than passed: a constant ([`CONSTANTS`]), a comparison of such values
/// (`arith.cmpi`), or a `memref.load` of a global (the status global, read
/// by the run-time checks' guards) at such indices that sits in the nest's
/// block with nothing but `arith` ops, `memref.get_global` and other loads
/// between it and the nest, so that it reads in the kernel what it read
/// before. `chain` gets the ops to clone, each after those it uses.
fn recomputable<'c, 'a>(
    v: Value<'c, 'a>,
    nest: OperationRef<'c, 'a>,
    chain: &mut Vec<OperationRef<'c, 'a>>,
) -> bool {
    let Some(def) = ir::defining_op(v) else {
        return false;
    };
    let name = ir::name(&def);
    if CONSTANTS.contains(&name.as_str()) {
        if def.has_attribute(KERNEL_ARGUMENT) {
            return false;
        }
        chain.push(def);
        return true;
    }
    let reads_global = name == "memref.load"
        && def
            .operand(0)
            .ok()
            .and_then(ir::defining_op)
            .is_some_and(|g| ir::name(&g) == "memref.get_global")
        && def.block() == nest.block()
        && {
            let mut cur = def.next_in_block();
            loop {
                match cur {
                    Some(o) if o == nest => break true,
                    Some(o) => {
                        let n = ir::name(&o);
                        if !(n.starts_with("arith.")
                            || n == "memref.get_global"
                            || n == "memref.load")
                        {
                            break false;
                        }
                        cur = o.next_in_block();
                    }
                    None => break false,
                }
            }
        };
    if !(reads_global || name == "arith.cmpi") {
        return false;
    }
    for operand in def.operands() {
        if !recomputable(operand, nest, chain) {
            return false;
        }
    }
    chain.push(def);
    true
}

/// Moves `nest` into a kernel called in its place; returns the kernel's
/// name.
fn outline<'c, 'a>(
    ctx: &'c Context,
    body: BlockRef<'c, 'a>,
    nest: OperationRef<'c, 'a>,
    names: &mut Names,
    dedup: bool,
    cloned: &mut Vec<OperationRef<'c, 'a>>,
) -> Result<String, String> {
    let loc = nest.location();
    // What the nest uses from outside, in order of first use.
    let mut seen: FxHashSet<usize> = FxHashSet::default();
    let mut args: Vec<Value<'c, 'a>> = vec![];
    let mut consts: Vec<OperationRef<'c, 'a>> = vec![];
    let mut taken: FxHashSet<usize> = FxHashSet::default();
    for op in ir::collect(nest, |_| true) {
        for v in op.operands() {
            if ir::defined_inside(nest, v) || !seen.insert(ir::key(v)) {
                continue;
            }
            let mut chain = vec![];
            if recomputable(v, nest, &mut chain) {
                for def in chain {
                    if taken.insert(ir::key_op(def)) {
                        consts.push(def);
                    }
                }
            } else {
                args.push(v);
            }
        }
    }
    let results: Vec<Value<'c, 'a>> = nest.results().map(Into::into).collect();
    let result_types: Vec<Type<'c>> = results.iter().map(|v| v.r#type()).collect();
    // The call, in the nest's place; an `i1` crosses as
    // `util::CALL_BOOL`.
    let b = Builder::new(ctx, loc);
    let i1 = b.ty("i1").map_err(|e| e.to_string())?;
    let passed: Vec<Value<'c, 'a>> = args
        .iter()
        .map(|&v| -> Result<Value<'c, 'a>, String> {
            if v.r#type() == i1 {
                bool_to_call(&b, At::before(nest).map_err(|e| e.to_string())?, v)
            } else {
                Ok(v)
            }
        })
        .collect::<Result<_, String>>()?;
    let arg_types: Vec<Type<'c>> = passed.iter().map(|v| v.r#type()).collect();
    let call = b.place(
        At::before(nest).map_err(|e| e.to_string())?,
        melior::dialect::func::call(
            ctx,
            FlatSymbolRefAttribute::new(ctx, PLACEHOLDER),
            &passed,
            &result_types,
            loc,
        ),
    );
    for (i, r) in results.iter().enumerate() {
        let new = call.result(i).map_err(|e| e.to_string())?;
        ir::replace_all_uses(*r, new.into());
    }
    // The kernel: the constants cloned, the nest, the return.
    let region = Region::new();
    let arg_locs: Vec<_> = arg_types.iter().map(|t| (*t, loc)).collect();
    region.append_block(Block::new(&arg_locs));
    let s = |v: &str| -> Attribute<'c> { StringAttribute::new(ctx, v).into() };
    let kernel = body.append_operation(melior::dialect::func::func(
        ctx,
        StringAttribute::new(ctx, PLACEHOLDER),
        TypeAttribute::new(FunctionType::new(ctx, &arg_types, &result_types).into()),
        region,
        &[
            (Identifier::new(ctx, "sym_visibility"), s("private")),
            (Identifier::new(ctx, "no_inline"), Attribute::unit(ctx)),
            (
                Identifier::new(ctx, "passthrough"),
                ArrayAttribute::new(ctx, &[s("noinline")]).into(),
            ),
        ],
        loc,
    ));
    let entry = kernel
        .region(0)
        .ok()
        .and_then(|r| r.first_block())
        .ok_or("internal error: a kernel without a body")?;
    let ret = entry.append_operation(melior::dialect::func::r#return(&results, loc));
    let mut map: FxHashMap<usize, Value<'c, 'a>> = FxHashMap::default();
    for (i, a) in args.iter().enumerate() {
        let arg: Value<'c, 'a> = entry.argument(i).map_err(|e| e.to_string())?.into();
        let arg = if a.r#type() == i1 {
            bool_from_call(&b, At::before(ret).map_err(|e| e.to_string())?, arg)?
        } else {
            arg
        };
        map.insert(ir::key(*a), arg);
    }
    cloned.extend(&consts);
    for c in &consts {
        let clone = entry.insert_operation_before(ret, ir::clone(*c));
        // (A recomputed op's operands are ops cloned before it.)
        ir::remap_operands(clone, |v| map.get(&ir::key(v)).copied());
        let (old, new) = (c.result(0), clone.result(0));
        let (old, new) = (
            old.map_err(|e| e.to_string())?,
            new.map_err(|e| e.to_string())?,
        );
        map.insert(ir::key(old.into()), new.into());
    }
    ir::move_before(nest, ret);
    ir::remap_operands(nest, |v| map.get(&ir::key(v)).copied());
    // What the backend reads of it.
    ir::set_attribute(kernel, KIND, s(kind(nest)));
    let work = if LOOPS.contains(&ir::name(&nest).as_str()) {
        nest_work(nest)
    } else {
        inner_work(nest)
    };
    let int = |w: u64| {
        IntegerAttribute::new(
            IntegerType::new(ctx, 64).into(),
            i64::try_from(w).unwrap_or(i64::MAX),
        )
        .into()
    };
    if let Some(w) = work {
        ir::set_attribute(kernel, WORK, int(w));
    }
    if let Some(m) = madds(nest).filter(|&m| m > 0) {
        ir::set_attribute(kernel, MADDS, int(m));
    }
    // Its name, or the existing kernel of the same text: a kernel
    // equivalent to one this run named already takes its name unprinted.
    let hash = names.hash(kernel);
    let (name, new) = match names.equivalent(ctx, kernel, hash).filter(|_| dedup) {
        Some(name) => (name, false),
        None => {
            let text = ir::print_alone(kernel).map_err(|e| e.to_string())?;
            let (name, new) = names.place(ctx, &text, dedup);
            tracing::trace!(%name, new, %text, "kernel");
            if new {
                names.remember(kernel, hash, &name);
            }
            (name, new)
        }
    };
    ir::set_attribute(
        call,
        "callee",
        FlatSymbolRefAttribute::new(ctx, &name).into(),
    );
    if new {
        ir::set_attribute(kernel, "sym_name", s(&name));
    } else {
        let mut dead = ir::Graveyard::new();
        dead.bury(kernel);
        // SAFETY: nothing inside the kernel is used after: its values are
        // used only inside it (the nest's results were replaced by the
        // call's), and the handles to it and to the nest (`kernel`,
        // `entry`, `ret`, `nest`, the values of `map`) go out of scope
        // here.
        unsafe { dead.erase_all() }?;
    }
    Ok(name)
}

/// The text of an existing kernel under the placeholder name (its name
/// restored after).
fn kernel_text<'c>(
    ctx: &'c Context,
    func: OperationRef<'c, '_>,
    name: &str,
) -> Result<String, String> {
    ir::set_attribute(
        func,
        "sym_name",
        StringAttribute::new(ctx, PLACEHOLDER).into(),
    );
    let text = ir::print_alone(func);
    ir::set_attribute(func, "sym_name", StringAttribute::new(ctx, name).into());
    text.map_err(|e| e.to_string())
}

/// `"contraction"` or `"elementwise"` (see the module's documentation).
fn kind(nest: OperationRef) -> &'static str {
    let contraction = !ir::collect(nest, |op| {
        let n = ir::name(op);
        matches!(n.as_str(), "vector.fma" | "vector.contract")
            || (matches!(n.as_str(), "scf.for" | "affine.for") && op.result_count() > 0)
    })
    .is_empty();
    if contraction {
        CONTRACTION
    } else {
        ELEMENTWISE
    }
}

/// The iterations of a loop: its trips times the iterations of what it
/// holds (at least one); `None` when a trip count is unknown.
fn nest_work(op: OperationRef) -> Option<u64> {
    Some(trips(op)?.saturating_mul(inner_work(op)?.max(1)))
}

/// The ops directly inside `op`'s regions, in order.
fn children<'c, 'a>(op: OperationRef<'c, 'a>) -> Vec<OperationRef<'c, 'a>> {
    let mut out = vec![];
    for region in op.regions() {
        let mut block = region.first_block();
        while let Some(b) = block {
            let mut cur = b.first_operation();
            while let Some(o) = cur {
                out.push(o);
                cur = o.next_in_block();
            }
            block = b.next_in_region();
        }
    }
    out
}

/// The iterations of the loops inside `op` with no loop between them and
/// `op`, summed (both branches of an `if` counted).
fn inner_work(op: OperationRef) -> Option<u64> {
    let mut total = 0u64;
    for o in children(op) {
        let w = if LOOPS.contains(&ir::name(&o).as_str()) {
            nest_work(o)?
        } else {
            inner_work(o)?
        };
        total = total.saturating_add(w);
    }
    Some(total)
}

/// The multiply-adds of `op` (see [`MADDS`]): its [`NEST_MADDS`] when it
/// has one; `None` when a loop's trip count is not static.
fn madds(op: OperationRef) -> Option<u64> {
    if let Some(marked) = op
        .attribute(NEST_MADDS)
        .ok()
        .and_then(|a| IntegerAttribute::try_from(a).ok())
    {
        return u64::try_from(marked.value()).ok();
    }
    let name = ir::name(&op);
    let own: u64 = match name.as_str() {
        "vector.fma" | "math.fma" | "arith.mulf" => op
            .result(0)
            .ok()
            .and_then(|r| ocannl_mlir::types::vector_dims(r.r#type()))
            .map_or(1, |d| d.iter().product()),
        _ => 0,
    };
    let mut inner = 0u64;
    for o in children(op) {
        inner = inner.saturating_add(madds(o)?);
    }
    let inner = if LOOPS.contains(&name.as_str()) {
        trips(op)?.saturating_mul(inner)
    } else {
        inner
    };
    Some(own.saturating_add(inner))
}

/// The static trip count of a loop op.
fn trips(op: OperationRef) -> Option<u64> {
    let operand = |i: usize| op.operand(i).ok().and_then(constant_index);
    match ir::name(&op).as_str() {
        "scf.for" => trip_count(operand(0)?, operand(1)?, operand(2)?),
        "scf.parallel" => {
            let n = op.region(0).ok()?.first_block()?.argument_count();
            (0..n).try_fold(1u64, |acc, d| {
                let t = trip_count(operand(d)?, operand(n + d)?, operand(2 * n + d)?)?;
                Some(acc.saturating_mul(t))
            })
        }
        "affine.for" => {
            let bound = |name: &str| {
                let map = attr::affine_map(op.attribute(name).ok()?)?;
                map.is_single_constant()
                    .then(|| map.single_constant_result())
            };
            let step = attr::int_value(op.attribute("step").ok()?)?;
            trip_count(bound("lowerBoundMap")?, bound("upperBoundMap")?, step)
        }
        _ => None,
    }
}

/// The value of an `index` constant.
fn constant_index(v: Value) -> Option<i64> {
    let def = ir::defining_op(v)?;
    if ir::name(&def) != "arith.constant" {
        return None;
    }
    attr::int_value(def.attribute("value").ok()?)
}

/// Trips of a loop from `lb` to `ub` by `step` (`None` for a step that is
/// not positive).
fn trip_count(lb: i64, ub: i64, step: i64) -> Option<u64> {
    if step <= 0 {
        return None;
    }
    if ub <= lb {
        return Some(0);
    }
    let span = i128::from(ub) - i128::from(lb);
    u64::try_from((span + i128::from(step) - 1) / i128::from(step)).ok()
}

/// What holds a name in the module.
enum Taken {
    /// A symbol other than a kernel.
    Symbol,
    /// A kernel of this text.
    Text(String),
    /// A kernel of the module as the pass found it, its text read when
    /// needed (a name clash, which a kernel equivalent to it avoids).
    Kernel(mlir_sys::MlirOperation),
}

/// The module's symbol names: kernels with their text, other symbols
/// without; and the kernels named in this run or found in the module, by
/// structural hash.
#[derive(Default)]
struct Names {
    taken: FxHashMap<String, Taken>,
    /// Kernels named in this run (under their names), by the structural
    /// hash they had under the placeholder name: a new kernel equivalent to
    /// one of them (MLIR's `OperationEquivalence`) has the same text, so
    /// it is not printed (printing every nest of a deep model's routines
    /// was most of this pass's time).
    named: FxHashMap<u64, Vec<(mlir_sys::MlirOperation, String)>>,
}

impl Names {
    /// The structural hash of a kernel under the placeholder name.
    fn hash(&self, kernel: OperationRef) -> u64 {
        // SAFETY: a live op, read only.
        unsafe { crate::ffi::ocannl_op_structural_hash(kernel.to_raw()) }
    }

    /// The name of a kernel of this run equivalent to `kernel` (under the
    /// placeholder name, of structural hash `hash`).
    fn equivalent<'c>(
        &self,
        ctx: &'c Context,
        kernel: OperationRef<'c, '_>,
        hash: u64,
    ) -> Option<String> {
        let set = |name: &str| {
            ir::set_attribute(kernel, "sym_name", StringAttribute::new(ctx, name).into())
        };
        let found = self.named.get(&hash)?.iter().find(|(other, name)| {
            // Compared under one name: the name is part of the op.
            set(name);
            // SAFETY: both ops are live (kernels of this run are erased
            // only when not named, so never one in `named`).
            unsafe { crate::ffi::ocannl_ops_equivalent(kernel.to_raw(), *other) }
        });
        set(PLACEHOLDER);
        found.map(|(_, name)| name.clone())
    }

    /// Records a kernel of the module named `name`, found by the pass.
    fn existing<'c>(&mut self, ctx: &'c Context, kernel: OperationRef<'c, '_>, name: String) {
        let set = |name: &str| {
            ir::set_attribute(kernel, "sym_name", StringAttribute::new(ctx, name).into())
        };
        set(PLACEHOLDER);
        let hash = self.hash(kernel);
        set(&name);
        self.remember(kernel, hash, &name);
        self.taken.insert(name, Taken::Kernel(kernel.to_raw()));
    }

    /// Records a kernel this run named `name`.
    fn remember(&mut self, kernel: OperationRef, hash: u64, name: &str) {
        self.named
            .entry(hash)
            .or_default()
            .push((kernel.to_raw(), name.to_string()));
    }

    /// The name of a kernel of `text`, and whether it is new (registered
    /// now) rather than an existing kernel of the same text (`dedup`).
    fn place(&mut self, ctx: &Context, text: &str, dedup: bool) -> (String, bool) {
        let hex: String = Sha256::digest(text.as_bytes())
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        for len in [16, 32, 64] {
            let name = format!("{PREFIX}{}", &hex[..len]);
            if let Some(Taken::Kernel(op)) = self.taken.get(&name) {
                // SAFETY: a kernel of the module, alive while the pass runs
                // (kernels the pass finds are never erased).
                let op = unsafe { OperationRef::from_raw(*op) };
                // (A kernel whose text cannot be printed holds its name.)
                let read = kernel_text(ctx, op, &name).map_or(Taken::Symbol, Taken::Text);
                self.taken.insert(name.clone(), read);
            }
            match self.taken.get(&name) {
                None => {
                    self.taken
                        .insert(name.clone(), Taken::Text(text.to_string()));
                    return (name, true);
                }
                Some(Taken::Text(t)) if t == text => {
                    if dedup {
                        return (name, false);
                    }
                    return (self.numbered(&name, text), true);
                }
                // Another symbol, or another kernel whose hash begins the
                // same: a longer name.
                Some(_) => {}
            }
        }
        (self.numbered(&format!("{PREFIX}{hex}"), text), true)
    }

    /// The first free `<base>_<n>`, registered.
    fn numbered(&mut self, base: &str, text: &str) -> String {
        let mut n = 1u64;
        loop {
            let name = format!("{base}_{n}");
            if !self.taken.contains_key(&name) {
                self.taken
                    .insert(name.clone(), Taken::Text(text.to_string()));
                return name;
            }
            n += 1;
        }
    }
}
