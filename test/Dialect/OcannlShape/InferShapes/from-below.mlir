// RUN: ocannl-opt %s --ocannl-infer-shapes --split-input-file | FileCheck %s

// Only leaves take the shapes their consumers broadcast them to; the shapes
// of computed values are forced from below by their operands.

// An einsum's result rows are exactly as its spec writes them: no input row
// here, though the consumer has one.
// CHECK-LABEL: func.func @einsum_exact
// CHECK: "ocannl_shape.einsum"{{.*}} -> !ocannl_shape.tensor<"4", f32>
// CHECK: "ocannl_shape.pointwise_binary"{{.*}} -> !ocannl_shape.tensor<"2->4", f32>
func.func @einsum_exact(%x: !ocannl_shape.tensor<"4", f32>, %y: !ocannl_shape.tensor<"2->4", f32>) {
  %e = "ocannl_shape.einsum"(%x) {spec = "i => i"} : (!ocannl_shape.tensor<"4", f32>) -> !ocannl_shape.tensor<"?", f32>
  %z = "ocannl_shape.pointwise_binary"(%e, %y) {op = "add"} : (!ocannl_shape.tensor<"?", f32>, !ocannl_shape.tensor<"2->4", f32>) -> !ocannl_shape.tensor<"?", f32>
  return
}

// -----

// A pointwise intermediate keeps its operand's shape.
// CHECK-LABEL: func.func @pointwise_intermediate
// CHECK: "ocannl_shape.pointwise_unary"{{.*}} -> !ocannl_shape.tensor<"4", f32>
// CHECK: "ocannl_shape.pointwise_binary"{{.*}} -> !ocannl_shape.tensor<"2->4", f32>
func.func @pointwise_intermediate(%x: !ocannl_shape.tensor<"4", f32>, %y: !ocannl_shape.tensor<"2->4", f32>) {
  %n = "ocannl_shape.pointwise_unary"(%x) {op = "neg"} : (!ocannl_shape.tensor<"4", f32>) -> !ocannl_shape.tensor<"?", f32>
  %z = "ocannl_shape.pointwise_binary"(%n, %y) {op = "add"} : (!ocannl_shape.tensor<"?", f32>, !ocannl_shape.tensor<"2->4", f32>) -> !ocannl_shape.tensor<"?", f32>
  return
}

// -----

// Nor is a broadcast dim 1 of an intermediate widened.
// CHECK-LABEL: func.func @dim_one_intermediate
// CHECK: "ocannl_shape.pointwise_unary"{{.*}} -> !ocannl_shape.tensor<"1", f32>
// CHECK: "ocannl_shape.pointwise_binary"{{.*}} -> !ocannl_shape.tensor<"5", f32>
func.func @dim_one_intermediate(%x: !ocannl_shape.tensor<"1", f32>, %y: !ocannl_shape.tensor<"5", f32>) {
  %n = "ocannl_shape.pointwise_unary"(%x) {op = "neg"} : (!ocannl_shape.tensor<"1", f32>) -> !ocannl_shape.tensor<"?", f32>
  %z = "ocannl_shape.pointwise_binary"(%n, %y) {op = "add"} : (!ocannl_shape.tensor<"?", f32>, !ocannl_shape.tensor<"5", f32>) -> !ocannl_shape.tensor<"?", f32>
  return
}
