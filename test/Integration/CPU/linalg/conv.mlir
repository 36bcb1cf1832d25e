// REQUIRES: ocannl-run
// A padded convolution (tensor.pad with 0) followed by a strided max-pool
// that pads with -inf, through upstream passes only, run by mlir-runner:
// the same values as ocannl-run's JIT.
// RUN: ocannl-opt %s --ocannl-to-linalg > %t.linalg
// RUN: FileCheck %s --check-prefix=LINALG < %t.linalg
// RUN: sed '/^}$/d' %t.linalg > %t.mlir
// RUN: sed 's/RESULT_TYPE/3xf32/g' %S/Inputs/print_f.mlir > %t.main
// RUN: cat %t.mlir %t.main | mlir-opt --pass-pipeline="%linalg_llvm_pipeline" \
// RUN: | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_runner_utils,%mlir_c_runner_utils > %t.runner
// RUN: ocannl-run %s --entry f > %t.ocannl
// RUN: %python %S/Inputs/same_values.py %t.runner %t.ocannl | FileCheck %s
// LINALG: %[[NINF:.*]] = arith.constant 0xFF800000 : f32
// LINALG: tensor.pad %{{.*}} low[1] high[1]
// LINALG: tensor.pad %{{.*}} low[1] high[0]
// LINALG-NEXT: ^bb0
// LINALG-NEXT: tensor.yield %[[NINF]] : f32
// CHECK: 3 cells agree
func.func @f() -> !ocannl_shape.tensor<"?", f32> {
  %x = "ocannl_shape.constant"() {value = dense<[1.0, -2.0, 3.0, 0.5, -1.0, 2.5]> : tensor<6xf32>} : () -> !ocannl_shape.tensor<"6", f32>
  %w = "ocannl_shape.constant"() {value = dense<[0.5, -1.0, 2.0]> : tensor<3xf32>} : () -> !ocannl_shape.tensor<"3", f32>
  %y = "ocannl_shape.einsum"(%x, %w) {spec = "o=+k; k => o"} : (!ocannl_shape.tensor<"6", f32>, !ocannl_shape.tensor<"3", f32>) -> !ocannl_shape.tensor<"?", f32>
  %z = "ocannl_shape.constant"() {value = 0.0 : f32} : () -> !ocannl_shape.tensor<"3", f32>
  %p = "ocannl_shape.einsum"(%y, %z) {spec = "2*o=+k; k => o", accum = "max", op = "add"} : (!ocannl_shape.tensor<"?", f32>, !ocannl_shape.tensor<"3", f32>) -> !ocannl_shape.tensor<"?", f32>
  return %p : !ocannl_shape.tensor<"?", f32>
}
