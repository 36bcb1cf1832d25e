// End to end with parallel loops: a contraction large enough for the
// kernel's tile loop to run in parallel, lowered through OpenMP by the stock
// pipeline and run by mlir-runner with LLVM's OpenMP runtime.
// RUN: ocannl-opt %s --ocannl-infer-shapes --ocannl-lower-to-assign --ocannl-lower-to-loops > %t.loops
// RUN: FileCheck %s --check-prefix=LOOPS < %t.loops
// RUN: sed '/^}$/d' %t.loops > %t.mlir
// RUN: sed 's/RESULT_TYPE/1xf32/g' %S/Inputs/print_f.mlir > %t.main
// RUN: cat %t.mlir %t.main | mlir-opt --pass-pipeline="%llvm_pipeline" \
// RUN: | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_runner_utils,%mlir_c_runner_utils,%libomp \
// RUN: | FileCheck %s

// LOOPS: scf.parallel
// LOOPS: vector.fma

// Every cell of the 512x64 product of ones is 256; their sum is 2^23.
// CHECK: sizes = [1]
// CHECK-NEXT: [8.38861e+06]
func.func @f() -> !ocannl_shape.tensor<"?", f32> {
  %a = "ocannl_shape.constant"() {value = 1.0 : f32} : () -> !ocannl_shape.tensor<"256->512", f32>
  %b = "ocannl_shape.constant"() {value = 1.0 : f32} : () -> !ocannl_shape.tensor<"64->256", f32>
  %c = "ocannl_shape.compose"(%a, %b) : (!ocannl_shape.tensor<"256->512", f32>, !ocannl_shape.tensor<"64->256", f32>) -> !ocannl_shape.tensor<"?", f32>
  %s = "ocannl_shape.einsum"(%c) {spec = "...->... => 0"} : (!ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  return %s : !ocannl_shape.tensor<"?", f32>
}
