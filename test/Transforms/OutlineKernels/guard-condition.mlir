// RUN: ocannl-opt %s --ocannl-outline-kernels | FileCheck %s

// A guard's condition read from a global (the status of the run-time
// checks) is recomputed in the kernel when only arith ops, global reads and
// loads lie between the load and the nest: the kernel reads what the
// routine would have. A call between them may write the global, so the
// condition read before it crosses the call as an argument.

memref.global @status : memref<4xi64> = dense<0>
func.func private @record()

// CHECK-LABEL: func.func @adjacent(
// CHECK-SAME: %[[A:[^:]*]]: memref<8xf32>)
// CHECK-NEXT: call @[[K1:__ocannl_kernel_[0-9a-f]+]](%[[A]]) : (memref<8xf32>) -> ()
// CHECK-NEXT: return
func.func @adjacent(%a: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0 : i64
  %g = memref.get_global @status : memref<4xi64>
  %code = memref.load %g[%c0] : memref<4xi64>
  %ok = arith.cmpi eq, %code, %zero : i64
  scf.if %ok {
    scf.for %i = %c0 to %c8 step %c1 {
      %x = memref.load %a[%i] : memref<8xf32>
      %y = arith.negf %x : f32
      memref.store %y, %a[%i] : memref<8xf32>
    }
  }
  return
}

// CHECK-LABEL: func.func @across_a_call(
// CHECK-SAME: %[[B:[^:]*]]: memref<8xf32>)
// CHECK: %[[CODE:.*]] = memref.load
// CHECK-NEXT: %[[OK:.*]] = arith.cmpi eq, %[[CODE]]
// CHECK-NEXT: call @record() : () -> ()
// CHECK-NEXT: %[[OK8:.*]] = arith.extui %[[OK]] : i1 to i8
// CHECK-NEXT: call @[[K2:__ocannl_kernel_[0-9a-f]+]](%[[OK8]], %[[B]]) : (i8, memref<8xf32>) -> ()
func.func @across_a_call(%b: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0 : i64
  %g = memref.get_global @status : memref<4xi64>
  %code = memref.load %g[%c0] : memref<4xi64>
  %ok = arith.cmpi eq, %code, %zero : i64
  call @record() : () -> ()
  scf.if %ok {
    scf.for %i = %c0 to %c8 step %c1 {
      %x = memref.load %b[%i] : memref<8xf32>
      %y = arith.negf %x : f32
      memref.store %y, %b[%i] : memref<8xf32>
    }
  }
  return
}

// CHECK: func.func private @[[K1]](%arg0: memref<8xf32>)
// CHECK-NEXT: %[[G:.*]] = memref.get_global @status
// CHECK-NEXT: %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[L:.*]] = memref.load %[[G]][%[[C0]]]
// CHECK-NEXT: %[[Z:.*]] = arith.constant 0 : i64
// CHECK-NEXT: %[[C:.*]] = arith.cmpi eq, %[[L]], %[[Z]] : i64
// CHECK: scf.if %[[C]] {
// CHECK: func.func private @[[K2]](%arg0: i8, %arg1: memref<8xf32>)
// CHECK-NOT: memref.get_global
// CHECK: %[[T:.*]] = arith.trunci %arg0 : i8 to i1
// CHECK: scf.if %[[T]] {
