// RUN: ocannl-opt %s --pass-pipeline='builtin.module(ocannl-lower-to-loops,func.func(canonicalize,cse),ocannl-outline-kernels)' | FileCheck %s

// Each loop nest of a routine becomes a private kernel called in its place:
// the routine keeps its allocation, its run-time checks and its return, as
// straight-line code; the guard that skips a nest after a failed check
// (scf.if on the status being clear) moves into the kernel with the nest,
// its condition the kernel's first argument (an i8: LLVM's fast instruction
// selector takes no call with an i1). The kernel holds the loops,
// with the constants they use cloned into it and the buffers as arguments.

// CHECK-LABEL: func.func @relu(
// CHECK-SAME: %[[X:.*]]: memref<4x8xf32>) -> memref<4x8xf32>
// CHECK-NOT: scf.
// CHECK-NOT: arith.maximumf
// CHECK: %[[Y:.*]] = memref.alloc() : memref<4x8xf32>
// CHECK-NOT: scf.
// CHECK: call @__ocannl_record_failure(
// CHECK-NEXT: %[[STATUS:.*]] = memref.get_global @__ocannl_status
// CHECK-NEXT: %[[CODE:.*]] = memref.load %[[STATUS]]
// CHECK-NEXT: %[[CLEAR:.*]] = arith.cmpi eq, %[[CODE]]
// CHECK-NEXT: %[[CLEAR8:.*]] = arith.extui %[[CLEAR]] : i1 to i8
// CHECK-NEXT: call @[[FILL:__ocannl_kernel_[0-9a-f]+]](%[[CLEAR8]], %[[Y]]) : (i8, memref<4x8xf32>) -> ()
// CHECK-NEXT: %[[CODE2:.*]] = memref.load %[[STATUS]]
// CHECK-NEXT: %[[CLEAR2:.*]] = arith.cmpi eq, %[[CODE2]]
// CHECK-NEXT: %[[CLEAR28:.*]] = arith.extui %[[CLEAR2]] : i1 to i8
// CHECK-NEXT: call @[[RELU:__ocannl_kernel_[0-9a-f]+]](%[[CLEAR28]], %[[X]], %[[Y]]) : (i8, memref<4x8xf32>, memref<4x8xf32>) -> ()
// CHECK-NEXT: return %[[Y]] : memref<4x8xf32>
// CHECK-NEXT: }

// The constants the routine no longer uses are gone from it; the float
// constant is in the kernels only.
// CHECK-NOT: arith.constant 0.000000e+00

// The fill: its value, cloned into the kernel, under the guard.
// CHECK: func.func private @[[FILL]](%arg0: i8, %arg1: memref<4x8xf32>) attributes {no_inline, ocannl.kernel_kind = "elementwise", ocannl.kernel_work = 32 : i64, passthrough = ["noinline"]} {
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : index
// CHECK-DAG: %[[C8:.*]] = arith.constant 8 : index
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-DAG: %[[C:.*]] = arith.trunci %arg0 : i8 to i1
// CHECK: scf.if %[[C]] {
// CHECK-NEXT: scf.for %[[I:.*]] = %[[C0]] to %[[C4]] step %[[C1]] {
// CHECK-NEXT: scf.for %[[J:.*]] = %[[C0]] to %[[C8]] step %[[C1]] {
// CHECK-NEXT: memref.store %[[ZERO]], %arg1[%[[I]], %[[J]]] : memref<4x8xf32>
// CHECK: return
// CHECK-NEXT: }

// The sum of relu(x): x and y are its arguments, in order of first use.
// CHECK: func.func private @[[RELU]](%arg0: i8, %arg1: memref<4x8xf32>, %arg2: memref<4x8xf32>) attributes {no_inline, ocannl.kernel_kind = "elementwise", ocannl.kernel_work = 32 : i64, passthrough = ["noinline"]} {
// CHECK: %[[C2:.*]] = arith.trunci %arg0 : i8 to i1
// CHECK: scf.if %[[C2]] {
// CHECK-NEXT: scf.for
// CHECK-NEXT: scf.for
// CHECK-NEXT: memref.load %arg1
// CHECK-NEXT: arith.maximumf
// CHECK-NEXT: memref.load %arg2
// CHECK-NEXT: arith.addf
// CHECK-NEXT: memref.store {{.*}}, %arg2
// CHECK: return
// CHECK-NEXT: }
func.func @relu(%x: memref<4x8xf32>) -> memref<4x8xf32> {
  %y = "ocannl_assign.node"() {name = "y", kind = "value", memory = "materialized", shape = "4,8"} : () -> memref<4x8xf32>
  "ocannl_assign.fill"(%y) {value = 0.0 : f32} : (memref<4x8xf32>) -> ()
  "ocannl_assign.accum_unop"(%y, %x) {accum = "add", op = "relu", space = array<i64: 4, 8>, indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>]} : (memref<4x8xf32>, memref<4x8xf32>) -> ()
  return %y : memref<4x8xf32>
}
