// RUN: ocannl-opt %s --pass-pipeline='builtin.module(ocannl-infer-shapes{explain=true})' --verify-diagnostics -o /dev/null

// The explain option reports every assumption made while closing shapes.
func.func @f(%x: !ocannl_shape.tensor<"8|3", f32>) {
  // expected-remark@+2 {{closed the output row of param 'b' to its least upper bound [3]}}
  // expected-remark@+1 {{assumed the input row of param 'b' has no more axes}}
  %b = "ocannl_shape.param"() {name = "b"} : () -> !ocannl_shape.tensor<"?", f32>
  %y = "ocannl_shape.pointwise_binary"(%x, %b) {op = "add"} : (!ocannl_shape.tensor<"8|3", f32>, !ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  return
}
