// RUN: ocannl-opt %s --ocannl-outline-kernels | FileCheck %s

// What the backend reads of each kernel: its iterations from static trip
// counts (ocannl.kernel_work: a loop's trips times what it holds, siblings
// and both branches of an if summed; absent when a bound is not a constant),
// and its kind (ocannl.kernel_kind: "contraction" with vector.fma or
// vector.contract, or a loop carrying values; else "elementwise"), and its
// multiply-adds (ocannl.kernel_madds: each fma or mulf times its lanes and
// the trips around it; absent without any).

// scf.parallel: the product of its dims' trips (2 x 3, steps of 2 and 1
// over [0, 4) and [1, 4)), times the 5 + 7 iterations of the two loops in it.
// CHECK-LABEL: func.func @parallel(
// CHECK: call @[[PAR:__ocannl_kernel_[0-9a-f]+]](
func.func @parallel(%a: memref<8x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c5 = arith.constant 5 : index
  %c7 = arith.constant 7 : index
  %zero = arith.constant 0.0 : f32
  scf.parallel (%i, %j) = (%c0, %c1) to (%c4, %c4) step (%c2, %c1) {
    scf.for %k = %c0 to %c5 step %c1 {
      memref.store %zero, %a[%i, %k] : memref<8x8xf32>
    }
    scf.for %k = %c0 to %c7 step %c1 {
      memref.store %zero, %a[%j, %k] : memref<8x8xf32>
    }
    scf.reduce
  }
  return
}

// A bound from an argument: no work.
// CHECK-LABEL: func.func @unknown(
// CHECK: call @[[UNK:__ocannl_kernel_[0-9a-f]+]](%{{.*}}, %{{.*}}) : (index, memref<8xf32>) -> ()
func.func @unknown(%n: index, %a: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  scf.for %i = %c0 to %n step %c1 {
    memref.store %zero, %a[%i] : memref<8xf32>
  }
  return
}

// An if inside the nest: both branches count (3 x (2 + 4)); an empty loop
// has no trips; affine.for with constant bounds counts too (8 / 2).
// CHECK-LABEL: func.func @branches(
// CHECK: call @[[IF:__ocannl_kernel_[0-9a-f]+]](
// CHECK: call @[[EMPTY:__ocannl_kernel_[0-9a-f]+]](
// CHECK: call @[[AFF:__ocannl_kernel_[0-9a-f]+]](
func.func @branches(%a: memref<8xf32>, %p: i1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f32
  scf.for %i = %c0 to %c3 step %c1 {
    scf.if %p {
      scf.for %k = %c0 to %c2 step %c1 {
        memref.store %zero, %a[%k] : memref<8xf32>
      }
    } else {
      scf.for %k = %c0 to %c4 step %c1 {
        memref.store %zero, %a[%k] : memref<8xf32>
      }
    }
  }
  scf.for %i = %c4 to %c2 step %c1 {
    memref.store %zero, %a[%i] : memref<8xf32>
  }
  affine.for %i = 0 to 8 step 2 {
    memref.store %zero, %a[%i] : memref<8xf32>
  }
  return
}

// vector.fma (the CPU's contraction kernel) makes a contraction.
// CHECK-LABEL: func.func @fma(
// CHECK: call @[[FMA:__ocannl_kernel_[0-9a-f]+]](
func.func @fma(%a: memref<4xvector<8xf32>>, %b: vector<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c4 step %c1 {
    %x = memref.load %a[%i] : memref<4xvector<8xf32>>
    %y = vector.fma %x, %b, %x : vector<8xf32>
    memref.store %y, %a[%i] : memref<4xvector<8xf32>>
  }
  return
}

// A nest a backend's kernel marked with its multiply-adds (ocannl.madds):
// that count, though a bound is dynamic.
// CHECK-LABEL: func.func @marked(
// CHECK: call @[[MARKED:__ocannl_kernel_[0-9a-f]+]](
func.func @marked(%n: index, %a: memref<4xvector<8xf32>>, %b: vector<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    %x = memref.load %a[%i] : memref<4xvector<8xf32>>
    %y = vector.fma %x, %b, %x : vector<8xf32>
    memref.store %y, %a[%i] : memref<4xvector<8xf32>>
  } {ocannl.madds = 1000 : i64}
  return
}

// A reduction carried in registers (a loop with iter_args inside the nest)
// makes a contraction.
// CHECK-LABEL: func.func @reduce(
// CHECK: call @[[RED:__ocannl_kernel_[0-9a-f]+]](
func.func @reduce(%a: memref<4x8xf32>, %r: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0.0 : f32
  scf.for %i = %c0 to %c4 step %c1 {
    %s = scf.for %k = %c0 to %c8 step %c1 iter_args(%acc = %zero) -> (f32) {
      %x = memref.load %a[%i, %k] : memref<4x8xf32>
      %n = arith.addf %acc, %x : f32
      scf.yield %n : f32
    }
    memref.store %s, %r[%i] : memref<4xf32>
  }
  return
}

// The kernels, in order.
// CHECK: func.func private @[[PAR]](
// CHECK-SAME: ocannl.kernel_kind = "elementwise", ocannl.kernel_work = 72 : i64
// CHECK: func.func private @[[UNK]](%arg0: index, %arg1: memref<8xf32>) attributes {no_inline, ocannl.kernel_kind = "elementwise", passthrough = ["noinline"]}
// CHECK: func.func private @[[IF]](
// CHECK-SAME: ocannl.kernel_work = 18 : i64
// CHECK: func.func private @[[EMPTY]](
// CHECK-SAME: ocannl.kernel_work = 0 : i64
// CHECK: func.func private @[[AFF]](
// CHECK-SAME: ocannl.kernel_work = 4 : i64
// CHECK: func.func private @[[FMA]](
// CHECK-SAME: ocannl.kernel_kind = "contraction", ocannl.kernel_madds = 32 : i64, ocannl.kernel_work = 4 : i64
// CHECK: func.func private @[[MARKED]](
// CHECK-SAME: ocannl.kernel_kind = "contraction", ocannl.kernel_madds = 1000 : i64
// CHECK-NOT: ocannl.kernel_work
// CHECK-SAME: {
// CHECK: func.func private @[[RED]](
// CHECK-SAME: ocannl.kernel_kind = "contraction", ocannl.kernel_work = 32 : i64
