// RUN: ocannl-opt %s --ocannl-lower-to-assign --split-input-file --verify-diagnostics

func.func @not_inferred(%x: !ocannl_shape.tensor<"3", f32>) {
  // expected-error@+1 {{ocannl-lower-to-assign needs inferred shapes, but "?" is not concrete; run ocannl-infer-shapes first}}
  %y = "ocannl_shape.pointwise_unary"(%x) {op = "neg"} : (!ocannl_shape.tensor<"3", f32>) -> !ocannl_shape.tensor<"?", f32>
  return
}

// -----

// expected-error@+1 {{ocannl-lower-to-assign needs inferred shapes, but argument #0 has "..."}}
func.func @arg_not_inferred(%x: !ocannl_shape.tensor<"...", f32>) {
  return
}

// -----

// Types written without inference: a fixed index beyond its axis is an
// error, never a clamp or a broadcast read.
func.func @index_beyond_axis(%x: !ocannl_shape.tensor<"4,1", f32>) {
  // expected-error@+1 {{the fixed index 2 is beyond an axis of size 1 in the output row of operand #0}}
  %y = "ocannl_shape.einsum"(%x) {spec = "i2=>i"} : (!ocannl_shape.tensor<"4,1", f32>) -> !ocannl_shape.tensor<"4", f32>
  return
}

// -----

// Sizes are checked where tensors become buffers: a buffer takes at most
// 2^63 - 1 bytes (products checked; each size written is checked by
// ocannl-verify, see Dialect/OcannlShape/invalid.mlir).
func.func @product_overflows() {
  // expected-error@+1 {{the tensor of shape "4294967296->4294967296" cannot be a buffer: the buffer of sizes [4294967296, 4294967296] (batch, output, input) with 4-byte elements needs more than 9223372036854775807 bytes}}
  %w = "ocannl_shape.param"() {name = "w"} : () -> !ocannl_shape.tensor<"4294967296->4294967296", f32>
  return
}

// -----

func.func @bytes_overflow(%x: !ocannl_shape.tensor<"2", f64>) {
  // expected-error@+1 {{the tensor of shape "2,1152921504606846976" cannot be a buffer: the buffer of sizes [2, 1152921504606846976] (batch, output, input) with 8-byte elements needs more than 9223372036854775807 bytes}}
  %c = "ocannl_shape.constant"() {value = 1.0 : f64} : () -> !ocannl_shape.tensor<"2,1152921504606846976", f64>
  return
}

// -----

// A tensor used by an op the lowering does not know stays a tensor: an
// error at that op, not a tensor type left for later passes.
// expected-error@+1 {{ocannl-lower-to-assign cannot lower a function declaration with the tensor type !ocannl_shape.tensor<"3", f32>; declare it with buffer (memref) types}}
func.func private @g(!ocannl_shape.tensor<"3", f32>) -> !ocannl_shape.tensor<"3", f32>

func.func @call(%x: !ocannl_shape.tensor<"3", f32>) -> !ocannl_shape.tensor<"3", f32> {
  // expected-error@+1 {{ocannl-lower-to-assign cannot lower 'func.call' on the tensor type !ocannl_shape.tensor<"3", f32>}}
  %y = func.call @g(%x) : (!ocannl_shape.tensor<"3", f32>) -> !ocannl_shape.tensor<"3", f32>
  return %y : !ocannl_shape.tensor<"3", f32>
}
