// REQUIRES: ocannl-run
// A shape error stops the runner with a located diagnostic (the source line
// and a caret under the column, as ocannl-opt prints them) and exit code 1.
// RUN: not ocannl-run %s --entry f --arg range --arg range 2>&1 | FileCheck %s
// RUN: not ocannl-run - --entry f --arg range --arg range < %s 2>&1 | FileCheck %s --check-prefix=STDIN

// CHECK: shape-error.mlir:[[@LINE+9]]:8: error: shape mismatch in pointwise: dimension mismatch
// CHECK-NEXT: {{^}}  %c = "ocannl_shape.pointwise_binary"(%a, %b)
// CHECK-NEXT: {{^}}       ^{{$}}
// CHECK: ocannl-infer-shapes failed
// STDIN: <stdin>:[[@LINE+5]]:8: error: shape mismatch in pointwise
// STDIN-NEXT: {{^}}  %c = "ocannl_shape.pointwise_binary"
// STDIN-NEXT: {{^}}       ^{{$}}
// STDIN: <stdin>: ocannl-infer-shapes failed
func.func @f(%a: !ocannl_shape.tensor<"3", f32>, %b: !ocannl_shape.tensor<"4", f32>) -> !ocannl_shape.tensor<"?", f32> {
  %c = "ocannl_shape.pointwise_binary"(%a, %b) {op = "add"} : (!ocannl_shape.tensor<"3", f32>, !ocannl_shape.tensor<"4", f32>) -> !ocannl_shape.tensor<"?", f32>
  return %c : !ocannl_shape.tensor<"?", f32>
}
