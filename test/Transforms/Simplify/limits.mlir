// RUN: ocannl-opt %s --ocannl-simplify="iter-limit=1 remarks=true" --verify-diagnostics | FileCheck %s

// Every run has node, iteration and time limits; the remark says which one
// stopped it. One iteration already removes the neutral elements here
// (node-limit.mlir: the node limit).

// CHECK-LABEL: func.func @limited
// CHECK-SAME: (%[[X:.*]]: f32, %[[Y:.*]]: f32)
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[X]], %[[Y]] : f32
// CHECK-NEXT: return %[[S]]
// expected-remark @below {{iterations, stopped: IterationLimit}}
func.func @limited(%x: f32, %y: f32) -> f32 {
  %one = arith.constant 1.0 : f32
  %a = arith.mulf %x, %one : f32
  %b = arith.divf %y, %one : f32
  %c = arith.addf %a, %b : f32
  %d = arith.mulf %c, %one : f32
  return %d : f32
}
