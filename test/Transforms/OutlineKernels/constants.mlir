// RUN: ocannl-opt %s --ocannl-outline-kernels | FileCheck %s

// What a nest uses from outside: constants (arith.constant, and
// memref.get_global of the module's globals) are cloned into the kernel, so
// that it does not depend on where they were materialized; every other value
// (buffers, a value computed in the routine, a scalar argument) is an
// argument, in order of first use in the nest. A value used twice is one
// argument.

memref.global "private" constant @table : memref<4xf32> = dense<[1.0, 2.0, 3.0, 4.0]>

// CHECK-LABEL: func.func @f(
// CHECK-SAME: %[[A:.*]]: memref<4xf32>, %[[S:.*]]: f32, %[[N:.*]]: index)
// CHECK: %[[OFF:.*]] = arith.addi %[[N]], %[[N]] : index
// CHECK-NEXT: call @[[K:__ocannl_kernel_[0-9a-f]+]](%[[OFF]], %[[A]], %[[S]]) : (index, memref<4xf32>, f32) -> ()
// CHECK-NEXT: return
// CHECK-NEXT: }
// CHECK: func.func private @[[K]](%arg0: index, %arg1: memref<4xf32>, %arg2: f32)
// CHECK-NEXT: %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[C4:.*]] = arith.constant 4 : index
// CHECK-NEXT: %[[C1:.*]] = arith.constant 1 : index
// CHECK-NEXT: %[[T:.*]] = memref.get_global @table : memref<4xf32>
// CHECK-NEXT: scf.for %[[I:.*]] = %[[C0]] to %[[C4]] step %[[C1]] {
// CHECK-NEXT: %[[J:.*]] = arith.addi %[[I]], %arg0 : index
// CHECK-NEXT: memref.load %[[T]][%[[I]]]
// CHECK-NEXT: memref.load %arg1[%[[J]]]
// CHECK-NEXT: arith.mulf
// CHECK-NEXT: arith.mulf {{.*}}, %arg2
// CHECK-NEXT: memref.store {{.*}}, %arg1[%[[I]]]
// CHECK-NEXT: }
// CHECK-NEXT: return
func.func @f(%a: memref<4xf32>, %s: f32, %n: index) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c1 = arith.constant 1 : index
  %t = memref.get_global @table : memref<4xf32>
  %off = arith.addi %n, %n : index
  scf.for %i = %c0 to %c4 step %c1 {
    %j = arith.addi %i, %off : index
    %x = memref.load %t[%i] : memref<4xf32>
    %y = memref.load %a[%j] : memref<4xf32>
    %p = arith.mulf %x, %y : f32
    %q = arith.mulf %p, %s : f32
    memref.store %q, %a[%i] : memref<4xf32>
  }
  return
}
