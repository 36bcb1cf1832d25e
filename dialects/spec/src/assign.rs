//! The `ocannl_assign` dialect: tensor nodes as buffers and accumulating
//! assignments.

use ocannl_ops::{Accum, BinaryOp, TernaryOp, UnaryOp};

use crate::{
    Arity::*, AttrDef, AttrKind, Dialect, OpDef, Presence::*, RegionDef, Rule, ValueDef,
    ValueKind::*,
};

/// Memory modes of a tensor node.
pub const MEMORY_MODES: &[&str] = &["undecided", "virtual", "local", "on_device", "materialized"];
/// Kinds of tensor nodes.
pub const NODE_KINDS: &[&str] = &["value", "grad"];

fn memory_modes() -> &'static [&'static str] {
    MEMORY_MODES
}
fn node_kinds() -> &'static [&'static str] {
    NODE_KINDS
}
crate::name_set!(accums, Accum::ALL, Accum::name);
crate::name_set!(unary, UnaryOp::ALL, UnaryOp::name);
crate::name_set!(binary, BinaryOp::ALL, BinaryOp::assign_name);
crate::name_set!(ternary, TernaryOp::ALL, TernaryOp::name);
crate::name_set!(
    generators,
    &ocannl_ops::Generator::ALL,
    |g: ocannl_ops::Generator| g.name()
);

/// The `generator` attribute of `uniform` and `normal`.
pub const GENERATOR: AttrDef = AttrDef {
    name: "generator",
    kind: AttrKind::OneOf {
        what: "generator",
        values: generators,
    },
    presence: Default("\"splitmix64\""),
    doc: "the counter-based generator: SplitMix64 of the seed and the index, or Threefry-4x32-20 (Random123's) of the block `index / 4` under the key (seed low, seed high, 0, 0), word `index % 4`",
};

const ACCUM: AttrDef = AttrDef {
    name: "accum",
    kind: AttrKind::OneOf {
        what: "accumulation",
        values: accums,
    },
    presence: Required,
    doc: "how a computed value combines with the cell's old value (`assign` overwrites)",
};

const SPACE: AttrDef = AttrDef {
    name: "space",
    kind: AttrKind::I64Array,
    presence: Required,
    doc: "the size of every iterator of the product space",
};

const MAPS: AttrDef = AttrDef {
    name: "indexing_maps",
    kind: AttrKind::AffineMapArray,
    presence: Required,
    doc: "one affine map per buffer operand, the result's first: iterators (and index operands, as symbols) to the cell read or written",
};

const INIT: AttrDef = AttrDef {
    name: "initialize_neutral",
    kind: AttrKind::Bool,
    presence: Default("false"),
    doc: "first set every cell of the result to the neutral element of `accum`",
};

const DYNAMIC: AttrDef = AttrDef {
    name: "dynamic_indices",
    kind: AttrKind::I64Array,
    presence: Default("array<i64>"),
    doc: "pairs (operand, bound), one per dynamic index (a gather's read, a scatter's write): the maps' symbols after those of the index operands are, in order, the value of buffer operand `operand` (1 for the first buffer read; its map names no such symbol; the body does not read it) at the point, an integer in `0..bound`; a point where it is not one is skipped",
};

const LHS: ValueDef = ValueDef {
    name: "lhs",
    kind: FloatMemref,
    arity: Single,
    doc: "the buffer written",
};

const SYMBOLS: ValueDef = ValueDef {
    name: "symbols",
    kind: Index,
    arity: Variadic,
    doc: "values of the maps' symbols (the position of a batch slice)",
};

const DEST: &[ValueDef] = &[ValueDef {
    name: "dest",
    kind: FloatMemref,
    arity: Single,
    doc: "the buffer written",
}];

const ACCUM_RULES: &[Rule] = &[
    Rule {
        requires: "one indexing map per buffer operand",
        error: "indexing maps (one per buffer operand)",
    },
    Rule {
        requires: "every map has one dim per iterator of `space`",
        error: "dims but 'space' has",
    },
    Rule {
        requires: "every map has one result per axis of its buffer",
        error: "results but operand",
    },
    Rule {
        requires: "every map has one symbol per index operand",
        error: "symbols but the op has",
    },
    Rule {
        requires: "every size in `space` is positive",
        error: "every size in 'space' must be positive",
    },
];

pub static DIALECT: Dialect = Dialect {
    name: "ocannl_assign",
    summary: "OCANNL's assignments: tensor nodes as buffers, accumulating assignments over projections",
    description: "\
A routine of this dialect is a `func.func` of tensor nodes (buffers, memrefs
laid out batch axes, then output axes, then input axes), their
initializations, and accumulating assignments `lhs =accum= op(rhs...)`. An
assignment iterates over a product space (`space`) and reads and writes each
buffer through an affine map of the iterators (`indexing_maps`, the
projections). `ocannl-lower-to-loops` lowers routines to upstream loops.

The ops have the generic syntax only.",
    types: &[],
    ops: &[
        OpDef {
            regions: &[],
            name: "node",
            summary: "a tensor node: the value or gradient buffer of a named tensor",
            description: "Its result is the buffer, a memref of the tensor's dims in memory order.",
            operands: &[],
            results: &[ValueDef {
                name: "result",
                kind: FloatMemref,
                arity: Single,
                doc: "the buffer",
            }],
            attrs: &[
                AttrDef {
                    name: "name",
                    kind: AttrKind::String,
                    presence: Required,
                    doc: "the tensor's name",
                },
                AttrDef {
                    name: "kind",
                    kind: AttrKind::OneOf {
                        what: "node kind",
                        values: node_kinds,
                    },
                    presence: Required,
                    doc: "whether the buffer holds the tensor's value or its gradient",
                },
                AttrDef {
                    name: "memory",
                    kind: AttrKind::OneOf {
                        what: "memory mode",
                        values: memory_modes,
                    },
                    presence: Required,
                    doc: "OCANNL's memory mode of the node",
                },
                AttrDef {
                    name: "shape",
                    kind: AttrKind::String,
                    presence: Required,
                    doc: "the tensor's concrete shape, `batch|input->output`",
                },
                AttrDef {
                    name: "memory_reason",
                    kind: AttrKind::String,
                    presence: Default("none"),
                    doc: "why `ocannl-virtualize` chose the mode (what was inlined where, or why the node is not virtual)",
                },
            ],
            rules: &[
                Rule {
                    requires: "`shape` parses as a shape",
                    error: "invalid shape",
                },
                Rule {
                    requires: "the buffer's dims are the shape's in memory order (batch, output, input)",
                    error: "in memory order (batch, output, input) but the buffer has",
                },
            ],
            example: r#"func.func @nodes() -> memref<3x2xf32> {
  %w = "ocannl_assign.node"() {name = "w", kind = "value", memory = "materialized", shape = "2->3"} : () -> memref<3x2xf32>
  "ocannl_assign.uniform"(%w) {seed = 7 : i64, low = -1.0 : f64, high = 1.0 : f64} : (memref<3x2xf32>) -> ()
  return %w : memref<3x2xf32>
}"#,
        },
        OpDef {
            regions: &[],
            name: "accum_unop",
            summary: "`lhs =accum= op(rhs)`",
            description: "\
For every point of the iteration space, the cell of `rhs` at its map gives a
value, `op` of it combines with the cell of `lhs` at its map.",
            operands: &[
                LHS,
                ValueDef {
                    name: "rhs",
                    kind: FloatMemref,
                    arity: Single,
                    doc: "the buffer read",
                },
                SYMBOLS,
            ],
            results: &[],
            attrs: &[
                ACCUM,
                AttrDef {
                    name: "op",
                    kind: AttrKind::OneOf {
                        what: "unary op",
                        values: unary,
                    },
                    presence: Required,
                    doc: "the numeric op",
                },
                SPACE,
                MAPS,
                INIT,
            ],
            rules: ACCUM_RULES,
            example: r#"func.func @row_max(%x: memref<4x3xf32>, %y: memref<4xf32>) {
  "ocannl_assign.accum_unop"(%y, %x) {accum = "max", op = "identity", initialize_neutral = true, space = array<i64: 4, 3>, indexing_maps = [affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i, j)>]} : (memref<4xf32>, memref<4x3xf32>) -> ()
  return
}"#,
        },
        OpDef {
            regions: &[],
            name: "accum_binop",
            summary: "`lhs =accum= rhs1 op rhs2`",
            description: "As `accum_unop`, with two buffers read. A matrix-vector product is `y =+ w * x` over the space of (rows, columns).",
            operands: &[
                LHS,
                ValueDef {
                    name: "rhs1",
                    kind: FloatMemref,
                    arity: Single,
                    doc: "the first buffer read",
                },
                ValueDef {
                    name: "rhs2",
                    kind: FloatMemref,
                    arity: Single,
                    doc: "the second buffer read",
                },
                SYMBOLS,
            ],
            results: &[],
            attrs: &[
                ACCUM,
                AttrDef {
                    name: "op",
                    kind: AttrKind::OneOf {
                        what: "binary op",
                        values: binary,
                    },
                    presence: Required,
                    doc: "the numeric op (OCANNL's assignment-level names: comparisons are `cmplt`, `cmpeq`, `cmpne`)",
                },
                SPACE,
                MAPS,
                INIT,
            ],
            rules: ACCUM_RULES,
            example: r#"func.func @matvec(%w: memref<3x2xf32>, %x: memref<2xf32>, %y: memref<3xf32>) {
  "ocannl_assign.accum_binop"(%y, %w, %x) {accum = "add", op = "mul", initialize_neutral = true, space = array<i64: 3, 2>, indexing_maps = [affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>]} : (memref<3xf32>, memref<3x2xf32>, memref<2xf32>) -> ()
  return
}"#,
        },
        OpDef {
            regions: &[],
            name: "accum_ternop",
            summary: "`lhs =accum= op(rhs1, rhs2, rhs3)`",
            description: "As `accum_unop`, with three buffers read.",
            operands: &[
                LHS,
                ValueDef {
                    name: "rhs1",
                    kind: FloatMemref,
                    arity: Single,
                    doc: "the first buffer read",
                },
                ValueDef {
                    name: "rhs2",
                    kind: FloatMemref,
                    arity: Single,
                    doc: "the second buffer read",
                },
                ValueDef {
                    name: "rhs3",
                    kind: FloatMemref,
                    arity: Single,
                    doc: "the third buffer read",
                },
                SYMBOLS,
            ],
            results: &[],
            attrs: &[
                ACCUM,
                AttrDef {
                    name: "op",
                    kind: AttrKind::OneOf {
                        what: "ternary op",
                        values: ternary,
                    },
                    presence: Required,
                    doc: "the numeric op",
                },
                SPACE,
                MAPS,
                INIT,
            ],
            rules: ACCUM_RULES,
            example: r#"func.func @fma(%a: memref<4xf32>, %b: memref<4xf32>, %c: memref<4xf32>, %y: memref<4xf32>) {
  "ocannl_assign.accum_ternop"(%y, %a, %b, %c) {accum = "assign", op = "fma", space = array<i64: 4>, indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>, affine_map<(i) -> (i)>, affine_map<(i) -> (i)>]} : (memref<4xf32>, memref<4xf32>, memref<4xf32>, memref<4xf32>) -> ()
  return
}"#,
        },
        OpDef {
            regions: &[RegionDef {
                name: "body",
                doc: "one block: an argument per buffer read (its element, of the buffers' element type), scalar `arith`/`math` ops, and `vector.yield` of the value to accumulate",
            }],
            name: "accum",
            summary: "`lhs =accum= body(rhs...)`: an assignment computing a scalar program",
            description: "\
The general form of an accumulating assignment, as `linalg.generic` is for
linalg: for every point of the iteration space, the cells of the buffers read
(at their maps) are the body's block arguments, the body computes a value
with `arith` and `math` ops, and `vector.yield` gives it to combine with the
result's cell. A read outside a buffer at a padded index gives the neutral
element of `accum`, as in the one-op forms. The one-op forms
(`accum_unop|binop|ternop`) are this op with a body of one op;
`ocannl-virtualize` makes this form when it inlines a computation into its
readers, and `ocannl-simplify` simplifies bodies.

The body ends with the upstream `vector.yield` (an IRDL-defined op cannot
be a terminator, and this one has no parent constraint), so stock MLIR tools
parse the op, and upstream passes (`cse`, `canonicalize`, `ocannl-simplify`)
work inside it. The body reads its block arguments, its own constants, and
float constants of enclosing regions (an IRDL-defined op cannot be declared
isolated from above, so `canonicalize` hoists constants out of it). One limit of IRDL: it binds every value of a variadic group
to one type, so stock `mlir-opt --irdl-file=...` accepts this op only when
its inputs all have one type; with the plugin (see docs/mlir-tools.md), stock
`mlir-opt` checks the op fully.",
            operands: &[
                LHS,
                ValueDef {
                    name: "inputs",
                    kind: FloatMemrefOrIndex,
                    arity: Variadic,
                    doc: "the buffers read, then the index operands bound to the maps' symbols",
                },
            ],
            results: &[],
            attrs: &[ACCUM, SPACE, MAPS, INIT, DYNAMIC],
            rules: &[
                Rule {
                    requires: "one indexing map per buffer operand",
                    error: "indexing maps (one per buffer operand)",
                },
                Rule {
                    requires: "each dynamic index names a buffer read that the body does not read, and a bound of at least 1",
                    error: "dynamic index",
                },
                Rule {
                    requires: "the buffers come before the index operands",
                    error: "buffer operands must come before the index operands",
                },
                Rule {
                    requires: "the body has one block with one argument per buffer read, of the element type",
                    error: "block argument",
                },
                Rule {
                    requires: "the body ends with `vector.yield` of one value of the element type",
                    error: "the body must end with",
                },
                Rule {
                    requires: "the body's ops are scalar `arith`/`math` ops of numeric ops (see `ocannl_assign.accum_*`), constants, `arith.cmpf`, `arith.select`, `arith.andi`/`ori`",
                    error: "is not supported in an assignment body",
                },
            ],
            example: r#"func.func @fused(%x: memref<4x3xf32>, %b: memref<4x3xf32>, %y: memref<4xf32>) {
  "ocannl_assign.accum"(%y, %x, %b) ({
  ^bb0(%xv: f32, %bv: f32):
    %s = arith.addf %xv, %bv : f32
    %zero = arith.constant 0.0 : f32
    %r = arith.maximumf %s, %zero : f32
    vector.yield %r : f32
  }) {accum = "add", initialize_neutral = true, space = array<i64: 4, 3>, indexing_maps = [affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>]} : (memref<4xf32>, memref<4x3xf32>, memref<4x3xf32>) -> ()
  return
}"#,
        },
        OpDef {
            regions: &[],
            name: "fill",
            summary: "every cell set to one value",
            description: "",
            operands: DEST,
            results: &[],
            attrs: &[AttrDef {
                name: "value",
                kind: AttrKind::Float,
                presence: Required,
                doc: "the value, of the buffer's element type",
            }],
            rules: &[Rule {
                requires: "`value` has the buffer's element type",
                error: "differs from the buffer's element type",
            }],
            example: r#"func.func @zeros(%y: memref<2x3xf32>) {
  "ocannl_assign.fill"(%y) {value = 0.0 : f32} : (memref<2x3xf32>) -> ()
  return
}"#,
        },
        OpDef {
            regions: &[],
            name: "literal",
            summary: "the cells set from a dense literal, in memory order",
            description: "",
            operands: DEST,
            results: &[],
            attrs: &[AttrDef {
                name: "value",
                kind: AttrKind::Dense,
                presence: Required,
                doc: "the cells' values in memory order",
            }],
            rules: &[Rule {
                requires: "the literal has one element per cell",
                error: "elements but the buffer has",
            }],
            example: r#"func.func @lit(%y: memref<3xf32>) {
  "ocannl_assign.literal"(%y) {value = dense<[1.0, 2.0, 3.0]> : tensor<3xf32>} : (memref<3xf32>) -> ()
  return
}"#,
        },
        OpDef {
            regions: &[],
            name: "range",
            summary: "cell `i` (in memory order) set to `i`",
            description: "",
            operands: DEST,
            results: &[],
            attrs: &[],
            rules: &[],
            example: r#"func.func @iota(%y: memref<2x3xf32>) {
  "ocannl_assign.range"(%y) : (memref<2x3xf32>) -> ()
  return
}"#,
        },
        OpDef {
            regions: &[],
            name: "uniform",
            summary: "pseudo-random cells, uniform in `[low, high)`",
            description: "\
A counter-based generator (SplitMix64 of the seed and the cell's index in
memory order, or Threefry-4x32-20 with `generator = \"threefry\"`): the
same seed gives the same values on every backend and in the reference
interpreter.",
            operands: DEST,
            results: &[],
            attrs: &[
                AttrDef {
                    name: "seed",
                    kind: AttrKind::Integer,
                    presence: Required,
                    doc: "the generator's key",
                },
                AttrDef {
                    name: "low",
                    kind: AttrKind::Float,
                    presence: Default("0.0"),
                    doc: "the least value",
                },
                AttrDef {
                    name: "high",
                    kind: AttrKind::Float,
                    presence: Default("1.0"),
                    doc: "the bound of the values",
                },
                GENERATOR,
            ],
            rules: &[],
            example: r#"func.func @init(%w: memref<4x4xf32>) {
  "ocannl_assign.uniform"(%w) {seed = 42 : i64, low = -0.5 : f64, high = 0.5 : f64} : (memref<4x4xf32>) -> ()
  return
}"#,
        },
        OpDef {
            regions: &[],
            name: "normal",
            summary: "pseudo-random cells, normal of mean `mean` and standard deviation `std`",
            description: "\
The same counter-based generator as `uniform`: cell `i` is Box-Muller's
`sqrt(-2 ln(1 - u1)) * cos(2 pi u2)` of the generator's values at the indices
`2i` and `2i + 1`, scaled by `std` and shifted by `mean`, the same on every
backend and in the reference interpreter.",
            operands: DEST,
            results: &[],
            attrs: &[
                AttrDef {
                    name: "seed",
                    kind: AttrKind::Integer,
                    presence: Required,
                    doc: "the generator's key",
                },
                AttrDef {
                    name: "mean",
                    kind: AttrKind::Float,
                    presence: Default("0.0"),
                    doc: "the mean",
                },
                AttrDef {
                    name: "std",
                    kind: AttrKind::Float,
                    presence: Default("1.0"),
                    doc: "the standard deviation",
                },
                GENERATOR,
            ],
            rules: &[Rule {
                requires: "`mean` and `std` are finite and `std` is not negative",
                error: "attribute 'std' must not be negative",
            }],
            example: r#"func.func @init(%w: memref<4x4xf32>) {
  "ocannl_assign.normal"(%w) {seed = 42 : i64, std = 0.02 : f64} : (memref<4x4xf32>) -> ()
  return
}"#,
        },
    ],
    irdl_path: "dialects/assign/ocannl_assign.irdl.mlir",
    source_path: "dialects/spec/src/assign.rs",
};
