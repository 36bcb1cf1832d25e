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
    Attribute, Block, Identifier, Location, OperationRef, Region, RegionLike, Type, TypeLike, Value, ValueLike,
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
        if op.name().as_string_ref().as_str().map(|n| n.starts_with("ocannl_assign.")).unwrap_or(false) {
            ops.push(op.to_raw());
        }
        WalkResult::Advance
    });
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
        Type::parse(self.ctx, text).ok_or_else(|| format!("internal error: cannot parse type {text}"))
    }

    fn attr(&self, text: &str) -> Result<Attribute<'c>, String> {
        Attribute::parse(self.ctx, text).ok_or_else(|| format!("internal error: cannot parse attribute {text}"))
    }

    /// One op with one result.
    fn op1(&self, at: At, name: &str, operands: &[MlirValue], result: Type<'c>, attrs: &[(&str, Attribute<'c>)]) -> MlirValue {
        let operands: Vec<Value> = operands.iter().map(|v| unsafe { Value::from_raw(*v) }).collect();
        let attrs: Vec<(Identifier, Attribute)> = attrs.iter().map(|(n, a)| (Identifier::new(self.ctx, n), *a)).collect();
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
        let operands: Vec<Value> = operands.iter().map(|v| unsafe { Value::from_raw(*v) }).collect();
        let op = OperationBuilder::new(name, self.loc).add_operands(&operands).build().expect("valid op");
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

    /// `scf.for` nests over `sizes`; `body` gets the insertion point inside
    /// and the induction variables.
    fn nest(&self, at: At, sizes: &[i64], body: &mut dyn FnMut(At, &[MlirValue]) -> Result<(), String>) -> Result<(), String> {
        let mut ivs = vec![];
        self.nest_rec(at, sizes, &mut ivs, body)
    }

    fn nest_rec(
        &self,
        at: At,
        sizes: &[i64],
        ivs: &mut Vec<MlirValue>,
        body: &mut dyn FnMut(At, &[MlirValue]) -> Result<(), String>,
    ) -> Result<(), String> {
        let Some((&n, rest)) = sizes.split_first() else { return body(at, ivs) };
        let (lb, ub, step) = (self.index(at, 0)?, self.index(at, n)?, self.index(at, 1)?);
        let block = Block::new(&[(Type::index(self.ctx), self.loc)]);
        ivs.push(block.argument(0).expect("induction variable").to_raw());
        let inner = At { block: block.to_raw(), before: None };
        self.nest_rec(inner, rest, ivs, body)?;
        ivs.pop();
        let yield_op = OperationBuilder::new("scf.yield", self.loc).build().expect("yield");
        block.append_operation(yield_op);
        let region = Region::new();
        region.append_block(block);
        let ops: Vec<Value> = [lb, ub, step].iter().map(|v| unsafe { Value::from_raw(*v) }).collect();
        let op = OperationBuilder::new("scf.for", self.loc).add_operands(&ops).add_regions([region]).build().map_err(|e| e.to_string())?;
        self.place(at, op);
        Ok(())
    }
}

impl<'c> Emit<'c> {
    /// Stores `value` into every cell of `buf`.
    fn fill(&self, at: At, buf: MlirValue, dims: &[i64], value: MlirValue) -> Result<(), String> {
        self.nest(at, dims, &mut |inner, ivs| {
            let mut ops = vec![value, buf];
            ops.extend_from_slice(ivs);
            self.op0(inner, "memref.store", &ops);
            Ok(())
        })
    }

    /// `scf.for` nests over `sizes` carrying an accumulator (`iter_args`):
    /// `body` gets the induction variables (after `outer`) and the current
    /// accumulator and returns the next; the final value is returned.
    fn reduce_nest(
        &self,
        at: At,
        sizes: &[i64],
        acc: MlirValue,
        ivs: &mut Vec<MlirValue>,
        body: &mut dyn FnMut(At, &[MlirValue], MlirValue) -> Result<MlirValue, String>,
    ) -> Result<MlirValue, String> {
        let Some((&n, rest)) = sizes.split_first() else { return body(at, ivs, acc) };
        let (lb, ub, step) = (self.index(at, 0)?, self.index(at, n)?, self.index(at, 1)?);
        let t = unsafe { Value::from_raw(acc) }.r#type();
        let block = Block::new(&[(Type::index(self.ctx), self.loc), (t, self.loc)]);
        ivs.push(block.argument(0).expect("induction variable").to_raw());
        let inner_acc = block.argument(1).expect("accumulator").to_raw();
        let inner = At { block: block.to_raw(), before: None };
        let next = self.reduce_nest(inner, rest, inner_acc, ivs, body)?;
        ivs.pop();
        let yield_op = OperationBuilder::new("scf.yield", self.loc)
            .add_operands(&[unsafe { Value::from_raw(next) }])
            .build()
            .map_err(|e| e.to_string())?;
        block.append_operation(yield_op);
        let region = Region::new();
        region.append_block(block);
        let ops: Vec<Value> = [lb, ub, step, acc].iter().map(|v| unsafe { Value::from_raw(*v) }).collect();
        let op = OperationBuilder::new("scf.for", self.loc)
            .add_operands(&ops)
            .add_regions([region])
            .add_results(&[t])
            .build()
            .map_err(|e| e.to_string())?;
        let op = self.place(at, op);
        Ok(op.result(0).expect("one result").to_raw())
    }
}

fn memref_info(v: MlirValue) -> Result<(Vec<i64>, String), String> {
    let ty = unsafe { Value::from_raw(v) }.r#type();
    let t = MemRefType::try_from(ty).map_err(|_| "operands must be memrefs".to_string())?;
    let dims = ocannl_assign_dialect::memref_dims(t).into_iter().map(|d| d as i64).collect();
    let elt = unsafe { Type::from_raw(mlir_sys::mlirShapedTypeGetElementType(ty.to_raw())) }.to_string();
    Ok((dims, elt))
}

fn lower(module: OperationRef, op: &OperationRef, globals: &mut usize) -> Result<(), String> {
    // The ContextRef must outlive the reference made from it.
    let ctx_ref = op.context();
    let ctx = unsafe { ctx_ref.to_ref() };
    let e = Emit { ctx, loc: op.location() };
    let block = op.block().ok_or("internal error: op without a block")?;
    let at = At { block: block.to_raw(), before: Some(op.to_raw()) };
    let name = op.name().as_string_ref().as_str().map_err(|e| e.to_string())?.trim_start_matches("ocannl_assign.").to_string();
    match name.as_str() {
        "node" => {
            let ty = op.result(0).map_err(|e| e.to_string())?.r#type();
            let alloc = OperationBuilder::new("memref.alloc", e.loc)
                .add_attributes(&[(Identifier::new(ctx, "operandSegmentSizes"), e.attr("array<i32: 0, 0>")?)])
                .add_results(&[ty])
                .build()
                .map_err(|er| er.to_string())?;
            let alloc = e.place(at, alloc);
            let old = op.result(0).map_err(|er| er.to_string())?.to_raw();
            unsafe { mlir_sys::mlirValueReplaceAllUsesOfWith(old, alloc.result(0).map_err(|er| er.to_string())?.to_raw()) };
        }
        "fill" => {
            let dest = op.operand(0).map_err(|e| e.to_string())?.to_raw();
            let (dims, elt) = memref_info(dest)?;
            let v = op.attribute("value").map_err(|_| "attribute 'value' is required")?;
            let c = e.op1(at, "arith.constant", &[], e.ty(&elt)?, &[("value", v)]);
            e.fill(at, dest, &dims, c)?;
        }
        "range" | "uniform" | "literal" => {
            let dest = op.operand(0).map_err(|e| e.to_string())?.to_raw();
            let (dims, elt) = memref_info(dest)?;
            let st: Vec<i64> =
                ocannl_assign::row_major_strides(&dims.iter().map(|&d| d as u64).collect::<Vec<_>>()).into_iter().map(|s| s as i64).collect();
            let total: i64 = dims.iter().product();
            let source = if name == "literal" {
                // The literal as a private global, read by linear index.
                *globals += 1;
                let gname = format!("__ocannl_literal_{globals}");
                let v = op.attribute("value").map_err(|_| "attribute 'value' is required")?;
                let gty = format!("memref<{total}x{elt}>");
                let flat = e.ty(&format!("tensor<{total}x{elt}>"))?;
                let init = unsafe { mlir_sys::mlirDenseElementsAttrReshapeGet(v.to_raw(), flat.to_raw()) };
                if init.ptr.is_null() {
                    return Err(format!("cannot read the literal as {total} cells of {elt}"));
                }
                let init = unsafe { Attribute::from_raw(init) };
                let global = OperationBuilder::new("memref.global", e.loc)
                    .add_attributes(&[
                        (Identifier::new(ctx, "sym_name"), StringAttribute::new(ctx, &gname).into()),
                        (Identifier::new(ctx, "sym_visibility"), StringAttribute::new(ctx, "private").into()),
                        (Identifier::new(ctx, "type"), melior::ir::attribute::TypeAttribute::new(e.ty(&gty)?).into()),
                        (Identifier::new(ctx, "initial_value"), init),
                        (Identifier::new(ctx, "constant"), Attribute::unit(ctx)),
                    ])
                    .build()
                    .map_err(|er| er.to_string())?;
                let body_block = module.region(0).map_err(|er| er.to_string())?.first_block().ok_or("empty module")?;
                unsafe { mlir_sys::mlirBlockInsertOwnedOperation(body_block.to_raw(), 0, global.into_raw()) };
                Some(e.op1(at, "memref.get_global", &[], e.ty(&gty)?, &[("name", e.attr(&format!("@{gname}"))?)]))
            } else {
                None
            };
            let (seed, low, high) = if name == "uniform" {
                let seed = op.attribute("seed").map_err(|_| "attribute 'seed' is required")?;
                let seed = unsafe { mlir_sys::mlirIntegerAttrGetValueInt(seed.to_raw()) };
                let f = |n: &str, d: f64| {
                    op.attribute(n).ok().map(|a| unsafe { mlir_sys::mlirFloatAttrGetValueDouble(a.to_raw()) }).unwrap_or(d)
                };
                (seed, f("low", 0.0), f("high", 1.0))
            } else {
                (0, 0.0, 1.0)
            };
            e.nest(at, &dims, &mut |inner, ivs| {
                // The linear index of the cell.
                let mut lin = e.index(inner, 0)?;
                for (iv, s) in ivs.iter().zip(&st) {
                    let sc = e.index(inner, *s)?;
                    let t = e.op1(inner, "arith.muli", &[*iv, sc], Type::index(ctx), &[]);
                    lin = e.op1(inner, "arith.addi", &[lin, t], Type::index(ctx), &[]);
                }
                let value = match name.as_str() {
                    "literal" => e.op1(inner, "memref.load", &[source.expect("global"), lin], e.ty(&elt)?, &[]),
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
fn uniform_value(e: &Emit, at: At, lin: MlirValue, seed: i64, low: f64, high: f64, elt: &str) -> Result<MlirValue, String> {
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

fn accum(e: &Emit, at: At, op: &OperationRef) -> Result<(), String> {
    let ctx = e.ctx;
    let ocannl_assign_dialect::AccumAttrs { accum, op: opname, initialize_neutral: init, space, maps } =
        ocannl_assign_dialect::accum_attrs(op)?;
    let operands: Vec<MlirValue> = op.operands().map(|v| v.to_raw()).collect();
    let n = maps.len();
    let (tensors, symbols) = operands.split_at(n.min(operands.len()));
    let lhs = tensors[0];
    let (lhs_dims, elt) = memref_info(lhs)?;
    let eltt = e.ty(&elt)?;
    let fm = |kind: &str| e.attr(&format!("#arith.fastmath<{kind}>"));

    if init {
        let c = e.constant(at, neutral(&accum, &elt), &elt)?;
        e.fill(at, lhs, &lhs_dims, c)?;
    }
    let map_of = |i: usize| maps[i];
    // The indices of operand `i` at the given iterators.
    let indices = |inner: At, ivs: &[MlirValue], i: usize| -> Result<Vec<MlirValue>, String> {
        let map = map_of(i);
        let nres = unsafe { mlir_sys::mlirAffineMapGetNumResults(map) };
        let mut out = vec![];
        for r in 0..nres {
            let mut pos = [r as isize];
            let sub = unsafe { mlir_sys::mlirAffineMapGetSubMap(map, 1, pos.as_mut_ptr()) };
            let expr = unsafe { mlir_sys::mlirAffineMapGetResult(sub, 0) };
            let v = if unsafe { mlir_sys::mlirAffineExprIsADim(expr) } {
                ivs[unsafe { mlir_sys::mlirAffineDimExprGetPosition(expr) } as usize]
            } else if unsafe { mlir_sys::mlirAffineExprIsAConstant(expr) } {
                e.index(inner, unsafe { mlir_sys::mlirAffineConstantExprGetValue(expr) })?
            } else {
                let mut args: Vec<MlirValue> = ivs.to_vec();
                args.extend_from_slice(symbols);
                let attr = unsafe { Attribute::from_raw(mlir_sys::mlirAffineMapAttrGet(sub)) };
                e.op1(inner, "affine.apply", &args, Type::index(ctx), &[("map", attr)])
            };
            out.push(v);
        }
        Ok(out)
    };
    // The value `op(rhs...)` at the given iterators.
    let value = |inner: At, ivs: &[MlirValue]| -> Result<MlirValue, String> {
        let mut args = vec![];
        for i in 1..tensors.len() {
            let mut ops = vec![tensors[i]];
            ops.extend(indices(inner, ivs, i)?);
            args.push(e.op1(inner, "memref.load", &ops, eltt, &[]));
        }
        numeric(e, inner, &opname, &args, eltt, &elt)
    };
    let combine = |inner: At, old: MlirValue, v: MlirValue| -> Result<MlirValue, String> {
        // Reassociation lets LLVM vectorize the reductions.
        let f = fm("reassoc,contract")?;
        let name = match accum.as_str() {
            "add" => "arith.addf",
            "sub" => "arith.subf",
            "mul" => "arith.mulf",
            "div" => "arith.divf",
            "max" => "arith.maximumf",
            "min" => "arith.minimumf",
            other => return Err(format!("unknown accumulation '{other}'")),
        };
        Ok(e.op1(inner, name, &[old, v], eltt, &[("fastmath", f)]))
    };
    // Loop order: the innermost loop runs along the contiguous (last) axis
    // of as many operands as possible, so that LLVM vectorizes it.
    let last_axis_of = |i: usize| -> Option<usize> {
        let map = map_of(i);
        let nres = unsafe { mlir_sys::mlirAffineMapGetNumResults(map) };
        let expr = unsafe { mlir_sys::mlirAffineMapGetResult(map, nres.checked_sub(1)?) };
        unsafe { mlir_sys::mlirAffineExprIsADim(expr) }.then(|| unsafe { mlir_sys::mlirAffineDimExprGetPosition(expr) } as usize)
    };
    let mut score = vec![0usize; space.len()];
    for i in 0..tensors.len() {
        if let Some(p) = last_axis_of(i) {
            score[p] += 1;
        }
    }
    let mut order: Vec<usize> = (0..space.len()).collect();
    if let Some(best) = (0..space.len()).rev().max_by_key(|&p| (score[p], p)) {
        order.retain(|&p| p != best);
        order.push(best);
    }
    let sizes: Vec<i64> = order.iter().map(|&p| space[p]).collect();
    // Iterators in the original numbering from loop variables in loop
    // order; loops not entered yet (reduced ones, for the result's index)
    // get `filler`, which nothing reads.
    let unpermute = |ivs: &[MlirValue], filler: MlirValue| -> Vec<MlirValue> {
        let mut out = vec![filler; space.len()];
        for (j, v) in ivs.iter().enumerate() {
            out[order[j]] = *v;
        }
        out
    };
    // The trailing loops the result does not depend on: reduced in a
    // register (scf.for iter_args), loaded and stored once per result cell.
    let lhs_map = map_of(0);
    let lhs_uses = |p: usize| {
        let nres = unsafe { mlir_sys::mlirAffineMapGetNumResults(lhs_map) };
        (0..nres).any(|r| unsafe { mlir_sys::mlirAffineExprIsFunctionOfDim(mlir_sys::mlirAffineMapGetResult(lhs_map, r), p as isize) })
    };
    let reduced_suffix = if accum == "assign" { 0 } else { order.iter().rev().take_while(|&&p| !lhs_uses(p)).count() };
    let (outer, inner_sizes) = sizes.split_at(sizes.len() - reduced_suffix);
    e.nest(at, outer, &mut |inner, outer_ivs| {
        let filler = match outer_ivs.first() {
            Some(v) => *v,
            None => e.index(inner, 0)?,
        };
        let ivs: &[MlirValue] = &unpermute(outer_ivs, filler);
        let lhs_idx = indices(inner, ivs, 0)?;
        if reduced_suffix == 0 {
            let v = value(inner, ivs)?;
            let result = if accum == "assign" {
                v
            } else {
                let mut ops = vec![lhs];
                ops.extend(lhs_idx.iter().copied());
                let old = e.op1(inner, "memref.load", &ops, eltt, &[]);
                combine(inner, old, v)?
            };
            let mut ops = vec![result, lhs];
            ops.extend(lhs_idx);
            e.op0(inner, "memref.store", &ops);
            return Ok(());
        }
        let mut ops = vec![lhs];
        ops.extend(lhs_idx.iter().copied());
        let start = e.op1(inner, "memref.load", &ops, eltt, &[]);
        let mut all_ivs = outer_ivs.to_vec();
        let total = e.reduce_nest(inner, inner_sizes, start, &mut all_ivs, &mut |at2, ivs2, acc| {
            let v = value(at2, &unpermute(ivs2, filler))?;
            combine(at2, acc, v)
        })?;
        let mut ops = vec![total, lhs];
        ops.extend(lhs_idx);
        e.op0(inner, "memref.store", &ops);
        Ok(())
    })
}

/// The scalar computation of a numeric op.
fn numeric<'c>(e: &Emit<'c>, at: At, op: &str, a: &[MlirValue], t: Type<'c>, elt: &str) -> Result<MlirValue, String> {
    let i1 = e.ty("i1")?;
    let zero = || e.constant(at, "0.0", elt);
    let one = || e.constant(at, "1.0", elt);
    let cmp = |pred: &str, x: MlirValue, y: MlirValue| -> Result<MlirValue, String> {
        let p = e.attr(&format!("#arith<cmpf {pred}>"))?;
        Ok(e.op1(at, "arith.cmpf", &[x, y], i1, &[("predicate", p)]))
    };
    let select = |c: MlirValue, x: MlirValue, y: MlirValue| e.op1(at, "arith.select", &[c, x, y], t, &[]);
    let bool_to_float = |c: MlirValue| -> Result<MlirValue, String> { Ok(select(c, one()?, zero()?)) };
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
            let c = e.op1(at, if op == "and" { "arith.andi" } else { "arith.ori" }, &[c1, c2], i1, &[]);
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
