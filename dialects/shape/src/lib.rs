//! The `ocannl_shape` dialect: its IRDL definition, and the bridge between its
//! ops and types and the shape solver's data (`ocannl-shape`).
//!
//! Architecture invariant: this crate only converts. It parses attributes and
//! types into `ocannl_shape` data, checks what IRDL cannot express, and
//! formats solved shapes back into types. Inference lives in `ocannl-shape`.

use melior::ir::{
    attribute::AttributeLike, operation::OperationLike, OperationRef, Type, ValueLike,
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
    /// A named dimension as a number.
    Dim,
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
            "dim" => OpKind::Dim,
            _ => return None,
        })
    }

    /// The number of tensor operands the op takes (at least).
    pub fn tensor_operands(self) -> usize {
        match self {
            OpKind::Param | OpKind::Constant | OpKind::Dim => 0,
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
pub fn string_attr(op: &OperationRef, name: &str) -> Result<Option<String>, ocannl_mlir::Error> {
    string_attr_text(op, name).map_err(ocannl_mlir::Error::invalid)
}

/// [`string_attr`], the reason as text.
fn string_attr_text(op: &OperationRef, name: &str) -> Result<Option<String>, String> {
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
pub fn reduction_ops(op: &OperationRef, unary: bool) -> Result<(NumOp, Accum), ocannl_mlir::Error> {
    reduction_ops_text(op, unary).map_err(ocannl_mlir::Error::invalid)
}

/// [`reduction_ops`], the reason as text.
fn reduction_ops_text(op: &OperationRef, unary: bool) -> Result<(NumOp, Accum), String> {
    let o = string_attr(op, "op").map_err(|e| e.to_string())?;
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
    let a = match string_attr(op, "accum").map_err(|e| e.to_string())? {
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
pub fn pointwise_op(op: &OperationRef, kind: OpKind) -> Result<NumOp, ocannl_mlir::Error> {
    pointwise_op_text(op, kind).map_err(ocannl_mlir::Error::invalid)
}

/// [`pointwise_op`], the reason as text.
fn pointwise_op_text(op: &OperationRef, kind: OpKind) -> Result<NumOp, String> {
    let o = string_attr(op, "op")
        .map_err(|e| e.to_string())?
        .ok_or("attribute 'op' is required")?;
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

pub use ocannl_dialect_spec::shape::ParamInit;

/// The `generator` attribute of an op (`param`, and `ocannl_assign`'s
/// `uniform` and `normal`): SplitMix64 when absent.
pub fn generator_attr(op: &OperationRef) -> Result<ocannl_ops::Generator, ocannl_mlir::Error> {
    generator_attr_text(op).map_err(ocannl_mlir::Error::invalid)
}

/// [`generator_attr`], the reason as text.
fn generator_attr_text(op: &OperationRef) -> Result<ocannl_ops::Generator, String> {
    match string_attr(op, "generator").map_err(|e| e.to_string())? {
        None => Ok(ocannl_ops::Generator::default()),
        Some(g) => ocannl_ops::Generator::parse(&g).ok_or_else(|| {
            let names: Vec<&str> = ocannl_ops::Generator::ALL
                .iter()
                .map(|g| g.name())
                .collect();
            format!(
                "attribute 'generator' must be one of {}, found \"{g}\"",
                names.join(", ")
            )
        }),
    }
}

/// How a param op is initialized: its `init`, its `seed` if one is given,
/// and its `generator`.
pub struct ParamInitAttrs {
    pub init: ParamInit,
    pub seed: Option<i64>,
    pub generator: ocannl_ops::Generator,
}

/// The initialization of a param op.
pub fn param_init(op: &OperationRef) -> Result<ParamInitAttrs, ocannl_mlir::Error> {
    param_init_text(op).map_err(ocannl_mlir::Error::invalid)
}

/// [`param_init`], the reason as text.
fn param_init_text(op: &OperationRef) -> Result<ParamInitAttrs, String> {
    let mut init = match string_attr(op, "init").map_err(|e| e.to_string())? {
        None => ParamInit::Uniform,
        Some(s) => ParamInit::parse(&s).ok_or_else(|| {
            format!(
                "unknown initialization '{s}' in attribute 'init'; expected one of: {}",
                ParamInit::names()
            )
        })?,
    };
    if let (ParamInit::Constant { value }, Ok(a)) = (&mut init, op.attribute("value")) {
        *value = ocannl_mlir::attr::number_value(a)
            .filter(|v| v.is_finite())
            .ok_or_else(|| format!("attribute 'value' must be a finite number, found {a}"))?;
    }
    if let (ParamInit::Normal { std }, Ok(a)) = (&mut init, op.attribute("std")) {
        *std = ocannl_mlir::attr::number_value(a)
            .filter(|v| v.is_finite() && *v >= 0.0)
            .ok_or_else(|| format!("attribute 'std' must be a number at least 0, found {a}"))?;
    }
    let seed = match op.attribute("seed") {
        Err(_) => None,
        Ok(a) => Some(
            ocannl_mlir::attr::int_value(a)
                .ok_or_else(|| format!("attribute 'seed' must be an integer, found {a}"))?,
        ),
    };
    let generator = generator_attr_text(op)?;
    Ok(ParamInitAttrs {
        init,
        seed,
        generator,
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
) -> Result<std::sync::Arc<EinsumSpec>, ocannl_mlir::Error> {
    einsum_spec_text(op, specs).map_err(ocannl_mlir::Error::invalid)
}

/// [`einsum_spec`], the reason as text.
fn einsum_spec_text(
    op: &OperationRef,
    specs: &mut EinsumSpecs,
) -> Result<std::sync::Arc<EinsumSpec>, String> {
    let text = string_attr(op, "spec")
        .map_err(|e| e.to_string())?
        .ok_or("attribute 'spec' is required")?;
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

/// Whether `op` is `ocannl_shape.set_dim` or `ocannl_shape.set_equal`: a
/// constraint on the function's named variables, which computes nothing.
pub fn is_constraint(op: &OperationRef) -> bool {
    matches!(
        op.name().as_string_ref().as_str(),
        Ok("ocannl_shape.set_dim" | "ocannl_shape.set_equal")
    )
}

/// The constraint `op` states (`set_dim`, `set_equal`); `None` for any other
/// op.
pub fn constraint(
    op: &OperationRef,
) -> Result<Option<ocannl_shape::RefConstraint>, ocannl_mlir::Error> {
    if !is_constraint(op) {
        return Ok(None);
    }
    constraint_text(op)
        .map(Some)
        .map_err(ocannl_mlir::Error::invalid)
}

fn constraint_text(op: &OperationRef) -> Result<ocannl_shape::RefConstraint, String> {
    let name = |attr: &str| name_attr(op, attr);
    if op.name().as_string_ref().as_str() == Ok("ocannl_shape.set_dim") {
        let value = op
            .attribute("value")
            .ok()
            .and_then(ocannl_mlir::attr::int_value)
            .ok_or("attribute 'value' must be an integer")?;
        if value < 1 {
            return Err(format!("attribute 'value' must be at least 1, not {value}"));
        }
        Ok(ocannl_shape::RefConstraint::SetDim {
            name: name("ref")?,
            value: value as u64,
        })
    } else {
        let (lhs, rhs) = (name("lhs"), name("rhs"));
        match (lhs, rhs) {
            (Ok(a), Ok(b)) => Ok(ocannl_shape::RefConstraint::SetEqual(a, b)),
            _ => Err("requires non-empty 'lhs' and 'rhs'".into()),
        }
    }
}

/// The name a `dim` op reads.
pub fn dim_ref(op: &OperationRef) -> Result<String, ocannl_mlir::Error> {
    name_attr(op, "ref").map_err(ocannl_mlir::Error::invalid)
}

/// The name in the string attribute `attr` of `op` (`ref`, `lhs`, `rhs`),
/// trimmed and not empty.
fn name_attr(op: &OperationRef, attr: &str) -> Result<String, String> {
    string_attr(op, attr)
        .map_err(|e| e.to_string())?
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .ok_or_else(|| format!("requires a non-empty '{attr}'"))
}

/// The labels an einsum captures (`capture`), checked against its spec:
/// each names a label or row variable of `spec`, once.
pub fn captures(op: &OperationRef, spec: &EinsumSpec) -> Result<Vec<String>, ocannl_mlir::Error> {
    captures_text(op, spec).map_err(ocannl_mlir::Error::invalid)
}

fn captures_text(op: &OperationRef, spec: &EinsumSpec) -> Result<Vec<String>, String> {
    let Ok(a) = op.attribute("capture") else {
        return Ok(vec![]);
    };
    let list = melior::ir::attribute::ArrayAttribute::try_from(a)
        .map_err(|_| format!("attribute 'capture' must be an array of strings, found {a}"))?;
    let (dims, rows) = spec.names();
    let mut out: Vec<String> = vec![];
    for i in 0..list.len() {
        let name =
            list.element(i).ok().and_then(string_value).ok_or_else(|| {
                format!("attribute 'capture' must be an array of strings, found {a}")
            })?;
        if !dims.contains(&name) && !rows.contains(&name) {
            let mut known = dims.clone();
            known.extend(rows.iter().cloned());
            return Err(format!(
                "the spec has no label or row variable '{name}' to capture (it has: {})",
                known.join(", ")
            ));
        }
        if out.contains(&name) {
            return Err(format!(
                "'{name}' appears twice in 'capture'; each label to capture once"
            ));
        }
        out.push(name);
    }
    Ok(out)
}

/// "invalid einsum spec: expected ... at position 3 in \"ij;jk\"".
pub fn format_spec_error(what: &str, e: &SpecError) -> String {
    format!("invalid {what}: {e}")
}

/// The definitions of the dialect's ops (`dialects/spec`).
pub use ocannl_dialect_spec::shape::DIALECT as SPEC;

thread_local! {
    /// Einsum specs parsed by the verifier on this thread, by text (the
    /// verifier runs after parsing and after every pass, on threads of
    /// MLIR's pool).
    static VERIFIED_SPECS: std::cell::RefCell<EinsumSpecs> = Default::default();
    /// Shape strings of tensor types checked on this thread.
    static VERIFIED_SHAPES: std::cell::RefCell<FxHashMap<String, Result<(), String>>> = Default::default();
}

/// Checks an op of the dialect: against its definition (operands,
/// results, attributes), then the rules beyond it (einsum specs, params).
/// The message has no op prefix (the caller adds `'ocannl_shape.x' op`).
/// Ops of other dialects pass.
pub fn verify_op(op: &OperationRef) -> Result<(), ocannl_mlir::Error> {
    verify_op_text(op).map_err(ocannl_mlir::Error::invalid)
}

/// [`verify_op`], the reason as text.
fn verify_op_text(op: &OperationRef) -> Result<(), String> {
    if is_constraint(op) {
        let def = SPEC
            .op_of(op.name().as_string_ref().as_str().unwrap_or(""))
            .ok_or("internal error: an op of the dialect has no definition")?;
        ocannl_mlir::check::check_op(op, def).map_err(|e| e.to_string())?;
        return constraint_text(op).map(|_| ());
    }
    let Some(kind) = OpKind::of(op) else {
        return Ok(());
    };
    let name = op.name();
    let name = name.as_string_ref();
    let def = SPEC
        .op_of(name.as_str().unwrap_or(""))
        .ok_or("internal error: an op of the dialect has no definition")?;
    ocannl_mlir::check::check_op(op, def).map_err(|e| e.to_string())?;
    match kind {
        OpKind::Param => {
            let name = string_attr(op, "name")
                .map_err(|e| e.to_string())?
                .unwrap_or_default();
            if name.is_empty() {
                return Err("requires a non-empty 'name'".into());
            }
            param_init(op).map_err(|e| e.to_string())?;
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
        OpKind::Einsum => {
            let spec = VERIFIED_SPECS
                .with(|specs| einsum_spec(op, &mut specs.borrow_mut()))
                .map_err(|e| e.to_string())?;
            captures_text(op, &spec)?;
        }
        OpKind::Dim => {
            dim_ref(op).map_err(|e| e.to_string())?;
            if let Some(tt) = op.result(0).ok().and_then(|r| tensor_type(r.r#type())) {
                if !matches!(tt.shape.trim(), "" | "?") {
                    return Err(format!(
                        "a named dimension is a scalar: its shape is \"\" (or \"?\"), not \"{}\"",
                        tt.shape
                    ));
                }
            }
        }
        OpKind::Constant
        | OpKind::PointwiseUnary
        | OpKind::PointwiseBinary
        | OpKind::PointwiseTernary
        | OpKind::Compose
        | OpKind::Transpose
        | OpKind::BatchSlice => {}
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

/// Checks the parameters of `!ocannl_shape.tensor<"SHAPE", ELT>`: the
/// shape parses (or is `?`), the element type is a float type the dialect
/// takes.
pub fn verify_tensor_params(
    shape: Option<&str>,
    elt: Option<&str>,
) -> Result<(), ocannl_mlir::Error> {
    verify_tensor_params_text(shape, elt).map_err(ocannl_mlir::Error::invalid)
}

/// [`verify_tensor_params`], the reason as text.
fn verify_tensor_params_text(shape: Option<&str>, elt: Option<&str>) -> Result<(), String> {
    let shape = shape.ok_or("the shape of an !ocannl_shape.tensor must be a string")?;
    match elt {
        Some(e) if ocannl_dialect_spec::FLOAT_TYPES.contains(&e) => {}
        other => {
            return Err(format!(
                "the element type must be {}, but got {}",
                ocannl_dialect_spec::float_types_text(),
                other.map(|e| format!("'{e}'")).unwrap_or("no type".into())
            ))
        }
    }
    if shape.trim() == "?" {
        return Ok(());
    }
    VERIFIED_SHAPES.with(|cache| {
        if let Some(r) = cache.borrow().get(shape) {
            return r.clone();
        }
        let r = ocannl_shape::parse_slot(shape, ocannl_shape::Context::Shape)
            .map(|_| ())
            .map_err(|e| format_spec_error("shape", &e));
        cache.borrow_mut().insert(shape.to_string(), r.clone());
        r
    })
}

/// The solver's node for an op of kind `kind` whose tensor operands are the
/// nodes `operands` (the one mapping from ops to shape logics, used by
/// inference and by the lowering's projections alike).
pub fn solver_node(
    op: &OperationRef,
    kind: OpKind,
    operands: Vec<usize>,
    specs: &mut EinsumSpecs,
) -> Result<ocannl_shape::Node, ocannl_mlir::Error> {
    solver_node_text(op, kind, operands, specs).map_err(ocannl_mlir::Error::invalid)
}

/// [`solver_node`], the reason as text.
fn solver_node_text(
    op: &OperationRef,
    kind: OpKind,
    operands: Vec<usize>,
    specs: &mut EinsumSpecs,
) -> Result<ocannl_shape::Node, String> {
    use ocannl_shape::Node;
    if operands.len() < kind.tensor_operands() {
        return Err(format!(
            "expected {} tensor operand(s), found {}",
            kind.tensor_operands(),
            operands.len()
        ));
    }
    Ok(match kind {
        OpKind::Param => Node::Terminal {
            param: Some(
                string_attr(op, "name")
                    .map_err(|e| e.to_string())?
                    .unwrap_or_default(),
            ),
        },
        OpKind::Constant | OpKind::Dim => Node::Terminal { param: None },
        OpKind::PointwiseUnary | OpKind::PointwiseBinary | OpKind::PointwiseTernary => {
            Node::Pointwise(operands)
        }
        OpKind::Compose => Node::Compose(operands[0], operands[1]),
        OpKind::Transpose => Node::Transpose(operands[0]),
        OpKind::BatchSlice => Node::BatchSlice(operands[0]),
        OpKind::Einsum => {
            Node::Einsum(einsum_spec(op, specs).map_err(|e| e.to_string())?, operands)
        }
    })
}

/// What an op computes per cell: its numeric op and accumulation (`assign`
/// for pointwise ops, transposes and slices).
pub fn computation(
    op: &OperationRef,
    kind: OpKind,
    node: &ocannl_shape::Node,
) -> Result<(NumOp, Accum), ocannl_mlir::Error> {
    computation_text(op, kind, node).map_err(ocannl_mlir::Error::invalid)
}

/// [`computation`], the reason as text.
fn computation_text(
    op: &OperationRef,
    kind: OpKind,
    node: &ocannl_shape::Node,
) -> Result<(NumOp, Accum), String> {
    Ok(match (kind, node) {
        (OpKind::PointwiseUnary | OpKind::PointwiseBinary | OpKind::PointwiseTernary, _) => (
            pointwise_op(op, kind).map_err(|e| e.to_string())?,
            Accum::Assign,
        ),
        (OpKind::Compose, _) => reduction_ops(op, false).map_err(|e| e.to_string())?,
        (OpKind::Einsum, ocannl_shape::Node::Einsum(spec, _)) => {
            reduction_ops(op, spec.rhs.len() == 1).map_err(|e| e.to_string())?
        }
        _ => (NumOp::Unary(UnaryOp::Identity), Accum::Assign),
    })
}

/// What `explain=true` tells about an einsum spec that a user may not
/// expect: result axes that no operand has (they broadcast, as in OCANNL,
/// where numpy's einsum rejects them), and names read as several axes in
/// single-char mode (`"hidden"` is six axes).
pub fn explain_spec(text: &str, spec: &EinsumSpec) -> Vec<String> {
    use ocannl_shape::notation::{AxisSpec, Kind};
    let mut out = vec![];
    let names = |slot: &ocannl_shape::notation::SlotSpec| -> Vec<String> {
        let mut v = vec![];
        for kind in Kind::ALL {
            for a in slot.row(kind).axes() {
                match a {
                    AxisSpec::Var(n) => v.push(n.clone()),
                    AxisSpec::Affine { over, kernel, .. } => {
                        v.push(over.clone());
                        v.extend(kernel.clone());
                    }
                    _ => {}
                }
            }
        }
        v
    };
    let operand_names: Vec<String> = spec.rhs.iter().flat_map(names).collect();
    let mut seen = vec![];
    for n in names(&spec.lhs) {
        if !operand_names.contains(&n) && !seen.contains(&n) {
            out.push(format!(
                "the result axis '{n}' of the spec \"{text}\" is in no operand slot: it broadcasts (every cell along it gets the same value), as in OCANNL; numpy's einsum would reject it"
            ));
            seen.push(n);
        }
    }
    if !ocannl_shape::notation::is_multichar(text) {
        for word in text
            .split(|c: char| !c.is_ascii_alphabetic())
            .filter(|w| looks_like_word(w))
        {
            let axes: Vec<String> = word.chars().map(|c| c.to_string()).collect();
            out.push(format!(
                "the spec \"{text}\" is read in single-char mode (it has no ','): \"{word}\" is {} axes ({}); to name one axis \"{word}\", separate the axes with commas (multichar mode), e.g. \"..., {word} => ...\"",
                axes.len(),
                axes.join(", ")
            ));
        }
    }
    out
}

/// A run of letters that reads as a word rather than as single-letter axes:
/// at least three letters and a repeated letter, five letters or more, or
/// a vowel other than the usual index letters `i` and `j`.
fn looks_like_word(w: &str) -> bool {
    let b = w.as_bytes();
    let repeated = b.iter().enumerate().any(|(i, c)| b[i + 1..].contains(c));
    b.len() >= 3 && (repeated || b.len() >= 5 || b.iter().any(|c| b"aeouAEOU".contains(c)))
}
