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
    "add", "sub", "mul", "div", "pow", "relu_gate", "satur01_gate", "max", "min", "mod", "cmplt", "cmpeq",
    "cmpne", "and", "or",
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

fn string_attr(op: &OperationRef, name: &str) -> Result<String, String> {
    ocannl_shape_dialect::string_attr(op, name)?.ok_or_else(|| format!("attribute '{name}' is required"))
}

fn member(attr: &str, value: &str, allowed: &[&str]) -> Result<(), String> {
    if allowed.contains(&value) {
        Ok(())
    } else {
        Err(format!("invalid '{attr}' value '{value}'; expected one of: {}", allowed.join(", ")))
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
    let Some(name) = name.as_string_ref().as_str().ok().and_then(|n| n.strip_prefix("ocannl_assign.")) else {
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
            member("op", &string_attr(op, "op")?, ops)?;
            let accum = string_attr(op, "accum")?;
            if accum != "assign" {
                member("accum", &accum, ACCUM_OPS)?;
            }
            if let Ok(init) = op.attribute("initialize_neutral") {
                if !init.is_bool() {
                    return Err(format!("attribute 'initialize_neutral' must be a bool, found {init}"));
                }
            }
            verify_projections(op)
        }
        "fill" | "range" => Ok(()),
        "literal" => {
            let v = op.attribute("value").map_err(|_| "attribute 'value' is required")?;
            let n = unsafe { mlir_sys::mlirElementsAttrGetNumElements(v.to_raw()) };
            let ty = op.operand(0).map_err(|e| e.to_string())?.r#type();
            let t = MemRefType::try_from(ty).map_err(|_| "the destination must be a memref")?;
            let cells: i64 = memref_dims(t).iter().map(|&d| d as i64).product();
            if n != cells {
                return Err(format!("the literal has {n} elements but the node has {cells} cells"));
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
fn verify_projections(op: &OperationRef) -> Result<(), String> {
    let space: Attribute = op.attribute("space").map_err(|_| "attribute 'space' is required")?;
    let space = DenseI64ArrayAttribute::try_from(space).map_err(|_| "attribute 'space' must be an array<i64: ...>")?;
    if (0..space.len()).any(|i| space.element(i).map(|d| d < 1).unwrap_or(true)) {
        return Err("every size in 'space' must be positive".into());
    }
    let maps = op.attribute("indexing_maps").map_err(|_| "attribute 'indexing_maps' is required")?;
    let maps = melior::ir::attribute::ArrayAttribute::try_from(maps)
        .map_err(|_| "attribute 'indexing_maps' must be an array of affine maps")?;
    // Memref operands come first, then the index operands bound to symbols.
    let n = op.operands().take_while(|v| MemRefType::try_from(v.r#type()).is_ok()).count();
    let symbols = op.operand_count() - n;
    if maps.len() != n {
        return Err(format!("expected {n} indexing maps (one per operand), found {}", maps.len()));
    }
    for i in 0..n {
        let m = maps.element(i).map_err(|e| e.to_string())?;
        if !m.is_affine_map() {
            return Err(format!("indexing map #{i} is not an affine map: {m}"));
        }
        let map = unsafe { mlir_sys::mlirAffineMapAttrGetValue(m.to_raw()) };
        let (dims, results, syms) = unsafe {
            (
                mlir_sys::mlirAffineMapGetNumDims(map),
                mlir_sys::mlirAffineMapGetNumResults(map),
                mlir_sys::mlirAffineMapGetNumSymbols(map),
            )
        };
        if syms as usize != symbols {
            return Err(format!("indexing map #{i} has {syms} symbols but the op has {symbols} index operand(s)"));
        }
        if dims as usize != space.len() {
            return Err(format!("indexing map #{i} has {dims} dims but 'space' has {} iterators", space.len()));
        }
        let ty = op.operand(i).map_err(|e| e.to_string())?.r#type();
        let rank = MemRefType::try_from(ty).map(|t| t.rank()).map_err(|_| "operands must be memrefs")?;
        if results as usize != rank {
            return Err(format!("indexing map #{i} has {results} results but operand #{i} has rank {rank}"));
        }
    }
    Ok(())
}
