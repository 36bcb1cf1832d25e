//! The dialect reference (`docs/dialects.md`), generated from the tables.

use std::fmt::Write;

use crate::{AttrKind, Dialect, OpDef, ParamKind, Presence, ValueDef};

/// The grammars of shapes and einsum specs (prose, with the examples below).
pub const GRAMMAR: &str = include_str!("grammar.md");

/// Shapes and what they mean; each parses (the tests check it).
pub const SHAPE_EXAMPLES: &[(&str, &str)] = &[
    (
        "2,3|4->5",
        "batch axes 2 and 3, one input axis of 4, one output axis of 5",
    ),
    ("3->4", "a 3-to-4 matrix (4 rows of 3 in memory)"),
    ("10|3", "a batch of 10 vectors of 3"),
    ("rgb=3", "one output axis of 3 labelled `rgb`"),
    (
        "hidden",
        "six output axes `h`, `i`, `d`, `d`, `e`, `n` (single-char mode; `d` twice is one size)",
    ),
    ("hidden,", "one output axis named `hidden` (multichar mode)"),
    ("...->8", "an output axis of 8; the input row is unknown"),
    (
        "..b..|d",
        "a batch row `b` and an output axis `d`, both shared within the function",
    ),
    ("?", "unknown"),
];

/// Texts that are not shapes, with a fragment of the error.
pub const SHAPE_ERRORS: &[(&str, &str)] = &[
    ("_", "'_' placeholders are only allowed in einsum specs"),
    ("a=x", "expected a dimension size after 'a='"),
    ("2|3|4", "unexpected second '|'"),
];

/// Einsum specs and what they compute; each parses (the tests check it).
pub const EINSUM_EXAMPLES: &[(&str, &str)] = &[
    (
        "i->j; b|i => b|j",
        "a matrix applied to a batch of vectors (what `compose` does)",
    ),
    ("ij;jk=>ik", "matrix product in single-char mode"),
    ("b|i => b", "reduce the output axis (with `accum`)"),
    ("...|... => 0", "reduce everything to one cell"),
    ("i=>i0", "a vector into column 0 of a matrix"),
    (
        "...|..., row, col => ...|col, row",
        "transpose the last two axes (multichar mode)",
    ),
    ("b|2*o=+k; k => b|o", "a strided, padded 1-D convolution"),
];

/// Texts that are not einsum specs, with a fragment of the error.
pub const EINSUM_ERRORS: &[(&str, &str)] = &[
    ("ij;jk", "expected '=>'"),
    ("i#=>i", "unexpected character '#'"),
    (
        "..d.., d; d, e => ..d.., e",
        "is used as both a dimension variable and a row variable",
    ),
];

/// The reference of `dialects`.
pub fn generate(dialects: &[&Dialect]) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "# Dialect reference: `ocannl_shape` and `ocannl_assign`");
    let _ = writeln!(s);
    let _ = writeln!(
        s,
        "Generated from `dialects/spec` by `OCANNL_BLESS=1 cargo test -p ocannl-dialect-spec`; do not edit. The same tables generate the IRDL files, and the dialects' verifier checks ops against them."
    );
    let _ = writeln!(s);
    let _ = writeln!(
        s,
        "Every op has MLIR's generic syntax. `ocannl-opt` (and stock `mlir-opt` with the plugin, see docs/mlir-tools.md) checks everything below whenever it verifies IR, after parsing and after every pass, and reports a broken rule as `'DIALECT.OP' op MESSAGE` at the op. Stock `mlir-opt --irdl-file=...` checks what IRDL expresses: operand and result kinds, required attributes and their closed sets of names. Attribute names without a dialect prefix are the op's own: any other is an error (`dialect.name` attributes belong to other dialects and are allowed)."
    );
    let _ = writeln!(s);
    let _ = writeln!(s, "Contents:");
    for d in dialects {
        let _ = writeln!(s, "- [`{}`](#{}): {}", d.name, d.name, d.summary);
        for t in d.types {
            let _ = writeln!(
                s,
                "  - type [`!{}.{}`](#{}{})",
                d.name, t.name, d.name, t.name
            );
        }
        for op in d.ops {
            let _ = writeln!(s, "  - [`{}.{}`](#{}{})", d.name, op.name, d.name, op.name);
        }
    }
    let _ = writeln!(s, "- [Argument roles](#argument-roles)");
    let _ = writeln!(s, "- [Shapes](#shapes)");
    let _ = writeln!(s, "- [Einsum specs](#einsum-specs)");
    for d in dialects {
        dialect(&mut s, d);
    }
    arg_roles(&mut s);
    let _ = writeln!(s);
    grammar(&mut s);
    s
}

fn dialect(s: &mut String, d: &Dialect) {
    let _ = writeln!(s);
    let _ = writeln!(s, "## `{}`", d.name);
    let _ = writeln!(s);
    let _ = writeln!(s, "{}", d.description);
    let _ = writeln!(s);
    let _ = writeln!(
        s,
        "For stock MLIR tools: `mlir-opt --irdl-file={}`.",
        d.irdl_path
    );
    for t in d.types {
        let _ = writeln!(s);
        let _ = writeln!(s, "### `!{}.{}`", d.name, t.name);
        let _ = writeln!(s);
        let _ = writeln!(s, "{}: `{}`", capitalize(t.summary), t.syntax);
        let _ = writeln!(s);
        let _ = writeln!(s, "| parameter | kind | |");
        let _ = writeln!(s, "|---|---|---|");
        for p in t.params {
            let kind = match p.kind {
                ParamKind::String => "string".to_string(),
                ParamKind::FloatType => crate::FLOAT_TYPES.join(", "),
            };
            let _ = writeln!(s, "| `{}` | {kind} | {} |", p.name, cell(p.doc));
        }
        let _ = writeln!(s);
        let _ = writeln!(s, "{}", t.description);
        rules(s, t.rules);
    }
    for op in d.ops {
        operation(s, d, op);
    }
}

fn operation(s: &mut String, d: &Dialect, op: &OpDef) {
    let _ = writeln!(s);
    let _ = writeln!(s, "### `{}.{}`", d.name, op.name);
    let _ = writeln!(s);
    let _ = writeln!(s, "{}.", capitalize(op.summary));
    if !op.description.is_empty() {
        let _ = writeln!(s);
        let _ = writeln!(s, "{}", op.description);
    }
    let _ = writeln!(s);
    let _ = writeln!(s, "Syntax:");
    let _ = writeln!(s);
    let _ = writeln!(s, "```");
    let _ = writeln!(s, "{}", syntax(d, op));
    let _ = writeln!(s, "```");
    values(s, "Operands", op.operands);
    values(s, "Results", op.results);
    if !op.regions.is_empty() {
        let _ = writeln!(s);
        let _ = writeln!(s, "Regions:");
        let _ = writeln!(s);
        let _ = writeln!(s, "| name | |");
        let _ = writeln!(s, "|---|---|");
        for r in op.regions {
            let _ = writeln!(s, "| `{}` | {} |", r.name, cell(r.doc));
        }
    }
    if !op.attrs.is_empty() {
        let _ = writeln!(s);
        let _ = writeln!(s, "Attributes:");
        let _ = writeln!(s);
        let _ = writeln!(s, "| attribute | kind and allowed values | default | |");
        let _ = writeln!(s, "|---|---|---|---|");
        for a in op.attrs {
            let default = match a.presence {
                Presence::Required => "required".to_string(),
                Presence::Default(default) => {
                    if default.contains('`') {
                        default.to_string()
                    } else {
                        format!("`{default}`")
                    }
                }
            };
            let irdl = match (a.presence, &a.kind) {
                (Presence::Required, AttrKind::OneOf { .. }) => " (IRDL: `irdl.any_of`)",
                _ => "",
            };
            let _ = writeln!(
                s,
                "| `{}` | {}{irdl} | {} | {} |",
                a.name,
                cell(&a.kind.describe()),
                cell(&default),
                cell(a.doc)
            );
        }
    }
    rules(s, op.rules);
    let _ = writeln!(s);
    let _ = writeln!(s, "Example:");
    let _ = writeln!(s);
    let _ = writeln!(s, "```mlir");
    let _ = writeln!(s, "{}", op.example);
    let _ = writeln!(s, "```");
}

fn rules(s: &mut String, rules: &[crate::Rule]) {
    if rules.is_empty() {
        return;
    }
    let _ = writeln!(s);
    let _ = writeln!(
        s,
        "Verifier rules (beyond the kinds above), with the error when broken:"
    );
    let _ = writeln!(s);
    for r in rules {
        let _ = writeln!(s, "- {}: \"…{}…\"", r.requires, r.error);
    }
}

fn values(s: &mut String, what: &str, vals: &[ValueDef]) {
    if vals.is_empty() {
        return;
    }
    let _ = writeln!(s);
    let _ = writeln!(s, "{what}:");
    let _ = writeln!(s);
    let _ = writeln!(s, "| name | kind | |");
    let _ = writeln!(s, "|---|---|---|");
    for v in vals {
        let arity = match v.arity {
            crate::Arity::Single => "",
            crate::Arity::Optional => " (optional)",
            crate::Arity::Variadic => " (any number)",
        };
        let _ = writeln!(
            s,
            "| `{}` | {}{arity} | {} |",
            v.name,
            v.kind.describe(),
            cell(v.doc)
        );
    }
}

/// `%result = "d.op"(%a, %b) {attr = ...} : (T, T) -> T`.
fn syntax(d: &Dialect, op: &OpDef) -> String {
    let ty = |v: &ValueDef| -> String {
        let t = match v.kind {
            crate::ValueKind::Tensor => "!ocannl_shape.tensor<\"SHAPE\", ELT>",
            crate::ValueKind::FloatMemref => "memref<...xELT>",
            crate::ValueKind::Index => "index",
            crate::ValueKind::FloatMemrefOrIndex => "memref<...xELT> | index",
            crate::ValueKind::Float => "ELT",
        };
        match v.arity {
            crate::Arity::Single => t.to_string(),
            crate::Arity::Optional => format!("[{t}]"),
            crate::Arity::Variadic => format!("{t}..."),
        }
    };
    let operand = |v: &ValueDef| -> String {
        match v.arity {
            crate::Arity::Single => format!("%{}", v.name),
            crate::Arity::Optional => format!("[%{}]", v.name),
            crate::Arity::Variadic => format!("%{}...", v.name),
        }
    };
    let mut s = String::new();
    if !op.results.is_empty() {
        let r: Vec<String> = op.results.iter().map(|v| format!("%{}", v.name)).collect();
        s += &format!("{} = ", r.join(", "));
    }
    let ops: Vec<String> = op.operands.iter().map(operand).collect();
    s += &format!("\"{}.{}\"({})", d.name, op.name, ops.join(", "));
    for r in op.regions {
        s += &format!(" ({{ ^{}(...): ... vector.yield ... }})", r.name);
    }
    if !op.attrs.is_empty() {
        let a: Vec<String> = op
            .attrs
            .iter()
            .map(|a| match a.presence {
                Presence::Required => format!("{} = ...", a.name),
                Presence::Default(_) => format!("[{} = ...]", a.name),
            })
            .collect();
        s += &format!(" {{{}}}", a.join(", "));
    }
    let ins: Vec<String> = op.operands.iter().map(ty).collect();
    let outs: Vec<String> = op.results.iter().map(ty).collect();
    let outs = match outs.len() {
        1 => outs[0].clone(),
        _ => format!("({})", outs.join(", ")),
    };
    s += &format!(" : ({}) -> {outs}", ins.join(", "));
    s
}

/// The argument ABI ([`crate::abi`]).
fn arg_roles(s: &mut String) {
    let _ = writeln!(s);
    let _ = writeln!(s, "## Argument roles");
    let _ = writeln!(s);
    let _ = writeln!(
        s,
        "A string attribute on a `func.func` argument says what the argument of a routine is; an argument with none is data. The passes set them, the backends carry them into an executable's signature as roles, and the callers (the `ocannl` API's trainers, `ocannl-run --out-args`) find the params, the state and the learning rate by them."
    );
    let _ = writeln!(s);
    let _ = writeln!(s, "| attribute | role | value | on the arguments of |");
    let _ = writeln!(s, "|---|---|---|---|");
    for r in crate::abi::ROLES {
        let _ = writeln!(
            s,
            "| `{}` | `{}` | {} | {} |",
            r.attribute, r.role, r.value, r.routines
        );
    }
}

fn grammar(s: &mut String) {
    let text = GRAMMAR.trim_end();
    let (shapes, einsum) = text
        .split_once("## Einsum specs")
        .expect("grammar.md has an einsum section");
    let _ = writeln!(s, "{}", shapes.trim_end());
    let _ = writeln!(s);
    table(s, "shape", SHAPE_EXAMPLES, SHAPE_ERRORS);
    let _ = writeln!(s);
    let _ = writeln!(s, "## Einsum specs{}", einsum.trim_end());
    let _ = writeln!(s);
    table(s, "spec", EINSUM_EXAMPLES, EINSUM_ERRORS);
}

fn table(s: &mut String, what: &str, ok: &[(&str, &str)], bad: &[(&str, &str)]) {
    let _ = writeln!(s, "| {what} | meaning |");
    let _ = writeln!(s, "|---|---|");
    for (text, meaning) in ok {
        let _ = writeln!(s, "| `\"{}\"` | {} |", cell(text), cell(meaning));
    }
    for (text, error) in bad {
        let _ = writeln!(s, "| `\"{}\"` | error: \"…{}…\" |", cell(text), cell(error));
    }
}

/// A table cell's text (a `|` would end the cell).
fn cell(text: &str) -> String {
    text.replace('|', "\\|")
}

fn capitalize(text: &str) -> String {
    let mut c = text.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}
