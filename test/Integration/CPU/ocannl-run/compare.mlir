// REQUIRES: ocannl-run
// RUN: ocannl-run %s --entry lt --arg range --arg %S/Inputs/ones4.npy | FileCheck %s
// RUN: ocannl-run %s --entry lt --arg range --arg %S/Inputs/ones4.npy --interpret | FileCheck %s

// Comparisons compile (the predicate attribute is #arith<cmpfpredicate ...>)
// and compute 1 for true, 0 for false: range(4) < 1 is [1, 0, 0, 0].
// CHECK: result0: shape [4] dtype f32
// CHECK-NEXT: [1, 0, 0, 0]
func.func @lt(%a: !ocannl_shape.tensor<"4", f32>, %b: !ocannl_shape.tensor<"4", f32>) -> !ocannl_shape.tensor<"4", f32> {
  %c = "ocannl_shape.pointwise_binary"(%a, %b) {op = "lt"} : (!ocannl_shape.tensor<"4", f32>, !ocannl_shape.tensor<"4", f32>) -> !ocannl_shape.tensor<"4", f32>
  return %c : !ocannl_shape.tensor<"4", f32>
}
