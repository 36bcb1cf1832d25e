// End to end: a broadcasted add and relu, JIT-compiled by mlir-runner.
// RUN: ocannl-opt %s --ocannl-infer-shapes --ocannl-lower-to-assign --ocannl-lower-to-loops | sed '/^}$/d' > %t.mlir
// RUN: sed 's/RESULT_TYPE/2x3xf32/g' %S/Inputs/print_f.mlir > %t.main
// RUN: cat %t.mlir %t.main | mlir-opt --pass-pipeline="%llvm_pipeline" \
// RUN: | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_runner_utils,%mlir_c_runner_utils \
// RUN: | FileCheck %s

// relu([[1,-2,3],[-4,5,-6]] + [10,-10,0]) = [[11,0,3],[6,0,0]]
// CHECK: sizes = [2, 3]
// CHECK-NEXT: {{\[}}[11, 0, 3],
// CHECK-NEXT: [6, 0, 0]]
func.func @f() -> !ocannl_shape.tensor<"?", f32> {
  %a = "ocannl_shape.constant"() {value = dense<[[1.0, -2.0, 3.0], [-4.0, 5.0, -6.0]]> : tensor<2x3xf32>} : () -> !ocannl_shape.tensor<"2|3", f32>
  %b = "ocannl_shape.constant"() {value = dense<[10.0, -10.0, 0.0]> : tensor<3xf32>} : () -> !ocannl_shape.tensor<"3", f32>
  %s = "ocannl_shape.pointwise_binary"(%a, %b) {op = "add"} : (!ocannl_shape.tensor<"2|3", f32>, !ocannl_shape.tensor<"3", f32>) -> !ocannl_shape.tensor<"?", f32>
  %r = "ocannl_shape.pointwise_unary"(%s) {op = "relu"} : (!ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  return %r : !ocannl_shape.tensor<"?", f32>
}
