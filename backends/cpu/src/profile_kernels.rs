//! `ocannl-profile-kernels`: every call of an outlined kernel timed, for the
//! per-kernel profile (`OCANNL_PROFILE=1`, the compile option `profile`).
//!
//! After `ocannl-outline-kernels` (the kernels' buffers still memrefs), for
//! the CPU: each call of a kernel from host code reads the monotonic clock
//! before it (`@__ocannl_now`, `clock_gettime`) and after it adds one call
//! and the nanoseconds to the kernel's row of the public global
//! `@__ocannl_profile` (`memref<N x 2 x i64>`: calls, nanoseconds), which
//! the runtime reads ([`crate::runtime::Program::profile`]). The module gets
//! `ocannl.profile`, one string per row: `name kind work bytes site` (the
//! kernel's multiply-adds and the bytes of its buffers per call). Kernels run
//! one at a time from the host code (their parallel loops inside them), so
//! the rows need no atomics.

use melior::ir::{
    attribute::{ArrayAttribute, FlatSymbolRefAttribute, StringAttribute},
    block::BlockLike,
    operation::OperationLike,
    Attribute, Module, OperationRef, RegionLike,
};
use ocannl_mlir::{attr, ir, types, At, Builder};
use ocannl_passes::{
    framework::{Locate, Options, PassResult},
    transforms::outline_kernels::{KIND, MADDS},
};

ocannl_passes::define_pass!(
    DEF,
    run,
    "ocannl-profile-kernels",
    "OcannlProfileKernels",
    "Time every call of an outlined kernel into the global @__ocannl_profile (calls and nanoseconds per kernel)",
    [],
    r#"after `ocannl-outline-kernels`, for the CPU's profile (`OCANNL_PROFILE=1` or the compile option `profile=on`): each call of a kernel (a function with `ocannl.kernel_kind`) from host code reads the monotonic clock before it (`@__ocannl_now`, `clock_gettime`) and after it adds one call and the elapsed nanoseconds to the kernel's row of the public global `@__ocannl_profile : memref<N x 2 x i64>` (`@__ocannl_profile_add`); the module's `ocannl.profile` lists the rows (`name kind work bytes site`: the kernel's multiply-adds, 0 without any, its buffers' bytes per call, and the location of its first call, `loc("NAME")` as `NAME`, with `+N` when N calls elsewhere share the kernel). A module without kernel calls is left as it is"#
);

/// The global of the rows.
pub const GLOBAL: &str = "__ocannl_profile";
/// The module attribute listing the rows.
pub const TABLE: &str = "ocannl.profile";
const NOW: &str = "__ocannl_now";
const ADD: &str = "__ocannl_profile_add";

/// The helpers, for `n` rows.
fn helpers(n: usize) -> String {
    format!(
        r#"module {{
  llvm.func @clock_gettime(i32, !llvm.ptr) -> i32
  memref.global @{GLOBAL} : memref<{n}x2xi64> = dense<0>
  func.func private @{NOW}() -> i64 attributes {{llvm.linkage = #llvm.linkage<internal>}} {{
    %clock = llvm.mlir.constant(1 : i32) : i32
    %one = llvm.mlir.constant(1 : i64) : i64
    %ts = llvm.alloca %one x !llvm.array<2 x i64> : (i64) -> !llvm.ptr
    %r = llvm.call @clock_gettime(%clock, %ts) : (i32, !llvm.ptr) -> i32
    %s = llvm.load %ts : !llvm.ptr -> i64
    %p = llvm.getelementptr %ts[1] : (!llvm.ptr) -> !llvm.ptr, i64
    %ns = llvm.load %p : !llvm.ptr -> i64
    %g = arith.constant 1000000000 : i64
    %t = arith.muli %s, %g : i64
    %sum = arith.addi %t, %ns : i64
    return %sum : i64
  }}
  func.func private @{ADD}(%row: index, %t0: i64) attributes {{llvm.linkage = #llvm.linkage<internal>}} {{
    %t1 = func.call @{NOW}() : () -> i64
    %d = arith.subi %t1, %t0 : i64
    %g = memref.get_global @{GLOBAL} : memref<{n}x2xi64>
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %one = arith.constant 1 : i64
    %calls = memref.load %g[%row, %c0] : memref<{n}x2xi64>
    %calls1 = arith.addi %calls, %one : i64
    memref.store %calls1, %g[%row, %c0] : memref<{n}x2xi64>
    %ns = memref.load %g[%row, %c1] : memref<{n}x2xi64>
    %ns1 = arith.addi %ns, %d : i64
    memref.store %ns1, %g[%row, %c1] : memref<{n}x2xi64>
    return
  }}
}}"#
    )
}

/// The bytes of a function's memref arguments.
fn argument_bytes(f: OperationRef) -> u64 {
    let Some(ft) = ir::function_type(f) else {
        return 0;
    };
    (0..ft.input_count())
        .filter_map(|i| ft.input(i).ok())
        .filter_map(|t| {
            let dims = types::memref_dims(t)?;
            let elt = types::element_name(t)?;
            let bytes = match elt.as_str() {
                "f64" | "i64" | "index" => 8,
                "f16" | "bf16" | "i16" => 2,
                "i8" | "i1" => 1,
                _ => 4,
            };
            Some(dims.iter().product::<u64>().saturating_mul(bytes))
        })
        .fold(0u64, u64::saturating_add)
}

/// A call's location as the profile shows it: `loc("NAME")` (what the
/// API writes) as `NAME`, `loc("file":L:C)` as `file:L:C`, others as
/// MLIR prints them.
fn site(loc: &str) -> String {
    let inner = loc
        .strip_prefix("loc(")
        .and_then(|l| l.strip_suffix(')'))
        .unwrap_or(loc);
    match inner.strip_prefix('"').and_then(|l| l.split_once('"')) {
        Some((name, "")) => name.to_string(),
        Some((file, rest)) if rest.starts_with(':') => format!("{file}{rest}"),
        _ => inner.to_string(),
    }
}

fn run<'c>(module: OperationRef<'c, '_>, _: &Options) -> PassResult<'c> {
    let loc = module.location();
    let ctx_ref = module.context();
    let ctx = ir::context(&ctx_ref);
    let functions = ir::functions_by_name(module);
    let is_kernel = |name: &str| functions.get(name).is_some_and(|f| f.has_attribute(KIND));
    // Calls of kernels from host code, in order; rows in order of first call.
    let mut rows: Vec<String> = vec![];
    let mut sites: Vec<Vec<String>> = vec![];
    let mut calls: Vec<(OperationRef, usize)> = vec![];
    for call in ir::ops_named(module, "func.call") {
        let Some(callee) = ir::callee(call) else {
            continue;
        };
        if !is_kernel(&callee) {
            continue;
        }
        let caller = call.parent_operation();
        if caller.is_some_and(|p| p.has_attribute(KIND)) {
            continue;
        }
        let row = match rows.iter().position(|r| *r == callee) {
            Some(r) => r,
            None => {
                rows.push(callee.clone());
                sites.push(vec![]);
                rows.len() - 1
            }
        };
        let here = site(&call.location().to_string());
        if !sites[row].contains(&here) {
            sites[row].push(here);
        }
        calls.push((call, row));
    }
    if calls.is_empty() {
        return Ok(());
    }
    if functions.contains_key(NOW) || functions.contains_key(ADD) {
        return Err("the module already has the profile's helpers".to_string()).at(loc);
    }
    let helpers = Module::parse(ctx, &helpers(rows.len()))
        .ok_or_else(|| "internal error: the profile's helpers do not parse".to_string())
        .at(loc)?;
    let body = module
        .region(0)
        .ok()
        .and_then(|r| r.first_block())
        .ok_or_else(|| "a module without a body".to_string())
        .at(loc)?;
    let mut op = helpers.body().first_operation();
    while let Some(o) = op {
        op = o.next_in_block();
        body.append_operation(ir::clone(o));
    }
    let b = Builder::new(ctx, loc);
    let i64t = b.ty("i64").at(loc)?;
    for (call, row) in calls {
        let before = At::before(call).at(loc)?;
        let t0 = b
            .place(
                before,
                melior::dialect::func::call(
                    ctx,
                    FlatSymbolRefAttribute::new(ctx, NOW),
                    &[],
                    &[i64t],
                    loc,
                ),
            )
            .result(0)
            .map_err(|e| e.to_string())
            .at(loc)?
            .into();
        let next = call
            .next_in_block()
            .ok_or_else(|| "a kernel call ends its block".to_string())
            .at(loc)?;
        let after = At::before(next).at(loc)?;
        let r = b.index(after, row as i64).at(loc)?;
        b.place(
            after,
            melior::dialect::func::call(
                ctx,
                FlatSymbolRefAttribute::new(ctx, ADD),
                &[r, t0],
                &[],
                loc,
            ),
        );
    }
    let table: Vec<Attribute> = rows
        .iter()
        .zip(&sites)
        .map(|(name, sites)| {
            let f = functions[name.as_str()];
            let kind = f
                .attribute(KIND)
                .ok()
                .and_then(attr::string_value)
                .unwrap_or_default();
            // A kernel's work: its multiply-adds (0 without any).
            let work = f
                .attribute(MADDS)
                .ok()
                .and_then(|a| melior::ir::attribute::IntegerAttribute::try_from(a).ok())
                .map_or(0, |a| a.value());
            let site = match sites.len() {
                0 | 1 => sites.concat(),
                n => format!("{} +{}", sites[0], n - 1),
            };
            let bytes = argument_bytes(f);
            StringAttribute::new(ctx, &format!("{name} {kind} {work} {bytes} {site}")).into()
        })
        .collect();
    ir::set_attribute(module, TABLE, ArrayAttribute::new(ctx, &table).into());
    Ok(())
}
