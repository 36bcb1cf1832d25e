// RUN: ocannl-opt %s --ocannl-infer-shapes --split-input-file | FileCheck %s

// A fixed index in an einsum's result makes an axis of at least i+1: alone,
// OCANNL's `sparse = range 4 ++ "i=>i0"` closes it to 1.

// CHECK-LABEL: func.func @alone
// CHECK: "ocannl_shape.einsum"{{.*}} -> !ocannl_shape.tensor<"4,1", f32>
func.func @alone(%r: !ocannl_shape.tensor<"4", f32>) {
  %sparse = "ocannl_shape.einsum"(%r) {spec = "i=>i0"} : (!ocannl_shape.tensor<"4", f32>) -> !ocannl_shape.tensor<"?", f32>
  return
}

// -----

// A consumer reading index 2 (`sparse ++ "i2=>i"`) raises the axis to 3.
// CHECK-LABEL: func.func @raised
// CHECK: "ocannl_shape.einsum"{{.*}} -> !ocannl_shape.tensor<"4,3", f32>
// CHECK: "ocannl_shape.einsum"{{.*}} -> !ocannl_shape.tensor<"4", f32>
func.func @raised(%r: !ocannl_shape.tensor<"4", f32>) {
  %sparse = "ocannl_shape.einsum"(%r) {spec = "i=>i0"} : (!ocannl_shape.tensor<"4", f32>) -> !ocannl_shape.tensor<"?", f32>
  %y = "ocannl_shape.einsum"(%sparse) {spec = "i2=>i"} : (!ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  return
}

// -----

// A fixed index reads the operand's own axis: an argument of unknown size
// gets the size the index needs.
// CHECK-LABEL: func.func @operand_size
// CHECK-SAME: !ocannl_shape.tensor<"4,4", f32>
func.func @operand_size(%x: !ocannl_shape.tensor<"4,n", f32>) {
  %y = "ocannl_shape.einsum"(%x) {spec = "i,3=>i"} : (!ocannl_shape.tensor<"4,n", f32>) -> !ocannl_shape.tensor<"?", f32>
  return
}
