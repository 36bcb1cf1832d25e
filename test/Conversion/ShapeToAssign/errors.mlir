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
