// RUN: ocannl-opt %s --ocannl-simplify | FileCheck %s
// RUN: ocannl-opt %s --ocannl-simplify=fast-math=true | FileCheck %s --check-prefix=FAST

// x^1 is x and x^0 is 1 exactly (IEEE pow); small integer powers become
// products, and x^-1 a division, under fast-math only.

// CHECK-LABEL: func.func @powers
// CHECK-SAME: (%[[X:.*]]: f32)
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-DAG: %[[P2:.*]] = math.powf %[[X]], %{{.*}} : f32
// CHECK-DAG: %[[P3:.*]] = math.powf %[[X]], %{{.*}} : f32
// CHECK-DAG: %[[PM:.*]] = math.powf %[[X]], %{{.*}} : f32
// CHECK: return %[[X]], %[[ONE]], %[[P2]], %[[P3]], %[[PM]]

// FAST-LABEL: func.func @powers
// FAST-SAME: (%[[X:.*]]: f32)
// FAST-NOT: math.powf
// FAST-DAG: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// FAST-DAG: %[[SQ:.*]] = arith.mulf %[[X]], %[[X]] : f32
// FAST-DAG: %[[CUBE:.*]] = arith.mulf %[[X]], %[[SQ]] : f32
// FAST-DAG: %[[INV:.*]] = arith.divf %[[ONE]], %[[X]] : f32
// FAST-NOT: math.powf
// FAST: return %[[X]], %[[ONE]], %[[SQ]], %[[CUBE]], %[[INV]]
func.func @powers(%x: f32) -> (f32, f32, f32, f32, f32) {
  %c0 = arith.constant 0.0 : f32
  %c1 = arith.constant 1.0 : f32
  %c2 = arith.constant 2.0 : f32
  %c3 = arith.constant 3.0 : f32
  %cm1 = arith.constant -1.0 : f32
  %p1 = math.powf %x, %c1 : f32
  %p0 = math.powf %x, %c0 : f32
  %p2 = math.powf %x, %c2 : f32
  %p3 = math.powf %x, %c3 : f32
  %pm = math.powf %x, %cm1 : f32
  return %p1, %p0, %p2, %p3, %pm : f32, f32, f32, f32, f32
}
