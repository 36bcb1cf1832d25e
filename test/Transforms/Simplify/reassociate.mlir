// RUN: ocannl-opt %s --ocannl-simplify | FileCheck %s
// RUN: ocannl-opt %s --ocannl-simplify=fast-math=true | FileCheck %s --check-prefix=FAST

// Reassociation brings constants together under fast-math only (it changes
// rounding). OCANNL's c1 - (c2 + x) is (c1 - c2) - x, and (a / b) / c is
// a / (b * c).

// Without fast-math the sums stay as written; x + 2 and 2 + x are one
// value (commutativity is exact).
// CHECK-LABEL: func.func @reassociate
// CHECK-SAME: (%[[X:.*]]: f32)
// CHECK: %[[A0:.*]] = arith.addf %[[X]], %{{.*}} : f32
// CHECK: %[[A:.*]] = arith.addf %[[A0]], %{{.*}} : f32
// CHECK: %[[B0:.*]] = arith.addf %{{.*}}, %[[X]] : f32
// CHECK: %[[B:.*]] = arith.addf %{{.*}}, %[[B0]] : f32
// CHECK: %[[S:.*]] = arith.subf %{{.*}}, %[[B0]] : f32
// CHECK: %[[D0:.*]] = arith.divf %[[X]], %{{.*}} : f32
// CHECK: %[[D:.*]] = arith.divf %[[D0]], %{{.*}} : f32
// CHECK: return %[[A]], %[[B]], %[[S]], %[[D]]
// FAST-LABEL: func.func @reassociate
// FAST-SAME: (%[[X:.*]]: f32)
// FAST-DAG: %[[C3:.*]] = arith.constant 3.000000e+00 : f32
// FAST-DAG: %[[C8:.*]] = arith.constant 8.000000e+00 : f32
// FAST-DAG: %[[A:.*]] = arith.addf %[[X]], %[[C3]] : f32
// FAST-DAG: %[[S:.*]] = arith.subf %[[C3]], %[[X]] : f32
// FAST-DAG: %[[D:.*]] = arith.divf %[[X]], %[[C8]] : f32
// FAST: return %[[A]], %[[A]], %[[S]], %[[D]]
func.func @reassociate(%x: f32) -> (f32, f32, f32, f32) {
  %c1 = arith.constant 1.0 : f32
  %c2 = arith.constant 2.0 : f32
  %c4 = arith.constant 4.0 : f32
  %c5 = arith.constant 5.0 : f32
  // (x + 1) + 2
  %a0 = arith.addf %x, %c1 : f32
  %a = arith.addf %a0, %c2 : f32
  // 1 + (x + 2)
  %b0 = arith.addf %x, %c2 : f32
  %b = arith.addf %c1, %b0 : f32
  // 5 - (2 + x)
  %s0 = arith.addf %c2, %x : f32
  %s = arith.subf %c5, %s0 : f32
  // (x / 2) / 4
  %d0 = arith.divf %x, %c2 : f32
  %d = arith.divf %d0, %c4 : f32
  return %a, %b, %s, %d : f32, f32, f32, f32
}
