//! The `ocannl_shape` dialect: tensor expressions whose types carry OCANNL
//! shapes.

use ocannl_ops::{Accum, BinaryOp, TernaryOp, UnaryOp};

use crate::{
    Arity::*, AttrDef, AttrKind, Dialect, OpDef, Param, ParamKind, Presence::*, Rule, TypeDef,
    ValueDef, ValueKind::*,
};

/// How a param is initialized (its `init` attribute; `uniform` by
/// default, OCANNL's: uniform in [-0.25, 0.25)).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ParamInit {
    /// Uniform in [-0.25, 0.25).
    Uniform,
    /// Glorot (Xavier) uniform: ±sqrt(6 / (fan_in + fan_out)).
    Glorot,
    /// He (Kaiming) uniform: ±sqrt(6 / fan_in).
    He,
    /// Normal of mean 0 and standard deviation `std` (the `std` attribute;
    /// PyTorch's `normal_(0, std)`, GPT-2's and nanoGPT's 0.02).
    Normal { std: f64 },
    /// Zeros.
    Zeros,
    /// Every cell `value` (the `value` attribute; OCANNL's params
    /// initialized to a given value).
    Constant { value: f64 },
}

impl ParamInit {
    /// Kaiming (He) uniform, OCANNL's `kaiming`: [`ParamInit::He`].
    pub const KAIMING: ParamInit = ParamInit::He;
    /// Xavier (Glorot) uniform, OCANNL's `xavier`: [`ParamInit::Glorot`].
    pub const XAVIER: ParamInit = ParamInit::Glorot;

    /// Every kind (`Normal` with the `std` attribute's default, 1).
    pub const ALL: [ParamInit; 6] = [
        ParamInit::Uniform,
        ParamInit::Glorot,
        ParamInit::He,
        ParamInit::Normal { std: 1.0 },
        ParamInit::Zeros,
        ParamInit::Constant { value: 0.0 },
    ];

    /// Normal of mean 0 and standard deviation `std`.
    pub fn normal(std: f64) -> ParamInit {
        ParamInit::Normal { std }
    }

    /// Every cell `value`.
    pub fn constant(value: f64) -> ParamInit {
        ParamInit::Constant { value }
    }

    /// The value every cell starts with, for an initialization that draws
    /// none (zeros, a constant).
    pub fn fill_value(self) -> Option<f64> {
        match self {
            ParamInit::Zeros => Some(0.0),
            ParamInit::Constant { value } => Some(value),
            _ => None,
        }
    }

    /// The name of the `init` attribute.
    pub fn name(self) -> &'static str {
        match self {
            ParamInit::Uniform => "uniform",
            ParamInit::Glorot => "glorot",
            ParamInit::He => "he",
            ParamInit::Normal { .. } => "normal",
            ParamInit::Zeros => "zeros",
            ParamInit::Constant { .. } => "constant",
        }
    }

    /// Every name, comma-separated (for messages).
    pub fn names() -> String {
        Self::ALL.map(ParamInit::name).join(", ")
    }

    /// The kind named `s` (`normal` with a standard deviation of 1: the
    /// `std` attribute sets it).
    pub fn parse(s: &str) -> Option<ParamInit> {
        Self::ALL.into_iter().find(|i| i.name() == s)
    }

    /// The distribution of the cells of a param whose input rows hold
    /// `fan_in` cells and output rows `fan_out` (`None`: a fill, see
    /// [`ParamInit::fill_value`]).
    pub fn dist(self, fan_in: u64, fan_out: u64) -> Option<ocannl_ops::rng::Dist> {
        let limit = match self {
            ParamInit::Uniform => 0.25,
            ParamInit::Glorot => (6.0 / (fan_in + fan_out).max(1) as f64).sqrt(),
            ParamInit::He => (6.0 / fan_in.max(1) as f64).sqrt(),
            ParamInit::Normal { std } => {
                return Some(ocannl_ops::rng::Dist::Normal { mean: 0.0, std })
            }
            ParamInit::Zeros | ParamInit::Constant { .. } => return None,
        };
        Some(ocannl_ops::rng::Dist::Uniform {
            low: -limit,
            high: limit,
        })
    }
}

crate::name_set!(param_inits, &ParamInit::ALL, ParamInit::name);
crate::name_set!(unary, UnaryOp::ALL, UnaryOp::name);
crate::name_set!(binary, BinaryOp::ALL, BinaryOp::name);
crate::name_set!(ternary, TernaryOp::ALL, TernaryOp::name);
crate::name_set!(reducing, Accum::REDUCING, Accum::name);

/// The names of the numeric ops of `arity` operands (1, 2 or 3).
pub fn num_op_names(arity: usize) -> &'static [&'static str] {
    match arity {
        1 => unary(),
        2 => binary(),
        _ => ternary(),
    }
}

const RESULT: &[ValueDef] = &[ValueDef {
    name: "result",
    kind: Tensor,
    arity: Single,
    doc: "the tensor computed",
}];

const ACCUM: AttrDef = AttrDef {
    name: "accum",
    kind: AttrKind::OneOf {
        what: "accumulation",
        values: reducing,
    },
    presence: Default("\"add\""),
    doc: "how the products of one result cell are combined (a sum by default)",
};

/// The name of a named variable (`dim`, `set_dim`).
const REF: AttrDef = AttrDef {
    name: "ref",
    kind: AttrKind::String,
    presence: Required,
    doc: "the variable's name",
};

pub static DIALECT: Dialect = Dialect {
    name: "ocannl_shape",
    summary: "tensor expressions whose types carry OCANNL shapes",
    description: "\
A value of this dialect is a tensor whose type carries an OCANNL shape: three
rows of axes, `batch|input->output`, any of them partly unknown. The ops are
OCANNL's tensor operations; `ocannl-infer-shapes` solves every shape, and
`ocannl-lower-to-assign` lowers the ops to `ocannl_assign` routines.

The ops have the generic syntax only (`\"ocannl_shape.einsum\"(%a, %b) {...} :
(...) -> ...`). A result type may leave its shape unknown (`\"?\"`) for
inference to fill in.",
    types: &[TypeDef {
        name: "tensor",
        summary: "a tensor with an OCANNL shape",
        syntax: "!ocannl_shape.tensor<\"SHAPE\", ELT>",
        params: &[
            Param {
                name: "shape",
                kind: ParamKind::String,
                doc: "the shape in OCANNL's notation (see [Shapes](#shapes)), or `\"?\"` for unknown",
            },
            Param {
                name: "elt",
                kind: ParamKind::FloatType,
                doc: "the element type",
            },
        ],
        description: "\
`!ocannl_shape.tensor<\"2|3->4\", f32>` has one batch axis of 2, one input axis
of 3 and one output axis of 4. In memory (after lowering) a tensor is laid
out batch axes first, then output axes, then input axes.",
        rules: &[
            Rule {
                requires: "the shape parses as a shape (not an einsum slot: no `_`, no fixed indices, no convolution axes)",
                error: "invalid shape",
            },
            Rule {
                requires: "the element type is f16, bf16, f32 or f64",
                error: "element type must be f16, bf16, f32 or f64",
            },
        ],
    }],
    ops: &[
        OpDef {
            regions: &[],
            name: "param",
            summary: "a trainable tensor",
            description: "\
A parameter of the model. Its shape may be left partly unknown and is then
inferred from its uses; what nothing determines is an error (\"You forgot to
specify the hidden dimension(s)\"). After lowering, a param is initialized by
`ocannl_assign.uniform` (`normal` for `init = \"normal\"`, `fill` for
`init = \"zeros\"` and `init = \"constant\"`).",
            operands: &[],
            results: RESULT,
            attrs: &[
                AttrDef {
                    name: "name",
                    kind: AttrKind::String,
                    presence: Required,
                    doc: "the param's name (non-empty)",
                },
                AttrDef {
                    name: "init",
                    kind: AttrKind::OneOf {
                        what: "initialization",
                        values: param_inits,
                    },
                    presence: Default("\"uniform\""),
                    doc: "uniform in [-0.25, 0.25) (OCANNL's), Glorot or He uniform from the param's fans, normal of mean 0 and standard deviation `std`, zeros, or every cell `value`",
                },
                AttrDef {
                    name: "value",
                    kind: AttrKind::Float,
                    presence: Default("0.0"),
                    doc: "the value of every cell for `init = \"constant\"` (finite; ignored by the other initializations)",
                },
                AttrDef {
                    name: "std",
                    kind: AttrKind::Float,
                    presence: Default("1.0"),
                    doc: "the standard deviation of `init = \"normal\"` (positive; ignored by the other initializations)",
                },
                AttrDef {
                    name: "seed",
                    kind: AttrKind::Integer,
                    presence: Default("a hash of `name`"),
                    doc: "the seed of the initialization",
                },
                crate::assign::GENERATOR,
            ],
            rules: &[
                Rule {
                    requires: "`name` is not empty",
                    error: "requires a non-empty 'name'",
                },
                Rule {
                    requires: "the result's shape has no batch axes",
                    error: "a param never has batch axes",
                },
                Rule {
                    requires: "`std` is a finite number at least 0",
                    error: "attribute 'std' must be a number at least 0",
                },
                Rule {
                    requires: "`value` is a finite number",
                    error: "attribute 'value' must be a finite number",
                },
            ],
            example: r#"func.func @params() -> !ocannl_shape.tensor<"?", f32> {
  %w = "ocannl_shape.param"() {name = "w", init = "glorot", seed = 7 : i64} : () -> !ocannl_shape.tensor<"3->4", f32>
  %b = "ocannl_shape.param"() {name = "b"} : () -> !ocannl_shape.tensor<"?", f32>
  %y = "ocannl_shape.pointwise_binary"(%w, %b) {op = "add"} : (!ocannl_shape.tensor<"3->4", f32>, !ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  return %y : !ocannl_shape.tensor<"?", f32>
}"#,
        },
        OpDef {
            regions: &[],
            name: "constant",
            summary: "a constant tensor",
            description: "\
A float or integer fills the tensor (its shape then comes from the type, or
from where the constant is used); a dense literal gives the cells in memory
order, and its element count must match the shape.",
            operands: &[],
            results: RESULT,
            attrs: &[AttrDef {
                name: "value",
                kind: AttrKind::Literal,
                presence: Required,
                doc: "the value of every cell, or the cells in memory order",
            }],
            rules: &[],
            example: r#"func.func @constants() -> (!ocannl_shape.tensor<"1", f32>, !ocannl_shape.tensor<"rgb=3", f32>) {
  %c = "ocannl_shape.constant"() {value = 2.5 : f32} : () -> !ocannl_shape.tensor<"1", f32>
  %d = "ocannl_shape.constant"() {value = dense<[1.0, 2.0, 3.0]> : tensor<3xf32>} : () -> !ocannl_shape.tensor<"rgb=3", f32>
  return %c, %d : !ocannl_shape.tensor<"1", f32>, !ocannl_shape.tensor<"rgb=3", f32>
}"#,
        },
        OpDef {
            regions: &[],
            name: "pointwise_unary",
            summary: "a unary op on every cell",
            description: "The result has the operand's shape.",
            operands: &[ValueDef {
                name: "x",
                kind: Tensor,
                arity: Single,
                doc: "the operand",
            }],
            results: RESULT,
            attrs: &[AttrDef {
                name: "op",
                kind: AttrKind::OneOf {
                    what: "unary op",
                    values: unary,
                },
                presence: Required,
                doc: "the numeric op",
            }],
            rules: &[],
            example: r#"func.func @relu(%x: !ocannl_shape.tensor<"2|3", f32>) -> !ocannl_shape.tensor<"?", f32> {
  %r = "ocannl_shape.pointwise_unary"(%x) {op = "relu"} : (!ocannl_shape.tensor<"2|3", f32>) -> !ocannl_shape.tensor<"?", f32>
  return %r : !ocannl_shape.tensor<"?", f32>
}"#,
        },
        OpDef {
            regions: &[],
            name: "pointwise_binary",
            summary: "a binary op on every cell, broadcasting",
            description: "\
Each row of the result is at least as long as the operands' rows; the
operands broadcast to it, rows aligned from the right (an axis of size 1, or
a missing axis, repeats).",
            operands: &[
                ValueDef {
                    name: "lhs",
                    kind: Tensor,
                    arity: Single,
                    doc: "the first operand",
                },
                ValueDef {
                    name: "rhs",
                    kind: Tensor,
                    arity: Single,
                    doc: "the second operand",
                },
            ],
            results: RESULT,
            attrs: &[AttrDef {
                name: "op",
                kind: AttrKind::OneOf {
                    what: "binary op",
                    values: binary,
                },
                presence: Required,
                doc: "the numeric op (comparisons and logic ops give 1.0 for true, 0.0 for false)",
            }],
            rules: &[],
            example: r#"func.func @add_bias(%x: !ocannl_shape.tensor<"8|4", f32>, %b: !ocannl_shape.tensor<"4", f32>) -> !ocannl_shape.tensor<"?", f32> {
  %y = "ocannl_shape.pointwise_binary"(%x, %b) {op = "add"} : (!ocannl_shape.tensor<"8|4", f32>, !ocannl_shape.tensor<"4", f32>) -> !ocannl_shape.tensor<"?", f32>
  return %y : !ocannl_shape.tensor<"?", f32>
}"#,
        },
        OpDef {
            regions: &[],
            name: "pointwise_ternary",
            summary: "a ternary op on every cell, broadcasting",
            description: "As `pointwise_binary`, with three operands.",
            operands: &[
                ValueDef {
                    name: "a",
                    kind: Tensor,
                    arity: Single,
                    doc: "the first operand (the condition of `where`)",
                },
                ValueDef {
                    name: "b",
                    kind: Tensor,
                    arity: Single,
                    doc: "the second operand",
                },
                ValueDef {
                    name: "c",
                    kind: Tensor,
                    arity: Single,
                    doc: "the third operand",
                },
            ],
            results: RESULT,
            attrs: &[AttrDef {
                name: "op",
                kind: AttrKind::OneOf {
                    what: "ternary op",
                    values: ternary,
                },
                presence: Required,
                doc: "the numeric op",
            }],
            rules: &[],
            example: r#"func.func @select(%c: !ocannl_shape.tensor<"4", f32>, %t: !ocannl_shape.tensor<"4", f32>, %e: !ocannl_shape.tensor<"1", f32>) -> !ocannl_shape.tensor<"?", f32> {
  %r = "ocannl_shape.pointwise_ternary"(%c, %t, %e) {op = "where"} : (!ocannl_shape.tensor<"4", f32>, !ocannl_shape.tensor<"4", f32>, !ocannl_shape.tensor<"1", f32>) -> !ocannl_shape.tensor<"?", f32>
  return %r : !ocannl_shape.tensor<"?", f32>
}"#,
        },
        OpDef {
            regions: &[],
            name: "compose",
            summary: "OCANNL's `*`: matrix product of the operands' rows",
            description: "\
Contracts the input row of `lhs` with the output row of `rhs`: the result has
the batch axes of both (broadcast), the input row of `rhs` and the output row
of `lhs`. With a `3->4` weight and a `10|3` batch of vectors the result is
`10|4`.",
            operands: &[
                ValueDef {
                    name: "lhs",
                    kind: Tensor,
                    arity: Single,
                    doc: "the left factor (its input row is contracted)",
                },
                ValueDef {
                    name: "rhs",
                    kind: Tensor,
                    arity: Single,
                    doc: "the right factor (its output row is contracted)",
                },
            ],
            results: RESULT,
            attrs: &[
                AttrDef {
                    name: "op",
                    kind: AttrKind::OneOf {
                        what: "binary op",
                        values: binary,
                    },
                    presence: Default("\"mul\""),
                    doc: "the op applied to each pair of cells",
                },
                ACCUM,
            ],
            rules: &[],
            example: r#"func.func @linear(%w: !ocannl_shape.tensor<"3->4", f32>, %x: !ocannl_shape.tensor<"10|3", f32>) -> !ocannl_shape.tensor<"?", f32> {
  %y = "ocannl_shape.compose"(%w, %x) : (!ocannl_shape.tensor<"3->4", f32>, !ocannl_shape.tensor<"10|3", f32>) -> !ocannl_shape.tensor<"?", f32>
  %m = "ocannl_shape.compose"(%w, %x) {op = "add", accum = "max"} : (!ocannl_shape.tensor<"3->4", f32>, !ocannl_shape.tensor<"10|3", f32>) -> !ocannl_shape.tensor<"?", f32>
  return %m : !ocannl_shape.tensor<"?", f32>
}"#,
        },
        OpDef {
            regions: &[],
            name: "einsum",
            summary: "generalized einsum: reductions, contractions, rearrangements",
            description: "\
`spec` names the axes of each operand and of the result (see
[Einsum specs](#einsum-specs)); axes named in the operands but not in the
result are reduced with `accum`. An axis of the result that no operand has
broadcasts (every cell along it gets the same value), as in OCANNL;
`ocannl-infer-shapes{explain=true}` points such axes out.",
            operands: &[
                ValueDef {
                    name: "lhs",
                    kind: Tensor,
                    arity: Single,
                    doc: "the first operand",
                },
                ValueDef {
                    name: "rhs",
                    kind: Tensor,
                    arity: Optional,
                    doc: "the second operand, for a spec with two operand slots",
                },
            ],
            results: RESULT,
            attrs: &[
                AttrDef {
                    name: "spec",
                    kind: AttrKind::String,
                    presence: Required,
                    doc: "`\"rhs => result\"` or `\"rhs1; rhs2 => result\"`",
                },
                AttrDef {
                    name: "op",
                    kind: AttrKind::NumOpByArity,
                    presence: Default("`\"identity\"` (one operand), `\"mul\"` (two)"),
                    doc: "the op applied to the operands' cells",
                },
                ACCUM,
                AttrDef {
                    name: "capture",
                    kind: AttrKind::StringArray,
                    presence: Default("none"),
                    doc: "labels of `spec` (`i`; `r` for a row variable `..r..`; `batch`, `input` or `output` for `...` in that row) that are the function's named variables of the same names: `set_dim` and `set_equal` constrain them, a name captured by several ops is one variable, and `ocannl-infer-shapes` writes their solutions in `captured` (OCANNL's `capture_dims`)",
                },
                AttrDef {
                    name: "captured",
                    kind: AttrKind::I64Array,
                    presence: Default("none"),
                    doc: "written by `ocannl-infer-shapes`: the solution of each label of `capture`, in order: a dimension's size, a row's total elements (OCANNL's `solved_dim`)",
                },
            ],
            rules: &[
                Rule {
                    requires: "`capture` names labels or row variables of `spec`, each once",
                    error: "to capture",
                },
                Rule {
                    requires: "`spec` parses as an einsum spec",
                    error: "invalid einsum spec",
                },
                Rule {
                    requires: "`spec` has one operand slot per operand",
                    error: "operand slot(s) before '=>' but the op has",
                },
                Rule {
                    requires: "no name is both a dimension variable and a row variable",
                    error: "is used as both a dimension variable and a row variable",
                },
                Rule {
                    requires: "`op` is a unary op with one operand, a binary op with two",
                    error: "attribute 'op' must be one of the unary ops",
                },
            ],
            example: r#"func.func @einsums(%a: !ocannl_shape.tensor<"3->4", f32>, %b: !ocannl_shape.tensor<"10|3", f32>) -> (!ocannl_shape.tensor<"?", f32>, !ocannl_shape.tensor<"?", f32>) {
  %mm = "ocannl_shape.einsum"(%a, %b) {spec = "i->j; b|i => b|j"} : (!ocannl_shape.tensor<"3->4", f32>, !ocannl_shape.tensor<"10|3", f32>) -> !ocannl_shape.tensor<"?", f32>
  %mx = "ocannl_shape.einsum"(%b) {spec = "b|i => b", accum = "max"} : (!ocannl_shape.tensor<"10|3", f32>) -> !ocannl_shape.tensor<"?", f32>
  return %mm, %mx : !ocannl_shape.tensor<"?", f32>, !ocannl_shape.tensor<"?", f32>
}"#,
        },
        OpDef {
            regions: &[],
            name: "transpose",
            summary: "swaps the input and output rows",
            description: "Batch axes are kept.",
            operands: &[ValueDef {
                name: "x",
                kind: Tensor,
                arity: Single,
                doc: "the operand",
            }],
            results: RESULT,
            attrs: &[],
            rules: &[],
            example: r#"func.func @t(%a: !ocannl_shape.tensor<"7|3->4", f32>) -> !ocannl_shape.tensor<"?", f32> {
  %t = "ocannl_shape.transpose"(%a) : (!ocannl_shape.tensor<"7|3->4", f32>) -> !ocannl_shape.tensor<"?", f32>
  return %t : !ocannl_shape.tensor<"?", f32>
}"#,
        },
        OpDef {
            regions: &[],
            name: "batch_slice",
            summary: "one position of the leftmost batch axis",
            description: "\
Removes the operand's leftmost batch axis, selecting position `index` along
it.",
            operands: &[
                ValueDef {
                    name: "x",
                    kind: Tensor,
                    arity: Single,
                    doc: "the sliced tensor",
                },
                ValueDef {
                    name: "index",
                    kind: Index,
                    arity: Single,
                    doc: "the position along the leftmost batch axis",
                },
            ],
            results: RESULT,
            attrs: &[],
            rules: &[],
            example: r#"func.func @slice(%a: !ocannl_shape.tensor<"7,2|3", f32>, %i: index) -> !ocannl_shape.tensor<"?", f32> {
  %s = "ocannl_shape.batch_slice"(%a, %i) : (!ocannl_shape.tensor<"7,2|3", f32>, index) -> !ocannl_shape.tensor<"?", f32>
  return %s : !ocannl_shape.tensor<"?", f32>
}"#,
        },
        OpDef {
            regions: &[],
            name: "dim",
            summary: "a named dimension as a number",
            description: "\
A scalar (shape `\"\"`) holding the solution of the function's named
variable `ref` (as in `set_dim`): a dimension's size, a row's total
elements. `ocannl-infer-shapes` writes it in `value`;
`ocannl-lower-to-assign` fills the tensor with it. OCANNL's `embed_dim`
(`dim d` in its notation): a layer norm divides by `dim d` rather than a
number written twice.",
            operands: &[],
            results: RESULT,
            attrs: &[
                REF,
                AttrDef {
                    name: "value",
                    kind: AttrKind::Integer,
                    presence: Default("none: written by `ocannl-infer-shapes`"),
                    doc: "the solution",
                },
            ],
            rules: &[Rule {
                requires: "the result is a scalar (shape `\"\"` or `\"?\"`)",
                error: "a named dimension is a scalar",
            }],
            example: r#"func.func @mean(%x: !ocannl_shape.tensor<"5|3", f32>) -> !ocannl_shape.tensor<"?", f32> {
  %s = "ocannl_shape.einsum"(%x) {spec = "...|..d.. => ...|0", capture = ["d"]} : (!ocannl_shape.tensor<"5|3", f32>) -> !ocannl_shape.tensor<"?", f32>
  %n = "ocannl_shape.dim"() {ref = "d"} : () -> !ocannl_shape.tensor<"", f32>
  %m = "ocannl_shape.pointwise_binary"(%s, %n) {op = "div"} : (!ocannl_shape.tensor<"?", f32>, !ocannl_shape.tensor<"", f32>) -> !ocannl_shape.tensor<"?", f32>
  return %m : !ocannl_shape.tensor<"?", f32>
}"#,
        },
        OpDef {
            regions: &[],
            name: "set_dim",
            summary: "sets a named dimension, or a named row's total elements",
            description: "\
`ref` names a variable of the function: a dimension or row variable written
in a shape (`h`, `..r..`) or captured from an einsum's spec (`capture`). A
dimension becomes `value`; a row's dimensions multiply to `value` (OCANNL's
`Total_elems` constraint: a row nothing else decides gets one axis of
`value`). Shape inference solves it with the rest and reports a conflict
here. It computes nothing: `ocannl-lower-to-assign` erases it. OCANNL's
`Shape.set_dim`.",
            operands: &[],
            results: &[],
            attrs: &[
                REF,
                AttrDef {
                    name: "value",
                    kind: AttrKind::Integer,
                    presence: Required,
                    doc: "the dimension, or the row's total elements (at least 1)",
                },
            ],
            rules: &[
                Rule {
                    requires: "`ref` is not empty",
                    error: "requires a non-empty 'ref'",
                },
                Rule {
                    requires: "`value` is at least 1",
                    error: "must be at least 1",
                },
            ],
            example: r#"func.func @hidden(%x: !ocannl_shape.tensor<"5|3", f32>) -> !ocannl_shape.tensor<"?", f32> {
  %w = "ocannl_shape.param"() {name = "w"} : () -> !ocannl_shape.tensor<"?", f32>
  %h = "ocannl_shape.einsum"(%x, %w) {spec = "...|i; i->k => ...|k", capture = ["k"]} : (!ocannl_shape.tensor<"5|3", f32>, !ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  "ocannl_shape.set_dim"() {ref = "k", value = 7 : i64} : () -> ()
  return %h : !ocannl_shape.tensor<"?", f32>
}"#,
        },
        OpDef {
            regions: &[],
            name: "set_equal",
            summary: "makes two named variables equal",
            description: "\
Two dimensions are equal; two rows are equal (the same axes); a dimension and
a row: the row's dimensions multiply to the dimension. Names as in
`set_dim`. It computes nothing: `ocannl-lower-to-assign` erases it. OCANNL's
`Shape.set_equal`.",
            operands: &[],
            results: &[],
            attrs: &[
                AttrDef {
                    name: "lhs",
                    kind: AttrKind::String,
                    presence: Required,
                    doc: "a variable's name",
                },
                AttrDef {
                    name: "rhs",
                    kind: AttrKind::String,
                    presence: Required,
                    doc: "another variable's name",
                },
            ],
            rules: &[Rule {
                requires: "`lhs` and `rhs` are not empty",
                error: "requires non-empty 'lhs' and 'rhs'",
            }],
            example: r#"func.func @tied(%x: !ocannl_shape.tensor<"5|3", f32>) -> !ocannl_shape.tensor<"?", f32> {
  %w = "ocannl_shape.param"() {name = "w"} : () -> !ocannl_shape.tensor<"?", f32>
  %h = "ocannl_shape.einsum"(%x, %w) {spec = "...|i; i->k => ...|k", capture = ["i", "k"]} : (!ocannl_shape.tensor<"5|3", f32>, !ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  "ocannl_shape.set_equal"() {lhs = "k", rhs = "i"} : () -> ()
  return %h : !ocannl_shape.tensor<"?", f32>
}"#,
        },
    ],
    irdl_path: "dialects/shape/ocannl_shape.irdl.mlir",
    source_path: "dialects/spec/src/shape.rs",
};
