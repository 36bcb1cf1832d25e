// RUN: ocannl-opt %s --ocannl-outline-kernels | FileCheck %s

// A nest whose loop carries values out (a reduction in registers) returns
// them from its kernel; the routine uses the call's results.

// CHECK-LABEL: func.func @sum(
// CHECK-SAME: %[[A:.*]]: memref<8xf32>) -> f32
// CHECK-NEXT: %[[S:.*]] = call @[[K:__ocannl_kernel_[0-9a-f]+]](%[[A]]) : (memref<8xf32>) -> f32
// CHECK-NEXT: %[[D:.*]] = arith.addf %[[S]], %[[S]] : f32
// CHECK-NEXT: return %[[D]] : f32
// CHECK: func.func private @[[K]](%arg0: memref<8xf32>) -> f32
// CHECK-SAME: ocannl.kernel_kind = "contraction"
// CHECK-SAME: ocannl.kernel_work = 8 : i64
// CHECK: %[[R:.*]] = scf.for
// CHECK: scf.yield
// CHECK: return %[[R]] : f32
func.func @sum(%a: memref<8xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %s = scf.for %i = %c0 to %c8 step %c1 iter_args(%acc = %zero) -> (f32) {
    %x = memref.load %a[%i] : memref<8xf32>
    %n = arith.addf %acc, %x : f32
    scf.yield %n : f32
  }
  %d = arith.addf %s, %s : f32
  return %d : f32
}
