// RUN: ocannl-opt %s --ocannl-simplify | FileCheck %s

// 1^x is 1 for every x, NaN included (IEEE pow), without fast-math: the
// ones of OCANNL's `ones_like` cost no `powf` call.
// CHECK-LABEL: func.func @one_base
// CHECK-NOT: math.powf
// CHECK: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK: return %[[ONE]]
func.func @one_base(%x: f32) -> f32 {
  %c1 = arith.constant 1.0 : f32
  %p = math.powf %c1, %x : f32
  return %p : f32
}
