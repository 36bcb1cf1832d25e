//! The IRDL definition of a dialect, generated from its tables.
//!
//! IRDL checks what it can express: operand and result counts and kinds,
//! the presence and kinds of required attributes, and closed sets of names
//! (`irdl.any_of` of `irdl.is "name"`). Optional attributes cannot be
//! declared in IRDL (a declared attribute is required), so they are listed
//! in a comment and checked by the dialect's verifier only.

use std::fmt::Write;

use crate::{Arity, AttrDef, AttrKind, Dialect, ParamKind, Presence, ValueDef, ValueKind};

/// The IRDL module of `d`.
pub fn generate(d: &Dialect) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "// Generated from {} by `OCANNL_BLESS=1 cargo test -p ocannl-dialect-spec`; do not edit.",
        d.source_path
    );
    let _ = writeln!(s, "//");
    let _ = writeln!(s, "// The `{}` dialect: {}.", d.name, d.summary);
    let _ = writeln!(
        s,
        "// Reference: docs/dialects.md. IRDL checks operand and result kinds, the"
    );
    let _ = writeln!(
        s,
        "// required attributes and their closed sets of names; the dialect's verifier"
    );
    let _ = writeln!(s, "// (run by ocannl-opt and the plugin) checks the rest.");
    let _ = writeln!(s, "irdl.dialect @{} {{", d.name);
    for t in d.types {
        let _ = writeln!(s, "  // {}: {}.", t.syntax, t.summary);
        let _ = writeln!(s, "  irdl.type @{} {{", t.name);
        let mut names = vec![];
        for p in t.params {
            match p.kind {
                ParamKind::String => {
                    let _ = writeln!(s, "    %{} = irdl.base \"#builtin.string\"", p.name);
                }
                ParamKind::FloatType => {
                    let mut alts = vec![];
                    for f in crate::FLOAT_TYPES {
                        let v = format!("{}_{f}", p.name);
                        let _ = writeln!(s, "    %{v} = irdl.is {f}");
                        alts.push(format!("%{v}"));
                    }
                    let _ = writeln!(s, "    %{} = irdl.any_of({})", p.name, alts.join(", "));
                }
            }
            names.push(format!("{}: %{}", p.name, p.name));
        }
        let _ = writeln!(s, "    irdl.parameters({})", names.join(", "));
        let _ = writeln!(s, "  }}");
    }
    for op in d.ops {
        let _ = writeln!(s);
        let _ = writeln!(s, "  // {}.", capitalize(op.summary));
        let optional: Vec<String> = op
            .attrs
            .iter()
            .filter_map(|a| match a.presence {
                Presence::Default(default) => {
                    Some(format!("{} (default {})", a.name, default.replace('`', "")))
                }
                Presence::Required => None,
            })
            .collect();
        if !optional.is_empty() {
            let _ = writeln!(s, "  // Optional attributes: {}.", optional.join(", "));
        }
        let _ = writeln!(s, "  irdl.operation @{} {{", op.name);
        let required: Vec<&AttrDef> = op
            .attrs
            .iter()
            .filter(|a| matches!(a.presence, Presence::Required))
            .collect();
        for a in &required {
            attr_constraint(&mut s, d, a);
        }
        if !required.is_empty() {
            let list: Vec<String> = required
                .iter()
                .map(|a| format!("\"{}\" = %{}", a.name, a.name))
                .collect();
            let _ = writeln!(s, "    irdl.attributes {{{}}}", list.join(", "));
        }
        values(&mut s, d, "operands", op.operands);
        values(&mut s, d, "results", op.results);
        if !op.regions.is_empty() {
            let mut list = vec![];
            for r in op.regions {
                let _ = writeln!(s, "    %{} = irdl.region with size 1", r.name);
                list.push(format!("{0}: %{0}", r.name));
            }
            let _ = writeln!(s, "    irdl.regions({})", list.join(", "));
        }
        let _ = writeln!(s, "  }}");
    }
    let _ = writeln!(s, "}}");
    s
}

fn capitalize(text: &str) -> String {
    let mut c = text.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

fn attr_constraint(s: &mut String, _d: &Dialect, a: &AttrDef) {
    let base = |s: &mut String, name: &str| {
        let _ = writeln!(s, "    %{} = irdl.base \"#builtin.{name}\"", a.name);
    };
    match a.kind {
        AttrKind::String => base(s, "string"),
        AttrKind::OneOf { values, .. } => {
            let mut alts = vec![];
            for v in values() {
                let name = format!("{}_{v}", a.name);
                let _ = writeln!(s, "    %{name} = irdl.is \"{v}\"");
                alts.push(format!("%{name}"));
            }
            let _ = writeln!(s, "    %{} = irdl.any_of({})", a.name, alts.join(", "));
        }
        AttrKind::NumOpByArity => base(s, "string"),
        AttrKind::Float => base(s, "float"),
        AttrKind::Integer | AttrKind::Bool => base(s, "integer"),
        AttrKind::Dense => base(s, "dense_int_or_fp_elements"),
        AttrKind::Literal => {
            let _ = writeln!(s, "    %{} = irdl.any", a.name);
        }
        AttrKind::I64Array => base(s, "dense_array"),
        AttrKind::StringArray => base(s, "array"),
        AttrKind::AffineMapArray => base(s, "array"),
    }
}

fn values(s: &mut String, d: &Dialect, what: &str, vals: &[ValueDef]) {
    if vals.is_empty() {
        return;
    }
    let mut list = vec![];
    for v in vals {
        let c = match v.kind {
            ValueKind::Tensor => format!("irdl.base @{}::@tensor", crate::shape::DIALECT.name),
            ValueKind::FloatMemref => "irdl.base \"!builtin.memref\"".into(),
            ValueKind::Index => "irdl.is index".into(),
            ValueKind::FloatMemrefOrIndex => {
                let _ = writeln!(s, "    %{}_memref = irdl.base \"!builtin.memref\"", v.name);
                let _ = writeln!(s, "    %{}_index = irdl.is index", v.name);
                format!("irdl.any_of(%{0}_memref, %{0}_index)", v.name)
            }
            ValueKind::Float => {
                let alts: Vec<String> = crate::FLOAT_TYPES
                    .iter()
                    .map(|t| {
                        let _ = writeln!(s, "    %{}_{t} = irdl.is {t}", v.name);
                        format!("%{}_{t}", v.name)
                    })
                    .collect();
                format!("irdl.any_of({})", alts.join(", "))
            }
        };
        // Each value has its own constraint: IRDL makes the values sharing
        // one constraint equal.
        let _ = writeln!(s, "    %{} = {c}", v.name);
        let arity = match v.arity {
            Arity::Single => "",
            Arity::Optional => "optional ",
            Arity::Variadic => "variadic ",
        };
        list.push(format!("{}: {arity}%{}", v.name, v.name));
    }
    let _ = d;
    let _ = writeln!(s, "    irdl.{what}({})", list.join(", "));
}
