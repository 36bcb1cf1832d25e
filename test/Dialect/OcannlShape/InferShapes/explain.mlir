// RUN: ocannl-opt %s --pass-pipeline='builtin.module(ocannl-infer-shapes{explain=true})' --verify-diagnostics -o /dev/null

// The explain option reports every assumption made while closing shapes.
func.func @f(%x: !ocannl_shape.tensor<"8|3", f32>) {
  // expected-remark@+2 {{closed the output row of param 'b' to its least upper bound [3]}}
  // expected-remark@+1 {{closed the input row of param 'b' to its least upper bound []}}
  %b = "ocannl_shape.param"() {name = "b"} : () -> !ocannl_shape.tensor<"?", f32>
  %y = "ocannl_shape.pointwise_binary"(%x, %b) {op = "add"} : (!ocannl_shape.tensor<"8|3", f32>, !ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  return
}

// A param with no uses has the output [1].
func.func @unused() {
  // expected-remark@+2 {{param 'w' has no uses: its output row is [1]}}
  // expected-remark@+1 {{assumed the input row of param 'w' has no more axes}}
  %w = "ocannl_shape.param"() {name = "w"} : () -> !ocannl_shape.tensor<"?", f32>
  return
}
