// RUN: ocannl-opt %s --ocannl-infer-shapes --ocannl-lower-to-assign --ocannl-lower-to-loops | FileCheck %s

// A comparison lowers to arith.cmpf with its predicate, then a select of
// 1.0 or 0.0.
// CHECK-LABEL: func.func @ne
// CHECK: arith.cmpf une
// CHECK: arith.select
func.func @ne(%a: !ocannl_shape.tensor<"3", f32>, %b: !ocannl_shape.tensor<"3", f32>) -> !ocannl_shape.tensor<"3", f32> {
  %c = "ocannl_shape.pointwise_binary"(%a, %b) {op = "ne"} : (!ocannl_shape.tensor<"3", f32>, !ocannl_shape.tensor<"3", f32>) -> !ocannl_shape.tensor<"3", f32>
  return %c : !ocannl_shape.tensor<"3", f32>
}
