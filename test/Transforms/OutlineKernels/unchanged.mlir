// RUN: ocannl-opt %s --ocannl-outline-kernels | FileCheck %s

// What is not a loop nest of the routine stays: a gpu.launch (the GPU's
// kernels, outlined by upstream gpu-kernel-outlining) with the loops in its
// body, loops under any op other than an if, and routines without loops.

// CHECK-LABEL: func.func @launch(
// CHECK-NEXT: arith.constant
// CHECK-NEXT: arith.constant
// CHECK-NEXT: gpu.launch
// CHECK: scf.for
// CHECK: gpu.terminator
// CHECK-NOT: call
// CHECK: return
func.func @launch(%a: memref<8xf32>) {
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0.0 : f32
    scf.for %i = %c0 to %c8 step %c1 {
      memref.store %zero, %a[%i] : memref<8xf32>
    }
    gpu.terminator
  }
  return
}

// CHECK-LABEL: func.func @region(
// CHECK: scf.execute_region
// CHECK-NEXT: arith.constant
// CHECK-NEXT: scf.for
// CHECK-NOT: call
// CHECK: return
func.func @region(%a: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  scf.execute_region {
    %zero = arith.constant 0.0 : f32
    scf.for %i = %c0 to %c8 step %c1 {
      memref.store %zero, %a[%i] : memref<8xf32>
    }
    scf.yield
  }
  return
}

// CHECK-LABEL: func.func @straight(
// CHECK-NEXT: memref.load
// CHECK-NEXT: memref.store
// CHECK-NEXT: return
func.func @straight(%a: memref<8xf32>, %i: index) {
  %x = memref.load %a[%i] : memref<8xf32>
  memref.store %x, %a[%i] : memref<8xf32>
  return
}

// CHECK-NOT: __ocannl_kernel_
