// RUN: ocannl-opt %s --ocannl-infer-shapes --split-input-file | FileCheck %s

// compose contracts the input row of operand #0 with the output row of #1;
// batch axes broadcast into the result.

// CHECK-LABEL: func.func @matvec
// CHECK-SAME: -> !ocannl_shape.tensor<"10|4", f32>
// CHECK: "ocannl_shape.compose"{{.*}} -> !ocannl_shape.tensor<"10|4", f32>
func.func @matvec(%w: !ocannl_shape.tensor<"3->4", f32>, %x: !ocannl_shape.tensor<"10|3", f32>) -> !ocannl_shape.tensor<"?", f32> {
  %y = "ocannl_shape.compose"(%w, %x) : (!ocannl_shape.tensor<"3->4", f32>, !ocannl_shape.tensor<"10|3", f32>) -> !ocannl_shape.tensor<"?", f32>
  return %y : !ocannl_shape.tensor<"?", f32>
}

// -----

// Input axes of operand #1 stay in the result: composition of linear maps.
// CHECK-LABEL: func.func @matmat
// CHECK: "ocannl_shape.compose"{{.*}} -> !ocannl_shape.tensor<"5|7->4", f32>
func.func @matmat(%a: !ocannl_shape.tensor<"3->4", f32>, %b: !ocannl_shape.tensor<"5|7->3", f32>) {
  %y = "ocannl_shape.compose"(%a, %b) : (!ocannl_shape.tensor<"3->4", f32>, !ocannl_shape.tensor<"5|7->3", f32>) -> !ocannl_shape.tensor<"?", f32>
  return
}

// -----

// Multi-axis contraction.
// CHECK-LABEL: func.func @multi_axis
// CHECK: "ocannl_shape.compose"{{.*}} -> !ocannl_shape.tensor<"8|6", f32>
func.func @multi_axis(%a: !ocannl_shape.tensor<"2,3->6", f32>, %b: !ocannl_shape.tensor<"8|2,3", f32>) {
  %y = "ocannl_shape.compose"(%a, %b) : (!ocannl_shape.tensor<"2,3->6", f32>, !ocannl_shape.tensor<"8|2,3", f32>) -> !ocannl_shape.tensor<"?", f32>
  return
}
