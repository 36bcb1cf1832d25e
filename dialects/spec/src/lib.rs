//! The project's dialects as data: every op of `ocannl_shape` and
//! `ocannl_assign` with its operands, results, attributes (kinds, allowed
//! values, defaults), the rules its verifier checks beyond them, and an
//! example; the `!ocannl_shape.tensor` type with its parameters.
//!
//! Three things are made from these tables, so they cannot drift apart:
//! - the IRDL files (`dialects/*/ocannl_*.irdl.mlir`, [`irdl::generate`]),
//!   which stock MLIR tools load with `--irdl-file`; closed sets of names
//!   (`op`, `accum`, `kind`, `memory`) are `irdl.any_of` constraints, their
//!   names taken from `ocannl-ops`, the one op vocabulary;
//! - the dialect reference (`docs/dialects.md`, [`doc::generate`]), with
//!   the argument ABI's attributes ([`abi`]);
//! - the checks of every op's operands, results and attributes that the
//!   dialects' verifier runs in `ocannl-opt` (`ocannl_mlir::check`).
//!
//! `cargo test -p ocannl-dialect-spec` fails when a checked-in file differs
//! from what the tables generate (`OCANNL_BLESS=1` rewrites them), and when
//! a verifier rule has no test case in `test/Dialect/*/invalid.mlir`.
//!
//! Architecture invariant: no MLIR dependency; plain data and text.

pub mod abi;
pub mod assign;
pub mod doc;
pub mod irdl;
pub mod shape;

/// A dialect.
pub struct Dialect {
    /// `ocannl_shape`.
    pub name: &'static str,
    pub summary: &'static str,
    /// Markdown paragraphs.
    pub description: &'static str,
    pub types: &'static [TypeDef],
    pub ops: &'static [OpDef],
    /// The IRDL file, relative to the repository root.
    pub irdl_path: &'static str,
    /// The file the tables live in, relative to the repository root.
    pub source_path: &'static str,
}

impl Dialect {
    /// The op named `name` (without the dialect prefix).
    pub fn op(&self, name: &str) -> Option<&'static OpDef> {
        self.ops.iter().find(|o| o.name == name)
    }

    /// The op of a full name `dialect.op`.
    pub fn op_of(&self, full: &str) -> Option<&'static OpDef> {
        self.op(full.strip_prefix(self.name)?.strip_prefix('.')?)
    }
}

/// Both dialects of the project.
pub fn dialects() -> [&'static Dialect; 2] {
    [&shape::DIALECT, &assign::DIALECT]
}

/// A type of a dialect (with parameters, as IRDL defines them).
pub struct TypeDef {
    /// `tensor`.
    pub name: &'static str,
    pub summary: &'static str,
    /// `!ocannl_shape.tensor<"SHAPE", ELT>`.
    pub syntax: &'static str,
    pub params: &'static [Param],
    pub description: &'static str,
    pub rules: &'static [Rule],
}

pub struct Param {
    pub name: &'static str,
    pub kind: ParamKind,
    pub doc: &'static str,
}

pub enum ParamKind {
    /// A string attribute.
    String,
    /// One of [`FLOAT_TYPES`].
    FloatType,
}

/// The element types of tensors and of the buffers of tensor nodes.
pub const FLOAT_TYPES: &[&str] = &["f16", "bf16", "f32", "f64"];

/// "f16, bf16, f32 or f64".
pub fn float_types_text() -> String {
    let (last, rest) = FLOAT_TYPES.split_last().expect("float types");
    format!("{} or {last}", rest.join(", "))
}

/// An op.
pub struct OpDef {
    /// `einsum` (without the dialect prefix).
    pub name: &'static str,
    pub summary: &'static str,
    /// Markdown paragraphs.
    pub description: &'static str,
    pub operands: &'static [ValueDef],
    pub results: &'static [ValueDef],
    /// The op's regions (each of one block).
    pub regions: &'static [RegionDef],
    pub attrs: &'static [AttrDef],
    /// What the verifier checks beyond the kinds of operands, results and
    /// attributes.
    pub rules: &'static [Rule],
    /// A complete module using the op (it is parsed and verified by the
    /// documentation test).
    pub example: &'static str,
}

impl OpDef {
    pub fn attr(&self, name: &str) -> Option<&'static AttrDef> {
        self.attrs.iter().find(|a| a.name == name)
    }

    /// The least and greatest number of operands (`None`: no bound).
    pub fn operand_counts(&self) -> (usize, Option<usize>) {
        counts(self.operands)
    }

    pub fn result_counts(&self) -> (usize, Option<usize>) {
        counts(self.results)
    }
}

fn counts(values: &[ValueDef]) -> (usize, Option<usize>) {
    let min = values.iter().filter(|v| v.arity == Arity::Single).count();
    let max = if values.iter().any(|v| v.arity == Arity::Variadic) {
        None
    } else {
        Some(values.len())
    };
    (min, max)
}

/// A region of an op.
pub struct RegionDef {
    pub name: &'static str,
    pub doc: &'static str,
}

/// An operand or result.
pub struct ValueDef {
    pub name: &'static str,
    pub kind: ValueKind,
    pub arity: Arity,
    pub doc: &'static str,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ValueKind {
    /// `!ocannl_shape.tensor<...>`.
    Tensor,
    /// A memref of one of [`FLOAT_TYPES`].
    FloatMemref,
    /// `index`.
    Index,
    /// A memref of one of [`FLOAT_TYPES`], or `index`.
    FloatMemrefOrIndex,
    /// A scalar of one of [`FLOAT_TYPES`].
    Float,
}

impl ValueKind {
    /// What the kind is called in messages and in the reference.
    pub fn describe(self) -> String {
        match self {
            ValueKind::Tensor => "an !ocannl_shape.tensor".into(),
            ValueKind::FloatMemref => format!("a memref of {}", float_types_text()),
            ValueKind::Index => "index".into(),
            ValueKind::FloatMemrefOrIndex => {
                format!("a memref of {} or index", float_types_text())
            }
            ValueKind::Float => float_types_text(),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arity {
    Single,
    Optional,
    Variadic,
}

/// An attribute.
pub struct AttrDef {
    pub name: &'static str,
    pub kind: AttrKind,
    pub presence: Presence,
    pub doc: &'static str,
}

#[derive(Clone, Copy)]
pub enum Presence {
    Required,
    /// Absent means `default` (as written in the reference).
    Default(&'static str),
}

#[derive(Clone, Copy)]
pub enum AttrKind {
    /// A string.
    String,
    /// A string among `values()`; `what` names the set in messages.
    OneOf {
        what: &'static str,
        values: fn() -> &'static [&'static str],
    },
    /// The name of a numeric op whose arity is the op's number of operands
    /// (one operand: a unary op; two: a binary op).
    NumOpByArity,
    /// A float (`2.5 : f32`).
    Float,
    /// An integer (`7 : i64`).
    Integer,
    /// `true` or `false`.
    Bool,
    /// A dense literal (`dense<[1.0, 2.0]> : tensor<2xf32>`).
    Dense,
    /// A float, an integer or a dense literal.
    Literal,
    /// `array<i64: ...>`.
    I64Array,
    /// An array of strings (`["a", "b"]`).
    StringArray,
    /// An array of affine maps.
    AffineMapArray,
}

impl AttrKind {
    /// The kind as the reference writes it.
    pub fn describe(&self) -> String {
        match self {
            AttrKind::String => "string".into(),
            AttrKind::OneOf { what, values } => {
                let v: Vec<String> = values().iter().map(|v| format!("`\"{v}\"`")).collect();
                format!("{what}: {}", v.join(", "))
            }
            AttrKind::NumOpByArity => {
                "string: a unary op with one operand, a binary op with two (see `pointwise_unary`, `pointwise_binary`)".into()
            }
            AttrKind::Float => "float".into(),
            AttrKind::Integer => "integer".into(),
            AttrKind::Bool => "bool".into(),
            AttrKind::Dense => "dense literal".into(),
            AttrKind::Literal => "float, integer or dense literal".into(),
            AttrKind::I64Array => "`array<i64: ...>`".into(),
            AttrKind::StringArray => "array of strings".into(),
            AttrKind::AffineMapArray => "array of affine maps".into(),
        }
    }
}

/// A rule the verifier checks: what it requires, and a fragment of the
/// message it gives when the rule is broken (a test case in
/// `test/Dialect/*/invalid.mlir` expects that message).
pub struct Rule {
    pub requires: &'static str,
    pub error: &'static str,
}

/// The names of a numeric-op kind in the `ocannl_shape` dialect.
pub fn names<T: Copy>(all: &[T], name: fn(T) -> &'static str) -> Vec<&'static str> {
    all.iter().map(|o| name(*o)).collect()
}

/// `fn $f() -> &'static [&'static str]`: the names of `$all` by `$name`,
/// computed once.
#[macro_export]
macro_rules! name_set {
    ($f:ident, $all:expr, $name:expr) => {
        fn $f() -> &'static [&'static str] {
            static NAMES: std::sync::LazyLock<Vec<&'static str>> =
                std::sync::LazyLock::new(|| $crate::names($all, $name));
            &NAMES
        }
    };
}

/// The closest of `candidates` to `word` (for "did you mean"), if close.
pub fn suggest<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    candidates
        .into_iter()
        .map(|c| (edit_distance(word, c), c))
        .filter(|(d, c)| *d > 0 && *d <= (c.len().max(word.len()) / 3).max(1))
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}

/// Edits (insertions, deletions, substitutions, swaps of neighbours)
/// between two words.
fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in d[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut v = (d[i - 1][j] + 1)
                .min(d[i][j - 1] + 1)
                .min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                v = v.min(d[i - 2][j - 2] + 1);
            }
            d[i][j] = v;
        }
    }
    d[a.len()][b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggestions() {
        assert_eq!(suggest("acum", ["op", "accum"]), Some("accum"));
        assert_eq!(suggest("sbu", ["add", "sub", "mul"]), Some("sub"));
        assert_eq!(suggest("frobnicate", ["op", "accum"]), None);
        assert_eq!(suggest("accum", ["op", "accum"]), None);
    }

    #[test]
    fn at_most_one_group_of_optional_or_variadic_values() {
        for d in dialects() {
            for op in d.ops {
                for values in [op.operands, op.results] {
                    let groups = values.iter().filter(|v| v.arity != Arity::Single).count();
                    assert!(
                        groups <= 1,
                        "{}.{} has {groups} optional or variadic groups",
                        d.name,
                        op.name
                    );
                }
            }
        }
    }

    #[test]
    fn operand_counts() {
        let einsum = shape::DIALECT.op("einsum").unwrap();
        assert_eq!(einsum.operand_counts(), (1, Some(2)));
        let acc = assign::DIALECT.op("accum_binop").unwrap();
        assert_eq!(acc.operand_counts(), (3, None));
    }
}
