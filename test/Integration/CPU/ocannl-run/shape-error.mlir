// REQUIRES: ocannl-run
// A shape error stops the runner with a located diagnostic and exit code 1.
// RUN: not ocannl-run %s --entry f --arg range --arg range 2>&1 | FileCheck %s

// CHECK: shape-error.mlir:[[@LINE+3]]:8: error: shape mismatch in pointwise: dimension mismatch
// CHECK: ocannl-infer-shapes failed
func.func @f(%a: !ocannl_shape.tensor<"3", f32>, %b: !ocannl_shape.tensor<"4", f32>) -> !ocannl_shape.tensor<"?", f32> {
  %c = "ocannl_shape.pointwise_binary"(%a, %b) {op = "add"} : (!ocannl_shape.tensor<"3", f32>, !ocannl_shape.tensor<"4", f32>) -> !ocannl_shape.tensor<"?", f32>
  return %c : !ocannl_shape.tensor<"?", f32>
}
