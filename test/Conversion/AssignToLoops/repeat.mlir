// RUN: ocannl-opt %s --pass-pipeline='builtin.module(ocannl-lower-to-loops{target=sequential})' | FileCheck %s

// An assignment equal to one lowered before up to its buffers gets a clone
// of that one's loops on its own buffers: the second relu reads %z and
// writes %w, and the in-place `a += a * b` (one buffer twice) is not taken
// for the op on three buffers.

// CHECK-LABEL: func.func @two(
// CHECK-SAME: %[[X:[^:]*]]: memref<4x8xf32>, %[[Z:[^:]*]]: memref<4x8xf32>)
// CHECK: %[[Y:.*]] = memref.alloc() : memref<4x8xf32>
// CHECK: scf.for
// CHECK: scf.for
// CHECK: memref.load %[[X]][
// CHECK: arith.maximumf
// CHECK: memref.store %{{.*}}, %[[Y]][
// CHECK: %[[W:.*]] = memref.alloc() : memref<4x8xf32>
// CHECK: scf.for
// CHECK: scf.for
// CHECK: memref.load %[[Z]][
// CHECK: arith.maximumf
// CHECK: memref.store %{{.*}}, %[[W]][
// CHECK: return %[[Y]], %[[W]]
func.func @two(%x: memref<4x8xf32>, %z: memref<4x8xf32>) -> (memref<4x8xf32>, memref<4x8xf32>) {
  %y = "ocannl_assign.node"() {name = "y", kind = "value", memory = "materialized", shape = "4,8"} : () -> memref<4x8xf32>
  "ocannl_assign.accum_unop"(%y, %x) {accum = "assign", op = "relu", space = array<i64: 4, 8>, indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>]} : (memref<4x8xf32>, memref<4x8xf32>) -> ()
  %w = "ocannl_assign.node"() {name = "w", kind = "value", memory = "materialized", shape = "4,8"} : () -> memref<4x8xf32>
  "ocannl_assign.accum_unop"(%w, %z) {accum = "assign", op = "relu", space = array<i64: 4, 8>, indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>]} : (memref<4x8xf32>, memref<4x8xf32>) -> ()
  return %y, %w : memref<4x8xf32>, memref<4x8xf32>
}

// CHECK-LABEL: func.func @aliased(
// CHECK-SAME: %[[A:[^:]*]]: memref<4xf32>, %[[B:[^:]*]]: memref<4xf32>, %[[C:[^:]*]]: memref<4xf32>)
// CHECK: %[[B0:.*]] = memref.load %[[B]][
// CHECK-NEXT: %[[C0:.*]] = memref.load %[[C]][
// CHECK-NEXT: %[[P0:.*]] = arith.mulf %[[B0]], %[[C0]]
// CHECK-NEXT: %[[A0:.*]] = memref.load %[[A]][
// CHECK-NEXT: %[[S0:.*]] = arith.addf %[[A0]], %[[P0]]
// CHECK-NEXT: memref.store %[[S0]], %[[A]][
// CHECK: %[[A1:.*]] = memref.load %[[A]][
// CHECK-NEXT: %[[B1:.*]] = memref.load %[[B]][
// CHECK-NEXT: %[[P1:.*]] = arith.mulf %[[A1]], %[[B1]]
// CHECK: memref.store %{{.*}}, %[[A]][
// CHECK: %[[B2:.*]] = memref.load %[[B]][
// CHECK-NEXT: %[[A2:.*]] = memref.load %[[A]][
// CHECK-NEXT: %[[P2:.*]] = arith.mulf %[[B2]], %[[A2]]
// CHECK-NEXT: %[[C2:.*]] = memref.load %[[C]][
// CHECK-NEXT: %[[S2:.*]] = arith.addf %[[C2]], %[[P2]]
// CHECK-NEXT: memref.store %[[S2]], %[[C]][
func.func @aliased(%a: memref<4xf32>, %b: memref<4xf32>, %c: memref<4xf32>) {
  "ocannl_assign.accum_binop"(%a, %b, %c) {accum = "add", op = "mul", space = array<i64: 4>, indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>, affine_map<(i) -> (i)>]} : (memref<4xf32>, memref<4xf32>, memref<4xf32>) -> ()
  "ocannl_assign.accum_binop"(%a, %a, %b) {accum = "add", op = "mul", space = array<i64: 4>, indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>, affine_map<(i) -> (i)>]} : (memref<4xf32>, memref<4xf32>, memref<4xf32>) -> ()
  "ocannl_assign.accum_binop"(%c, %b, %a) {accum = "add", op = "mul", space = array<i64: 4>, indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>, affine_map<(i) -> (i)>]} : (memref<4xf32>, memref<4xf32>, memref<4xf32>) -> ()
  return
}

// The clone is located at its own op, so that diagnostics and the profile
// (a kernel's call sites) name it, not the op first lowered: with
// `kernels=true`, each relu (both clones of @two's first) is a call of one
// kernel, at its own op.
// RUN: ocannl-opt %s --pass-pipeline='builtin.module(ocannl-lower-to-loops{kernels=true})' --mlir-print-debuginfo --mlir-print-local-scope | FileCheck %s --check-prefix=LOC
// LOC-LABEL: func.func @located(
// LOC: call @[[K:__ocannl_kernel_[0-9a-f]+]]({{.*}}) loc("first")
// LOC: call @[[K]]({{.*}}) loc("second")
func.func @located(%x: memref<4x8xf32>, %z: memref<4x8xf32>) -> (memref<4x8xf32>, memref<4x8xf32>) {
  %y = "ocannl_assign.node"() {name = "y", kind = "value", memory = "materialized", shape = "4,8"} : () -> memref<4x8xf32>
  "ocannl_assign.accum_unop"(%y, %x) {accum = "assign", op = "relu", space = array<i64: 4, 8>, indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>]} : (memref<4x8xf32>, memref<4x8xf32>) -> () loc("first")
  %w = "ocannl_assign.node"() {name = "w", kind = "value", memory = "materialized", shape = "4,8"} : () -> memref<4x8xf32>
  "ocannl_assign.accum_unop"(%w, %z) {accum = "assign", op = "relu", space = array<i64: 4, 8>, indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>]} : (memref<4x8xf32>, memref<4x8xf32>) -> () loc("second")
  return %y, %w : memref<4x8xf32>, memref<4x8xf32>
}
