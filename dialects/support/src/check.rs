//! Checking an op against its definition in `dialects/spec`: operand and
//! result counts and kinds, unknown, missing and ill-typed attributes,
//! closed sets of names. The messages follow MLIR's conventions (operands
//! and results numbered from 0); the caller prefixes them with the op's
//! name, as `emitOpError` does.

use melior::ir::{
    attribute::AttributeLike, operation::OperationLike, r#type::TypeLike, Attribute, OperationRef,
    Type, ValueLike,
};
use ocannl_dialect_spec::{Arity, AttrDef, AttrKind, OpDef, Presence, ValueDef, ValueKind};

/// Checks `op` against `def`; the first problem found, as a message.
pub fn check_op(op: &OperationRef, def: &OpDef) -> Result<(), crate::Error> {
    check_op_text(op, def).map_err(crate::Error::invalid)
}

/// [`check_op`], the reason as text.
fn check_op_text(op: &OperationRef, def: &OpDef) -> Result<(), String> {
    let operands: Vec<Type> = op.operands().map(|v| v.r#type()).collect();
    check_values("operand", def.operands, &operands)?;
    let results: Vec<Type> = op.results().map(|v| v.r#type()).collect();
    check_values("result", def.results, &results)?;
    if op.region_count() != def.regions.len() {
        return Err(format!(
            "expected {}, but found {}",
            plural(def.regions.len(), "region"),
            op.region_count()
        ));
    }
    check_attributes(op, def, operands.len())
}

fn plural(n: usize, what: &str) -> String {
    if n == 1 {
        format!("{n} {what}")
    } else {
        format!("{n} {what}s")
    }
}

fn check_values(what: &str, defs: &[ValueDef], types: &[Type]) -> Result<(), String> {
    let min = defs.iter().filter(|v| v.arity == Arity::Single).count();
    let variadic = defs.iter().any(|v| v.arity == Arity::Variadic);
    let max = if variadic { None } else { Some(defs.len()) };
    let n = types.len();
    if n < min || max.is_some_and(|m| n > m) {
        let expected = match max {
            Some(m) if m == min => plural(m, what),
            Some(m) => format!("{min} or {}", plural(m, what)),
            None => format!("at least {}", plural(min, what)),
        };
        return Err(format!("expected {expected}, but found {n}"));
    }
    // One group of optional or variadic values at most: the single values
    // before it and after it are at fixed positions.
    let group = defs.iter().position(|v| v.arity != Arity::Single);
    let (before, after) = match group {
        Some(g) => (g, defs.len() - g - 1),
        None => (defs.len(), 0),
    };
    for (i, ty) in types.iter().enumerate() {
        let def = if i < before {
            &defs[i]
        } else if i >= n - after {
            &defs[defs.len() - (n - i)]
        } else {
            &defs[group.expect("a group holds the values between")]
        };
        check_kind(def.kind, *ty).map_err(|hint| {
            format!(
                "{what} #{i} ('{}') must be {}, but got '{ty}'{hint}",
                def.name,
                def.kind.describe()
            )
        })?;
    }
    Ok(())
}

/// `Err(hint)` when `ty` is not of `kind`.
fn check_kind(kind: ValueKind, ty: Type) -> Result<(), String> {
    match kind {
        ValueKind::Tensor => {
            if crate::types::dialect_namespace(ty) == Some(ocannl_dialect_spec::shape::DIALECT.name)
            {
                return Ok(());
            }
            Err(match tensor_like(ty) {
                Some(t) => format!(
                    "; a tensor of this dialect is written {t} (its shape in OCANNL's notation, batch|input->output)"
                ),
                None => "; write !ocannl_shape.tensor<\"SHAPE\", f32>".to_string(),
            })
        }
        ValueKind::FloatMemref => {
            let float = crate::types::element_type(ty).and_then(crate::types::float_name);
            match float {
                Some(_) if ty.is_mem_ref() => Ok(()),
                _ => Err(String::new()),
            }
        }
        ValueKind::Index => {
            if ty.is_index() {
                Ok(())
            } else {
                Err(String::new())
            }
        }
        ValueKind::FloatMemrefOrIndex => {
            check_kind(ValueKind::FloatMemref, ty).or_else(|_| check_kind(ValueKind::Index, ty))
        }
        ValueKind::Float => match crate::types::float_name(ty) {
            Some(_) => Ok(()),
            None => Err(String::new()),
        },
    }
}

/// `!ocannl_shape.tensor<"3,4", f32>` for `tensor<3x4xf32>` (or a memref
/// or vector of static sizes and a float element type).
fn tensor_like(ty: Type) -> Option<String> {
    let dims = crate::types::static_dims(ty)?;
    let elt = crate::types::element_type(ty)?.to_string();
    if dims.iter().any(|&d| d < 0) || !ocannl_dialect_spec::FLOAT_TYPES.contains(&elt.as_str()) {
        return None;
    }
    let dims: Vec<String> = dims.iter().map(|d| d.to_string()).collect();
    let shape = if dims.len() == 1 {
        dims[0].clone()
    } else {
        dims.join(",")
    };
    Some(format!("!ocannl_shape.tensor<\"{shape}\", {elt}>"))
}

fn check_attributes(op: &OperationRef, def: &OpDef, operands: usize) -> Result<(), String> {
    for (name, _) in op.attributes() {
        let name = name.as_string_ref();
        let name = name.as_str().unwrap_or("");
        // `dialect.name` attributes belong to other dialects.
        if name.contains('.') || def.attr(name).is_some() {
            continue;
        }
        let names: Vec<&str> = def.attrs.iter().map(|a| a.name).collect();
        let hint = match ocannl_dialect_spec::suggest(name, names.iter().copied()) {
            Some(s) => format!(" (did you mean '{s}'?)"),
            None => String::new(),
        };
        let known = if names.is_empty() {
            "this op has no attributes".to_string()
        } else {
            format!("its attributes are {}", quoted(&names, "'"))
        };
        return Err(format!(
            "has an unknown attribute '{name}'{hint}; {known} (another dialect's attribute is written 'dialect.name')"
        ));
    }
    for a in def.attrs {
        match op.attribute(a.name) {
            Err(_) => {
                if let Presence::Required = a.presence {
                    return Err(format!("requires attribute '{}'", a.name));
                }
            }
            Ok(v) => check_attribute(a, v, operands)?,
        }
    }
    Ok(())
}

fn quoted(names: &[&str], q: &str) -> String {
    names
        .iter()
        .map(|n| format!("{q}{n}{q}"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn check_attribute(a: &AttrDef, v: Attribute, operands: usize) -> Result<(), String> {
    let wrong = |expected: &str| format!("attribute '{}' must be {expected}, but got {v}", a.name);
    let one_of = |what: &str, values: &[&str], extra: &str| -> Result<(), String> {
        let Some(s) = crate::attr::str_value(v) else {
            return Err(wrong("a string"));
        };
        if values.contains(&s) {
            return Ok(());
        }
        let hint = match ocannl_dialect_spec::suggest(s, values.iter().copied()) {
            Some(m) => format!(" (did you mean \"{m}\"?)"),
            None => String::new(),
        };
        Err(format!(
            "attribute '{}' must be one of the {what}s {}{extra}, but got \"{s}\"{hint}",
            a.name,
            values.join(", ")
        ))
    };
    // What the attribute must be, when it is not.
    let expected = match a.kind {
        AttrKind::String => (!v.is_string()).then_some("a string"),
        AttrKind::OneOf { what, values } => return one_of(what, values(), ""),
        AttrKind::NumOpByArity => {
            let (what, extra) = if operands == 1 {
                ("unary op", " (one operand)")
            } else {
                ("binary op", " (two operands)")
            };
            let names = ocannl_dialect_spec::shape::num_op_names(operands.clamp(1, 2));
            return one_of(what, names, extra);
        }
        AttrKind::Float => (!v.is_float()).then_some("a float (such as 2.5 : f32)"),
        AttrKind::Integer => (!v.is_integer()).then_some("an integer (such as 7 : i64)"),
        AttrKind::Bool => (!v.is_bool()).then_some("true or false"),
        AttrKind::Dense => {
            (!v.is_dense_elements()).then_some("a dense literal (dense<...> : tensor<...>)")
        }
        AttrKind::Literal => (!(v.is_float() || v.is_integer() || v.is_dense_elements()))
            .then_some("a float, an integer or a dense literal"),
        AttrKind::I64Array => (!v.is_dense_i64_array()).then_some("an array<i64: ...>"),
        AttrKind::StringArray => {
            return array_of(v, a.name, "strings", |m| m.is_string(), wrong);
        }
        AttrKind::AffineMapArray => {
            return array_of(v, a.name, "affine maps", |m| m.is_affine_map(), wrong);
        }
    };
    match expected {
        Some(e) => Err(wrong(e)),
        None => Ok(()),
    }
}
/// Checks that `v` is an array whose every element is `what` (`is`);
/// `wrong` words the error of a value that is no array.
fn array_of(
    v: melior::ir::Attribute,
    name: &str,
    what: &str,
    is: impl Fn(&melior::ir::Attribute) -> bool,
    wrong: impl Fn(&str) -> String,
) -> Result<(), String> {
    let items = melior::ir::attribute::ArrayAttribute::try_from(v)
        .map_err(|_| wrong(&format!("an array of {what}")))?;
    for i in 0..items.len() {
        let m = items.element(i).map_err(|e| e.to_string())?;
        if !is(&m) {
            return Err(format!(
                "attribute '{name}' must be an array of {what}, but element #{i} is {m}"
            ));
        }
    }
    Ok(())
}
