// REQUIRES: ocannl-run
// A small MLP on constants (a matmul, a bias, relu, a sum) lowered to
// linalg, bufferized and lowered to LLVM by upstream passes only
// (ocannl-linalg-to-llvm), run by mlir-runner: the same values as
// ocannl-run's JIT.
// RUN: ocannl-opt %s --ocannl-to-linalg | sed '/^}$/d' > %t.mlir
// RUN: sed 's/RESULT_TYPE/3x1xf32/g' %S/Inputs/print_f.mlir > %t.main
// RUN: cat %t.mlir %t.main | mlir-opt --pass-pipeline="%linalg_llvm_pipeline" \
// RUN: | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_runner_utils,%mlir_c_runner_utils > %t.runner
// RUN: ocannl-run %s --entry f > %t.ocannl
// RUN: %python %S/Inputs/same_values.py %t.runner %t.ocannl | FileCheck %s
// CHECK: 3 cells agree
func.func @f() -> !ocannl_shape.tensor<"?", f32> {
  %x = "ocannl_shape.constant"() {value = dense<[[1.0, -2.0], [0.5, 3.0], [-1.5, 0.25]]> : tensor<3x2xf32>} : () -> !ocannl_shape.tensor<"3|2", f32>
  %w = "ocannl_shape.constant"() {value = dense<[[0.5, -1.0], [2.0, 0.25], [-0.75, 1.5], [1.0, 1.0]]> : tensor<4x2xf32>} : () -> !ocannl_shape.tensor<"2->4", f32>
  %b = "ocannl_shape.constant"() {value = dense<[0.1, -0.2, 0.3, -0.4]> : tensor<4xf32>} : () -> !ocannl_shape.tensor<"4", f32>
  %h = "ocannl_shape.compose"(%w, %x) : (!ocannl_shape.tensor<"2->4", f32>, !ocannl_shape.tensor<"3|2", f32>) -> !ocannl_shape.tensor<"?", f32>
  %z = "ocannl_shape.pointwise_binary"(%h, %b) {op = "add"} : (!ocannl_shape.tensor<"?", f32>, !ocannl_shape.tensor<"4", f32>) -> !ocannl_shape.tensor<"?", f32>
  %r = "ocannl_shape.pointwise_unary"(%z) {op = "relu"} : (!ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  %s = "ocannl_shape.einsum"(%r) {spec = "...|...->... => ...|0"} : (!ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  return %s : !ocannl_shape.tensor<"?", f32>
}
