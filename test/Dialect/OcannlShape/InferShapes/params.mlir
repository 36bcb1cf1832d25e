// RUN: ocannl-opt %s --ocannl-infer-shapes --split-input-file | FileCheck %s

// Params are inferred from their uses: an MLP where only the hidden size (on
// b1) and the output size (on w2) are written.

// CHECK-LABEL: func.func @mlp
// CHECK-SAME: (%{{.*}}: !ocannl_shape.tensor<"32|10", f32>) -> !ocannl_shape.tensor<"32|1", f32>
// CHECK: "ocannl_shape.param"() {name = "w1"} : () -> !ocannl_shape.tensor<"10->16", f32>
// CHECK: "ocannl_shape.param"() {name = "b1"} : () -> !ocannl_shape.tensor<"16", f32>
// CHECK: "ocannl_shape.param"() {name = "w2"} : () -> !ocannl_shape.tensor<"16->1", f32>
// CHECK: "ocannl_shape.compose"{{.*}} -> !ocannl_shape.tensor<"32|16", f32>
// CHECK: "ocannl_shape.pointwise_binary"{{.*}} -> !ocannl_shape.tensor<"32|16", f32>
// CHECK: "ocannl_shape.pointwise_unary"{{.*}} -> !ocannl_shape.tensor<"32|16", f32>
// CHECK: "ocannl_shape.compose"{{.*}} -> !ocannl_shape.tensor<"32|1", f32>
// CHECK: return %{{.*}} : !ocannl_shape.tensor<"32|1", f32>
func.func @mlp(%x: !ocannl_shape.tensor<"32|10", f32>) -> !ocannl_shape.tensor<"?", f32> {
  %w1 = "ocannl_shape.param"() {name = "w1"} : () -> !ocannl_shape.tensor<"?", f32>
  %b1 = "ocannl_shape.param"() {name = "b1"} : () -> !ocannl_shape.tensor<"16", f32>
  %w2 = "ocannl_shape.param"() {name = "w2"} : () -> !ocannl_shape.tensor<"...->1", f32>
  %h0 = "ocannl_shape.compose"(%w1, %x) : (!ocannl_shape.tensor<"?", f32>, !ocannl_shape.tensor<"32|10", f32>) -> !ocannl_shape.tensor<"?", f32>
  %h1 = "ocannl_shape.pointwise_binary"(%b1, %h0) {op = "add"} : (!ocannl_shape.tensor<"16", f32>, !ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  %h = "ocannl_shape.pointwise_unary"(%h1) {op = "relu"} : (!ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  %y = "ocannl_shape.compose"(%w2, %h) : (!ocannl_shape.tensor<"...->1", f32>, !ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  return %y : !ocannl_shape.tensor<"?", f32>
}

// -----

// A bias added to a vector: its input row is empty because the row above it
// (the sum's, forced from below by the vector) is.
// CHECK-LABEL: func.func @bias
// CHECK: "ocannl_shape.param"() {name = "b"} : () -> !ocannl_shape.tensor<"3", f32>
func.func @bias(%x: !ocannl_shape.tensor<"8|3", f32>) {
  %b = "ocannl_shape.param"() {name = "b"} : () -> !ocannl_shape.tensor<"?", f32>
  %y = "ocannl_shape.pointwise_binary"(%x, %b) {op = "add"} : (!ocannl_shape.tensor<"8|3", f32>, !ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  return
}

// -----

// A param with no uses has the output [1].
// CHECK-LABEL: func.func @unused
// CHECK: "ocannl_shape.param"() {name = "w"} : () -> !ocannl_shape.tensor<"1", f32>
func.func @unused() {
  %w = "ocannl_shape.param"() {name = "w"} : () -> !ocannl_shape.tensor<"?", f32>
  return
}
