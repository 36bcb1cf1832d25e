//! `ocannl-kernel-bare-ptrs`: outlined kernels take their statically
//! shaped buffers as bare pointers (`!llvm.ptr`).
//!
//! A call with a memref argument passes, once lowered to LLVM, the whole
//! descriptor: two pointers, the offset, and a size and a stride per
//! dimension, each extracted from the caller's descriptor (a buffer of rank
//! 3 is 9 values). A train step's routine calls thousands of kernels with
//! a few buffers each, so most of what the conversion to LLVM, the
//! translation and the code generation of the routine handle is that
//! bookkeeping. For a buffer whose type says everything but its address
//! (static sizes, the identity layout, so offset 0 and row-major strides,
//! the default memory space), only the address crosses the call, as
//! upstream's `use-bare-ptr-memref-call-conv` passes it (which cannot be
//! used here: it applies to every function, and the public routines keep
//! their C interface).
//!
//! For every kernel (a `func.func` with `ocannl.kernel_kind`, from
//! `ocannl-outline-kernels`), each such memref argument becomes an
//! `!llvm.ptr`; the kernel's entry rebuilds the descriptor from it (the
//! pointer as both the allocated and the aligned pointer, offset 0, the
//! sizes and strides as constants) and casts it back to the memref
//! (`builtin.unrealized_conversion_cast`, which the conversions to LLVM
//! fold). Each call passes the aligned pointer of the caller's buffer (its
//! descriptor's second field, through the same cast), read once per buffer
//! just after the buffer is defined. Other arguments
//! (scalars, dynamic shapes, other layouts) are passed as they were. The
//! allocated and aligned pointers are one because the project allocates
//! without an alignment; a kernel frees none of its arguments.
//!
//! A host-code temporary that only kernels read, checked and freed, gets
//! no descriptor either: `llvm.call @malloc`/`@free`. When its check is
//! the run-time checks' call of `@__ocannl_check_allocation`, the
//! allocation and its check are one call of `@__ocannl_allocate` (private,
//! made here: `malloc`, then the check), so that each of a routine's
//! thousands of buffers costs a call and a free.
//!
//! The CPU backend runs it after outlining, before `ocannl-loops-to-llvm`;
//! the kernels' names (the hash of their text) are given before, so
//! deduplication is unchanged.

use melior::ir::{
    attribute::{FlatSymbolRefAttribute, TypeAttribute},
    block::BlockLike,
    operation::OperationLike,
    r#type::FunctionType,
    BlockRef, OperationRef, RegionLike, Type, Value, ValueLike,
};
use ocannl_mlir::{attr, ir, At, Builder};
use rustc_hash::FxHashMap;

use ocannl_passes::{
    framework::{Locate, Options, PassResult},
    transforms::outline_kernels::KIND,
    util::CHECK_ALLOCATION,
};

ocannl_passes::define_pass!(
    DEF,
    run,
    "ocannl-kernel-bare-ptrs",
    "OcannlKernelBarePtrs",
    "Pass the statically shaped buffers of outlined kernels as bare pointers (!llvm.ptr), the descriptor rebuilt inside the kernel",
    [],
    r#"after `ocannl-outline-kernels`, for the CPU: every kernel takes its statically shaped buffers (static sizes, identity layout, default memory space) as `!llvm.ptr` and rebuilds their descriptors inside (the pointer as allocated and aligned pointer, offset 0, sizes and row-major strides as constants, cast back to the memref with `builtin.unrealized_conversion_cast`, which the conversions to LLVM fold); each call passes a buffer's aligned pointer, read once per buffer where it is defined, rather than a descriptor of 5 + 2×rank values. A buffer of the host code that only kernels read, checked for null and freed becomes `llvm.call @malloc`/`@free` with no descriptor at all, and when its check is the call of `@__ocannl_check_allocation`, the allocation and the check are one call of the private `@__ocannl_allocate` (bytes, check number; `malloc`, then the check); a returned buffer keeps its descriptor. Other arguments are left as they are. Upstream `use-bare-ptr-memref-call-conv` is not used: it applies to every function, and the public routines keep their C interface"#
);

/// A memref type whose descriptor is known but for its address.
struct Static {
    /// The memref type's text.
    memref: String,
    /// Its sizes, outermost first.
    sizes: Vec<i64>,
}

impl Static {
    /// The static shape of `ty`'s text, when it is a memref with static
    /// sizes, the identity layout and the default memory space.
    fn of(ty: &str) -> Option<Static> {
        let inner = ty.strip_prefix("memref<")?.strip_suffix('>')?;
        // A layout or a memory space follows a comma; a nested type (a
        // vector element) has angle brackets of its own.
        if inner.contains([',', '<', '?']) {
            return None;
        }
        let mut parts: Vec<&str> = inner.split('x').collect();
        parts.pop()?;
        let sizes = parts
            .iter()
            .map(|p| p.parse::<i64>().ok())
            .collect::<Option<Vec<i64>>>()?;
        Some(Static {
            memref: ty.to_string(),
            sizes,
        })
    }

    /// The LLVM struct the conversions to LLVM give a memref of this rank.
    fn descriptor(&self) -> String {
        match self.sizes.len() {
            0 => "!llvm.struct<(ptr, ptr, i64)>".to_string(),
            r => format!("!llvm.struct<(ptr, ptr, i64, array<{r} x i64>, array<{r} x i64>)>"),
        }
    }

    /// Row-major strides.
    fn strides(&self) -> Vec<i64> {
        let mut s = vec![1i64; self.sizes.len()];
        for i in (0..self.sizes.len().saturating_sub(1)).rev() {
            s[i] = s[i + 1].saturating_mul(self.sizes[i + 1]);
        }
        s
    }
}

fn run<'c>(module: OperationRef<'c, '_>, _: &Options) -> PassResult<'c> {
    let Some(body) = module.region(0).ok().and_then(|r| r.first_block()) else {
        return Ok(());
    };
    let ctx_ref = module.context();
    let ctx = ir::context(&ctx_ref);
    // Each kernel rewritten, with what became of each of its arguments.
    let mut kernels: FxHashMap<String, Vec<Option<Static>>> = FxHashMap::default();
    let mut cur = body.first_operation();
    while let Some(op) = cur {
        cur = op.next_in_block();
        // (The name first: asking an op for a region it lacks prints it.)
        if ir::name(&op) != "func.func" || !op.has_attribute(KIND) {
            continue;
        }
        let Some(name) = op.attribute("sym_name").ok().and_then(attr::string_value) else {
            continue;
        };
        let args = rewrite_kernel(ctx, op).at(op.location())?;
        if args.iter().any(Option::is_some) {
            kernels.insert(name, args);
        }
    }
    if kernels.is_empty() {
        return Ok(());
    }
    let mut ptrs = FxHashMap::default();
    for call in ir::ops_named(module, "func.call") {
        let Some(callee) = ir::callee(call) else {
            continue;
        };
        if let Some(args) = kernels.get(&callee) {
            rewrite_call(ctx, call, args, &mut ptrs).at(call.location())?;
        }
    }
    drop(ptrs);
    malloc_temporaries(ctx, module, body).at(module.location())
}

/// `malloc` and `free` as the conversions to LLVM declare them.
const MALLOC: &str = "malloc";
const FREE: &str = "free";
/// The private function allocating and checking a temporary:
/// `(bytes: i64, check: i64) -> !llvm.ptr`.
const ALLOCATE: &str = "__ocannl_allocate";

/// Makes every statically shaped buffer of the host code that only kernels
/// read (through the pointers [`rewrite_call`] reads), that is checked
/// for null and freed, a bare pointer from `malloc`: no descriptor is
/// built for it. Buffers used otherwise (returned, read by the host code)
/// keep theirs.
fn malloc_temporaries<'c>(
    ctx: &'c melior::Context,
    module: OperationRef<'c, '_>,
    body: BlockRef<'c, '_>,
) -> Result<(), String> {
    // A symbol of these names that is not the C library's as the
    // conversions declare it leaves every buffer as it is.
    let declared = |name: &str| -> Option<OperationRef> {
        let mut cur = body.first_operation();
        while let Some(op) = cur {
            cur = op.next_in_block();
            if op
                .attribute("sym_name")
                .ok()
                .and_then(attr::string_value)
                .as_deref()
                == Some(name)
            {
                return Some(op);
            }
        }
        None
    };
    let b = Builder::new(ctx, module.location());
    let (ptr, i64t) = (
        b.ty("!llvm.ptr").map_err(|e| e.to_string())?,
        b.ty("i64").map_err(|e| e.to_string())?,
    );
    let fn_types = [
        (
            MALLOC,
            b.ty("!llvm.func<ptr (i64)>").map_err(|e| e.to_string())?,
        ),
        (
            FREE,
            b.ty("!llvm.func<void (ptr)>").map_err(|e| e.to_string())?,
        ),
    ];
    for (name, ty) in fn_types {
        match declared(name) {
            None => {}
            Some(op) => {
                let same = ir::name(&op) == "llvm.func"
                    && op
                        .attribute("function_type")
                        .ok()
                        .and_then(|a| TypeAttribute::try_from(a).ok())
                        .is_some_and(|t| t.value() == ty);
                if !same {
                    return Ok(());
                }
            }
        }
    }
    // (The allocating function is made only when the check's is there.)
    let check_declared = declared(CHECK_ALLOCATION).is_some();
    if declared(ALLOCATE).is_some() {
        return Ok(());
    }
    let mut made_allocate = false;
    let mut dead = ir::Graveyard::new();
    let mut used = [false, false];
    for alloc in ir::ops_named(module, "memref.alloc") {
        let Some(plan) = Temporary::of(alloc, check_declared) else {
            continue;
        };
        let b = Builder::new(ctx, alloc.location());
        let p = match plan.checked {
            // The allocation and its check, one call where the check was
            // (its arguments are defined before it).
            Some((_, check)) => {
                let at = At::before(check).map_err(|e| e.to_string())?;
                let operand = |i| check.operand(i).map_err(|e| e.to_string());
                let (id, bytes) = (operand(1)?, operand(2)?);
                if !made_allocate {
                    allocate_fn(ctx, body, module.location())?;
                    made_allocate = true;
                }
                used[0] = true;
                let p = b.place(
                    at,
                    melior::dialect::func::call(
                        ctx,
                        FlatSymbolRefAttribute::new(ctx, ALLOCATE),
                        &[bytes, id],
                        &[ptr],
                        alloc.location(),
                    ),
                );
                p.result(0).map_err(|e| e.to_string())?.into()
            }
            None => {
                let at = At::before(alloc).map_err(|e| e.to_string())?;
                let bytes = b.op1(
                    at,
                    "llvm.mlir.constant",
                    &[],
                    i64t,
                    &[("value", b.i64_attr(plan.bytes))],
                );
                used[0] = true;
                call(&b, at, MALLOC, &[bytes], Some(ptr))?
            }
        };
        // (Buried before their users: the graveyard erases the last first.)
        dead.bury(alloc);
        if let Some((read, check)) = plan.checked {
            dead.bury(read);
            dead.bury(check);
        }
        for cast in plan.casts {
            dead.bury(cast);
            for extract in ir::users(cast.result(0).map_err(|e| e.to_string())?.into()) {
                let v = extract.result(0).map_err(|e| e.to_string())?;
                ir::replace_all_uses(v.into(), p);
                dead.bury(extract);
            }
        }
        for read in plan.addresses {
            let at = At::before(read).map_err(|e| e.to_string())?;
            let i = b.op1(at, "llvm.ptrtoint", &[p], i64t, &[]);
            let x = b.op1(
                at,
                "arith.index_cast",
                &[i],
                b.ty("index").map_err(|e| e.to_string())?,
                &[],
            );
            let v = read.result(0).map_err(|e| e.to_string())?;
            ir::replace_all_uses(v.into(), x);
            dead.bury(read);
        }
        for free in plan.frees {
            let at = At::before(free).map_err(|e| e.to_string())?;
            call(&b, at, FREE, &[p], None)?;
            used[1] = true;
            dead.bury(free);
        }
    }
    // SAFETY: every buried op's results had their uses replaced (the
    // pointers' extracts, the address reads) or have only buried users
    // (the casts, the allocations), and no handle to them is used after.
    unsafe { dead.erase_all() }?;
    for ((name, ty), used) in fn_types.into_iter().zip(used) {
        if used && declared(name).is_none() {
            let decl = melior::ir::operation::OperationBuilder::new("llvm.func", module.location())
                .add_attributes(&[
                    (
                        melior::ir::Identifier::new(ctx, "sym_name"),
                        melior::ir::attribute::StringAttribute::new(ctx, name).into(),
                    ),
                    (
                        melior::ir::Identifier::new(ctx, "function_type"),
                        TypeAttribute::new(ty).into(),
                    ),
                ])
                .add_regions([melior::ir::Region::new()])
                .build()
                .map_err(|e| e.to_string())?;
            body.insert_operation(0, decl);
        }
    }
    Ok(())
}

/// A call of `callee` (`malloc`, `free`) as `llvm.call`.
fn call<'c, 'a>(
    b: &Builder<'c>,
    at: At<'c, 'a>,
    callee: &str,
    args: &[Value<'c, 'a>],
    result: Option<Type<'c>>,
) -> Result<Value<'c, 'a>, String> {
    let n = args.len() as i32;
    let op = b.op(
        at,
        "llvm.call",
        args,
        result.as_slice(),
        &[
            ("callee", FlatSymbolRefAttribute::new(b.ctx, callee).into()),
            ("op_bundle_sizes", b.i32_array_attr(&[])),
            ("operandSegmentSizes", b.i32_array_attr(&[n, 0])),
        ],
    );
    // (A call without a result gives its first argument back, unused; an
    // op is not asked for a result it lacks: melior prints the op, with
    // its whole function, into the error.)
    Ok(if result.is_some() {
        op.result(0).map_err(|e| e.to_string())?.into()
    } else {
        args[0]
    })
}

/// An allocation that can be a bare pointer, and its uses.
struct Temporary<'c, 'a> {
    bytes: i64,
    /// The casts [`rewrite_call`] made to read its pointer.
    casts: Vec<OperationRef<'c, 'a>>,
    /// `memref.extract_aligned_pointer_as_index` (the null checks).
    addresses: Vec<OperationRef<'c, 'a>>,
    /// The one address read whose only use is a call of
    /// [`CHECK_ALLOCATION`], with that call (then not in `addresses`).
    checked: Option<(OperationRef<'c, 'a>, OperationRef<'c, 'a>)>,
    frees: Vec<OperationRef<'c, 'a>>,
}

impl<'c, 'a> Temporary<'c, 'a> {
    /// The plan for `alloc`; its check is folded into the allocation when
    /// `check_declared` (the module has [`CHECK_ALLOCATION`]).
    fn of(alloc: OperationRef<'c, 'a>, check_declared: bool) -> Option<Self> {
        if alloc.operand_count() != 0 || alloc.has_attribute("alignment") {
            return None;
        }
        let r: Value = alloc.result(0).ok()?.into();
        Static::of(&r.r#type().to_string())?;
        let elt = ocannl_mlir::types::element_name(r.r#type())?;
        let elt_bytes = ocannl_assign::element_bytes(&elt)?;
        let dims = ocannl_mlir::types::memref_dims(r.r#type())?;
        let bytes = ocannl_assign::check_buffer(&dims, elt_bytes)
            .ok()?
            .checked_mul(elt_bytes)?;
        let mut t = Temporary {
            bytes: i64::try_from(bytes).ok()?,
            casts: vec![],
            addresses: vec![],
            checked: None,
            frees: vec![],
        };
        for u in ir::users(r) {
            match ir::name(&u).as_str() {
                "builtin.unrealized_conversion_cast" => {
                    let pointers_only = ir::users(u.result(0).ok()?.into()).iter().all(|e| {
                        ir::name(e) == "llvm.extractvalue"
                            && e.attribute("position")
                                .ok()
                                .map(|a| a.to_string())
                                .as_deref()
                                == Some("array<i64: 1>")
                    });
                    if !pointers_only {
                        return None;
                    }
                    t.casts.push(u);
                }
                "memref.extract_aligned_pointer_as_index" => t.addresses.push(u),
                "memref.dealloc" => t.frees.push(u),
                _ => return None,
            }
        }
        if check_declared && t.addresses.len() == 1 {
            let read = t.addresses[0];
            let users = ir::users(read.result(0).ok()?.into());
            if let [check] = users[..] {
                let is_check = ir::name(&check) == "func.call"
                    && ir::callee(check).as_deref() == Some(CHECK_ALLOCATION)
                    && check.operand_count() == 3
                    && check.operand(0).ok() == read.result(0).ok().map(Into::into);
                if is_check {
                    t.addresses.clear();
                    t.checked = Some((read, check));
                }
            }
        }
        Some(t)
    }
}

/// Makes `@__ocannl_allocate(%bytes: i64, %check: i64) -> !llvm.ptr`
/// ([`ALLOCATE`]): `malloc`, then the check of the address (private, and
/// internal in LLVM as the checks' functions are).
fn allocate_fn<'c>(
    ctx: &'c melior::Context,
    body: BlockRef<'c, '_>,
    loc: melior::ir::Location<'c>,
) -> Result<(), String> {
    use melior::ir::{attribute::StringAttribute, Attribute, Block, Identifier, Region};
    let b = Builder::new(ctx, loc);
    let (ptr, i64t, idx) = (
        b.ty("!llvm.ptr").map_err(|e| e.to_string())?,
        b.ty("i64").map_err(|e| e.to_string())?,
        b.ty("index").map_err(|e| e.to_string())?,
    );
    let region = Region::new();
    let entry = region.append_block(Block::new(&[(i64t, loc), (i64t, loc)]));
    let s = |v: &str| -> Attribute<'c> { StringAttribute::new(ctx, v).into() };
    let at = At::end(entry);
    let arg = |i: usize| -> Result<Value, String> {
        entry.argument(i).map(Into::into).map_err(|e| e.to_string())
    };
    let p = call(&b, at, MALLOC, &[arg(0)?], Some(ptr))?;
    let i = b.op1(at, "llvm.ptrtoint", &[p], i64t, &[]);
    let address = b.op1(at, "arith.index_cast", &[i], idx, &[]);
    b.place(
        at,
        melior::dialect::func::call(
            ctx,
            FlatSymbolRefAttribute::new(ctx, CHECK_ALLOCATION),
            &[address, arg(1)?, arg(0)?],
            &[],
            loc,
        ),
    );
    b.place(at, melior::dialect::func::r#return(&[p], loc));
    body.append_operation(melior::dialect::func::func(
        ctx,
        StringAttribute::new(ctx, ALLOCATE),
        TypeAttribute::new(FunctionType::new(ctx, &[i64t, i64t], &[ptr]).into()),
        region,
        &[
            (Identifier::new(ctx, "sym_visibility"), s("private")),
            (
                Identifier::new(ctx, "llvm.linkage"),
                b.attr("#llvm.linkage<internal>")
                    .map_err(|e| e.to_string())?,
            ),
        ],
        loc,
    ));
    Ok(())
}

/// Rewrites a kernel's statically shaped memref arguments as pointers;
/// gives, per argument, its shape when it was rewritten.
fn rewrite_kernel<'c>(
    ctx: &'c melior::Context,
    kernel: OperationRef<'c, '_>,
) -> Result<Vec<Option<Static>>, String> {
    let Some(entry) = kernel.region(0).ok().and_then(|r| r.first_block()) else {
        return Ok(vec![]);
    };
    let Some(first) = entry.first_operation() else {
        return Ok(vec![]);
    };
    let b = Builder::new(ctx, kernel.location());
    let (ptr, i64t) = (
        b.ty("!llvm.ptr").map_err(|e| e.to_string())?,
        b.ty("i64").map_err(|e| e.to_string())?,
    );
    let mut out = vec![];
    let mut types: Vec<Type<'c>> = vec![];
    for i in 0..entry.argument_count() {
        let arg = entry.argument(i).map_err(|e| e.to_string())?;
        let shape = Static::of(&arg.r#type().to_string());
        let Some(s) = &shape else {
            types.push(arg.r#type());
            out.push(None);
            continue;
        };
        let value: Value = arg.into();
        let users = ir::users(value);
        arg.set_type(ptr);
        types.push(ptr);
        // The descriptor, before the kernel's first op.
        let at = || At::before(first);
        let desc_ty = b.ty(&s.descriptor()).map_err(|e| e.to_string())?;
        let constant = |v: i64| -> Result<Value, String> {
            Ok(b.op1(
                at().map_err(|e| e.to_string())?,
                "llvm.mlir.constant",
                &[],
                i64t,
                &[("value", b.i64_attr(v))],
            ))
        };
        let mut fields = vec![(value, vec![0]), (value, vec![1]), (constant(0)?, vec![2])];
        for (k, (&size, stride)) in s.sizes.iter().zip(s.strides()).enumerate() {
            let k = k as i64;
            fields.push((constant(size)?, vec![3, k]));
            fields.push((constant(stride)?, vec![4, k]));
        }
        let mut d = b.op1(
            at().map_err(|e| e.to_string())?,
            "llvm.mlir.poison",
            &[],
            desc_ty,
            &[],
        );
        for (field, position) in fields {
            d = b.op1(
                at().map_err(|e| e.to_string())?,
                "llvm.insertvalue",
                &[d, field],
                desc_ty,
                &[("position", b.i64_array_attr(&position))],
            );
        }
        let memref = b.op1(
            at().map_err(|e| e.to_string())?,
            "builtin.unrealized_conversion_cast",
            &[d],
            b.ty(&s.memref).map_err(|e| e.to_string())?,
            &[],
        );
        let key = ir::key(value);
        for u in users {
            for j in 0..u.operand_count() {
                if u.operand(j).is_ok_and(|v| ir::key(v) == key) {
                    ir::set_operand(u, j, memref);
                }
            }
        }
        out.push(shape);
    }
    if out.iter().any(Option::is_some) {
        let old = ir::function_type(kernel).ok_or("internal error: a kernel without a type")?;
        let results: Vec<Type<'c>> = (0..old.result_count())
            .map(|i| old.result(i).map_err(|e| e.to_string()))
            .collect::<Result<_, _>>()?;
        ir::set_attribute(
            kernel,
            "function_type",
            TypeAttribute::new(FunctionType::new(ctx, &types, &results).into()).into(),
        );
    }
    Ok(out)
}

/// Passes the aligned pointer of each buffer the kernel now takes as a
/// pointer. A buffer's pointer is read once, where the buffer is defined,
/// and `ptrs` keeps it (by value) for every later call.
fn rewrite_call<'c, 'a>(
    ctx: &'c melior::Context,
    call: OperationRef<'c, 'a>,
    args: &[Option<Static>],
    ptrs: &mut FxHashMap<usize, Value<'c, 'a>>,
) -> Result<(), String> {
    let b = Builder::new(ctx, call.location());
    let ptr = b.ty("!llvm.ptr").map_err(|e| e.to_string())?;
    for (i, s) in args.iter().enumerate() {
        let Some(s) = s else { continue };
        let v = call.operand(i).map_err(|e| e.to_string())?;
        let p = match ptrs.get(&ir::key(v)) {
            Some(&p) => p,
            None => {
                let at = after_definition(v)?;
                let desc = b.op1(
                    at,
                    "builtin.unrealized_conversion_cast",
                    &[v],
                    b.ty(&s.descriptor()).map_err(|e| e.to_string())?,
                    &[],
                );
                let at = after_definition(desc)?;
                let p = b.op1(
                    at,
                    "llvm.extractvalue",
                    &[desc],
                    ptr,
                    &[("position", b.i64_array_attr(&[1]))],
                );
                ptrs.insert(ir::key(v), p);
                p
            }
        };
        ir::set_operand(call, i, p);
    }
    Ok(())
}

/// Just after the op defining `v`, or at the start of the block whose
/// argument it is: where what is read of `v` dominates every use of `v`.
fn after_definition<'c, 'a>(v: Value<'c, 'a>) -> Result<At<'c, 'a>, String> {
    if let Some(def) = ir::defining_op(v) {
        return match def.next_in_block() {
            Some(next) => At::before(next).map_err(|e| e.to_string()),
            None => Ok(At::end(
                def.block().ok_or("internal error: an op without a block")?,
            )),
        };
    }
    let block =
        ir::argument_owner(v).ok_or("internal error: a value neither result nor argument")?;
    Ok(match block.first_operation() {
        Some(first) => At::before(first).map_err(|e| e.to_string())?,
        None => At::end(block),
    })
}

#[cfg(test)]
mod tests {
    use super::Static;

    #[test]
    fn static_shapes_and_their_descriptors() {
        let s = Static::of("memref<32x23x64xf32>").unwrap();
        assert_eq!(s.sizes, [32, 23, 64]);
        assert_eq!(s.strides(), [23 * 64, 64, 1]);
        assert_eq!(
            s.descriptor(),
            "!llvm.struct<(ptr, ptr, i64, array<3 x i64>, array<3 x i64>)>"
        );
        let s = Static::of("memref<f64>").unwrap();
        assert!(s.sizes.is_empty() && s.strides().is_empty());
        assert_eq!(s.descriptor(), "!llvm.struct<(ptr, ptr, i64)>");
        assert_eq!(Static::of("memref<4xi64>").unwrap().strides(), [1]);
    }

    #[test]
    fn other_memrefs_keep_their_descriptor() {
        for t in [
            "memref<?x4xf32>",
            "memref<4x4xf32, strided<[8, 1]>>",
            "memref<4xf32, 1>",
            "memref<4xvector<8xf32>>",
            "i64",
            "index",
        ] {
            assert!(Static::of(t).is_none(), "{t}");
        }
    }
}
