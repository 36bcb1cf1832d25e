// REQUIRES: ocannl-run
// Only the entry (and what it calls) is compiled: @large's parallel loops
// would need the OpenMP runtime, which --entry small never loads, so a
// missing one does not matter to it.
// RUN: ocannl-run %s --entry small --arg range --backend-option openmp=%t.missing.so | FileCheck %s
// RUN: not ocannl-run %s --entry large --arg range --backend-option openmp=%t.missing.so 2>&1 | FileCheck %s --check-prefix=LARGE
// RUN: ocannl-run %s --entry large --arg range --quiet

// CHECK: result0: shape [4] dtype f32
// CHECK-NEXT: [0, -1, -2, -3]
// LARGE: the program has parallel loops, but the OpenMP runtime {{.*}}.missing.so is missing
func.func @small(%x: !ocannl_shape.tensor<"4", f32>) -> !ocannl_shape.tensor<"?", f32> {
  %n = "ocannl_shape.pointwise_unary"(%x) {op = "neg"} : (!ocannl_shape.tensor<"4", f32>) -> !ocannl_shape.tensor<"?", f32>
  return %n : !ocannl_shape.tensor<"?", f32>
}

func.func @large(%x: !ocannl_shape.tensor<"512->128", f32>) -> !ocannl_shape.tensor<"?", f32> {
  %r = "ocannl_shape.pointwise_unary"(%x) {op = "relu"} : (!ocannl_shape.tensor<"512->128", f32>) -> !ocannl_shape.tensor<"?", f32>
  return %r : !ocannl_shape.tensor<"?", f32>
}
