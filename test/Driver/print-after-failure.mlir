// A failing pass prints its diagnostic and, on request, the IR it failed on.
// RUN: not ocannl-opt %s --ocannl-infer-shapes --mlir-print-ir-after-failure 2>&1 | FileCheck %s

// CHECK: print-after-failure.mlir:[[@LINE+4]]:8: error: shape mismatch in pointwise
// CHECK: IR Dump After OcannlInferShapes Failed (ocannl-infer-shapes)
// CHECK: "ocannl_shape.pointwise_binary"
func.func @f(%a: !ocannl_shape.tensor<"3", f32>, %b: !ocannl_shape.tensor<"4", f32>) {
  %c = "ocannl_shape.pointwise_binary"(%a, %b) {op = "add"} : (!ocannl_shape.tensor<"3", f32>, !ocannl_shape.tensor<"4", f32>) -> !ocannl_shape.tensor<"?", f32>
  return
}
