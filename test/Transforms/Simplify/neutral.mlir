// RUN: ocannl-opt %s --ocannl-simplify | FileCheck %s

// Neutral elements go without fast-math: each of these rewrites gives the
// same IEEE value for every input.

// CHECK-LABEL: func.func @neutral
// CHECK-SAME: (%[[X:.*]]: f32)
// CHECK-NOT: arith.
// CHECK: return %[[X]], %[[X]], %[[X]], %[[X]], %[[X]]
func.func @neutral(%x: f32) -> (f32, f32, f32, f32, f32) {
  %one = arith.constant 1.0 : f32
  %zero = arith.constant 0.0 : f32
  %mzero = arith.constant -0.0 : f32
  %a = arith.mulf %x, %one : f32
  %b = arith.divf %x, %one : f32
  %c = arith.addf %x, %mzero : f32
  %d = arith.subf %x, %zero : f32
  %n = arith.negf %x : f32
  %e = arith.negf %n : f32
  return %a, %b, %c, %d, %e : f32, f32, f32, f32, f32
}

// Signs: x * -1 and x / -1 are -x, a + (-b) is a - b, a - (-b) is a + b.
// CHECK-LABEL: func.func @signs
// CHECK-SAME: (%[[A:.*]]: f64, %[[B:.*]]: f64)
// CHECK-DAG: %[[N:.*]] = arith.negf %[[A]] : f64
// CHECK-DAG: %[[S:.*]] = arith.subf %[[A]], %[[B]] : f64
// CHECK-DAG: %[[P:.*]] = arith.addf %[[A]], %[[B]] : f64
// CHECK-NOT: arith.mulf
// CHECK-NOT: arith.divf
// CHECK: return %[[N]], %[[N]], %[[S]], %[[P]]
func.func @signs(%a: f64, %b: f64) -> (f64, f64, f64, f64) {
  %m1 = arith.constant -1.0 : f64
  %x = arith.mulf %a, %m1 : f64
  %y = arith.divf %a, %m1 : f64
  %nb = arith.negf %b : f64
  %s = arith.addf %a, %nb : f64
  %p = arith.subf %a, %nb : f64
  return %x, %y, %s, %p : f64, f64, f64, f64
}
