//! The `ocannl_shape` dialect: its IRDL definition, and the bridge between its
//! ops and types and the shape solver's data (`ocannl-shape`).
//!
//! Architecture invariant: this crate only converts. It parses attributes and
//! types into `ocannl_shape` data, checks what IRDL cannot express, and
//! formats solved shapes back into types. Inference lives in `ocannl-shape`.

use melior::ir::{
    attribute::AttributeLike, operation::OperationLike, Attribute, OperationRef, Type,
    ValueLike,
};
use ocannl_ops::{Accum, BinaryOp, NumOp, TernaryOp, UnaryOp};
use ocannl_shape::{notation::EinsumSpec, parse_einsum, SpecError};
use rustc_hash::FxHashMap;

/// The IRDL definition of the dialect.
pub const IRDL: &str = include_str!("../ocannl_shape.irdl.mlir");

pub const DIALECT: &str = "ocannl_shape";

/// The ops of the dialect.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OpKind {
    Param,
    Constant,
    PointwiseUnary,
    PointwiseBinary,
    PointwiseTernary,
    Compose,
    Einsum,
    Transpose,
    BatchSlice,
}

impl OpKind {
    pub fn from_name(name: &str) -> Option<OpKind> {
        Some(match name.strip_prefix("ocannl_shape.")? {
            "param" => OpKind::Param,
            "constant" => OpKind::Constant,
            "pointwise_unary" => OpKind::PointwiseUnary,
            "pointwise_binary" => OpKind::PointwiseBinary,
            "pointwise_ternary" => OpKind::PointwiseTernary,
            "compose" => OpKind::Compose,
            "einsum" => OpKind::Einsum,
            "transpose" => OpKind::Transpose,
            "batch_slice" => OpKind::BatchSlice,
            _ => return None,
        })
    }

    /// The number of tensor operands the op takes (at least).
    pub fn tensor_operands(self) -> usize {
        match self {
            OpKind::Param | OpKind::Constant => 0,
            OpKind::PointwiseUnary | OpKind::Transpose | OpKind::BatchSlice | OpKind::Einsum => 1,
            OpKind::PointwiseBinary | OpKind::Compose => 2,
            OpKind::PointwiseTernary => 3,
        }
    }

    pub fn of(op: &OperationRef) -> Option<OpKind> {
        OpKind::from_name(op.name().as_string_ref().as_str().ok()?)
    }
}

/// The parts of `!ocannl_shape.tensor<"SHAPE", ELT>`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TensorType {
    pub shape: String,
    pub elt: String,
}

/// Reads a tensor type, `None` for any other type.
pub fn tensor_type(ty: Type) -> Option<TensorType> {
    // Printing a type is costly: other dialects' types are told apart first.
    if !is_shape_dialect_type(ty) {
        return None;
    }
    parse_tensor_type_text(&ty.to_string())
}

/// Whether `ty` belongs to the `ocannl_shape` dialect.
fn is_shape_dialect_type(ty: Type) -> bool {
    ocannl_mlir::types::is_in_dialect(ty, DIALECT)
}

/// Reads and makes `!ocannl_shape.tensor` types, each distinct type once.
/// The context uniques types, so a type's handle identifies it while the
/// context lives: keep one cache per pass run (a graph of thousands of ops
/// has a handful of distinct types, and printing or parsing a type costs
/// microseconds).
#[derive(Default)]
pub struct TensorTypes<'c> {
    read: FxHashMap<Type<'c>, Option<std::rc::Rc<TensorType>>>,
    /// Made types by element type, then shape (looked up without
    /// allocating).
    made: FxHashMap<String, FxHashMap<ocannl_shape::Shape, Type<'c>>>,
}

impl<'c> TensorTypes<'c> {
    /// As [`tensor_type`] (shared: values of one type share its parts).
    pub fn read(&mut self, ty: Type<'c>) -> Option<std::rc::Rc<TensorType>> {
        self.read
            .entry(ty)
            .or_insert_with(|| tensor_type(ty).map(std::rc::Rc::new))
            .clone()
    }

    /// The tensor type of a solved shape, as [`make_tensor_type`] with the
    /// shape's canonical text (printed only for a new shape).
    pub fn make(
        &mut self,
        context: &'c melior::Context,
        shape: &ocannl_shape::Shape,
        elt: &str,
    ) -> Option<Type<'c>> {
        if let Some(ty) = self.made.get(elt).and_then(|m| m.get(shape)) {
            return Some(*ty);
        }
        let ty = make_tensor_type(context, &shape.to_string(), elt)?;
        self.made
            .entry(elt.to_string())
            .or_default()
            .insert(shape.clone(), ty);
        Some(ty)
    }
}

fn parse_tensor_type_text(text: &str) -> Option<TensorType> {
    let inner = text
        .strip_prefix("!ocannl_shape.tensor<\"")?
        .strip_suffix('>')?;
    let close = inner.find('"')?;
    let shape = inner[..close].to_string();
    let elt = inner[close + 1..]
        .trim_start()
        .strip_prefix(',')?
        .trim()
        .to_string();
    Some(TensorType { shape, elt })
}

/// Makes `!ocannl_shape.tensor<"shape", elt>`.
pub fn make_tensor_type<'c>(
    context: &'c melior::Context,
    shape: &str,
    elt: &str,
) -> Option<Type<'c>> {
    Type::parse(
        context,
        &format!("!ocannl_shape.tensor<\"{shape}\", {elt}>"),
    )
}

pub use ocannl_mlir::attr::string_value;

/// The optional string attribute `name` of `op`.
pub fn string_attr(op: &OperationRef, name: &str) -> Result<Option<String>, String> {
    match op.attribute(name) {
        Err(_) => Ok(None),
        Ok(a) => match string_value(a) {
            Some(s) => Ok(Some(s)),
            None => Err(format!("attribute '{name}' must be a string, found {a}")),
        },
    }
}

/// The op `parse` makes of the attribute `attr`'s value, or an error
/// listing the names it accepts.
fn parse_member<T>(
    attr: &str,
    value: &str,
    parse: impl Fn(&str) -> Option<T>,
    what: &str,
    names: String,
) -> Result<T, String> {
    parse(value).ok_or_else(|| {
        format!("unknown {what} '{value}' in attribute '{attr}'; expected one of: {names}")
    })
}

/// The `op` and `accum` of a compose or einsum, with their defaults
/// (`mul` or, for one operand, `identity`; `add`).
pub fn reduction_ops(op: &OperationRef, unary: bool) -> Result<(NumOp, Accum), String> {
    let o = string_attr(op, "op")?;
    let o = match (unary, o) {
        (true, None) => NumOp::Unary(UnaryOp::Identity),
        (false, None) => NumOp::Binary(BinaryOp::Mul),
        (true, Some(o)) => NumOp::Unary(parse_member(
            "op",
            &o,
            UnaryOp::parse,
            UnaryOp::WHAT,
            UnaryOp::names(),
        )?),
        (false, Some(o)) => NumOp::Binary(parse_member(
            "op",
            &o,
            BinaryOp::parse,
            BinaryOp::WHAT,
            BinaryOp::names(),
        )?),
    };
    let a = match string_attr(op, "accum")? {
        None => Accum::Add,
        Some(a) => parse_member(
            "accum",
            &a,
            Accum::parse_reducing,
            Accum::WHAT,
            Accum::reducing_names(),
        )?,
    };
    Ok((o, a))
}

/// The numeric op of a pointwise op.
pub fn pointwise_op(op: &OperationRef, kind: OpKind) -> Result<NumOp, String> {
    let o = string_attr(op, "op")?.ok_or("attribute 'op' is required")?;
    Ok(match kind {
        OpKind::PointwiseUnary => NumOp::Unary(parse_member(
            "op",
            &o,
            UnaryOp::parse,
            UnaryOp::WHAT,
            UnaryOp::names(),
        )?),
        OpKind::PointwiseBinary => NumOp::Binary(parse_member(
            "op",
            &o,
            BinaryOp::parse,
            BinaryOp::WHAT,
            BinaryOp::names(),
        )?),
        _ => NumOp::Ternary(parse_member(
            "op",
            &o,
            TernaryOp::parse,
            TernaryOp::WHAT,
            TernaryOp::names(),
        )?),
    })
}

/// Parsed einsum specs by their text.
pub type EinsumSpecs = FxHashMap<String, std::sync::Arc<EinsumSpec>>;

/// The parsed `spec` of an einsum, checked against the operand count. Each
/// distinct spec text is parsed once (`specs` is shared across the ops of a
/// run): einsums with the same spec share it.
pub fn einsum_spec(
    op: &OperationRef,
    specs: &mut EinsumSpecs,
) -> Result<std::sync::Arc<EinsumSpec>, String> {
    let text = string_attr(op, "spec")?.ok_or("attribute 'spec' is required")?;
    let spec = match specs.get(&text) {
        Some(spec) => spec.clone(),
        None => {
            let spec = std::sync::Arc::new(
                parse_einsum(&text).map_err(|e| format_spec_error("einsum spec", &e))?,
            );
            specs.insert(text.clone(), spec.clone());
            spec
        }
    };
    check_slots(op, &text, &spec)?;
    Ok(spec)
}

/// An einsum spec has one operand slot per operand.
fn check_slots(op: &OperationRef, text: &str, spec: &EinsumSpec) -> Result<(), String> {
    let n = op.operand_count();
    if spec.rhs.len() != n {
        return Err(format!(
            "einsum spec \"{text}\" has {} operand slot(s) before '=>' but the op has {n} operand(s)",
            spec.rhs.len()
        ));
    }
    Ok(())
}

/// "invalid einsum spec: expected ... at position 3 in \"ij;jk\"".
pub fn format_spec_error(what: &str, e: &SpecError) -> String {
    format!("invalid {what}: {e}")
}

/// Checks what IRDL cannot: attribute values, optional attributes, specs.
/// Shape strings are checked where types are read (see `check_type`).
/// Each distinct einsum spec is parsed once (`specs` is shared across the ops
/// of a run).
pub fn verify_op(op: &OperationRef, specs: &mut EinsumSpecs) -> Result<(), String> {
    let Some(kind) = OpKind::of(op) else {
        return Ok(());
    };
    match kind {
        OpKind::Param => {
            let name = string_attr(op, "name")?.unwrap_or_default();
            if name.is_empty() {
                return Err("a param needs a non-empty 'name'".into());
            }
            if let Some(tt) = op.result(0).ok().and_then(|r| tensor_type(r.r#type())) {
                if let Ok(slot) = ocannl_shape::parse_slot(&tt.shape, ocannl_shape::Context::Shape)
                {
                    if !slot.batch.is_empty() {
                        return Err(format!(
                            "param '{name}' has batch axes in its type \"{}\"; a param never has batch axes",
                            tt.shape
                        ));
                    }
                }
            }
        }
        OpKind::Constant => {
            let v: Attribute = op
                .attribute("value")
                .map_err(|_| "attribute 'value' is required")?;
            if !(v.is_float() || v.is_dense_elements() || v.is_integer()) {
                return Err(format!(
                    "attribute 'value' must be a float or a dense literal, found {v}"
                ));
            }
        }
        OpKind::PointwiseUnary | OpKind::PointwiseBinary | OpKind::PointwiseTernary => {
            pointwise_op(op, kind)?;
        }
        OpKind::Compose => {
            reduction_ops(op, false)?;
        }
        OpKind::Einsum => {
            let spec = einsum_spec(op, specs)?;
            reduction_ops(op, spec.rhs.len() == 1)?;
        }
        OpKind::Transpose | OpKind::BatchSlice => {}
    }
    check_element_types(op, kind)
}

/// Every tensor of an op has one element type: the result's. There is no
/// implicit conversion (a mixed-precision program converts explicitly,
/// before the op), and a dense literal holds the tensor's element type.
fn check_element_types(op: &OperationRef, kind: OpKind) -> Result<(), String> {
    let Some(result) = op.result(0).ok().and_then(|r| tensor_type(r.r#type())) else {
        return Ok(());
    };
    for (i, v) in op.operands().enumerate() {
        if let Some(t) = tensor_type(v.r#type()) {
            if t.elt != result.elt {
                return Err(format!(
                    "operand #{i} has element type {} but the result has {}; the tensors of an op share one element type",
                    t.elt, result.elt
                ));
            }
        }
    }
    if kind == OpKind::Constant {
        if let Ok(v) = op.attribute("value") {
            if v.is_dense_elements() {
                if let Some(elt) = ocannl_mlir::attr::element_type(v) {
                    if elt.to_string() != result.elt {
                        return Err(format!(
                            "the literal's element type {elt} differs from the tensor's {}",
                            result.elt
                        ));
                    }
                }
            }
        }
    }
    Ok(())
}

/// Checks the SHAPE of a tensor type (if it is one) parses.
pub fn check_type(ty: Type) -> Result<(), String> {
    let Some(tt) = tensor_type(ty) else {
        return Ok(());
    };
    if tt.shape.trim() == "?" {
        return Ok(());
    }
    ocannl_shape::parse_slot(&tt.shape, ocannl_shape::Context::Shape)
        .map(|_| ())
        .map_err(|e| format_spec_error("shape", &e))
}
