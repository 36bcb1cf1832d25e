// REQUIRES: ocannl-run
// batch_slice at a run-time index through upstream passes only: the same
// values as ocannl-run's JIT, and an index outside the axis stops the run
// at the cf.assert check with the message ocannl-run gives (printed
// unbuffered: the check aborts the process).
// RUN: ocannl-opt %s --ocannl-to-linalg | sed '/^}$/d' > %t.mlir
// RUN: sed 's/INDEX/2/g' %S/Inputs/print_slice.mlir > %t.main
// RUN: cat %t.mlir %t.main | mlir-opt --pass-pipeline="%linalg_llvm_pipeline" \
// RUN: | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_runner_utils,%mlir_c_runner_utils > %t.runner
// RUN: ocannl-run %s --entry f --arg range --arg 2 > %t.ocannl
// RUN: %python %S/Inputs/same_values.py %t.runner %t.ocannl | FileCheck %s
// RUN: sed 's/INDEX/3/g' %S/Inputs/print_slice.mlir > %t.bad
// RUN: cat %t.mlir %t.bad | mlir-opt --pass-pipeline="%linalg_llvm_pipeline" \
// RUN: | not --crash stdbuf -o0 mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_runner_utils,%mlir_c_runner_utils 2>&1 | FileCheck %s --check-prefix=BAD
// CHECK: 2 cells agree
// BAD: slice.mlir:[[@LINE+3]]:8: error: the slice index (argument #1 of @f) is outside the axis of 3 cell(s) (valid indices: 0 to 2)
func.func @f(%x: !ocannl_shape.tensor<"3|2", f32>, %i: index) -> !ocannl_shape.tensor<"?", f32> {
  %n = "ocannl_shape.pointwise_unary"(%x) {op = "neg"} : (!ocannl_shape.tensor<"3|2", f32>) -> !ocannl_shape.tensor<"?", f32>
  %s = "ocannl_shape.batch_slice"(%n, %i) : (!ocannl_shape.tensor<"?", f32>, index) -> !ocannl_shape.tensor<"?", f32>
  return %s : !ocannl_shape.tensor<"?", f32>
}
