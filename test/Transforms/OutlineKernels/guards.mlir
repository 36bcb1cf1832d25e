// RUN: ocannl-opt %s --ocannl-outline-kernels | FileCheck %s

// An scf.if with no else and no results moves into the kernel with the
// nests it holds, whatever else it holds (here a packing buffer's
// allocation and free, and two nests): one kernel, its condition the first
// argument (an i8: LLVM's fast instruction selector takes no call with an
// i1), so the routine keeps no branch.
// CHECK-LABEL: func.func @packed(
// CHECK-SAME: %[[P:[^:]*]]: i1, %[[A:[^:]*]]: memref<8xf32>)
// CHECK-NEXT: %[[P8:.*]] = arith.extui %[[P]] : i1 to i8
// CHECK-NEXT: call @[[K:__ocannl_kernel_[0-9a-f]+]](%[[P8]], %[[A]]) : (i8, memref<8xf32>) -> ()
// CHECK-NEXT: return
func.func @packed(%p: i1, %a: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  scf.if %p {
    %buf = memref.alloc() {alignment = 64 : i64} : memref<8xf32>
    scf.for %i = %c0 to %c8 step %c1 {
      %x = memref.load %a[%i] : memref<8xf32>
      memref.store %x, %buf[%i] : memref<8xf32>
    }
    scf.for %i = %c0 to %c8 step %c1 {
      %x = memref.load %buf[%i] : memref<8xf32>
      %y = arith.addf %x, %x : f32
      memref.store %y, %a[%i] : memref<8xf32>
    }
    memref.dealloc %buf : memref<8xf32>
  }
  return
}

// An scf.if with an else stays in the routine, around the calls.
// CHECK-LABEL: func.func @branches(
// CHECK: scf.if %{{.*}} {
// CHECK-NEXT: func.call @[[THEN:__ocannl_kernel_[0-9a-f]+]](%{{.*}}) : (memref<8xf32>) -> ()
// CHECK-NEXT: } else {
// CHECK-NEXT: func.call @[[ELSE:__ocannl_kernel_[0-9a-f]+]](%{{.*}}) : (memref<8xf32>) -> ()
// CHECK-NEXT: }
func.func @branches(%p: i1, %a: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  scf.if %p {
    scf.for %i = %c0 to %c8 step %c1 {
      memref.store %zero, %a[%i] : memref<8xf32>
    }
  } else {
    scf.for %i = %c0 to %c8 step %c1 {
      memref.store %one, %a[%i] : memref<8xf32>
    }
  }
  return
}

// The kernel of @packed: the guard, the allocation, both nests, the free;
// its work is the sum of the nests' (8 + 8).
// CHECK: func.func private @[[K]](%arg0: i8, %arg1: memref<8xf32>)
// CHECK-SAME: ocannl.kernel_work = 16 : i64
// CHECK: %[[C:.*]] = arith.trunci %arg0 : i8 to i1
// CHECK: scf.if %[[C]] {
// CHECK-NEXT: %[[BUF:.*]] = memref.alloc() {alignment = 64 : i64} : memref<8xf32>
// CHECK-NEXT: scf.for
// CHECK: scf.for
// CHECK: memref.dealloc %[[BUF]]
// CHECK-NEXT: }
// CHECK-NEXT: return
