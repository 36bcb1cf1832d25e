// REQUIRES: ocannl-run
// Results written as .npy are read back as arguments; a wrong shape is a
// clear error.
// RUN: rm -rf %t && mkdir -p %t
// RUN: ocannl-run %s --entry mm --arg range --arg range --out-dir %t --quiet
// RUN: ocannl-run %S/Inputs/square.mlir --entry sq --arg %t/result0.npy | FileCheck %s
// RUN: not ocannl-run %s --entry mm --arg %t/result0.npy --arg range 2>&1 | FileCheck %s --check-prefix=SHAPE
// RUN: not ocannl-run %s --entry mm --arg range 2>&1 | FileCheck %s --check-prefix=COUNT
// RUN: not ocannl-run %s --entry nope --arg range --arg range 2>&1 | FileCheck %s --check-prefix=ENTRY

// [[10, 13], [28, 40]] squared.
// CHECK: {{\[}}[464, 650],
// CHECK-NEXT: [1400, 1964]]
// SHAPE: argument #0: {{.*}}result0.npy has shape [2, 2] but the argument's tensor needs [2, 3] (batch, output, input)
// COUNT: @mm takes 2 argument(s) but 1 --arg were given
// ENTRY: no function @nope in the module
func.func @mm(%a: !ocannl_shape.tensor<"3->2", f32>, %b: !ocannl_shape.tensor<"2->3", f32>) -> !ocannl_shape.tensor<"?", f32> {
  %c = "ocannl_shape.compose"(%a, %b) : (!ocannl_shape.tensor<"3->2", f32>, !ocannl_shape.tensor<"2->3", f32>) -> !ocannl_shape.tensor<"?", f32>
  return %c : !ocannl_shape.tensor<"?", f32>
}
