// REQUIRES: ocannl-run
// RUN: ocannl-run %s --entry f | FileCheck %s
// RUN: ocannl-run %s --entry f --interpret | FileCheck %s
// RUN: ocannl-opt %s --ocannl-infer-shapes --ocannl-lower-to-assign | FileCheck %s --check-prefix=ASSIGN

// A param initialized to a given value (OCANNL's params of a given value):
// every cell 0.25, a fill at the assignment level.
// ASSIGN: "ocannl_assign.fill"(%{{.*}}) {value = 2.500000e-01 : f32}
// CHECK: result0: shape [3] dtype f32
// CHECK-NEXT: [0.250000, 0.250000, 0.250000]
func.func @f() -> !ocannl_shape.tensor<"3", f32> {
  %b = "ocannl_shape.param"() {name = "b", init = "constant", value = 2.500000e-01 : f64} : () -> !ocannl_shape.tensor<"3", f32>
  return %b : !ocannl_shape.tensor<"3", f32>
}
