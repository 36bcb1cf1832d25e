// RUN: ocannl-opt %s --ocannl-infer-shapes --split-input-file | FileCheck %s

// Broadcasting: dim-1 against any size, and more axes in a row.

// CHECK-LABEL: func.func @dim_one
// CHECK: "ocannl_shape.pointwise_binary"{{.*}} -> !ocannl_shape.tensor<"3,4", f32>
func.func @dim_one(%a: !ocannl_shape.tensor<"3,1", f32>, %b: !ocannl_shape.tensor<"1,4", f32>) {
  %c = "ocannl_shape.pointwise_binary"(%a, %b) {op = "add"} : (!ocannl_shape.tensor<"3,1", f32>, !ocannl_shape.tensor<"1,4", f32>) -> !ocannl_shape.tensor<"?", f32>
  return
}

// -----

// CHECK-LABEL: func.func @more_axes
// CHECK: "ocannl_shape.pointwise_binary"{{.*}} -> !ocannl_shape.tensor<"2|5,3", f32>
func.func @more_axes(%a: !ocannl_shape.tensor<"2|5,3", f32>, %b: !ocannl_shape.tensor<"3", f32>) {
  %c = "ocannl_shape.pointwise_binary"(%a, %b) {op = "mul"} : (!ocannl_shape.tensor<"2|5,3", f32>, !ocannl_shape.tensor<"3", f32>) -> !ocannl_shape.tensor<"?", f32>
  return
}

// -----

// A scalar broadcasts to every row.
// CHECK-LABEL: func.func @scalar
// CHECK: "ocannl_shape.pointwise_ternary"{{.*}} -> !ocannl_shape.tensor<"7|2->3", f32>
func.func @scalar(%a: !ocannl_shape.tensor<"1", f32>, %b: !ocannl_shape.tensor<"7|2->3", f32>) {
  %c = "ocannl_shape.pointwise_ternary"(%b, %a, %b) {op = "fma"} : (!ocannl_shape.tensor<"7|2->3", f32>, !ocannl_shape.tensor<"1", f32>, !ocannl_shape.tensor<"7|2->3", f32>) -> !ocannl_shape.tensor<"?", f32>
  return
}

// -----

// A leaf of unknown shape (a constant fill) takes the shape it broadcasts to.
// CHECK-LABEL: func.func @fill
// CHECK: "ocannl_shape.constant"() {value = 0.000000e+00 : f32} : () -> !ocannl_shape.tensor<"4|3", f32>
func.func @fill(%x: !ocannl_shape.tensor<"4|3", f32>) {
  %z = "ocannl_shape.constant"() {value = 0.0 : f32} : () -> !ocannl_shape.tensor<"?", f32>
  %c = "ocannl_shape.pointwise_binary"(%x, %z) {op = "max"} : (!ocannl_shape.tensor<"4|3", f32>, !ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  return
}
