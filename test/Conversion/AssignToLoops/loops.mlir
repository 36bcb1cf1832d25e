// RUN: ocannl-opt %s --ocannl-lower-to-loops --split-input-file | FileCheck %s

// A reduction: the result is reset to the neutral element of the
// accumulation, then a loop nest over the iteration space accumulates.
// CHECK-LABEL: func.func @sum
// CHECK: %[[OUT:.*]] = memref.alloc() : memref<3xf32>
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: scf.for %[[I:.*]] =
// CHECK-NEXT: memref.store %[[ZERO]], %[[OUT]][%[[I]]]
// CHECK: scf.for %[[A:.*]] =
// CHECK: scf.for %[[B:.*]] =
// CHECK: %[[X:.*]] = memref.load %arg0[%[[A]], %[[B]]]
// CHECK: %[[OLD:.*]] = memref.load %[[OUT]][%[[A]]]
// CHECK: %[[NEW:.*]] = arith.addf %[[OLD]], %[[X]] fastmath<reassoc,contract> : f32
// CHECK: memref.store %[[NEW]], %[[OUT]][%[[A]]]
func.func @sum(%x: memref<3x4xf32>) -> memref<3xf32> {
  %y = "ocannl_assign.node"() {name = "y", kind = "value", memory = "materialized", shape = "3"} : () -> memref<3xf32>
  "ocannl_assign.accum_unop"(%y, %x) {accum = "add", op = "identity", initialize_neutral = true, space = array<i64: 3, 4>, indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>]} : (memref<3xf32>, memref<3x4xf32>) -> ()
  return %y : memref<3xf32>
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
// CHECK-LABEL: func.func @indices
// CHECK: %[[K:.*]] = affine.apply #{{.*}}(%[[D0:.*]], %[[D1:.*]])
// CHECK-NEXT: %[[V:.*]] = memref.load %arg0[%[[K]]]
// CHECK-NEXT: memref.store %[[V]], %{{.*}}[%[[D0]], %[[D1]]]
// CHECK: %[[S:.*]] = affine.apply #{{.*}}(%[[E:.*]])[%arg1]
// CHECK-NEXT: %[[W:.*]] = memref.load %arg2[%[[S]], %[[E]]]
// CHECK-NEXT: memref.store %[[W]], %{{.*}}[%[[E]]]
func.func @indices(%x: memref<10xf32>, %i: index, %b: memref<7x2xf32>) {
  %y = "ocannl_assign.node"() {name = "y", kind = "value", memory = "undecided", shape = "4,3"} : () -> memref<4x3xf32>
  "ocannl_assign.accum_unop"(%y, %x) {accum = "assign", op = "identity", space = array<i64: 4, 3>, indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0 * 2 + d1)>]} : (memref<4x3xf32>, memref<10xf32>) -> ()
  %s = "ocannl_assign.node"() {name = "s", kind = "value", memory = "undecided", shape = "2"} : () -> memref<2xf32>
  "ocannl_assign.accum_unop"(%s, %b, %i) {accum = "assign", op = "identity", space = array<i64: 2>, indexing_maps = [affine_map<(d0)[s0] -> (d0)>, affine_map<(d0)[s0] -> (s0, d0)>]} : (memref<2xf32>, memref<7x2xf32>, index) -> ()
  return
}
