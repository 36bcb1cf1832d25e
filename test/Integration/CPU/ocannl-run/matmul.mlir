// REQUIRES: ocannl-run
// RUN: ocannl-run %s --entry mm --arg range --arg range | FileCheck %s
// The reference interpreter of the assignments agrees:
// RUN: ocannl-run %s --entry mm --arg range --arg range --interpret | FileCheck %s

// range(2x3) * range(3x2), a 2x3 by 3x2 matmul through the whole pipeline and
// the JIT.
// CHECK: result0: shape [2, 2] dtype f32
// CHECK-NEXT: {{\[}}[10, 13],
// CHECK-NEXT: [28, 40]]
func.func @mm(%a: !ocannl_shape.tensor<"3->2", f32>, %b: !ocannl_shape.tensor<"2->3", f32>) -> !ocannl_shape.tensor<"?", f32> {
  %c = "ocannl_shape.compose"(%a, %b) : (!ocannl_shape.tensor<"3->2", f32>, !ocannl_shape.tensor<"2->3", f32>) -> !ocannl_shape.tensor<"?", f32>
  return %c : !ocannl_shape.tensor<"?", f32>
}
