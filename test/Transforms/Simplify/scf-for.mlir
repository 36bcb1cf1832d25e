// RUN: ocannl-opt %s --ocannl-simplify | FileCheck %s

// The body of an scf.for: values of the enclosing function (a constant of
// it included) are operands; the carried value and the load are leaves.
// The function's own block is simplified too.

// CHECK-LABEL: func.func @loop
// CHECK-SAME: (%[[M:.*]]: memref<16xf32>, %[[S:.*]]: f32)
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (f32)
// CHECK-NEXT: %[[V:.*]] = memref.load
// CHECK-NEXT: %[[E:.*]] = math.exp %[[S]] : f32
// CHECK-NEXT: %[[T:.*]] = arith.addf %[[V]], %[[E]] : f32
// CHECK-NEXT: %[[T2:.*]] = arith.addf %[[T]], %[[E]] : f32
// CHECK-NEXT: %[[N:.*]] = arith.addf %[[ACC]], %[[T2]] : f32
// CHECK-NEXT: scf.yield %[[N]] : f32
// CHECK: %[[R:.*]] = arith.negf
// CHECK-NOT: arith.negf
// CHECK: return %[[R]]
func.func @loop(%m: memref<16xf32>, %s: f32) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %one = arith.constant 1.0 : f32
  %init = arith.constant 0.0 : f32
  %r = scf.for %i = %c0 to %c16 step %c1 iter_args(%acc = %init) -> (f32) {
    %v = memref.load %m[%i] : memref<16xf32>
    %a = arith.mulf %v, %one : f32
    %b = arith.mulf %s, %one : f32
    %e1 = math.exp %b : f32
    %e2 = math.exp %s : f32
    %t = arith.addf %a, %e1 : f32
    %t2 = arith.addf %t, %e2 : f32
    %n = arith.addf %acc, %t2 : f32
    scf.yield %n : f32
  }
  %n1 = arith.negf %r : f32
  %n2 = arith.negf %n1 : f32
  %n3 = arith.negf %n2 : f32
  return %n3 : f32
}
