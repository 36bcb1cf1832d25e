// The `ocannl_shape` dialect: tensor expressions whose types carry OCANNL
// shapes `batch|input->output`.
//
// IRDL gives every op its generic syntax only. Every declared attribute is
// required; optional attributes with defaults (`op`, `accum` on compose and
// einsum) are left undeclared here and checked by the project's verifier
// (`ocannl-verify`, run by `ocannl-opt` before any pass).
irdl.dialect @ocannl_shape {
  // !ocannl_shape.tensor<"SHAPE", ELT>: SHAPE is a string in OCANNL's shape
  // notation ("2,3|4->5", "?", "...->8", ...), ELT a floating-point type.
  irdl.type @tensor {
    %shape = irdl.base "#builtin.string"
    %f16 = irdl.is f16
    %bf16 = irdl.is bf16
    %f32 = irdl.is f32
    %f64 = irdl.is f64
    %elt = irdl.any_of(%f16, %bf16, %f32, %f64)
    irdl.parameters(shape: %shape, elt: %elt)
  }

  // A trainable tensor. Never has batch axes.
  irdl.operation @param {
    %name = irdl.base "#builtin.string"
    irdl.attributes {"name" = %name}
    %res = irdl.base @ocannl_shape::@tensor
    irdl.results(result: %res)
  }

  // A constant tensor: `value` is a float or a dense literal; the shape comes
  // from the result type.
  irdl.operation @constant {
    %value = irdl.any
    irdl.attributes {"value" = %value}
    %res = irdl.base @ocannl_shape::@tensor
    irdl.results(result: %res)
  }

  // Broadcasting pointwise operations of one, two and three operands.
  irdl.operation @pointwise_unary {
    %op = irdl.base "#builtin.string"
    irdl.attributes {"op" = %op}
    %x = irdl.base @ocannl_shape::@tensor
    irdl.operands(x: %x)
    %res = irdl.base @ocannl_shape::@tensor
    irdl.results(result: %res)
  }

  irdl.operation @pointwise_binary {
    %op = irdl.base "#builtin.string"
    irdl.attributes {"op" = %op}
    %lhs = irdl.base @ocannl_shape::@tensor
    %rhs = irdl.base @ocannl_shape::@tensor
    irdl.operands(lhs: %lhs, rhs: %rhs)
    %res = irdl.base @ocannl_shape::@tensor
    irdl.results(result: %res)
  }

  irdl.operation @pointwise_ternary {
    %op = irdl.base "#builtin.string"
    irdl.attributes {"op" = %op}
    %a = irdl.base @ocannl_shape::@tensor
    %b = irdl.base @ocannl_shape::@tensor
    %c = irdl.base @ocannl_shape::@tensor
    irdl.operands(a: %a, b: %b, c: %c)
    %res = irdl.base @ocannl_shape::@tensor
    irdl.results(result: %res)
  }

  // OCANNL's `*`: contracts the input row of `lhs` with the output row of
  // `rhs`. Optional attributes: `op` (default "mul"), `accum` (default "add").
  irdl.operation @compose {
    %lhs = irdl.base @ocannl_shape::@tensor
    %rhs = irdl.base @ocannl_shape::@tensor
    irdl.operands(lhs: %lhs, rhs: %rhs)
    %res = irdl.base @ocannl_shape::@tensor
    irdl.results(result: %res)
  }

  // Generalized einsum: `spec` is "rhs => lhs" (one operand) or
  // "rhs1; rhs2 => lhs" (two operands). Optional attributes: `op` (default
  // "mul"), `accum` (default "add").
  irdl.operation @einsum {
    %spec = irdl.base "#builtin.string"
    irdl.attributes {"spec" = %spec}
    %lhs = irdl.base @ocannl_shape::@tensor
    %rhs = irdl.base @ocannl_shape::@tensor
    irdl.operands(lhs: %lhs, rhs: optional %rhs)
    %res = irdl.base @ocannl_shape::@tensor
    irdl.results(result: %res)
  }

  // Swaps the input and output rows; batch axes are preserved.
  irdl.operation @transpose {
    %x = irdl.base @ocannl_shape::@tensor
    irdl.operands(x: %x)
    %res = irdl.base @ocannl_shape::@tensor
    irdl.results(result: %res)
  }

  // Removes the leftmost batch axis, selecting position `index` along it.
  irdl.operation @batch_slice {
    %x = irdl.base @ocannl_shape::@tensor
    %index = irdl.is index
    irdl.operands(x: %x, index: %index)
    %res = irdl.base @ocannl_shape::@tensor
    irdl.results(result: %res)
  }
}
