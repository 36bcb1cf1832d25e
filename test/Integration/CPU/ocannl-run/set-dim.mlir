// REQUIRES: ocannl-run
// RUN: ocannl-run %s --entry f --arg fill:1 | FileCheck %s
// RUN: ocannl-run %s --entry f --arg fill:1 --interpret | FileCheck %s
// RUN: ocannl-opt %s --ocannl-infer-shapes --ocannl-lower-to-assign | FileCheck %s --check-prefix=ASSIGN

// A param's hidden dimension and a row's total elements set by name
// (`set_dim`): the constraints decide the shapes (w: 3->4; v: 4->6, the
// row of 6 elements as one axis), then `ocannl-lower-to-assign` erases them
// and the program runs with those shapes, compiled and interpreted.
// CHECK: result0: shape [5, 4] dtype f32
// CHECK: result1: shape [5, 6] dtype f32
// ASSIGN-NOT: ocannl_shape.set_
// ASSIGN: ocannl_assign.node{{.*}}name = "w", shape = "3->4"
func.func @f(%x: !ocannl_shape.tensor<"5|3", f32>) -> (!ocannl_shape.tensor<"?", f32>, !ocannl_shape.tensor<"?", f32>) {
  %w = "ocannl_shape.param"() {name = "w", init = "zeros"} : () -> !ocannl_shape.tensor<"?", f32>
  %h = "ocannl_shape.einsum"(%x, %w) {spec = "...|i; i->k => ...|k", capture = ["k"]} : (!ocannl_shape.tensor<"5|3", f32>, !ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  %v = "ocannl_shape.param"() {name = "v", init = "zeros"} : () -> !ocannl_shape.tensor<"?", f32>
  %g = "ocannl_shape.einsum"(%h, %v) {spec = "...|k; k->..o.. => ...|..o..", capture = ["o"]} : (!ocannl_shape.tensor<"?", f32>, !ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  "ocannl_shape.set_dim"() {ref = "k", value = 4 : i64} : () -> ()
  "ocannl_shape.set_dim"() {ref = "o", value = 6 : i64} : () -> ()
  return %h, %g : !ocannl_shape.tensor<"?", f32>, !ocannl_shape.tensor<"?", f32>
}
