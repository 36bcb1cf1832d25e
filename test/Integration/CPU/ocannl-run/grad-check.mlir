// REQUIRES: ocannl-run
// RUN: ocannl-run %S/Inputs/tanh-regression.mlir --entry loss --grad-check --arg random:1 --arg random:2 | FileCheck %s
// RUN: ocannl-run %s --entry conv --grad-check | FileCheck %s --check-prefix=CONV

// A tanh regression with a squared-error loss: backprop agrees with central
// differences, and the compiled gradients with the interpreted ones.
// CHECK: grad-check @loss: loss {{.*}}, 2 params, 4 cells
// CHECK-NEXT: backprop vs finite differences: max relative error {{[0-9.]+e-(0?[6-9]|[1-9][0-9])$}}
// CHECK-NEXT: compiled vs interpreted backprop: max relative error {{[0-9.]+e-(0?[5-9]|[1-9][0-9])$}}

// A padded convolution of a param: the gradient of the padded reads writes
// only inside the input.
// CONV: grad-check @conv: loss {{.*}}, 2 params, 9 cells
// CONV-NEXT: backprop vs finite differences: max relative error {{[0-9.]+e-(0?[6-9]|[1-9][0-9])$}}
// CONV-NEXT: compiled vs interpreted backprop: max relative error {{[0-9.]+e-(0?[5-9]|[1-9][0-9])$}}
func.func @conv() -> !ocannl_shape.tensor<"?", f32> {
  %x = "ocannl_shape.param"() {name = "x"} : () -> !ocannl_shape.tensor<"6", f32>
  %k = "ocannl_shape.param"() {name = "k"} : () -> !ocannl_shape.tensor<"3", f32>
  %y = "ocannl_shape.einsum"(%x, %k) {spec = "o=+k; k => o"} : (!ocannl_shape.tensor<"6", f32>, !ocannl_shape.tensor<"3", f32>) -> !ocannl_shape.tensor<"?", f32>
  %s = "ocannl_shape.einsum"(%y, %y) {spec = "o; o => 0"} : (!ocannl_shape.tensor<"?", f32>, !ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  return %s : !ocannl_shape.tensor<"?", f32>
}
