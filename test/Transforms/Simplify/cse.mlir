// RUN: ocannl-opt %s --allow-unregistered-dialect --ocannl-simplify | FileCheck %s

// All roots of a block share one e-graph: a value computed twice, in one
// root or across roots (commuted operands included), is computed once, at
// its first place.

// CHECK-LABEL: func.func @across_roots
// CHECK-SAME: (%[[X:.*]]: f32, %[[Y:.*]]: f32)
// CHECK: %[[E:.*]] = math.exp %[[X]] : f32
// CHECK: %[[S:.*]] = arith.addf %[[E]], %[[Y]] : f32
// CHECK: "test.use"(%[[S]])
// CHECK-NOT: math.exp
// CHECK: %[[M:.*]] = arith.mulf %[[E]], %[[S]] : f32
// CHECK-NOT: arith.addf
// CHECK: return %[[M]], %[[S]]
func.func @across_roots(%x: f32, %y: f32) -> (f32, f32) {
  %e1 = math.exp %x : f32
  %s1 = arith.addf %e1, %y : f32
  "test.use"(%s1) : (f32) -> ()
  %e2 = math.exp %x : f32
  %s2 = arith.addf %y, %e2 : f32
  %m = arith.mulf %e2, %s2 : f32
  return %m, %s2 : f32, f32
}

// Dominance: the value the later root shares is defined before it; the
// earlier root cannot use what is defined after it.
// CHECK-LABEL: func.func @dominance
// CHECK-SAME: (%[[X:.*]]: f32)
// CHECK: %[[T:.*]] = math.tanh %[[X]] : f32
// CHECK: "test.use"(%[[T]])
// CHECK: %[[L:.*]] = "test.def"()
// CHECK: %[[A:.*]] = arith.addf %[[T]], %[[L]] : f32
// CHECK: return %[[A]]
func.func @dominance(%x: f32) -> f32 {
  %t1 = math.tanh %x : f32
  "test.use"(%t1) : (f32) -> ()
  %l = "test.def"() : () -> f32
  %t2 = math.tanh %x : f32
  %a = arith.addf %t2, %l : f32
  return %a : f32
}
