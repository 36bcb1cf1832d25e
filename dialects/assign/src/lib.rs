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
    Attribute, OperationRef, ShapedTypeLike, ValueLike,
};
use ocannl_shape_dialect::{ACCUM_OPS, TERNARY_OPS, UNARY_OPS};

/// Binary numeric ops of assignments, named as OCANNL's `binop`s
/// (comparisons are `cmplt`, `cmpeq`, `cmpne`).
pub const BINARY_OPS: &[&str] = &[
    "add",
    "sub",
    "mul",
    "div",
    "pow",
    "relu_gate",
    "satur01_gate",
    "max",
    "min",
    "mod",
    "cmplt",
    "cmpeq",
    "cmpne",
    "and",
    "or",
];

/// The assignment op of a tensor-level op name (`lt` -> `cmplt`, ...).
pub fn assign_op_name(tensor_op: &str) -> &str {
    match tensor_op {
        "lt" => "cmplt",
        "eq" => "cmpeq",
        "ne" => "cmpne",
        other => other,
    }
}

/// The IRDL definition of the dialect.
pub const IRDL: &str = include_str!("../ocannl_assign.irdl.mlir");

pub const DIALECT: &str = "ocannl_assign";

/// Memory modes of a tensor node.
pub const MEMORY_MODES: &[&str] = &["undecided", "virtual", "local", "on_device", "materialized"];
/// Kinds of tensor nodes.
pub const NODE_KINDS: &[&str] = &["value", "grad"];

/// A required string attribute.
pub fn string_attr(op: &OperationRef, name: &str) -> Result<String, String> {
    ocannl_shape_dialect::string_attr(op, name)?
        .ok_or_else(|| format!("attribute '{name}' is required"))
}

/// The attributes of an accumulating assignment (`accum_unop|binop|ternop`).
pub struct AccumAttrs {
    pub accum: String,
    pub op: String,
    pub initialize_neutral: bool,
    pub space: Vec<i64>,
    /// One affine map per memref operand, the result first.
    pub maps: Vec<mlir_sys::MlirAffineMap>,
}

/// Reads the attributes of an accumulating assignment, checking their kinds.
pub fn accum_attrs(op: &OperationRef) -> Result<AccumAttrs, String> {
    let initialize_neutral = match op.attribute("initialize_neutral") {
        Err(_) => false,
        Ok(a) if a.is_bool() => unsafe { mlir_sys::mlirBoolAttrGetValue(a.to_raw()) },
        Ok(a) => {
            return Err(format!(
                "attribute 'initialize_neutral' must be a bool, found {a}"
            ))
        }
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
            if !m.is_affine_map() {
                return Err(format!("indexing map #{i} is not an affine map: {m}"));
            }
            Ok(unsafe { mlir_sys::mlirAffineMapAttrGetValue(m.to_raw()) })
        })
        .collect::<Result<_, _>>()?;
    Ok(AccumAttrs {
        accum: string_attr(op, "accum")?,
        op: string_attr(op, "op")?,
        initialize_neutral,
        space,
        maps,
    })
}

fn member(attr: &str, value: &str, allowed: &[&str]) -> Result<(), String> {
    if allowed.contains(&value) {
        Ok(())
    } else {
        Err(format!(
            "invalid '{attr}' value '{value}'; expected one of: {}",
            allowed.join(", ")
        ))
    }
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

/// Checks what IRDL cannot express.
pub fn verify_op(op: &OperationRef) -> Result<(), String> {
    let name = op.name();
    let Some(name) = name
        .as_string_ref()
        .as_str()
        .ok()
        .and_then(|n| n.strip_prefix("ocannl_assign."))
    else {
        return Ok(());
    };
    match name {
        "node" => {
            member("kind", &string_attr(op, "kind")?, NODE_KINDS)?;
            member("memory", &string_attr(op, "memory")?, MEMORY_MODES)?;
            let shape = string_attr(op, "shape")?;
            let parsed = ocannl_shape::parse_shape(&shape, &mut Default::default(), &mut NoVars)
                .map_err(|e| ocannl_shape_dialect::format_spec_error("shape", &e))?;
            let ty = op.result(0).map_err(|e| e.to_string())?.r#type();
            let t = MemRefType::try_from(ty).map_err(|_| "a node is a memref")?;
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
        "accum_unop" | "accum_binop" | "accum_ternop" => {
            let ops = match name {
                "accum_unop" => UNARY_OPS,
                "accum_binop" => BINARY_OPS,
                _ => TERNARY_OPS,
            };
            let attrs = accum_attrs(op)?;
            member("op", &attrs.op, ops)?;
            if attrs.accum != "assign" {
                member("accum", &attrs.accum, ACCUM_OPS)?;
            }
            verify_projections(op, &attrs)
        }
        "fill" | "range" => Ok(()),
        "literal" => {
            let v = op
                .attribute("value")
                .map_err(|_| "attribute 'value' is required")?;
            let n = unsafe { mlir_sys::mlirElementsAttrGetNumElements(v.to_raw()) };
            let ty = op.operand(0).map_err(|e| e.to_string())?.r#type();
            let t = MemRefType::try_from(ty).map_err(|_| "the destination must be a memref")?;
            let cells: i64 = memref_dims(t).iter().map(|&d| d as i64).product();
            if n != cells {
                return Err(format!(
                    "the literal has {n} elements but the node has {cells} cells"
                ));
            }
            Ok(())
        }
        "uniform" => {
            for name in ["low", "high"] {
                if let Ok(a) = op.attribute(name) {
                    if !a.is_float() {
                        return Err(format!("attribute '{name}' must be a float, found {a}"));
                    }
                }
            }
            Ok(())
        }
        other => Err(format!("unknown op 'ocannl_assign.{other}'")),
    }
}

/// The iteration space and the affine maps must fit the operands.
fn verify_projections(op: &OperationRef, attrs: &AccumAttrs) -> Result<(), String> {
    let (space, maps) = (&attrs.space, &attrs.maps);
    if space.iter().any(|&d| d < 1) {
        return Err("every size in 'space' must be positive".into());
    }
    // Memref operands come first, then the index operands bound to symbols.
    let n = op
        .operands()
        .take_while(|v| MemRefType::try_from(v.r#type()).is_ok())
        .count();
    let symbols = op.operand_count() - n;
    if maps.len() != n {
        return Err(format!(
            "expected {n} indexing maps (one per operand), found {}",
            maps.len()
        ));
    }
    for (i, &map) in maps.iter().enumerate() {
        let (dims, results, syms) = unsafe {
            (
                mlir_sys::mlirAffineMapGetNumDims(map),
                mlir_sys::mlirAffineMapGetNumResults(map),
                mlir_sys::mlirAffineMapGetNumSymbols(map),
            )
        };
        if syms as usize != symbols {
            return Err(format!(
                "indexing map #{i} has {syms} symbols but the op has {symbols} index operand(s)"
            ));
        }
        if dims as usize != space.len() {
            return Err(format!(
                "indexing map #{i} has {dims} dims but 'space' has {} iterators",
                space.len()
            ));
        }
        let ty = op.operand(i).map_err(|e| e.to_string())?.r#type();
        let rank = MemRefType::try_from(ty)
            .map(|t| t.rank())
            .map_err(|_| "operands must be memrefs")?;
        if results as usize != rank {
            return Err(format!(
                "indexing map #{i} has {results} results but operand #{i} has rank {rank}"
            ));
        }
    }
    Ok(())
}

/// Reads a routine (a `func.func` of `ocannl_assign` ops on memrefs) into
/// the assignment model, for the reference interpreter.
pub fn to_routine(func: OperationRef) -> Result<ocannl_assign::Routine, String> {
    use melior::ir::{block::BlockLike, RegionLike};
    use ocannl_assign::{Accum, Arg, Routine, Stmt};
    use std::collections::HashMap;

    let key = |v: mlir_sys::MlirValue| v.ptr as usize;
    let body = func.region(0).map_err(|e| e.to_string())?;
    let entry = body.first_block().ok_or("the function has no body")?;
    let mut ids: HashMap<usize, usize> = HashMap::new();
    let mut args = vec![];
    for i in 0..entry.argument_count() {
        let a = entry.argument(i).map_err(|e| e.to_string())?;
        let ty = a.r#type();
        if ty.to_string() == "index" {
            args.push(Arg::Index);
        } else {
            let t = MemRefType::try_from(ty)
                .map_err(|_| format!("argument #{i}: unsupported type {ty}"))?;
            args.push(Arg::Buffer {
                dims: memref_dims(t),
            });
        }
        ids.insert(key(a.to_raw()), i);
    }
    let mut next = args.len();
    let mut stmts = vec![];
    let mut results = vec![];
    let id = |ids: &HashMap<usize, usize>, v: melior::ir::Value| -> Result<usize, String> {
        ids.get(&key(v.to_raw()))
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
        match name.as_str() {
            "ocannl_assign.node" => {
                let r = o.result(0).map_err(|e| e.to_string())?;
                let t = MemRefType::try_from(r.r#type())
                    .map_err(|_| fail("a node is a memref".into()))?;
                stmts.push(Stmt::Alloc {
                    buf: next,
                    dims: memref_dims(t),
                });
                ids.insert(key(r.to_raw()), next);
                next += 1;
            }
            "ocannl_assign.fill" => {
                let v = o
                    .attribute("value")
                    .map_err(|_| fail("'value' is required".into()))?;
                let value = unsafe { mlir_sys::mlirFloatAttrGetValueDouble(v.to_raw()) };
                stmts.push(Stmt::Fill {
                    buf: id(&ids, o.operand(0).map_err(|e| e.to_string())?)?,
                    value,
                });
            }
            "ocannl_assign.range" => stmts.push(Stmt::Range {
                buf: id(&ids, o.operand(0).map_err(|e| e.to_string())?)?,
            }),
            "ocannl_assign.uniform" => {
                let seed = o
                    .attribute("seed")
                    .map_err(|_| fail("'seed' is required".into()))?;
                let seed = unsafe { mlir_sys::mlirIntegerAttrGetValueInt(seed.to_raw()) } as u64;
                let f = |n: &str, d: f64| {
                    o.attribute(n)
                        .ok()
                        .map(|a| unsafe { mlir_sys::mlirFloatAttrGetValueDouble(a.to_raw()) })
                        .unwrap_or(d)
                };
                let buf = id(&ids, o.operand(0).map_err(|e| e.to_string())?)?;
                stmts.push(Stmt::Uniform {
                    buf,
                    seed,
                    low: f("low", 0.0),
                    high: f("high", 1.0),
                });
            }
            "ocannl_assign.literal" => {
                let v = o
                    .attribute("value")
                    .map_err(|_| fail("'value' is required".into()))?;
                let n = unsafe { mlir_sys::mlirElementsAttrGetNumElements(v.to_raw()) };
                let is_f64 = v.r#type().to_string().ends_with("xf64>");
                let values = (0..n)
                    .map(|i| unsafe {
                        if is_f64 {
                            mlir_sys::mlirDenseElementsAttrGetDoubleValue(v.to_raw(), i as isize)
                        } else {
                            mlir_sys::mlirDenseElementsAttrGetFloatValue(v.to_raw(), i as isize)
                                as f64
                        }
                    })
                    .collect();
                stmts.push(Stmt::Literal {
                    buf: id(&ids, o.operand(0).map_err(|e| e.to_string())?)?,
                    values,
                });
            }
            "ocannl_assign.accum_unop"
            | "ocannl_assign.accum_binop"
            | "ocannl_assign.accum_ternop" => {
                let attrs = accum_attrs(&o).map_err(&fail)?;
                let accum = Accum::parse(&attrs.accum)
                    .ok_or_else(|| fail(format!("unknown accumulation '{}'", attrs.accum)))?;
                let space: Vec<u64> = attrs.space.iter().map(|&d| d as u64).collect();
                let mut maps = vec![];
                for &m in &attrs.maps {
                    maps.push(map_exprs(m).map_err(&fail)?);
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
                stmts.push(Stmt::Accum {
                    lhs,
                    rhs,
                    accum,
                    op: attrs.op,
                    initialize_neutral: attrs.initialize_neutral,
                    space,
                    maps,
                    symbols,
                });
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
    Ok(Routine {
        args,
        stmts,
        results,
    })
}

/// The result expressions of an MLIR affine map, in the model.
pub fn map_exprs(m: mlir_sys::MlirAffineMap) -> Result<Vec<ocannl_assign::Affine>, String> {
    let n = unsafe { mlir_sys::mlirAffineMapGetNumResults(m) };
    (0..n)
        .map(|k| affine(unsafe { mlir_sys::mlirAffineMapGetResult(m, k) }))
        .collect()
}

/// An MLIR affine expression in the model.
fn affine(e: mlir_sys::MlirAffineExpr) -> Result<ocannl_assign::Affine, String> {
    use ocannl_assign::Affine;
    unsafe {
        if mlir_sys::mlirAffineExprIsADim(e) {
            return Ok(Affine::Dim(
                mlir_sys::mlirAffineDimExprGetPosition(e) as usize
            ));
        }
        if mlir_sys::mlirAffineExprIsASymbol(e) {
            return Ok(Affine::Sym(
                mlir_sys::mlirAffineSymbolExprGetPosition(e) as usize
            ));
        }
        if mlir_sys::mlirAffineExprIsAConstant(e) {
            return Ok(Affine::Const(mlir_sys::mlirAffineConstantExprGetValue(e)));
        }
        let (l, r) = (
            mlir_sys::mlirAffineBinaryOpExprGetLHS(e),
            mlir_sys::mlirAffineBinaryOpExprGetRHS(e),
        );
        let (l, r) = (Box::new(affine(l)?), Box::new(affine(r)?));
        Ok(if mlir_sys::mlirAffineExprIsAAdd(e) {
            Affine::Add(l, r)
        } else if mlir_sys::mlirAffineExprIsAMul(e) {
            Affine::Mul(l, r)
        } else if mlir_sys::mlirAffineExprIsAMod(e) {
            Affine::Mod(l, r)
        } else if mlir_sys::mlirAffineExprIsAFloorDiv(e) {
            Affine::FloorDiv(l, r)
        } else if mlir_sys::mlirAffineExprIsACeilDiv(e) {
            Affine::CeilDiv(l, r)
        } else {
            return Err("unsupported affine expression".into());
        })
    }
}
