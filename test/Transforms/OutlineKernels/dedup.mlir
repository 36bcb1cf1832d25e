// RUN: ocannl-opt %s --pass-pipeline='builtin.module(ocannl-lower-to-loops,func.func(canonicalize,cse),ocannl-outline-kernels)' | FileCheck %s
// RUN: ocannl-opt %s --pass-pipeline='builtin.module(ocannl-lower-to-loops,func.func(canonicalize,cse),ocannl-outline-kernels{dedup=false})' | FileCheck %s --check-prefix=NODEDUP
// Running the pass again changes nothing: kernels are not outlined again.
// RUN: ocannl-opt %s --pass-pipeline='builtin.module(ocannl-lower-to-loops,func.func(canonicalize,cse),ocannl-outline-kernels)' > %t.once
// RUN: ocannl-opt %t.once --ocannl-outline-kernels > %t.twice
// RUN: diff %t.once %t.twice

// Identical kernels (the same body on buffers of the same types) are one
// function, whichever routine or block they come from: two relu layers of
// one routine and a third in another routine call one kernel. A relu of
// another size is another kernel.

// CHECK-LABEL: func.func @two(
// CHECK-SAME: %[[X:[^:]*]]: memref<4x8xf32>, %[[Z:[^:]*]]: memref<4x8xf32>)
// CHECK: %[[Y:.*]] = memref.alloc() : memref<4x8xf32>
// CHECK: call @[[RELU:__ocannl_kernel_[0-9a-f]{16}]](%[[X]], %[[Y]])
// CHECK: %[[W:.*]] = memref.alloc() : memref<4x8xf32>
// CHECK: call @[[RELU]](%[[Z]], %[[W]])
// CHECK-LABEL: func.func @other(
// CHECK-SAME: %[[V:.*]]: memref<4x8xf32>)
// CHECK: call @[[RELU]](%[[V]],
// CHECK-LABEL: func.func @wider(
// CHECK: call @[[WIDE:__ocannl_kernel_[0-9a-f]{16}]](
// CHECK-SAME: (memref<4x16xf32>, memref<4x16xf32>) -> ()
// One definition of each.
// CHECK: func.func private @[[RELU]](%arg0: memref<4x8xf32>, %arg1: memref<4x8xf32>)
// CHECK-NOT: func.func private @[[RELU]](
// CHECK: func.func private @[[WIDE]](%arg0: memref<4x16xf32>, %arg1: memref<4x16xf32>)
// CHECK-NOT: func.func private @__ocannl_kernel

// With dedup=false, every nest is a function of its own: the copies of a
// kernel are numbered.
// NODEDUP-LABEL: func.func @two(
// NODEDUP: call @[[R1:__ocannl_kernel_[0-9a-f]{16}]](
// NODEDUP: call @[[R1]]_1(
// NODEDUP-LABEL: func.func @other(
// NODEDUP: call @[[R1]]_2(
// NODEDUP-COUNT-4: func.func private @__ocannl_kernel_
// NODEDUP-NOT: func.func private

func.func @two(%x: memref<4x8xf32>, %z: memref<4x8xf32>) -> (memref<4x8xf32>, memref<4x8xf32>) {
  %y = "ocannl_assign.node"() {name = "y", kind = "value", memory = "materialized", shape = "4,8"} : () -> memref<4x8xf32>
  "ocannl_assign.accum_unop"(%y, %x) {accum = "assign", op = "relu", space = array<i64: 4, 8>, indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>]} : (memref<4x8xf32>, memref<4x8xf32>) -> ()
  %w = "ocannl_assign.node"() {name = "w", kind = "value", memory = "materialized", shape = "4,8"} : () -> memref<4x8xf32>
  "ocannl_assign.accum_unop"(%w, %z) {accum = "assign", op = "relu", space = array<i64: 4, 8>, indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>]} : (memref<4x8xf32>, memref<4x8xf32>) -> ()
  return %y, %w : memref<4x8xf32>, memref<4x8xf32>
}

func.func @other(%v: memref<4x8xf32>) -> memref<4x8xf32> {
  %y = "ocannl_assign.node"() {name = "y", kind = "value", memory = "materialized", shape = "4,8"} : () -> memref<4x8xf32>
  "ocannl_assign.accum_unop"(%y, %v) {accum = "assign", op = "relu", space = array<i64: 4, 8>, indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>]} : (memref<4x8xf32>, memref<4x8xf32>) -> ()
  return %y : memref<4x8xf32>
}

func.func @wider(%v: memref<4x16xf32>) -> memref<4x16xf32> {
  %y = "ocannl_assign.node"() {name = "y", kind = "value", memory = "materialized", shape = "4,16"} : () -> memref<4x16xf32>
  "ocannl_assign.accum_unop"(%y, %v) {accum = "assign", op = "relu", space = array<i64: 4, 16>, indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>]} : (memref<4x16xf32>, memref<4x16xf32>) -> ()
  return %y : memref<4x16xf32>
}
