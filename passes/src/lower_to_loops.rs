//! `ocannl-lower-to-loops`: lowers `ocannl_assign` routines to upstream MLIR
//! on memrefs: tensor nodes become `memref.alloc`, every accumulating
//! assignment becomes an `scf.for` nest over its iteration space (after a
//! nest resetting the result to the neutral element when asked), operand
//! indices come from the projections through `affine.apply`, and numeric ops
//! become `arith` / `math` ops. Initialization ops become loops over the
//! cells (in memory order): `fill`, `range`, `literal` (from a
//! `memref.global`), and `uniform` (a counter-based generator: SplitMix64 of
//! the seed and the cell's index, so the values depend on nothing else).
//!
//! The result is plain upstream MLIR (scf, memref, arith, math, affine) that
//! stock `mlir-opt` processes and lowers to LLVM.

use melior::ir::{
    attribute::{AttributeLike, StringAttribute},
    block::BlockLike,
    operation::{OperationBuilder, OperationLike, WalkOrder, WalkResult},
    r#type::MemRefType,
    Attribute, Block, Identifier, Location, OperationRef, Region, RegionLike, Type, TypeLike,
    Value, ValueLike,
};
use mlir_sys::{MlirOperation, MlirValue};

use crate::{
    diag::Diagnostic,
    registry::{Options, PassResult},
};

crate::define_pass!(
    DEF,
    run,
    "ocannl-lower-to-loops",
    "OcannlLowerToLoops",
    "Lower ocannl_assign routines to scf loops over memrefs with arith/math ops (plain upstream MLIR)",
    []
);

fn run(module: OperationRef, _: &Options) -> PassResult {
    let mut ops: Vec<MlirOperation> = vec![];
    module.walk(WalkOrder::PreOrder, |op| {
        if op
            .name()
            .as_string_ref()
            .as_str()
            .map(|n| n.starts_with("ocannl_assign."))
            .unwrap_or(false)
        {
            ops.push(op.to_raw());
        }
        WalkResult::Advance
    });
    for raw in &ops {
        let op = unsafe { OperationRef::from_raw(*raw) };
        if op.name().as_string_ref().as_str() == Ok("ocannl_assign.node") {
            free_after_last_use(&op).map_err(|msg| Diagnostic::error(op.location(), msg).emit())?;
        }
    }
    let mut globals = 0usize;
    for raw in &ops {
        let op = unsafe { OperationRef::from_raw(*raw) };
        if let Err(msg) = lower(module, &op, &mut globals) {
            Diagnostic::error(op.location(), msg).emit();
            return Err(());
        }
    }
    for raw in ops.iter().rev() {
        unsafe { mlir_sys::mlirOperationDestroy(*raw) };
    }
    Ok(())
}

/// Frees a node's buffer (`memref.dealloc`) after the last op of its block
/// that uses it, unless the block's terminator (`return`) uses it.
fn free_after_last_use(node: &OperationRef) -> Result<(), String> {
    let value = node.result(0).map_err(|e| e.to_string())?.to_raw();
    let block = node
        .block()
        .ok_or("internal error: node without a block")?
        .to_raw();
    let mut last = node.to_raw();
    let mut use_ = unsafe { mlir_sys::mlirValueGetFirstUse(value) };
    while !unsafe { mlir_sys::mlirOpOperandIsNull(use_) } {
        // The user's ancestor in the node's block.
        let mut user = unsafe { mlir_sys::mlirOpOperandGetOwner(use_) };
        while unsafe { mlir_sys::mlirOperationGetBlock(user) }.ptr != block.ptr {
            user = unsafe { mlir_sys::mlirOperationGetParentOperation(user) };
            if user.ptr.is_null() {
                return Err("internal error: a node used outside its block".into());
            }
        }
        if unsafe { mlir_sys::mlirOperationGetNextInBlock(user) }
            .ptr
            .is_null()
        {
            return Ok(()); // Returned: the caller owns it.
        }
        if unsafe { OperationRef::from_raw(last) }
            .is_before_in_block(unsafe { OperationRef::from_raw(user) })
        {
            last = user;
        }
        use_ = unsafe { mlir_sys::mlirOpOperandGetNextUse(use_) };
    }
    let dealloc = OperationBuilder::new("memref.dealloc", node.location())
        .add_operands(&[unsafe { Value::from_raw(value) }])
        .build()
        .map_err(|e| e.to_string())?;
    unsafe { mlir_sys::mlirBlockInsertOwnedOperationAfter(block, last, dealloc.into_raw()) };
    Ok(())
}

/// Inserts ops before a fixed op, or appends them to a block.
#[derive(Clone, Copy)]
struct At {
    block: mlir_sys::MlirBlock,
    before: Option<MlirOperation>,
}

struct Emit<'c> {
    ctx: &'c melior::Context,
    loc: Location<'c>,
}

impl<'c> Emit<'c> {
    fn place(&self, at: At, op: melior::ir::Operation<'c>) -> OperationRef<'c, 'c> {
        let raw = op.into_raw();
        unsafe {
            match at.before {
                Some(b) => mlir_sys::mlirBlockInsertOwnedOperationBefore(at.block, b, raw),
                None => mlir_sys::mlirBlockAppendOwnedOperation(at.block, raw),
            }
            OperationRef::from_raw(raw)
        }
    }

    fn ty(&self, text: &str) -> Result<Type<'c>, String> {
        Type::parse(self.ctx, text)
            .ok_or_else(|| format!("internal error: cannot parse type {text}"))
    }

    fn attr(&self, text: &str) -> Result<Attribute<'c>, String> {
        Attribute::parse(self.ctx, text)
            .ok_or_else(|| format!("internal error: cannot parse attribute {text}"))
    }

    /// One op with one result.
    fn op1(
        &self,
        at: At,
        name: &str,
        operands: &[MlirValue],
        result: Type<'c>,
        attrs: &[(&str, Attribute<'c>)],
    ) -> MlirValue {
        let operands: Vec<Value> = operands
            .iter()
            .map(|v| unsafe { Value::from_raw(*v) })
            .collect();
        let attrs: Vec<(Identifier, Attribute)> = attrs
            .iter()
            .map(|(n, a)| (Identifier::new(self.ctx, n), *a))
            .collect();
        let op = OperationBuilder::new(name, self.loc)
            .add_operands(&operands)
            .add_attributes(&attrs)
            .add_results(&[result])
            .build()
            .expect("valid op");
        let op = self.place(at, op);
        op.result(0).expect("one result").to_raw()
    }

    fn op0(&self, at: At, name: &str, operands: &[MlirValue]) {
        let operands: Vec<Value> = operands
            .iter()
            .map(|v| unsafe { Value::from_raw(*v) })
            .collect();
        let op = OperationBuilder::new(name, self.loc)
            .add_operands(&operands)
            .build()
            .expect("valid op");
        self.place(at, op);
    }

    fn constant(&self, at: At, value: &str, ty: &str) -> Result<MlirValue, String> {
        let t = self.ty(ty)?;
        let a = self.attr(&format!("{value} : {ty}"))?;
        Ok(self.op1(at, "arith.constant", &[], t, &[("value", a)]))
    }

    fn float(&self, at: At, v: f64, ty: &str) -> Result<MlirValue, String> {
        let t = self.ty(ty)?;
        let a = melior::ir::attribute::FloatAttribute::new(self.ctx, t, v);
        Ok(self.op1(at, "arith.constant", &[], t, &[("value", a.into())]))
    }

    fn index(&self, at: At, v: i64) -> Result<MlirValue, String> {
        self.constant(at, &v.to_string(), "index")
    }

    /// A loop op `name` with one single-block region: the block takes an
    /// index induction variable and values of `carried` types; `body` fills
    /// it and returns the operands of its `terminator`. Returns the op's
    /// results (`carried` types).
    #[allow(clippy::too_many_arguments)]
    fn loop_op(
        &self,
        at: At,
        name: &str,
        operands: &[MlirValue],
        attrs: &[(&str, Attribute<'c>)],
        carried: &[Type<'c>],
        terminator: &str,
        body: &mut dyn FnMut(At, &[MlirValue]) -> Result<Vec<MlirValue>, String>,
    ) -> Result<Vec<MlirValue>, String> {
        let mut args = vec![(Type::index(self.ctx), self.loc)];
        args.extend(carried.iter().map(|t| (*t, self.loc)));
        let block = Block::new(&args);
        let block_args: Vec<MlirValue> = (0..args.len())
            .map(|k| block.argument(k).expect("block argument").to_raw())
            .collect();
        let inner = At {
            block: block.to_raw(),
            before: None,
        };
        let next: Vec<Value> = body(inner, &block_args)?
            .iter()
            .map(|v| unsafe { Value::from_raw(*v) })
            .collect();
        block.append_operation(
            OperationBuilder::new(terminator, self.loc)
                .add_operands(&next)
                .build()
                .map_err(|e| e.to_string())?,
        );
        let region = Region::new();
        region.append_block(block);
        let operands: Vec<Value> = operands
            .iter()
            .map(|v| unsafe { Value::from_raw(*v) })
            .collect();
        let attrs: Vec<(Identifier, Attribute)> = attrs
            .iter()
            .map(|(n, a)| (Identifier::new(self.ctx, n), *a))
            .collect();
        let op = OperationBuilder::new(name, self.loc)
            .add_operands(&operands)
            .add_attributes(&attrs)
            .add_regions([region])
            .add_results(carried)
            .build()
            .map_err(|e| e.to_string())?;
        let op = self.place(at, op);
        Ok((0..carried.len())
            .map(|k| op.result(k).expect("loop result").to_raw())
            .collect())
    }

    /// One `scf.for` from `lb` to `ub` by `step` carrying `inits`
    /// (`iter_args`): `body` gets the insertion point inside, the induction
    /// variable and the carried values, and returns the next ones. Returns
    /// the final values.
    fn for_loop(
        &self,
        at: At,
        (lb, ub, step): (MlirValue, MlirValue, MlirValue),
        inits: &[MlirValue],
        body: &mut dyn FnMut(At, MlirValue, &[MlirValue]) -> Result<Vec<MlirValue>, String>,
    ) -> Result<Vec<MlirValue>, String> {
        let types: Vec<Type> = inits
            .iter()
            .map(|v| unsafe { Value::from_raw(*v) }.r#type())
            .collect();
        let mut operands = vec![lb, ub, step];
        operands.extend_from_slice(inits);
        self.loop_op(
            at,
            "scf.for",
            &operands,
            &[],
            &types,
            "scf.yield",
            &mut |inner, args| body(inner, args[0], &args[1..]),
        )
    }

    /// One `scf.parallel` from `lb` to `ub` by `step` (iterations that may
    /// run concurrently: the OpenMP lowering spreads them over the cores).
    fn parallel_loop(
        &self,
        at: At,
        (lb, ub, step): (MlirValue, MlirValue, MlirValue),
        body: &mut dyn FnMut(At, MlirValue) -> Result<(), String>,
    ) -> Result<(), String> {
        let segments = [("operandSegmentSizes", self.attr("array<i32: 1, 1, 1, 0>")?)];
        self.loop_op(
            at,
            "scf.parallel",
            &[lb, ub, step],
            &segments,
            &[],
            "scf.reduce",
            &mut |inner, args| body(inner, args[0]).map(|()| vec![]),
        )
        .map(|_| ())
    }

    /// A loop that is parallel when `parallel` holds.
    fn maybe_parallel(
        &self,
        at: At,
        parallel: bool,
        b: (MlirValue, MlirValue, MlirValue),
        body: &mut dyn FnMut(At, MlirValue) -> Result<(), String>,
    ) -> Result<(), String> {
        if parallel {
            self.parallel_loop(at, b, body)
        } else {
            self.for_loop(at, b, &[], &mut |inner, iv, _| {
                body(inner, iv).map(|()| vec![])
            })
            .map(|_| ())
        }
    }

    /// Constant loop bounds `lo..hi` by `step`.
    fn bounds(
        &self,
        at: At,
        lo: i64,
        hi: i64,
        step: i64,
    ) -> Result<(MlirValue, MlirValue, MlirValue), String> {
        Ok((
            self.index(at, lo)?,
            self.index(at, hi)?,
            self.index(at, step)?,
        ))
    }

    /// `scf.for` nests over the half-open `ranges`; `body` gets the
    /// insertion point inside and the induction variables.
    fn nest(
        &self,
        at: At,
        ranges: &[(i64, i64)],
        body: &mut dyn FnMut(At, &[MlirValue]) -> Result<(), String>,
    ) -> Result<(), String> {
        self.reduce_nest(at, ranges, &[], &mut vec![], &mut |inner, ivs, _| {
            body(inner, ivs).map(|()| vec![])
        })
        .map(|_| ())
    }

    /// `scf.for` nests over `ranges` carrying values (`iter_args`): `body`
    /// gets the induction variables (after those already in `ivs`) and the
    /// current values and returns the next; the final values are returned.
    fn reduce_nest(
        &self,
        at: At,
        ranges: &[(i64, i64)],
        carried: &[MlirValue],
        ivs: &mut Vec<MlirValue>,
        body: &mut dyn FnMut(At, &[MlirValue], &[MlirValue]) -> Result<Vec<MlirValue>, String>,
    ) -> Result<Vec<MlirValue>, String> {
        let Some((&(lo, hi), rest)) = ranges.split_first() else {
            return body(at, ivs, carried);
        };
        let b = self.bounds(at, lo, hi, 1)?;
        self.for_loop(at, b, carried, &mut |inner, iv, carried| {
            ivs.push(iv);
            let next = self.reduce_nest(inner, rest, carried, ivs, body);
            ivs.pop();
            next
        })
    }

    /// Like `nest`, with the outermost loop parallel when `parallel` holds
    /// (its iterations must touch disjoint cells).
    fn nest_parallel(
        &self,
        at: At,
        ranges: &[(i64, i64)],
        parallel: bool,
        body: &mut dyn FnMut(At, &[MlirValue]) -> Result<(), String>,
    ) -> Result<(), String> {
        let Some((&(lo, hi), rest)) = ranges.split_first().filter(|_| parallel) else {
            return self.nest(at, ranges, body);
        };
        let b = self.bounds(at, lo, hi, 1)?;
        self.parallel_loop(at, b, &mut |inner, iv| {
            self.nest(inner, rest, &mut |at2, ivs| {
                let mut all = vec![iv];
                all.extend_from_slice(ivs);
                body(at2, &all)
            })
        })
    }

    /// A `memref.alloc` of a static shape, aligned to `alignment` bytes if
    /// given.
    fn alloc(&self, at: At, ty: Type<'c>, alignment: Option<i64>) -> Result<MlirValue, String> {
        let mut attrs = vec![(
            Identifier::new(self.ctx, "operandSegmentSizes"),
            self.attr("array<i32: 0, 0>")?,
        )];
        if let Some(a) = alignment {
            attrs.push((
                Identifier::new(self.ctx, "alignment"),
                self.attr(&format!("{a} : i64"))?,
            ));
        }
        let op = OperationBuilder::new("memref.alloc", self.loc)
            .add_attributes(&attrs)
            .add_results(&[ty])
            .build()
            .map_err(|e| e.to_string())?;
        Ok(self
            .place(at, op)
            .result(0)
            .map_err(|e| e.to_string())?
            .to_raw())
    }

    /// Stores `value` into every cell of `buf`.
    fn fill(&self, at: At, buf: MlirValue, dims: &[i64], value: MlirValue) -> Result<(), String> {
        let ranges: Vec<(i64, i64)> = dims.iter().map(|&d| (0, d)).collect();
        self.nest_parallel(at, &ranges, worth_parallel(&ranges), &mut |inner, ivs| {
            let mut ops = vec![value, buf];
            ops.extend_from_slice(ivs);
            self.op0(inner, "memref.store", &ops);
            Ok(())
        })
    }
}

fn memref_info(v: MlirValue) -> Result<(Vec<i64>, String), String> {
    let ty = unsafe { Value::from_raw(v) }.r#type();
    let t = MemRefType::try_from(ty).map_err(|_| "operands must be memrefs".to_string())?;
    let dims = ocannl_assign_dialect::memref_dims(t)
        .into_iter()
        .map(|d| d as i64)
        .collect();
    let elt =
        unsafe { Type::from_raw(mlir_sys::mlirShapedTypeGetElementType(ty.to_raw())) }.to_string();
    Ok((dims, elt))
}

fn lower(module: OperationRef, op: &OperationRef, globals: &mut usize) -> Result<(), String> {
    // The ContextRef must outlive the reference made from it.
    let ctx_ref = op.context();
    let ctx = unsafe { ctx_ref.to_ref() };
    let e = Emit {
        ctx,
        loc: op.location(),
    };
    let block = op.block().ok_or("internal error: op without a block")?;
    let at = At {
        block: block.to_raw(),
        before: Some(op.to_raw()),
    };
    let name = op
        .name()
        .as_string_ref()
        .as_str()
        .map_err(|e| e.to_string())?
        .trim_start_matches("ocannl_assign.")
        .to_string();
    match name.as_str() {
        "node" => {
            let ty = op.result(0).map_err(|e| e.to_string())?.r#type();
            let alloc = e.alloc(at, ty, None)?;
            let old = op.result(0).map_err(|er| er.to_string())?.to_raw();
            unsafe { mlir_sys::mlirValueReplaceAllUsesOfWith(old, alloc) };
        }
        "fill" => {
            let dest = op.operand(0).map_err(|e| e.to_string())?.to_raw();
            let (dims, elt) = memref_info(dest)?;
            let v = op
                .attribute("value")
                .map_err(|_| "attribute 'value' is required")?;
            let c = e.op1(at, "arith.constant", &[], e.ty(&elt)?, &[("value", v)]);
            e.fill(at, dest, &dims, c)?;
        }
        "range" | "uniform" | "literal" => {
            let dest = op.operand(0).map_err(|e| e.to_string())?.to_raw();
            let (dims, elt) = memref_info(dest)?;
            let st: Vec<i64> = ocannl_assign::row_major_strides(
                &dims.iter().map(|&d| d as u64).collect::<Vec<_>>(),
            )
            .into_iter()
            .map(|s| s as i64)
            .collect();
            let total: i64 = dims.iter().product();
            let source = if name == "literal" {
                // The literal as a private global, read by linear index.
                *globals += 1;
                let gname = format!("__ocannl_literal_{globals}");
                let v = op
                    .attribute("value")
                    .map_err(|_| "attribute 'value' is required")?;
                let gty = format!("memref<{total}x{elt}>");
                let flat = e.ty(&format!("tensor<{total}x{elt}>"))?;
                let init =
                    unsafe { mlir_sys::mlirDenseElementsAttrReshapeGet(v.to_raw(), flat.to_raw()) };
                if init.ptr.is_null() {
                    return Err(format!("cannot read the literal as {total} cells of {elt}"));
                }
                let init = unsafe { Attribute::from_raw(init) };
                let global = OperationBuilder::new("memref.global", e.loc)
                    .add_attributes(&[
                        (
                            Identifier::new(ctx, "sym_name"),
                            StringAttribute::new(ctx, &gname).into(),
                        ),
                        (
                            Identifier::new(ctx, "sym_visibility"),
                            StringAttribute::new(ctx, "private").into(),
                        ),
                        (
                            Identifier::new(ctx, "type"),
                            melior::ir::attribute::TypeAttribute::new(e.ty(&gty)?).into(),
                        ),
                        (Identifier::new(ctx, "initial_value"), init),
                        (Identifier::new(ctx, "constant"), Attribute::unit(ctx)),
                    ])
                    .build()
                    .map_err(|er| er.to_string())?;
                let body_block = module
                    .region(0)
                    .map_err(|er| er.to_string())?
                    .first_block()
                    .ok_or("empty module")?;
                unsafe {
                    mlir_sys::mlirBlockInsertOwnedOperation(
                        body_block.to_raw(),
                        0,
                        global.into_raw(),
                    )
                };
                Some(e.op1(
                    at,
                    "memref.get_global",
                    &[],
                    e.ty(&gty)?,
                    &[("name", e.attr(&format!("@{gname}"))?)],
                ))
            } else {
                None
            };
            let (seed, low, high) = if name == "uniform" {
                let seed = op
                    .attribute("seed")
                    .map_err(|_| "attribute 'seed' is required")?;
                let seed = unsafe { mlir_sys::mlirIntegerAttrGetValueInt(seed.to_raw()) };
                let f = |n: &str, d: f64| {
                    op.attribute(n)
                        .ok()
                        .map(|a| unsafe { mlir_sys::mlirFloatAttrGetValueDouble(a.to_raw()) })
                        .unwrap_or(d)
                };
                (seed, f("low", 0.0), f("high", 1.0))
            } else {
                (0, 0.0, 1.0)
            };
            let ranges: Vec<(i64, i64)> = dims.iter().map(|&d| (0, d)).collect();
            e.nest(at, &ranges, &mut |inner, ivs| {
                // The linear index of the cell.
                let mut lin = e.index(inner, 0)?;
                for (iv, s) in ivs.iter().zip(&st) {
                    let sc = e.index(inner, *s)?;
                    let t = e.op1(inner, "arith.muli", &[*iv, sc], Type::index(ctx), &[]);
                    lin = e.op1(inner, "arith.addi", &[lin, t], Type::index(ctx), &[]);
                }
                let value = match name.as_str() {
                    "literal" => e.op1(
                        inner,
                        "memref.load",
                        &[source.expect("global"), lin],
                        e.ty(&elt)?,
                        &[],
                    ),
                    "range" => {
                        let i = e.op1(inner, "arith.index_cast", &[lin], e.ty("i64")?, &[]);
                        e.op1(inner, "arith.sitofp", &[i], e.ty(&elt)?, &[])
                    }
                    _ => uniform_value(&e, inner, lin, seed, low, high, &elt)?,
                };
                let mut ops = vec![value, dest];
                ops.extend_from_slice(ivs);
                e.op0(inner, "memref.store", &ops);
                Ok(())
            })?;
        }
        "accum_unop" | "accum_binop" | "accum_ternop" => accum(&e, at, op)?,
        other => return Err(format!("cannot lower 'ocannl_assign.{other}'")),
    }
    Ok(())
}

/// SplitMix64 of `seed` and the cell index, scaled to [low, high).
fn uniform_value(
    e: &Emit,
    at: At,
    lin: MlirValue,
    seed: i64,
    low: f64,
    high: f64,
    elt: &str,
) -> Result<MlirValue, String> {
    let i64t = e.ty("i64")?;
    let c = |v: u64| e.constant(at, &(v as i64).to_string(), "i64");
    let idx = e.op1(at, "arith.index_cast", &[lin], i64t, &[]);
    let golden = c(0x9E37_79B9_7F4A_7C15)?;
    let s = c(seed as u64)?;
    let x = e.op1(at, "arith.muli", &[idx, golden], i64t, &[]);
    let x = e.op1(at, "arith.addi", &[x, s], i64t, &[]);
    let x = e.op1(at, "arith.addi", &[x, golden], i64t, &[]);
    let mix = |x: MlirValue, shift: u64, mul: Option<u64>| -> Result<MlirValue, String> {
        let sh = c(shift)?;
        let t = e.op1(at, "arith.shrui", &[x, sh], i64t, &[]);
        let x = e.op1(at, "arith.xori", &[x, t], i64t, &[]);
        Ok(match mul {
            Some(m) => {
                let m = c(m)?;
                e.op1(at, "arith.muli", &[x, m], i64t, &[])
            }
            None => x,
        })
    };
    let x = mix(x, 30, Some(0xBF58_476D_1CE4_E5B9))?;
    let x = mix(x, 27, Some(0x94D0_49BB_1331_11EB))?;
    let x = mix(x, 31, None)?;
    // The top 24 bits, as a float in [0, 1).
    let sh = c(40)?;
    let top = e.op1(at, "arith.shrui", &[x, sh], i64t, &[]);
    let f = e.op1(at, "arith.uitofp", &[top], e.ty(elt)?, &[]);
    let scale = e.float(at, (high - low) / 16_777_216.0, elt)?;
    let lowc = e.float(at, low, elt)?;
    let f = e.op1(at, "arith.mulf", &[f, scale], e.ty(elt)?, &[]);
    Ok(e.op1(at, "arith.addf", &[f, lowc], e.ty(elt)?, &[]))
}

/// The neutral element of an accumulation, as an `arith.constant` value text.
fn neutral(accum: &str, elt: &str) -> &'static str {
    match (accum, elt) {
        ("mul" | "div", _) => "1.0",
        ("max", "f32") => "0xFF800000",
        ("max", "f64") => "0xFFF0000000000000",
        ("max", "f16") => "0xFC00",
        ("max", "bf16") => "0xFF80",
        ("min", "f32") => "0x7F800000",
        ("min", "f64") => "0x7FF0000000000000",
        ("min", "f16") => "0x7C00",
        ("min", "bf16") => "0x7F80",
        _ => "0.0",
    }
}

/// An accumulating assignment being lowered.
struct Assignment<'a, 'c> {
    e: &'a Emit<'c>,
    accum: String,
    op: String,
    space: Vec<i64>,
    maps: Vec<mlir_sys::MlirAffineMap>,
    /// The maps' index expressions, in the assignment model.
    exprs: Vec<Vec<ocannl_assign::Affine>>,
    /// The buffers, result first.
    tensors: Vec<MlirValue>,
    symbols: Vec<MlirValue>,
    elt: String,
    eltt: Type<'c>,
}

fn accum(e: &Emit, at: At, op: &OperationRef) -> Result<(), String> {
    let ocannl_assign_dialect::AccumAttrs {
        accum,
        op: opname,
        initialize_neutral: init,
        space,
        maps,
    } = ocannl_assign_dialect::accum_attrs(op)?;
    let operands: Vec<MlirValue> = op.operands().map(|v| v.to_raw()).collect();
    let n = maps.len();
    let (tensors, symbols) = operands.split_at(n.min(operands.len()));
    let (lhs_dims, elt) = memref_info(tensors[0])?;
    if init {
        let c = e.constant(at, neutral(&accum, &elt), &elt)?;
        e.fill(at, tensors[0], &lhs_dims, c)?;
    }
    let exprs = maps
        .iter()
        .map(|&m| ocannl_assign_dialect::map_exprs(m))
        .collect::<Result<Vec<_>, _>>()?;
    let a = Assignment {
        e,
        exprs,
        eltt: e.ty(&elt)?,
        elt,
        accum,
        op: opname,
        space,
        maps,
        tensors: tensors.to_vec(),
        symbols: symbols.to_vec(),
    };
    let full: Vec<(i64, i64)> = a.space.iter().map(|&d| (0, d)).collect();
    let Some((plan, tile)) = a.contraction()? else {
        return a.scalar(at, &full);
    };
    // Full tiles in the kernel; the last rows and columns in scalar loops.
    let (m, n) = (a.space[plan.i], a.space[plan.j]);
    let (mt, nt) = (m / tile.mr * tile.mr, n / tile.nr * tile.nr);
    a.kernel(at, &plan, &tile, mt, nt)?;
    if mt < m {
        let mut r = full.clone();
        r[plan.i] = (mt, m);
        a.scalar(at, &r)?;
    }
    if nt < n {
        let mut r = full;
        r[plan.i] = (0, mt);
        r[plan.j] = (nt, n);
        a.scalar(at, &r)?;
    }
    Ok(())
}

/// The register tile of the contraction kernel: `mr` rows of `nr` lanes
/// (`nr / lanes` vectors each), over blocks of `kc` reduction steps.
struct Tile {
    mr: i64,
    nr: i64,
    lanes: i64,
    kc: i64,
}

impl<'a, 'c> Assignment<'a, 'c> {
    /// The indices of operand `i` at the given iterators.
    fn indices(&self, at: At, ivs: &[MlirValue], i: usize) -> Result<Vec<MlirValue>, String> {
        let e = self.e;
        let map = self.maps[i];
        let nres = unsafe { mlir_sys::mlirAffineMapGetNumResults(map) };
        let mut out = vec![];
        for r in 0..nres {
            let mut pos = [r];
            let sub = unsafe { mlir_sys::mlirAffineMapGetSubMap(map, 1, pos.as_mut_ptr()) };
            let expr = unsafe { mlir_sys::mlirAffineMapGetResult(sub, 0) };
            let v = if unsafe { mlir_sys::mlirAffineExprIsADim(expr) } {
                ivs[unsafe { mlir_sys::mlirAffineDimExprGetPosition(expr) } as usize]
            } else if unsafe { mlir_sys::mlirAffineExprIsAConstant(expr) } {
                e.index(at, unsafe {
                    mlir_sys::mlirAffineConstantExprGetValue(expr)
                })?
            } else {
                let mut args: Vec<MlirValue> = ivs.to_vec();
                args.extend_from_slice(&self.symbols);
                let attr = unsafe { Attribute::from_raw(mlir_sys::mlirAffineMapAttrGet(sub)) };
                e.op1(
                    at,
                    "affine.apply",
                    &args,
                    Type::index(e.ctx),
                    &[("map", attr)],
                )
            };
            out.push(v);
        }
        Ok(out)
    }

    /// `memref.load` of operand `i` at the given iterators. A padded index
    /// (see `Affine::is_padded`) that may leave its axis is clamped into it,
    /// and the value read there replaced by the padding value: the neutral
    /// element of the accumulation.
    fn load(&self, at: At, ivs: &[MlirValue], i: usize) -> Result<MlirValue, String> {
        let e = self.e;
        let idx_t = Type::index(e.ctx);
        let mut idx = self.indices(at, ivs, i)?;
        let mut inside: Option<MlirValue> = None;
        if i > 0 {
            let space: Vec<u64> = self.space.iter().map(|&d| d as u64).collect();
            let (dims, _) = memref_info(self.tensors[i])?;
            for (r, ex) in self.exprs[i].iter().enumerate() {
                let d = dims[r];
                if !ex.is_padded() || ex.range(&space).is_some_and(|(lo, hi)| lo >= 0 && hi < d) {
                    continue;
                }
                let (zero, last) = (e.index(at, 0)?, e.index(at, d - 1)?);
                let i1 = e.ty("i1")?;
                let ge = e.op1(
                    at,
                    "arith.cmpi",
                    &[idx[r], zero],
                    i1,
                    &[("predicate", e.attr("5 : i64")?)],
                );
                let le = e.op1(
                    at,
                    "arith.cmpi",
                    &[idx[r], last],
                    i1,
                    &[("predicate", e.attr("3 : i64")?)],
                );
                let ok = e.op1(at, "arith.andi", &[ge, le], i1, &[]);
                inside = Some(match inside {
                    Some(prev) => e.op1(at, "arith.andi", &[prev, ok], i1, &[]),
                    None => ok,
                });
                let low = e.op1(at, "arith.minsi", &[idx[r], last], idx_t, &[]);
                idx[r] = e.op1(at, "arith.maxsi", &[low, zero], idx_t, &[]);
            }
        }
        let mut ops = vec![self.tensors[i]];
        ops.extend(idx);
        let v = e.op1(at, "memref.load", &ops, self.eltt, &[]);
        Ok(match inside {
            Some(ok) => {
                let pad = e.constant(at, neutral(&self.accum, &self.elt), &self.elt)?;
                e.op1(at, "arith.select", &[ok, v, pad], self.eltt, &[])
            }
            None => v,
        })
    }

    /// The value `op(rhs...)` at the given iterators.
    fn value(&self, at: At, ivs: &[MlirValue]) -> Result<MlirValue, String> {
        let args = (1..self.tensors.len())
            .map(|i| self.load(at, ivs, i))
            .collect::<Result<Vec<_>, _>>()?;
        numeric(self.e, at, &self.op, &args, self.eltt, &self.elt)
    }

    fn combine(&self, at: At, old: MlirValue, v: MlirValue) -> Result<MlirValue, String> {
        // Reassociation lets LLVM vectorize the reductions.
        let f = self.e.attr("#arith.fastmath<reassoc,contract>")?;
        let name = match self.accum.as_str() {
            "add" => "arith.addf",
            "sub" => "arith.subf",
            "mul" => "arith.mulf",
            "div" => "arith.divf",
            "max" => "arith.maximumf",
            "min" => "arith.minimumf",
            other => return Err(format!("unknown accumulation '{other}'")),
        };
        Ok(self
            .e
            .op1(at, name, &[old, v], self.eltt, &[("fastmath", f)]))
    }

    /// The iterator indexing the last (contiguous) axis of operand `i`.
    fn last_axis_of(&self, i: usize) -> Option<usize> {
        match self.exprs[i].last() {
            Some(ocannl_assign::Affine::Dim(p)) => Some(*p),
            _ => None,
        }
    }

    /// Whether the result's indices depend on iterator `p`.
    fn lhs_uses(&self, p: usize) -> bool {
        self.exprs[0].iter().any(|e| e.mentions(p))
    }

    /// Scalar loops over the given ranges of the iteration space.
    fn scalar(&self, at: At, ranges: &[(i64, i64)]) -> Result<(), String> {
        let e = self.e;
        let space_len = self.space.len();
        // Loop order: the innermost loop runs along the contiguous (last) axis
        // of as many operands as possible, so that LLVM vectorizes it.
        let mut score = vec![0usize; space_len];
        for i in 0..self.tensors.len() {
            if let Some(p) = self.last_axis_of(i) {
                score[p] += 1;
            }
        }
        let mut order: Vec<usize> = (0..space_len).collect();
        if let Some(best) = (0..space_len).rev().max_by_key(|&p| (score[p], p)) {
            order.retain(|&p| p != best);
            order.push(best);
        }
        let loop_ranges: Vec<(i64, i64)> = order.iter().map(|&p| ranges[p]).collect();
        // Iterators in the original numbering from loop variables in loop
        // order; loops not entered yet (reduced ones, for the result's
        // index) get `filler`, which nothing reads.
        let unpermute = |ivs: &[MlirValue], filler: MlirValue| -> Vec<MlirValue> {
            let mut out = vec![filler; space_len];
            for (j, v) in ivs.iter().enumerate() {
                out[order[j]] = *v;
            }
            out
        };
        // The trailing loops the result does not depend on: reduced in a
        // register (scf.for iter_args), loaded and stored once per result
        // cell.
        let reduced_suffix = if self.accum == "assign" {
            0
        } else {
            order
                .iter()
                .rev()
                .take_while(|&&p| !self.lhs_uses(p))
                .count()
        };
        let (outer, inner_ranges) = loop_ranges.split_at(loop_ranges.len() - reduced_suffix);
        let lhs = self.tensors[0];
        // Distinct iterations of the outermost loop write distinct cells when
        // the result has an axis indexed by its plain iterator.
        let plain_in_lhs = |p: usize| self.exprs[0].contains(&ocannl_assign::Affine::Dim(p));
        let parallel = !outer.is_empty() && plain_in_lhs(order[0]) && worth_parallel(&loop_ranges);
        e.nest_parallel(at, outer, parallel, &mut |inner, outer_ivs| {
            let filler = match outer_ivs.first() {
                Some(v) => *v,
                None => e.index(inner, 0)?,
            };
            let ivs: &[MlirValue] = &unpermute(outer_ivs, filler);
            let lhs_idx = self.indices(inner, ivs, 0)?;
            let mut ops = vec![lhs];
            ops.extend(lhs_idx.iter().copied());
            let result = if reduced_suffix == 0 {
                let v = self.value(inner, ivs)?;
                if self.accum == "assign" {
                    v
                } else {
                    let old = e.op1(inner, "memref.load", &ops, self.eltt, &[]);
                    self.combine(inner, old, v)?
                }
            } else {
                let old = e.op1(inner, "memref.load", &ops, self.eltt, &[]);
                let mut all_ivs = outer_ivs.to_vec();
                e.reduce_nest(
                    inner,
                    inner_ranges,
                    &[old],
                    &mut all_ivs,
                    &mut |at2, ivs2, acc| {
                        let v = self.value(at2, &unpermute(ivs2, filler))?;
                        Ok(vec![self.combine(at2, acc[0], v)?])
                    },
                )?[0]
            };
            let mut ops = vec![result, lhs];
            ops.extend(lhs_idx);
            e.op0(inner, "memref.store", &ops);
            Ok(())
        })
    }

    /// The contraction plan and tile of this assignment, if the kernel
    /// applies (see `ocannl_assign::tiling`).
    fn contraction(&self) -> Result<Option<(ocannl_assign::tiling::Contraction, Tile)>, String> {
        let lanes = match self.elt.as_str() {
            "f32" => 16,
            "f64" => 8,
            _ => return Ok(None),
        };
        let tile = Tile {
            mr: KERNEL_ROWS,
            nr: KERNEL_VECTORS * lanes,
            lanes,
            kc: KERNEL_DEPTH,
        };
        let Some(accum) = ocannl_assign::Accum::parse(&self.accum) else {
            return Ok(None);
        };
        let space: Vec<u64> = self.space.iter().map(|&d| d as u64).collect();
        Ok(ocannl_assign::tiling::plan_contraction(
            accum,
            &self.op,
            &space,
            &self.exprs,
            tile.mr as u64,
            tile.nr as u64,
        )
        .map(|p| (p, tile)))
    }

    /// The register-blocked kernel over rows `0..mt` and columns `0..nt`
    /// (whole tiles): for each block of `kc` reduction steps, `b` is packed
    /// into panels of `nr` contiguous columns, then each `mr x nr` tile of
    /// the result is loaded into vector registers, accumulates one
    /// broadcast cell of `a` times one panel row per step, and is stored.
    /// Every other iterator is a loop around it.
    fn kernel(
        &self,
        at: At,
        plan: &ocannl_assign::tiling::Contraction,
        t: &Tile,
        mt: i64,
        nt: i64,
    ) -> Result<(), String> {
        let e = self.e;
        let idx = Type::index(e.ctx);
        let kdim = self.space[plan.k];
        let kc = t.kc.min(kdim);
        let vt = e.ty(&format!("vector<{}x{}>", t.lanes, self.elt))?;
        let panels = e.ty(&format!(
            "memref<{}x{}x{}x{}>",
            nt / t.nr,
            kc,
            t.nr,
            self.elt
        ))?;
        let packed = e.alloc(at, panels, Some(64))?;
        let others: Vec<usize> = (0..self.space.len())
            .filter(|&d| d != plan.i && d != plan.j && d != plan.k)
            .collect();
        let other_ranges: Vec<(i64, i64)> = others.iter().map(|&d| (0, self.space[d])).collect();
        let muli = |at: At, x: MlirValue, c: i64| -> Result<MlirValue, String> {
            let c = e.index(at, c)?;
            Ok(e.op1(at, "arith.muli", &[x, c], idx, &[]))
        };
        let addi = |at: At, x: MlirValue, y: MlirValue| e.op1(at, "arith.addi", &[x, y], idx, &[]);
        e.nest(at, &other_ranges, &mut |at1, outer_ivs| {
            let zero = e.index(at1, 0)?;
            let mut ivs = vec![zero; self.space.len()];
            for (d, v) in others.iter().zip(outer_ivs) {
                ivs[*d] = *v;
            }
            let kb = e.bounds(at1, 0, kdim, kc)?;
            e.for_loop(at1, kb, &[], &mut |at2, k0, _| {
                // The steps of this block: min(kc, kdim - k0).
                let kdim_v = e.index(at2, kdim)?;
                let left = e.op1(at2, "arith.subi", &[kdim_v, k0], idx, &[]);
                let kc_v = e.index(at2, kc)?;
                let steps = e.op1(at2, "arith.minsi", &[kc_v, left], idx, &[]);
                let (zero, one) = (e.index(at2, 0)?, e.index(at2, 1)?);
                // Pack b: panels[jt, kk, jj] = b[.., k0 + kk, .., jt * nr + jj, ..].
                let jb = e.bounds(at2, 0, nt / t.nr, 1)?;
                let par = nt / t.nr > 1 && nt * kc >= PARALLEL_CELLS;
                e.maybe_parallel(at2, par, jb, &mut |at3, jt| {
                    let j0 = muli(at3, jt, t.nr)?;
                    let mut ivs = ivs.clone();
                    e.for_loop(at3, (zero, steps, one), &[], &mut |at4, kk, _| {
                        ivs[plan.k] = addi(at4, k0, kk);
                        let jjb = e.bounds(at4, 0, t.nr, 1)?;
                        e.for_loop(at4, jjb, &[], &mut |at5, jj, _| {
                            ivs[plan.j] = addi(at5, j0, jj);
                            let v = self.load(at5, &ivs, plan.b)?;
                            e.op0(at5, "memref.store", &[v, packed, jt, kk, jj]);
                            Ok(vec![])
                        })
                    })?;
                    Ok(())
                })?;
                // The tiles.
                let ib = e.bounds(at2, 0, mt / t.mr, 1)?;
                let par = mt / t.mr > 1 && mt * nt * kc >= PARALLEL_CELLS * 16;
                e.maybe_parallel(at2, par, ib, &mut |at3, it| {
                    let i0 = muli(at3, it, t.mr)?;
                    let rows = (0..t.mr)
                        .map(|r| Ok(addi(at3, i0, e.index(at3, r)?)))
                        .collect::<Result<Vec<_>, String>>()?;
                    let jb = e.bounds(at3, 0, nt / t.nr, 1)?;
                    e.for_loop(at3, jb, &[], &mut |at4, jt, _| {
                        let j0 = muli(at4, jt, t.nr)?;
                        let cols = (0..t.nr / t.lanes)
                            .map(|v| Ok(addi(at4, j0, e.index(at4, v * t.lanes)?)))
                            .collect::<Result<Vec<_>, String>>()?;
                        let lanes_at = (0..t.nr / t.lanes)
                            .map(|v| e.index(at4, v * t.lanes))
                            .collect::<Result<Vec<_>, String>>()?;
                        // The result tile's vectors, row-major.
                        let mut cells = vec![];
                        for &row in &rows {
                            for &col in &cols {
                                let mut ivs = ivs.clone();
                                ivs[plan.i] = row;
                                ivs[plan.j] = col;
                                let mut ops = vec![self.tensors[0]];
                                ops.extend(self.indices(at4, &ivs, 0)?);
                                cells.push(ops);
                            }
                        }
                        let start = cells
                            .iter()
                            .map(|ops| e.op1(at4, "vector.load", ops, vt, &[]))
                            .collect::<Vec<_>>();
                        let done =
                            e.for_loop(at4, (zero, steps, one), &start, &mut |at5, kk, acc| {
                                let mut ivs = ivs.clone();
                                ivs[plan.k] = addi(at5, k0, kk);
                                let b: Vec<MlirValue> = lanes_at
                                    .iter()
                                    .map(|&l| {
                                        e.op1(at5, "vector.load", &[packed, jt, kk, l], vt, &[])
                                    })
                                    .collect();
                                let mut next = Vec::with_capacity(acc.len());
                                for (r, &row) in rows.iter().enumerate() {
                                    ivs[plan.i] = row;
                                    let a = self.load(at5, &ivs, plan.a)?;
                                    let a = e.op1(at5, "vector.broadcast", &[a], vt, &[]);
                                    for (v, &bv) in b.iter().enumerate() {
                                        next.push(e.op1(
                                            at5,
                                            "vector.fma",
                                            &[a, bv, acc[r * b.len() + v]],
                                            vt,
                                            &[],
                                        ));
                                    }
                                }
                                Ok(next)
                            })?;
                        for (value, ops) in done.into_iter().zip(cells) {
                            let mut ops2 = vec![value];
                            ops2.extend(ops);
                            e.op0(at4, "vector.store", &ops2);
                        }
                        Ok(vec![])
                    })?;
                    Ok(())
                })?;
                Ok(vec![])
            })?;
            Ok(())
        })?;
        e.op0(at, "memref.dealloc", &[packed]);
        Ok(())
    }
}

/// Whether a loop nest over `ranges` is worth running on several cores.
fn worth_parallel(ranges: &[(i64, i64)]) -> bool {
    ranges.first().is_some_and(|(lo, hi)| hi - lo > 1)
        && ranges.iter().map(|(lo, hi)| hi - lo).product::<i64>() >= PARALLEL_CELLS
}

/// Rows of the contraction kernel's register tile.
const KERNEL_ROWS: i64 = 8;
/// Vectors per row of the register tile (64 bytes each).
const KERNEL_VECTORS: i64 = 2;
/// Reduction steps per packed block.
const KERNEL_DEPTH: i64 = 256;
/// Loops over fewer cells (times 16 for the kernel's multiply-adds) than
/// this stay sequential: starting the threads would cost more.
const PARALLEL_CELLS: i64 = 1 << 16;

/// The scalar computation of a numeric op.
fn numeric<'c>(
    e: &Emit<'c>,
    at: At,
    op: &str,
    a: &[MlirValue],
    t: Type<'c>,
    elt: &str,
) -> Result<MlirValue, String> {
    let i1 = e.ty("i1")?;
    let zero = || e.constant(at, "0.0", elt);
    let one = || e.constant(at, "1.0", elt);
    let cmp = |pred: &str, x: MlirValue, y: MlirValue| -> Result<MlirValue, String> {
        let p = e.attr(&format!("#arith<cmpf {pred}>"))?;
        Ok(e.op1(at, "arith.cmpf", &[x, y], i1, &[("predicate", p)]))
    };
    let select =
        |c: MlirValue, x: MlirValue, y: MlirValue| e.op1(at, "arith.select", &[c, x, y], t, &[]);
    let bool_to_float =
        |c: MlirValue| -> Result<MlirValue, String> { Ok(select(c, one()?, zero()?)) };
    let un = |name: &str| e.op1(at, name, &[a[0]], t, &[]);
    let bin = |name: &str| e.op1(at, name, &[a[0], a[1]], t, &[]);
    Ok(match op {
        "identity" => a[0],
        "relu" => {
            let z = zero()?;
            e.op1(at, "arith.maximumf", &[a[0], z], t, &[])
        }
        "satur01" => {
            let z = zero()?;
            let o = one()?;
            let m = e.op1(at, "arith.maximumf", &[a[0], z], t, &[]);
            e.op1(at, "arith.minimumf", &[m, o], t, &[])
        }
        "exp" => un("math.exp"),
        "log" => un("math.log"),
        "exp2" => un("math.exp2"),
        "log2" => un("math.log2"),
        "sin" => un("math.sin"),
        "cos" => un("math.cos"),
        "sqrt" => un("math.sqrt"),
        "recip_sqrt" => un("math.rsqrt"),
        "tanh" => un("math.tanh"),
        "neg" => un("arith.negf"),
        "recip" => {
            let o = one()?;
            e.op1(at, "arith.divf", &[o, a[0]], t, &[])
        }
        "not" => {
            let z = zero()?;
            let c = cmp("oeq", a[0], z)?;
            bool_to_float(c)?
        }
        "add" => bin("arith.addf"),
        "sub" => bin("arith.subf"),
        "mul" => bin("arith.mulf"),
        "div" => bin("arith.divf"),
        "pow" => bin("math.powf"),
        "max" => bin("arith.maximumf"),
        "min" => bin("arith.minimumf"),
        "mod" => bin("arith.remf"),
        "relu_gate" => {
            let z = zero()?;
            let c = cmp("ogt", a[0], z)?;
            select(c, a[1], z)
        }
        "satur01_gate" => {
            let z = zero()?;
            let o = one()?;
            let c1 = cmp("ogt", a[0], z)?;
            let c2 = cmp("olt", a[0], o)?;
            let c = e.op1(at, "arith.andi", &[c1, c2], i1, &[]);
            select(c, a[1], z)
        }
        "cmplt" => bool_to_float(cmp("olt", a[0], a[1])?)?,
        "cmpeq" => bool_to_float(cmp("oeq", a[0], a[1])?)?,
        "cmpne" => bool_to_float(cmp("une", a[0], a[1])?)?,
        "and" | "or" => {
            let z = zero()?;
            let c1 = cmp("une", a[0], z)?;
            let c2 = cmp("une", a[1], z)?;
            let c = e.op1(
                at,
                if op == "and" {
                    "arith.andi"
                } else {
                    "arith.ori"
                },
                &[c1, c2],
                i1,
                &[],
            );
            bool_to_float(c)?
        }
        "where" => {
            let z = zero()?;
            let c = cmp("une", a[0], z)?;
            select(c, a[1], a[2])
        }
        "fma" => e.op1(at, "math.fma", &[a[0], a[1], a[2]], t, &[]),
        other => return Err(format!("cannot lower the numeric op '{other}'")),
    })
}
