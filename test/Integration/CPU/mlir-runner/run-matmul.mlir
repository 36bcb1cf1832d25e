// End to end: shape inference, assignments, loops, then upstream lowering to
// LLVM and mlir-runner's JIT. The printing `main` is appended to the lowered
// module (the only unindented closing brace of the output closes the module).
// RUN: ocannl-opt %s --ocannl-infer-shapes --ocannl-lower-to-assign --ocannl-lower-to-loops | sed '/^}$/d' > %t.mlir
// RUN: cat %t.mlir %S/Inputs/print_matmul.mlir | mlir-opt --pass-pipeline="%llvm_pipeline" \
// RUN: | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_runner_utils,%mlir_c_runner_utils \
// RUN: | FileCheck %s

// A 2x3 by 3x2 matrix product with compose: [[1,2,3],[4,5,6]] * [[1,2],[3,4],[5,6]].
// CHECK: sizes = [2, 2]
// CHECK-NEXT: {{\[}}[22, 28],
// CHECK-NEXT: [49, 64]]
func.func @matmul() -> !ocannl_shape.tensor<"?", f32> {
  %a = "ocannl_shape.constant"() {value = dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>} : () -> !ocannl_shape.tensor<"3->2", f32>
  %b = "ocannl_shape.constant"() {value = dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]> : tensor<3x2xf32>} : () -> !ocannl_shape.tensor<"2->3", f32>
  %c = "ocannl_shape.compose"(%a, %b) : (!ocannl_shape.tensor<"3->2", f32>, !ocannl_shape.tensor<"2->3", f32>) -> !ocannl_shape.tensor<"?", f32>
  return %c : !ocannl_shape.tensor<"?", f32>
}
