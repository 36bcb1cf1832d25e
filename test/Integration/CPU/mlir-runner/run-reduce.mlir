// End to end: reductions to a scalar with sum and with max.
// RUN: ocannl-opt %s --ocannl-infer-shapes --ocannl-lower-to-assign --ocannl-lower-to-loops | sed '/^}$/d' > %t.mlir
// RUN: sed 's/RESULT_TYPE/2xf32/g' %S/Inputs/print_f.mlir > %t.main
// RUN: cat %t.mlir %t.main | mlir-opt --pass-pipeline="%llvm_pipeline" \
// RUN: | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_runner_utils,%mlir_c_runner_utils \
// RUN: | FileCheck %s

// sum(0..5) = 15 written at slot 0 of a 2-slot result, max(0..5) = 5
// written at slot 1 of another; the other slots keep the neutral 0.
// CHECK: sizes = [2]
// CHECK-NEXT: [15, 5]
func.func @f() -> !ocannl_shape.tensor<"?", f32> {
  %x = "ocannl_shape.constant"() {value = dense<[0.0, 1.0, 2.0, 3.0, 4.0, 5.0]> : tensor<6xf32>} : () -> !ocannl_shape.tensor<"2|3", f32>
  %s = "ocannl_shape.einsum"(%x) {spec = "...|... => 0"} : (!ocannl_shape.tensor<"2|3", f32>) -> !ocannl_shape.tensor<"2", f32>
  %m = "ocannl_shape.einsum"(%x) {spec = "...|... => 1", accum = "max"} : (!ocannl_shape.tensor<"2|3", f32>) -> !ocannl_shape.tensor<"?", f32>
  %z = "ocannl_shape.constant"() {value = 0.0 : f32} : () -> !ocannl_shape.tensor<"1", f32>
  %m0 = "ocannl_shape.pointwise_binary"(%m, %z) {op = "max"} : (!ocannl_shape.tensor<"?", f32>, !ocannl_shape.tensor<"1", f32>) -> !ocannl_shape.tensor<"?", f32>
  %r = "ocannl_shape.pointwise_binary"(%s, %m0) {op = "add"} : (!ocannl_shape.tensor<"2", f32>, !ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  return %r : !ocannl_shape.tensor<"?", f32>
}
