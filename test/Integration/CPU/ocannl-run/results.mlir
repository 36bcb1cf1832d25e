// REQUIRES: ocannl-run
// The runtime frees each result buffer once, and never an argument's
// storage: the same value returned twice, and an argument returned, over
// repeated runs.
// RUN: ocannl-run %s --entry twice --arg range --repeat 3 | FileCheck %s --check-prefix=TWICE
// RUN: ocannl-run %s --entry same --arg range --repeat 3 | FileCheck %s --check-prefix=SAME
// RUN: ocannl-run %s --entry both --arg range --repeat 3 | FileCheck %s --check-prefix=BOTH

// TWICE: result0: shape [4] dtype f32
// TWICE-NEXT: [0, -1, -2, -3]
// TWICE-NEXT: result1: shape [4] dtype f32
// TWICE-NEXT: [0, -1, -2, -3]
// TWICE: runs: 3
// SAME: result0: shape [4] dtype f32
// SAME-NEXT: [0, 1, 2, 3]
// SAME: runs: 3
// BOTH: result0: shape [4] dtype f32
// BOTH-NEXT: [0, 1, 2, 3]
// BOTH-NEXT: result1: shape [4] dtype f32
// BOTH-NEXT: [0, -1, -2, -3]
// BOTH-NEXT: result2: shape [4] dtype f32
// BOTH-NEXT: [0, 1, 2, 3]
// BOTH: runs: 3
func.func @twice(%x: !ocannl_shape.tensor<"4", f32>) -> (!ocannl_shape.tensor<"4", f32>, !ocannl_shape.tensor<"4", f32>) {
  %n = "ocannl_shape.pointwise_unary"(%x) {op = "neg"} : (!ocannl_shape.tensor<"4", f32>) -> !ocannl_shape.tensor<"4", f32>
  return %n, %n : !ocannl_shape.tensor<"4", f32>, !ocannl_shape.tensor<"4", f32>
}
func.func @same(%x: !ocannl_shape.tensor<"4", f32>) -> !ocannl_shape.tensor<"4", f32> {
  return %x : !ocannl_shape.tensor<"4", f32>
}
func.func @both(%x: !ocannl_shape.tensor<"4", f32>) -> (!ocannl_shape.tensor<"4", f32>, !ocannl_shape.tensor<"4", f32>, !ocannl_shape.tensor<"4", f32>) {
  %n = "ocannl_shape.pointwise_unary"(%x) {op = "neg"} : (!ocannl_shape.tensor<"4", f32>) -> !ocannl_shape.tensor<"4", f32>
  return %x, %n, %x : !ocannl_shape.tensor<"4", f32>, !ocannl_shape.tensor<"4", f32>, !ocannl_shape.tensor<"4", f32>
}
