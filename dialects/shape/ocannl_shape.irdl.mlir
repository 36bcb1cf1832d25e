// Generated from dialects/spec/src/shape.rs by `OCANNL_BLESS=1 cargo test -p ocannl-dialect-spec`; do not edit.
//
// The `ocannl_shape` dialect: tensor expressions whose types carry OCANNL shapes.
// Reference: docs/dialects.md. IRDL checks operand and result kinds, the
// required attributes and their closed sets of names; the dialect's verifier
// (run by ocannl-opt and the plugin) checks the rest.
irdl.dialect @ocannl_shape {
  // !ocannl_shape.tensor<"SHAPE", ELT>: a tensor with an OCANNL shape.
  irdl.type @tensor {
    %shape = irdl.base "#builtin.string"
    %elt_f16 = irdl.is f16
    %elt_bf16 = irdl.is bf16
    %elt_f32 = irdl.is f32
    %elt_f64 = irdl.is f64
    %elt = irdl.any_of(%elt_f16, %elt_bf16, %elt_f32, %elt_f64)
    irdl.parameters(shape: %shape, elt: %elt)
  }

  // A trainable tensor.
  // Optional attributes: init (default "uniform"), value (default 0.0), std (default 1.0), seed (default a hash of name), generator (default "splitmix64").
  irdl.operation @param {
    %name = irdl.base "#builtin.string"
    irdl.attributes {"name" = %name}
    %result = irdl.base @ocannl_shape::@tensor
    irdl.results(result: %result)
  }

  // A constant tensor.
  irdl.operation @constant {
    %value = irdl.any
    irdl.attributes {"value" = %value}
    %result = irdl.base @ocannl_shape::@tensor
    irdl.results(result: %result)
  }

  // A unary op on every cell.
  irdl.operation @pointwise_unary {
    %op_identity = irdl.is "identity"
    %op_relu = irdl.is "relu"
    %op_satur01 = irdl.is "satur01"
    %op_exp = irdl.is "exp"
    %op_log = irdl.is "log"
    %op_exp2 = irdl.is "exp2"
    %op_log2 = irdl.is "log2"
    %op_sin = irdl.is "sin"
    %op_cos = irdl.is "cos"
    %op_sqrt = irdl.is "sqrt"
    %op_recip = irdl.is "recip"
    %op_recip_sqrt = irdl.is "recip_sqrt"
    %op_neg = irdl.is "neg"
    %op_tanh = irdl.is "tanh"
    %op_erf = irdl.is "erf"
    %op_not = irdl.is "not"
    %op_stop_gradient = irdl.is "stop_gradient"
    %op = irdl.any_of(%op_identity, %op_relu, %op_satur01, %op_exp, %op_log, %op_exp2, %op_log2, %op_sin, %op_cos, %op_sqrt, %op_recip, %op_recip_sqrt, %op_neg, %op_tanh, %op_erf, %op_not, %op_stop_gradient)
    irdl.attributes {"op" = %op}
    %x = irdl.base @ocannl_shape::@tensor
    irdl.operands(x: %x)
    %result = irdl.base @ocannl_shape::@tensor
    irdl.results(result: %result)
  }

  // A binary op on every cell, broadcasting.
  irdl.operation @pointwise_binary {
    %op_add = irdl.is "add"
    %op_sub = irdl.is "sub"
    %op_mul = irdl.is "mul"
    %op_div = irdl.is "div"
    %op_pow = irdl.is "pow"
    %op_relu_gate = irdl.is "relu_gate"
    %op_satur01_gate = irdl.is "satur01_gate"
    %op_max = irdl.is "max"
    %op_min = irdl.is "min"
    %op_mod = irdl.is "mod"
    %op_lt = irdl.is "lt"
    %op_eq = irdl.is "eq"
    %op_ne = irdl.is "ne"
    %op_and = irdl.is "and"
    %op_or = irdl.is "or"
    %op = irdl.any_of(%op_add, %op_sub, %op_mul, %op_div, %op_pow, %op_relu_gate, %op_satur01_gate, %op_max, %op_min, %op_mod, %op_lt, %op_eq, %op_ne, %op_and, %op_or)
    irdl.attributes {"op" = %op}
    %lhs = irdl.base @ocannl_shape::@tensor
    %rhs = irdl.base @ocannl_shape::@tensor
    irdl.operands(lhs: %lhs, rhs: %rhs)
    %result = irdl.base @ocannl_shape::@tensor
    irdl.results(result: %result)
  }

  // A ternary op on every cell, broadcasting.
  irdl.operation @pointwise_ternary {
    %op_where = irdl.is "where"
    %op_fma = irdl.is "fma"
    %op = irdl.any_of(%op_where, %op_fma)
    irdl.attributes {"op" = %op}
    %a = irdl.base @ocannl_shape::@tensor
    %b = irdl.base @ocannl_shape::@tensor
    %c = irdl.base @ocannl_shape::@tensor
    irdl.operands(a: %a, b: %b, c: %c)
    %result = irdl.base @ocannl_shape::@tensor
    irdl.results(result: %result)
  }

  // OCANNL's `*`: matrix product of the operands' rows.
  // Optional attributes: op (default "mul"), accum (default "add").
  irdl.operation @compose {
    %lhs = irdl.base @ocannl_shape::@tensor
    %rhs = irdl.base @ocannl_shape::@tensor
    irdl.operands(lhs: %lhs, rhs: %rhs)
    %result = irdl.base @ocannl_shape::@tensor
    irdl.results(result: %result)
  }

  // Generalized einsum: reductions, contractions, rearrangements.
  // Optional attributes: op (default "identity" (one operand), "mul" (two)), accum (default "add"), capture (default none), captured (default none).
  irdl.operation @einsum {
    %spec = irdl.base "#builtin.string"
    irdl.attributes {"spec" = %spec}
    %lhs = irdl.base @ocannl_shape::@tensor
    %rhs = irdl.base @ocannl_shape::@tensor
    irdl.operands(lhs: %lhs, rhs: optional %rhs)
    %result = irdl.base @ocannl_shape::@tensor
    irdl.results(result: %result)
  }

  // Swaps the input and output rows.
  irdl.operation @transpose {
    %x = irdl.base @ocannl_shape::@tensor
    irdl.operands(x: %x)
    %result = irdl.base @ocannl_shape::@tensor
    irdl.results(result: %result)
  }

  // One position of the leftmost batch axis.
  irdl.operation @batch_slice {
    %x = irdl.base @ocannl_shape::@tensor
    %index = irdl.is index
    irdl.operands(x: %x, index: %index)
    %result = irdl.base @ocannl_shape::@tensor
    irdl.results(result: %result)
  }

  // A named dimension as a number.
  // Optional attributes: value (default none: written by ocannl-infer-shapes).
  irdl.operation @dim {
    %ref = irdl.base "#builtin.string"
    irdl.attributes {"ref" = %ref}
    %result = irdl.base @ocannl_shape::@tensor
    irdl.results(result: %result)
  }

  // Sets a named dimension, or a named row's total elements.
  irdl.operation @set_dim {
    %ref = irdl.base "#builtin.string"
    %value = irdl.base "#builtin.integer"
    irdl.attributes {"ref" = %ref, "value" = %value}
  }

  // Makes two named variables equal.
  irdl.operation @set_equal {
    %lhs = irdl.base "#builtin.string"
    %rhs = irdl.base "#builtin.string"
    irdl.attributes {"lhs" = %lhs, "rhs" = %rhs}
  }
}
