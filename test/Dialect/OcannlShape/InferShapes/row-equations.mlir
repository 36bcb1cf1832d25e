// RUN: ocannl-opt %s --ocannl-infer-shapes --split-input-file | FileCheck %s

// A row equation with row variables on both sides keeps every written axis:
// batch_slice makes the operand's output row equal to the result's, and
// `2,...` = `...,3` has the least solution `2,3`.

// CHECK-LABEL: func.func @both_sides_open
// CHECK-SAME: !ocannl_shape.tensor<"5|2,3", f32>
// CHECK: "ocannl_shape.batch_slice"{{.*}} -> !ocannl_shape.tensor<"2,3", f32>
func.func @both_sides_open(%x: !ocannl_shape.tensor<"5|2,...", f32>, %i: index) {
  %y = "ocannl_shape.batch_slice"(%x, %i) : (!ocannl_shape.tensor<"5|2,...", f32>, index) -> !ocannl_shape.tensor<"...,3", f32>
  return
}

// -----

// The same with the fixed axes the other way around: `...,3` = `2,...`.
// CHECK-LABEL: func.func @other_way
// CHECK-SAME: !ocannl_shape.tensor<"5|2,3", f32>
// CHECK: "ocannl_shape.batch_slice"{{.*}} -> !ocannl_shape.tensor<"2,3", f32>
func.func @other_way(%x: !ocannl_shape.tensor<"5|...,3", f32>, %i: index) {
  %y = "ocannl_shape.batch_slice"(%x, %i) : (!ocannl_shape.tensor<"5|...,3", f32>, index) -> !ocannl_shape.tensor<"2,...", f32>
  return
}
