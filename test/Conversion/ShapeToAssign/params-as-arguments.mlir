// RUN: ocannl-opt %s --ocannl-infer-shapes --ocannl-lower-to-assign=params-as-arguments=true | FileCheck %s

// Params become trailing arguments marked with their names, in program
// order; @<f>_init initializes the same buffers.
// CHECK-LABEL: func.func @mlp(
// CHECK-SAME: %[[X:.*]]: memref<8x2xf32>, %[[W:.*]]: memref<4x2xf32> {ocannl.param = "w"}, %[[B:.*]]: memref<4xf32> {ocannl.param = "b"}) -> memref<8x4xf32>
// CHECK-NOT: ocannl_assign.uniform
// CHECK: "ocannl_assign.accum_binop"({{.*}}, %[[W]], %[[X]])
// CHECK: return
// CHECK-LABEL: func.func @mlp_init(
// CHECK-SAME: %[[IW:.*]]: memref<4x2xf32>, %[[IB:.*]]: memref<4xf32>)
// CHECK: "ocannl_assign.uniform"(%[[IW]])
// CHECK: "ocannl_assign.uniform"(%[[IB]])
// CHECK: return
func.func @mlp(%x: !ocannl_shape.tensor<"8|2", f32>) -> !ocannl_shape.tensor<"?", f32> {
  %w = "ocannl_shape.param"() {name = "w"} : () -> !ocannl_shape.tensor<"...->4", f32>
  %b = "ocannl_shape.param"() {name = "b"} : () -> !ocannl_shape.tensor<"4", f32>
  %h = "ocannl_shape.compose"(%w, %x) : (!ocannl_shape.tensor<"...->4", f32>, !ocannl_shape.tensor<"8|2", f32>) -> !ocannl_shape.tensor<"?", f32>
  %y = "ocannl_shape.pointwise_binary"(%h, %b) {op = "add"} : (!ocannl_shape.tensor<"?", f32>, !ocannl_shape.tensor<"4", f32>) -> !ocannl_shape.tensor<"?", f32>
  return %y : !ocannl_shape.tensor<"?", f32>
}
