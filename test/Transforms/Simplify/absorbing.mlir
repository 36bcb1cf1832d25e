// RUN: ocannl-opt %s --ocannl-simplify | FileCheck %s
// RUN: ocannl-opt %s --ocannl-simplify=fast-math=true | FileCheck %s --check-prefix=FAST

// Absorbing elements and x + 0 change IEEE values (x * 0 is NaN for an
// infinite x, -0 + 0 is +0): kept without fast-math, rewritten with it.

// CHECK-LABEL: func.func @absorbing
// CHECK-SAME: (%[[X:.*]]: f32)
// CHECK: %[[Z:.*]] = arith.constant 0.0{{.*}} : f32
// CHECK: %[[M:.*]] = arith.mulf %[[X]], %[[Z]] : f32
// CHECK: %[[S:.*]] = arith.subf %[[X]], %[[X]] : f32
// CHECK: %[[A:.*]] = arith.addf %[[X]], %[[Z]] : f32
// CHECK: return %[[M]], %[[S]], %[[A]]

// FAST-LABEL: func.func @absorbing
// FAST-SAME: (%[[X:.*]]: f32)
// FAST: %[[Z:.*]] = arith.constant 0.0{{.*}} : f32
// FAST-NOT: arith.mulf
// FAST-NOT: arith.subf
// FAST-NOT: arith.addf
// FAST: return %[[Z]], %[[Z]], %[[X]]
func.func @absorbing(%x: f32) -> (f32, f32, f32) {
  %zero = arith.constant 0.0 : f32
  %m = arith.mulf %x, %zero : f32
  %s = arith.subf %x, %x : f32
  %a = arith.addf %x, %zero : f32
  return %m, %s, %a : f32, f32, f32
}
