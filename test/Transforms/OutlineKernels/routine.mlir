// RUN: ocannl-opt %s --pass-pipeline='builtin.module(ocannl-lower-to-loops,func.func(canonicalize,cse),ocannl-outline-kernels)' | FileCheck %s

// Each loop nest of a routine becomes a private kernel called in its place:
// the routine keeps its allocation, its run-time checks and its return, as
// straight-line code; the guard that skips a nest after a failed check
// (scf.if on the status being clear) moves into the kernel with the nest,
// and so does its condition: the status global's load and the comparison
// are recomputed in the kernel (nothing runs between them and the nest),
// and the routine, which no longer uses them, loses them. The kernel holds
// the loops, with the constants they use cloned into it and the buffers as
// arguments.

// CHECK-LABEL: func.func @relu(
// CHECK-SAME: %[[X:.*]]: memref<4x8xf32>) -> memref<4x8xf32>
// CHECK-NOT: scf.
// CHECK-NOT: arith.maximumf
// CHECK: %[[Y:.*]] = memref.alloc() : memref<4x8xf32>
// CHECK-NOT: scf.
// CHECK: call @__ocannl_check_allocation(
// CHECK-NEXT: call @[[FILL:__ocannl_kernel_[0-9a-f]+]](%[[Y]]) : (memref<4x8xf32>) -> ()
// CHECK-NEXT: call @[[RELU:__ocannl_kernel_[0-9a-f]+]](%[[X]], %[[Y]]) : (memref<4x8xf32>, memref<4x8xf32>) -> ()
// CHECK-NEXT: return %[[Y]] : memref<4x8xf32>
// CHECK-NEXT: }

// The constants the routine no longer uses are gone from it; the float
// constant is in the kernels only.
// CHECK-NOT: arith.constant 0.000000e+00

// The fill: the guard's condition and the value, cloned into the kernel.
// CHECK: func.func private @[[FILL]](%arg0: memref<4x8xf32>) attributes {no_inline, ocannl.kernel_kind = "elementwise", ocannl.kernel_work = 32 : i64, passthrough = ["noinline"]} {
// CHECK-NEXT: %[[STATUS:.*]] = memref.get_global @__ocannl_status
// CHECK-NEXT: %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[CODE:.*]] = memref.load %[[STATUS]][%[[C0]]]
// CHECK-NEXT: %[[NONE:.*]] = arith.constant 0 : i64
// CHECK-NEXT: %[[C:.*]] = arith.cmpi eq, %[[CODE]], %[[NONE]] : i64
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : index
// CHECK-DAG: %[[C8:.*]] = arith.constant 8 : index
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: scf.if %[[C]] {
// CHECK-NEXT: scf.for %[[I:.*]] = %[[C0]] to %[[C4]] step %[[C1]] {
// CHECK-NEXT: scf.for %[[J:.*]] = %[[C0]] to %[[C8]] step %[[C1]] {
// CHECK-NEXT: memref.store %[[ZERO]], %arg0[%[[I]], %[[J]]] : memref<4x8xf32>
// CHECK: return
// CHECK-NEXT: }

// The sum of relu(x): x and y are its arguments, in order of first use.
// CHECK: func.func private @[[RELU]](%arg0: memref<4x8xf32>, %arg1: memref<4x8xf32>) attributes {no_inline, ocannl.kernel_kind = "elementwise", ocannl.kernel_work = 32 : i64, passthrough = ["noinline"]} {
// CHECK: %[[C2:.*]] = arith.cmpi eq
// CHECK: scf.if %[[C2]] {
// CHECK-NEXT: scf.for
// CHECK-NEXT: scf.for
// CHECK-NEXT: memref.load %arg0
// CHECK-NEXT: arith.maximumf
// CHECK-NEXT: memref.load %arg1
// CHECK-NEXT: arith.addf
// CHECK-NEXT: memref.store {{.*}}, %arg1
// CHECK: return
// CHECK-NEXT: }
func.func @relu(%x: memref<4x8xf32>) -> memref<4x8xf32> {
  %y = "ocannl_assign.node"() {name = "y", kind = "value", memory = "materialized", shape = "4,8"} : () -> memref<4x8xf32>
  "ocannl_assign.fill"(%y) {value = 0.0 : f32} : (memref<4x8xf32>) -> ()
  "ocannl_assign.accum_unop"(%y, %x) {accum = "add", op = "relu", space = array<i64: 4, 8>, indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>]} : (memref<4x8xf32>, memref<4x8xf32>) -> ()
  return %y : memref<4x8xf32>
}
