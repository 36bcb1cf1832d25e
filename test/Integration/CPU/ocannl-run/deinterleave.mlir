// REQUIRES: ocannl-run
// RUN: ocannl-run %s --entry f --arg range | FileCheck %s
// RUN: ocannl-run %s --entry f --arg range --interpret | FileCheck %s

// Deinterleaving by pure strides (OCANNL's sizing: stride x output cells):
// the even and the odd cells of 0..7, and their pairwise sums.
// CHECK: result0: shape [4] dtype f32
// CHECK-NEXT: [0, 2, 4, 6]
// CHECK: result1: shape [4] dtype f32
// CHECK-NEXT: [1, 3, 5, 7]
// CHECK: result2: shape [4] dtype f32
// CHECK-NEXT: [1, 5, 9, 13]
func.func @f(%x: !ocannl_shape.tensor<"8", f32>) -> (!ocannl_shape.tensor<"?", f32>, !ocannl_shape.tensor<"?", f32>, !ocannl_shape.tensor<"?", f32>) {
  %even = "ocannl_shape.einsum"(%x) {spec = "2*i => i"} : (!ocannl_shape.tensor<"8", f32>) -> !ocannl_shape.tensor<"?", f32>
  %odd = "ocannl_shape.einsum"(%x) {spec = "2*i+1 => i"} : (!ocannl_shape.tensor<"8", f32>) -> !ocannl_shape.tensor<"?", f32>
  %s = "ocannl_shape.pointwise_binary"(%even, %odd) {op = "add"} : (!ocannl_shape.tensor<"?", f32>, !ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  return %even, %odd, %s : !ocannl_shape.tensor<"?", f32>, !ocannl_shape.tensor<"?", f32>, !ocannl_shape.tensor<"?", f32>
}
