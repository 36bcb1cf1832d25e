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
