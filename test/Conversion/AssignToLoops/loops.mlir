// RUN: ocannl-opt %s --ocannl-lower-to-loops --split-input-file | FileCheck %s

// A reduction: the result is reset to the neutral element of the
// accumulation; then, per result cell, the reduced loop carries the sum in a
// register (iter_args) from the cell's value, which is stored once.
// CHECK-LABEL: func.func @sum
// CHECK: %[[OUT:.*]] = memref.alloc() : memref<3xf32>
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: scf.for %[[I:.*]] =
// CHECK-NEXT: memref.store %[[ZERO]], %[[OUT]][%[[I]]]
// CHECK: scf.for %[[A:.*]] =
// CHECK-NEXT: %[[START:.*]] = memref.load %[[OUT]][%[[A]]]
// CHECK: %[[TOTAL:.*]] = scf.for %[[B:.*]] = {{.*}} iter_args(%[[ACC:.*]] = %[[START]]) -> (f32) {
// CHECK-NEXT: %[[X:.*]] = memref.load %arg0[%[[A]], %[[B]]]
// CHECK-NEXT: %[[NEW:.*]] = arith.addf %[[ACC]], %[[X]] fastmath<reassoc,contract> : f32
// CHECK-NEXT: scf.yield %[[NEW]] : f32
// CHECK: memref.store %[[TOTAL]], %[[OUT]][%[[A]]]
func.func @sum(%x: memref<3x4xf32>) -> memref<3xf32> {
  %y = "ocannl_assign.node"() {name = "y", kind = "value", memory = "materialized", shape = "3"} : () -> memref<3xf32>
  "ocannl_assign.accum_unop"(%y, %x) {accum = "add", op = "identity", initialize_neutral = true, space = array<i64: 3, 4>, indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>]} : (memref<3xf32>, memref<3x4xf32>) -> ()
  return %y : memref<3xf32>
}

// -----

// The innermost loop runs along the contiguous axis of most operands: for
// c[i, j] += a[i, k] * b[k, j] that is j, so k moves outward and the
// accumulation goes through memory.
// CHECK-LABEL: func.func @matmul
// CHECK: memref.store %{{.*}}, %[[C:.*]][%{{.*}}, %{{.*}}] : memref<4x6xf32>
// CHECK: scf.for %[[I:.*]] = %{{.*}} to %c4
// CHECK: scf.for %[[K:.*]] = %{{.*}} to %c5
// CHECK: scf.for %[[J:.*]] = %{{.*}} to %c6
// CHECK-NEXT: memref.load %arg0[%[[I]], %[[K]]]
// CHECK-NEXT: memref.load %arg1[%[[K]], %[[J]]]
// CHECK-NEXT: arith.mulf
// CHECK-NEXT: memref.load %[[C]][%[[I]], %[[J]]]
func.func @matmul(%a: memref<4x5xf32>, %b: memref<5x6xf32>) -> memref<4x6xf32> {
  %c = "ocannl_assign.node"() {name = "c", kind = "value", memory = "materialized", shape = "4,6"} : () -> memref<4x6xf32>
  "ocannl_assign.accum_binop"(%c, %a, %b) {accum = "add", op = "mul", initialize_neutral = true, space = array<i64: 4, 6, 5>, indexing_maps = [affine_map<(i, j, k) -> (i, j)>, affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>]} : (memref<4x6xf32>, memref<4x5xf32>, memref<5x6xf32>) -> ()
  return %c : memref<4x6xf32>
}

// -----

// Max accumulation starts from -inf.
// CHECK-LABEL: func.func @max
// CHECK: arith.constant 0xFF800000 : f32
// CHECK: arith.maximumf
func.func @max(%x: memref<4xf32>) -> memref<1xf32> {
  %y = "ocannl_assign.node"() {name = "y", kind = "value", memory = "materialized", shape = "1"} : () -> memref<1xf32>
  "ocannl_assign.accum_unop"(%y, %x) {accum = "max", op = "identity", initialize_neutral = true, space = array<i64: 4>, indexing_maps = [affine_map<(d0) -> (0)>, affine_map<(d0) -> (d0)>]} : (memref<1xf32>, memref<4xf32>) -> ()
  return %y : memref<1xf32>
}

// -----

// Affine indices (a strided convolution) and symbols (a batch slice) go
// through affine.apply; plain assignment loads nothing from the result.
// (The slice index is checked before the slice's loop: see checks.mlir.)
// CHECK-LABEL: func.func @indices
// CHECK: %[[K:.*]] = affine.apply #{{.*}}(%[[D0:.*]], %[[D1:.*]])
// CHECK-NEXT: %[[V:.*]] = memref.load %arg0[%[[K]]]
// CHECK-NEXT: memref.store %[[V]], %{{.*}}[%[[D0]], %[[D1]]]
// CHECK: %[[S:.*]] = affine.apply #{{.*}}(%[[E:arg[0-9]+]])[%arg1]
// CHECK-NEXT: %[[W:.*]] = memref.load %arg2[%[[S]], %[[E]]]
// CHECK-NEXT: memref.store %[[W]], %{{.*}}[%[[E]]]
func.func @indices(%x: memref<10xf32>, %i: index, %b: memref<7x2xf32>) {
  %y = "ocannl_assign.node"() {name = "y", kind = "value", memory = "undecided", shape = "4,3"} : () -> memref<4x3xf32>
  "ocannl_assign.accum_unop"(%y, %x) {accum = "assign", op = "identity", space = array<i64: 4, 3>, indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0 * 2 + d1)>]} : (memref<4x3xf32>, memref<10xf32>) -> ()
  %s = "ocannl_assign.node"() {name = "s", kind = "value", memory = "undecided", shape = "2"} : () -> memref<2xf32>
  "ocannl_assign.accum_unop"(%s, %b, %i) {accum = "assign", op = "identity", space = array<i64: 2>, indexing_maps = [affine_map<(d0)[s0] -> (d0)>, affine_map<(d0)[s0] -> (s0, d0)>]} : (memref<2xf32>, memref<7x2xf32>, index) -> ()
  return
}
