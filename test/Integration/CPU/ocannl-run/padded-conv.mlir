// REQUIRES: ocannl-run
// RUN: ocannl-run %s --entry f --arg range --arg range | FileCheck %s

// y[o] = sum_k x[o + k - 1] * w[k] with x = 0..5 and w = 0..2: the cells
// beyond x read as 0, so y[0] = 0*0 + 0*1 + 1*2 and y[5] = 4*0 + 5*1 + 0*2.
// CHECK: result0: shape [6] dtype f32
// CHECK-NEXT: [2, 5, 8, 11, 14, 5]
func.func @f(%x: !ocannl_shape.tensor<"6", f32>, %w: !ocannl_shape.tensor<"3", f32>) -> !ocannl_shape.tensor<"?", f32> {
  %y = "ocannl_shape.einsum"(%x, %w) {spec = "o=+k; k => o"} : (!ocannl_shape.tensor<"6", f32>, !ocannl_shape.tensor<"3", f32>) -> !ocannl_shape.tensor<"?", f32>
  return %y : !ocannl_shape.tensor<"?", f32>
}
