//! The `ocannl_assign` dialect: tensor nodes as buffers and OCANNL's
//! accumulating assignments `lhs =accum= op(rhs...)` over projections given as
//! an iteration space and one affine map per operand.
//!
//! Architecture invariant: like the shape dialect crate, this crate only
//! converts and checks; the assignment model is plain Rust elsewhere.

use melior::ir::{
    attribute::{AttributeLike, DenseI64ArrayAttribute},
    operation::OperationLike,
    r#type::MemRefType,
    AffineMap, Attribute, OperationRef, ShapedTypeLike, ValueLike,
};
use ocannl_assign::{Assignment, Body};
use ocannl_mlir::attr;
use ocannl_ops::{Accum, Dist, Generator, NumOp};

/// The IRDL definition of the dialect.
pub const IRDL: &str = include_str!("../ocannl_assign.irdl.mlir");

pub const DIALECT: &str = "ocannl_assign";

pub mod emit;
pub mod numeric;
pub mod region;

/// The definitions of the dialect's ops (`dialects/spec`).
pub use ocannl_dialect_spec::assign::{DIALECT as SPEC, MEMORY_MODES, NODE_KINDS};

/// A required string attribute.
pub fn string_attr(op: &OperationRef, name: &str) -> Result<String, ocannl_mlir::Error> {
    string_attr_text(op, name).map_err(ocannl_mlir::Error::invalid)
}

/// [`string_attr`], the reason as text.
fn string_attr_text(op: &OperationRef, name: &str) -> Result<String, String> {
    ocannl_shape_dialect::string_attr(op, name)
        .map_err(|e| e.to_string())?
        .ok_or_else(|| format!("attribute '{name}' is required"))
}

/// The attributes of a counter-based initialization (`uniform`, `normal`):
/// its seed and its distribution.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Random {
    pub seed: i64,
    pub dist: Dist,
    pub generator: Generator,
}

/// Reads the attributes of a `uniform` op (`low` and `high` default to 0
/// and 1) or a `normal` op (`mean` and `std` default to 0 and 1).
pub fn random_attrs(op: &OperationRef) -> Result<Random, ocannl_mlir::Error> {
    random_attrs_text(op).map_err(ocannl_mlir::Error::invalid)
}

/// [`random_attrs`], the reason as text.
fn random_attrs_text(op: &OperationRef) -> Result<Random, String> {
    let seed = op
        .attribute("seed")
        .map_err(|_| "attribute 'seed' is required")?;
    let seed = attr::int_value(seed).ok_or("attribute 'seed' must be an integer")?;
    let f = |n: &str, d: f64| -> Result<f64, String> {
        match op.attribute(n) {
            Err(_) => Ok(d),
            Ok(a) => attr::number_value(a)
                .filter(|v| v.is_finite())
                .ok_or_else(|| format!("attribute '{n}' must be a finite number, found {a}")),
        }
    };
    let dist = match op.name().as_string_ref().as_str() {
        Ok("ocannl_assign.normal") => {
            let std = f("std", 1.0)?;
            if std < 0.0 {
                return Err(format!("attribute 'std' must not be negative, found {std}"));
            }
            Dist::Normal {
                mean: f("mean", 0.0)?,
                std,
            }
        }
        _ => Dist::Uniform {
            low: f("low", 0.0)?,
            high: f("high", 1.0)?,
        },
    };
    let generator = ocannl_shape_dialect::generator_attr(op).map_err(|e| e.to_string())?;
    Ok(Random {
        seed,
        dist,
        generator,
    })
}

/// The attributes of an accumulating assignment (`accum_unop|binop|ternop`
/// or `accum`).
pub struct AccumAttrs<'c> {
    pub accum: Accum,
    /// What a point computes: the numeric op of a one-op form, or the
    /// `accum` op's body.
    pub body: Body,
    pub initialize_neutral: bool,
    pub space: Vec<i64>,
    /// One affine map per memref operand, the result first.
    pub maps: Vec<AffineMap<'c>>,
    /// The dynamic indices (`dynamic_indices`; `source` counts the buffers
    /// read, from 0).
    pub dynamic: Vec<ocannl_assign::Dynamic>,
}

/// The number of operands of the numeric op of an assignment op
/// (`accum_unop` 1, `accum_binop` 2, `accum_ternop` 3).
pub fn arity(op_name: &str) -> Option<usize> {
    match op_name.strip_prefix("ocannl_assign.")? {
        "accum_unop" => Some(1),
        "accum_binop" => Some(2),
        "accum_ternop" => Some(3),
        _ => None,
    }
}

/// Whether an op is an accumulating assignment (a one-op form or `accum`).
pub fn is_assignment(op_name: &str) -> bool {
    arity(op_name).is_some() || op_name == "ocannl_assign.accum"
}

/// The number of buffer operands (the result and the buffers read): the
/// leading memref operands.
pub fn buffer_count(op: &OperationRef) -> usize {
    op.operands()
        .take_while(|v| MemRefType::try_from(v.r#type()).is_ok())
        .count()
}

/// Reads the attributes of an accumulating assignment, checking their kinds
/// and values.
pub fn accum_attrs<'c>(op: &OperationRef<'c, '_>) -> Result<AccumAttrs<'c>, ocannl_mlir::Error> {
    accum_attrs_text(op).map_err(ocannl_mlir::Error::invalid)
}

/// [`accum_attrs`], the reason as text.
fn accum_attrs_text<'c>(op: &OperationRef<'c, '_>) -> Result<AccumAttrs<'c>, String> {
    let initialize_neutral = match op.attribute("initialize_neutral") {
        Err(_) => false,
        Ok(a) => attr::bool_value(a)
            .ok_or_else(|| format!("attribute 'initialize_neutral' must be a bool, found {a}"))?,
    };
    let space: Attribute = op
        .attribute("space")
        .map_err(|_| "attribute 'space' is required")?;
    let space = DenseI64ArrayAttribute::try_from(space)
        .map_err(|_| "attribute 'space' must be an array<i64: ...>")?;
    let space = (0..space.len())
        .map(|i| space.element(i).map_err(|e| e.to_string()))
        .collect::<Result<_, _>>()?;
    let maps = op
        .attribute("indexing_maps")
        .map_err(|_| "attribute 'indexing_maps' is required")?;
    let maps = melior::ir::attribute::ArrayAttribute::try_from(maps)
        .map_err(|_| "attribute 'indexing_maps' must be an array of affine maps")?;
    let maps = (0..maps.len())
        .map(|i| {
            let m = maps.element(i).map_err(|e| e.to_string())?;
            attr::affine_map(m)
                .ok_or_else(|| format!("indexing map #{i} is not an affine map: {m}"))
        })
        .collect::<Result<_, _>>()?;
    let name = op.name();
    let name = name.as_string_ref().as_str().unwrap_or("").to_string();
    let body = match arity(&name) {
        Some(n) => {
            let op_name = string_attr(op, "op").map_err(|e| e.to_string())?;
            let num_op = NumOp::parse_assign(n, &op_name).ok_or_else(|| {
                let (_, names) = NumOp::assign_names(n);
                format!("invalid 'op' value '{op_name}'; expected one of: {names}")
            })?;
            Body::from(num_op)
        }
        None if name == "ocannl_assign.accum" => {
            let buffers = buffer_count(op);
            if op
                .operands()
                .skip(buffers)
                .any(|v| MemRefType::try_from(v.r#type()).is_ok())
            {
                return Err("buffer operands must come before the index operands".into());
            }
            let lhs = op.operand(0).map_err(|e| e.to_string())?.r#type();
            let elt = ocannl_mlir::types::element_name(lhs).unwrap_or_default();
            region::read_body(op, buffers.saturating_sub(1), &elt).map_err(|e| e.to_string())?
        }
        None => return Err("internal error: not an accumulating assignment".into()),
    };
    let dynamic = match op.attribute("dynamic_indices") {
        Err(_) => vec![],
        Ok(a) => {
            let a = DenseI64ArrayAttribute::try_from(a)
                .map_err(|_| "attribute 'dynamic_indices' must be an array<i64: ...>")?;
            let v: Vec<i64> = (0..a.len())
                .map(|i| a.element(i).map_err(|e| e.to_string()))
                .collect::<Result<_, _>>()?;
            if !v.len().is_multiple_of(2) {
                return Err(format!(
                    "attribute 'dynamic_indices' holds (operand, bound) pairs; found {} values",
                    v.len()
                ));
            }
            v.chunks(2)
                .enumerate()
                .map(|(k, p)| {
                    let (Ok(source @ 1..), Ok(bound @ 1..)) = (usize::try_from(p[0]), u64::try_from(p[1]))
                    else {
                        return Err(format!(
                            "dynamic index {k} is ({}, {}): the operand must be a buffer read (1 or more) and the bound at least 1",
                            p[0], p[1]
                        ));
                    };
                    Ok(ocannl_assign::Dynamic {
                        source: source - 1,
                        bound,
                    })
                })
                .collect::<Result<_, String>>()?
        }
    };
    let accum_name = string_attr(op, "accum").map_err(|e| e.to_string())?;
    let accum = Accum::parse(&accum_name).ok_or_else(|| {
        format!(
            "invalid 'accum' value '{accum_name}'; expected one of: {}",
            Accum::reducing_names()
        )
    })?;
    Ok(AccumAttrs {
        accum,
        body,
        initialize_neutral,
        space,
        maps,
        dynamic,
    })
}

/// Static sizes of a memref (a dynamic size counts as 0).
pub fn memref_dims(t: MemRefType) -> Vec<u64> {
    (0..t.rank())
        .map(|i| match t.dim_size(i) {
            Ok(melior::ir::r#type::DimSize::Static(d)) => d,
            _ => 0,
        })
        .collect()
}

/// A buffer type the compiled code can address: static sizes, each at
/// least 1, a float element type, and at most 2^63 - 1 bytes.
pub fn check_memref(t: MemRefType) -> Result<(), ocannl_mlir::Error> {
    check_memref_text(t).map_err(ocannl_mlir::Error::invalid)
}

/// [`check_memref`], the reason as text.
fn check_memref_text(t: MemRefType) -> Result<(), String> {
    let ty: melior::ir::Type = t.into();
    let dims = ocannl_mlir::types::static_dims(ty).unwrap_or_default();
    if dims.iter().any(|&d| d < 0) {
        return Err(format!(
            "the buffer type {ty} has dynamic sizes; buffers have static sizes"
        ));
    }
    let elt = ocannl_mlir::types::element_name(ty).unwrap_or_default();
    let bytes = ocannl_assign::element_bytes(&elt).ok_or_else(|| {
        format!("the buffer type {ty} has element type {elt}; f16, bf16, f32 and f64 are supported")
    })?;
    let dims: Vec<u64> = dims.iter().map(|&d| d as u64).collect();
    ocannl_assign::check_buffer(&dims, bytes).map_err(|e| format!("{ty}: {e}"))?;
    Ok(())
}

/// Shape strings of nodes are concrete: no variables to allocate.
struct NoVars;

impl ocannl_shape::Fresh for NoVars {
    fn fresh_dim(&mut self) -> ocannl_shape::DimVar {
        ocannl_shape::DimVar(0)
    }
    fn fresh_row(&mut self) -> ocannl_shape::RowVar {
        ocannl_shape::RowVar(0)
    }
}

/// Checks an op of the dialect: against its definition (operands,
/// results, attributes), then the rules beyond it (a node's shape, the
/// projections of an assignment, the values of initializations). The message
/// has no op prefix (the caller adds `'ocannl_assign.x' op`). Ops of other
/// dialects pass.
pub fn verify_op(op: &OperationRef) -> Result<(), ocannl_mlir::Error> {
    verify_op_text(op).map_err(ocannl_mlir::Error::invalid)
}

/// [`verify_op`], the reason as text.
fn verify_op_text(op: &OperationRef) -> Result<(), String> {
    let name = op.name();
    let Some(name) = name
        .as_string_ref()
        .as_str()
        .ok()
        .and_then(|n| n.strip_prefix("ocannl_assign."))
    else {
        return Ok(());
    };
    let def = SPEC
        .op(name)
        .ok_or_else(|| format!("internal error: 'ocannl_assign.{name}' has no definition"))?;
    ocannl_mlir::check::check_op(op, def).map_err(|e| e.to_string())?;
    match name {
        "node" => {
            let shape = string_attr(op, "shape").map_err(|e| e.to_string())?;
            let parsed = ocannl_shape::parse_shape(&shape, &mut Default::default(), &mut NoVars)
                .map_err(|e| ocannl_shape_dialect::format_spec_error("shape", &e))?;
            let ty = op.result(0).map_err(|e| e.to_string())?.r#type();
            let t = MemRefType::try_from(ty).map_err(|_| "a node is a memref")?;
            check_memref(t).map_err(|e| e.to_string())?;
            if let Some(dims) = parsed.to_dims() {
                if dims != memref_dims(t) {
                    return Err(format!(
                        "the shape \"{shape}\" has dims {dims:?} in memory order (batch, output, input) but the buffer has {:?}",
                        memref_dims(t)
                    ));
                }
            }
            Ok(())
        }
        "accum_unop" | "accum_binop" | "accum_ternop" | "accum" => {
            let attrs = accum_attrs(op).map_err(|e| e.to_string())?;
            verify_projections(op, &attrs)
        }
        "fill" => {
            let v = op.attribute("value").map_err(|e| e.to_string())?;
            let dest = op.operand(0).map_err(|e| e.to_string())?.r#type();
            let elt = ocannl_mlir::types::element_name(dest);
            let vt = v.r#type().to_string();
            if elt.as_deref() != Some(vt.as_str()) {
                return Err(format!(
                    "the value {v} has type {vt}, which differs from the buffer's element type {}",
                    elt.unwrap_or_default()
                ));
            }
            Ok(())
        }
        "literal" => {
            let v = op.attribute("value").map_err(|e| e.to_string())?;
            let n = attr::element_count(v)
                .ok_or_else(|| format!("attribute 'value' must be a dense literal, found {v}"))?;
            let ty = op.operand(0).map_err(|e| e.to_string())?.r#type();
            let t = MemRefType::try_from(ty).map_err(|_| "the destination must be a memref")?;
            let cells: u64 = memref_dims(t).iter().product();
            if n != cells {
                return Err(format!(
                    "the literal has {n} elements but the buffer has {cells} cells"
                ));
            }
            Ok(())
        }
        "uniform" | "normal" => random_attrs_text(op).map(|_| ()),
        _ => Ok(()),
    }
}

/// The iteration space and the affine maps must fit the operands.
fn verify_projections(op: &OperationRef, attrs: &AccumAttrs) -> Result<(), String> {
    let (space, maps) = (&attrs.space, &attrs.maps);
    if space.iter().any(|&d| d < 1) {
        return Err("every size in 'space' must be positive".into());
    }
    // Memref operands come first, then the index operands bound to
    // symbols; the dynamic indices are the maps' last symbols.
    let n = buffer_count(op);
    let index_operands = op.operand_count() - n;
    let symbols = index_operands + attrs.dynamic.len();
    if maps.len() != n {
        return Err(format!(
            "expected {n} indexing maps (one per buffer operand), found {}",
            maps.len()
        ));
    }
    for (i, map) in maps.iter().enumerate() {
        let (dims, results, syms) = (map.dim_count(), map.result_count(), map.symbol_count());
        if syms != symbols {
            return Err(format!(
                "indexing map #{i} has {syms} symbols but the op has {index_operands} index operand(s) and {} dynamic index(es)",
                attrs.dynamic.len()
            ));
        }
        if dims != space.len() {
            return Err(format!(
                "indexing map #{i} has {dims} dims but 'space' has {} iterators",
                space.len()
            ));
        }
        let ty = op.operand(i).map_err(|e| e.to_string())?.r#type();
        let t = MemRefType::try_from(ty).map_err(|_| "operands must be memrefs")?;
        check_memref(t).map_err(|m| format!("operand #{i}: {m}"))?;
        let rank = t.rank();
        if results != rank {
            return Err(format!(
                "indexing map #{i} has {results} results but operand #{i} has rank {rank}"
            ));
        }
        check_ranges(
            i,
            *map,
            &memref_dims(t),
            space,
            index_operands,
            &attrs.dynamic,
        )?;
    }
    for (k, d) in attrs.dynamic.iter().enumerate() {
        if d.source + 1 >= n {
            return Err(format!(
                "dynamic index {k} names operand #{}, which is not a buffer read",
                d.source + 1
            ));
        }
        if attrs.body.reads(d.source) {
            return Err(format!(
                "dynamic index {k} names operand #{}, which the body reads: a dynamic index's operand holds indices, not values",
                d.source + 1
            ));
        }
        let exprs = ocannl_mlir::affine::to_model(maps[d.source + 1]).map_err(|e| e.to_string())?;
        let is_dynamic = |e: &ocannl_assign::Affine| matches!(e, ocannl_assign::Affine::Sym(s) if *s >= index_operands);
        if exprs.iter().any(|e| e.any_leaf(&is_dynamic)) {
            return Err(format!(
                "dynamic index {k} is read from operand #{} at a dynamic index",
                d.source + 1
            ));
        }
    }
    Ok(())
}

/// The indices of each axis stay inside it over the iteration space, unless
/// they pad: a combined index such as a convolution's reads the padding
/// value outside the axis, and the gradient of such a read writes only the
/// cells inside it. Indices that depend on index operands are checked when
/// the code runs.
///
/// A dynamic index counts as an iterator over `0..bound`: its reads and
/// writes stay inside their axes.
fn check_ranges(
    i: usize,
    map: AffineMap,
    dims: &[u64],
    space: &[i64],
    index_operands: usize,
    dynamic: &[ocannl_assign::Dynamic],
) -> Result<(), String> {
    use ocannl_assign::Affine;
    let exprs = ocannl_mlir::affine::to_model(map).map_err(|e| e.to_string())?;
    let n = space.len();
    let space: Vec<u64> = space
        .iter()
        .map(|&d| d as u64)
        .chain(dynamic.iter().map(|d| d.bound))
        .collect();
    for (r, (e, &d)) in exprs.iter().zip(dims).enumerate() {
        let is_dynamic = |x: &Affine| matches!(x, Affine::Sym(s) if *s >= index_operands);
        let dynamic_axis = e.any_leaf(&is_dynamic);
        let e = &if dynamic_axis {
            if e.any_leaf(&|x| matches!(x, Affine::Sym(s) if *s < index_operands)) {
                return Err(format!(
                    "indexing map #{i} combines a dynamic index with index operands on axis {r}"
                ));
            }
            e.map_leaves(&|x| match x {
                Affine::Sym(s) => Affine::Dim(n + s - index_operands),
                x => x.clone(),
            })
        } else {
            e.clone()
        };
        // A dynamic index never pads: its every value must be inside.
        if e.has_sym() || (e.is_padded() && !dynamic_axis) {
            continue;
        }
        let what = if i == 0 { "writes" } else { "reads" };
        match e.range(&space) {
            Some((lo, hi)) if lo >= 0 && (hi as u64) < d => {}
            Some((lo, hi)) => {
                return Err(format!(
                    "indexing map #{i} {what} axis {r} of operand #{i} (size {d}) at indices {lo} to {hi} over the iteration space {space:?}; every index must be inside the axis"
                ))
            }
            None => {
                return Err(format!(
                    "indexing map #{i} {what} axis {r} of operand #{i} (size {d}) at indices that cannot be bounded over the iteration space {space:?}"
                ))
            }
        }
    }
    Ok(())
}

/// Reads a routine (a `func.func` of `ocannl_assign` ops on memrefs) into
/// the assignment model, for the reference interpreter.
pub fn to_routine(func: OperationRef) -> Result<ocannl_assign::Routine, ocannl_mlir::Error> {
    to_routine_text(func).map_err(ocannl_mlir::Error::invalid)
}

/// [`to_routine`], the reason as text.
fn to_routine_text(func: OperationRef) -> Result<ocannl_assign::Routine, String> {
    to_routine_with_values(func)
        .map(|(r, _)| r)
        .map_err(|e| e.to_string())
}

/// A function of the dialect read into the assignment model, for a pass
/// that changes it there: its ops (one per statement, the terminator
/// left out), the routine, and the value of each buffer and index argument
/// by number.
pub struct ModelRoutine<'c, 'a> {
    pub ops: Vec<OperationRef<'c, 'a>>,
    pub routine: ocannl_assign::Routine,
    pub values: Vec<melior::ir::Value<'c, 'a>>,
}

/// Reads a function into the assignment model ([`ModelRoutine`]): `None`
/// when it has no `ocannl_assign.node` or holds ops of other dialects
/// (such a function is left as it is).
pub fn model_routine<'c, 'a>(
    func: OperationRef<'c, 'a>,
) -> Result<Option<ModelRoutine<'c, 'a>>, ocannl_mlir::Error> {
    use melior::ir::{block::BlockLike, RegionLike};
    let Some(entry) = func.region(0).ok().and_then(|r| r.first_block()) else {
        return Ok(None);
    };
    let mut ops = vec![];
    let mut cur = entry.first_operation();
    while let Some(o) = cur {
        cur = o.next_in_block();
        if cur.is_some() {
            ops.push(o);
        }
    }
    if !ops
        .iter()
        .any(|o| o.name().as_string_ref().as_str() == Ok("ocannl_assign.node"))
    {
        return Ok(None);
    }
    let (routine, values) = match to_routine_with_values(func) {
        Ok(x) => x,
        Err(why) => {
            tracing::debug!(%why, "not a routine of the assignment model");
            return Ok(None);
        }
    };
    if routine.stmts.len() != ops.len() {
        return Err(ocannl_mlir::Error::internal(
            "statements and ops differ in number",
        ));
    }
    Ok(Some(ModelRoutine {
        ops,
        routine,
        values,
    }))
}

/// As [`to_routine`], with the value of each buffer and index argument of
/// the routine, by number.
pub fn to_routine_with_values<'c, 'a>(
    func: OperationRef<'c, 'a>,
) -> Result<(ocannl_assign::Routine, Vec<melior::ir::Value<'c, 'a>>), ocannl_mlir::Error> {
    to_routine_with_values_text(func).map_err(ocannl_mlir::Error::invalid)
}

/// [`to_routine_with_values`], the reason as text.
fn to_routine_with_values_text<'c, 'a>(
    func: OperationRef<'c, 'a>,
) -> Result<(ocannl_assign::Routine, Vec<melior::ir::Value<'c, 'a>>), String> {
    use melior::ir::{block::BlockLike, RegionLike};
    use ocannl_assign::{Arg, Routine, Stmt};
    use std::collections::HashMap;

    let key = |v: melior::ir::Value| ocannl_mlir::ir::key(v);
    let body = func.region(0).map_err(|e| e.to_string())?;
    let entry = body.first_block().ok_or("the function has no body")?;
    let mut ids: HashMap<usize, usize> = HashMap::new();
    let mut elts = std::collections::BTreeMap::new();
    let mut args = vec![];
    let mut values = vec![];
    for i in 0..entry.argument_count() {
        let a = entry.argument(i).map_err(|e| e.to_string())?;
        let ty = a.r#type();
        if ty.to_string() == "index" {
            args.push(Arg::Index);
        } else {
            let t = MemRefType::try_from(ty)
                .map_err(|_| format!("argument #{i}: unsupported type {ty}"))?;
            if let Some(elt) = narrower_than_f64(ty) {
                elts.insert(i, elt);
            }
            args.push(Arg::Buffer {
                dims: memref_dims(t),
            });
        }
        ids.insert(key(a.into()), i);
        values.push(a.into());
    }
    let mut next = args.len();
    let mut stmts = vec![];
    let mut results = vec![];
    let id = |ids: &HashMap<usize, usize>, v: melior::ir::Value| -> Result<usize, String> {
        ids.get(&key(v))
            .copied()
            .ok_or_else(|| "an operand is not a tensor node or argument of the routine".to_string())
    };
    let mut op = entry.first_operation();
    while let Some(o) = op {
        let name = o
            .name()
            .as_string_ref()
            .as_str()
            .map_err(|e| e.to_string())?
            .to_string();
        let loc = o.location();
        let fail = |m: String| format!("{loc}: {m}");
        let failed = |e: ocannl_mlir::Error| fail(e.to_string());
        match name.as_str() {
            "ocannl_assign.node" => {
                let r = o.result(0).map_err(|e| e.to_string())?;
                let t = MemRefType::try_from(r.r#type())
                    .map_err(|_| fail("a node is a memref".into()))?;
                if let Some(elt) = narrower_than_f64(r.r#type()) {
                    elts.insert(next, elt);
                }
                stmts.push(Stmt::Alloc {
                    buf: next,
                    dims: memref_dims(t),
                });
                ids.insert(key(r.into()), next);
                values.push(r.into());
                next += 1;
            }
            "ocannl_assign.fill" => {
                let v = o
                    .attribute("value")
                    .map_err(|_| fail("'value' is required".into()))?;
                let value =
                    attr::number_value(v).ok_or_else(|| fail("'value' must be a number".into()))?;
                stmts.push(Stmt::Fill {
                    buf: id(&ids, o.operand(0).map_err(|e| e.to_string())?)?,
                    value,
                });
            }
            "ocannl_assign.range" => stmts.push(Stmt::Range {
                buf: id(&ids, o.operand(0).map_err(|e| e.to_string())?)?,
            }),
            "ocannl_assign.uniform" | "ocannl_assign.normal" => {
                let r = random_attrs(&o).map_err(failed)?;
                let buf = id(&ids, o.operand(0).map_err(|e| e.to_string())?)?;
                stmts.push(Stmt::Random {
                    buf,
                    seed: r.seed as u64,
                    dist: r.dist,
                    generator: r.generator,
                });
            }
            "ocannl_assign.literal" => {
                let v = o
                    .attribute("value")
                    .map_err(|_| fail("'value' is required".into()))?;
                let values = attr::dense_f64_values(v)
                    .ok_or_else(|| fail("'value' must be a dense float literal".into()))?;
                stmts.push(Stmt::Literal {
                    buf: id(&ids, o.operand(0).map_err(|e| e.to_string())?)?,
                    values,
                });
            }
            "ocannl_assign.accum_unop"
            | "ocannl_assign.accum_binop"
            | "ocannl_assign.accum_ternop"
            | "ocannl_assign.accum" => {
                let attrs = accum_attrs(&o).map_err(failed)?;
                let accum = attrs.accum;
                let space: Vec<u64> = attrs.space.iter().map(|&d| d as u64).collect();
                let mut maps = vec![];
                for m in &attrs.maps {
                    maps.push(ocannl_mlir::affine::to_model(*m).map_err(failed)?);
                }
                let operands: Vec<melior::ir::Value> = o.operands().collect();
                let n = maps.len();
                let lhs = id(&ids, operands[0])?;
                let rhs = operands[1..n]
                    .iter()
                    .map(|v| id(&ids, *v))
                    .collect::<Result<_, _>>()?;
                let symbols = operands[n..]
                    .iter()
                    .map(|v| id(&ids, *v))
                    .collect::<Result<_, _>>()?;
                stmts.push(Stmt::Accum(Assignment {
                    lhs,
                    rhs,
                    accum,
                    op: attrs.body,
                    initialize_neutral: attrs.initialize_neutral,
                    space,
                    maps,
                    symbols,
                    dynamic: attrs.dynamic,
                }));
            }
            "func.return" => {
                for v in o.operands() {
                    results.push(id(&ids, v)?);
                }
            }
            other => return Err(fail(format!("the interpreter cannot run '{other}'"))),
        }
        op = o.next_in_block();
    }
    Ok((
        Routine {
            elts,
            args,
            stmts,
            results,
        },
        values,
    ))
}

/// The element type of a memref whose elements are narrower than f64
/// (`None` for f64 and for types the interpreter does not round).
fn narrower_than_f64(ty: melior::ir::Type) -> Option<ocannl_assign::Elt> {
    ocannl_mlir::types::element_name(ty)
        .as_deref()
        .and_then(ocannl_assign::Elt::parse)
        .filter(|&e| e != ocannl_assign::Elt::F64)
}
