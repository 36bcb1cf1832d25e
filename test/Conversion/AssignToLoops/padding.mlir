// RUN: ocannl-opt %s --ocannl-lower-to-loops --split-input-file | FileCheck %s

// A padded convolution reads x[o + k - 1], which leaves x at both ends: the
// index is clamped into the axis and the value read replaced by the padding
// value, the accumulation's neutral element (0 for a sum).
// CHECK-LABEL: func.func @padded
// CHECK: %[[I:.*]] = affine.apply
// CHECK: %[[GE:.*]] = arith.cmpi sge, %[[I]], %[[ZERO:.*]] : index
// CHECK: %[[LE:.*]] = arith.cmpi sle, %[[I]], %[[LAST:.*]] : index
// CHECK: %[[IN:.*]] = arith.andi %[[GE]], %[[LE]] : i1
// CHECK: %[[LO:.*]] = arith.minsi %[[I]], %[[LAST]] : index
// CHECK: %[[C:.*]] = arith.maxsi %[[LO]], %[[ZERO]] : index
// CHECK: %[[X:.*]] = memref.load %arg0[%[[C]]] : memref<6xf32>
// CHECK: %[[PAD:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: arith.select %[[IN]], %[[X]], %[[PAD]] : f32
func.func @padded(%x: memref<6xf32>, %w: memref<3xf32>) -> memref<6xf32> {
  %y = "ocannl_assign.node"() {name = "y", kind = "value", memory = "materialized", shape = "6"} : () -> memref<6xf32>
  "ocannl_assign.accum_binop"(%y, %x, %w) {accum = "add", op = "mul", initialize_neutral = true, space = array<i64: 6, 3>, indexing_maps = [affine_map<(o, k) -> (o)>, affine_map<(o, k) -> (o + k - 1)>, affine_map<(o, k) -> (k)>]} : (memref<6xf32>, memref<6xf32>, memref<3xf32>) -> ()
  return %y : memref<6xf32>
}

// -----

// Max-pooling pads with -inf.
// CHECK-LABEL: func.func @pool
// CHECK: memref.load %arg0
// CHECK-NEXT: %[[PAD:.*]] = arith.constant 0xFF800000 : f32
// CHECK-NEXT: arith.select %{{.*}}, %{{.*}}, %[[PAD]] : f32
func.func @pool(%x: memref<6xf32>) -> memref<3xf32> {
  %y = "ocannl_assign.node"() {name = "y", kind = "value", memory = "materialized", shape = "3"} : () -> memref<3xf32>
  "ocannl_assign.accum_unop"(%y, %x) {accum = "max", op = "identity", initialize_neutral = true, space = array<i64: 3, 3>, indexing_maps = [affine_map<(o, k) -> (o)>, affine_map<(o, k) -> (o * 2 + k - 1)>]} : (memref<3xf32>, memref<6xf32>) -> ()
  return %y : memref<3xf32>
}

// -----

// A valid convolution stays inside x (o + k <= 3 + 2 = 5): no guard.
// CHECK-LABEL: func.func @valid
// CHECK-NOT: arith.select {{.*}} : f32
// CHECK: return
func.func @valid(%x: memref<6xf32>, %w: memref<3xf32>) -> memref<4xf32> {
  %y = "ocannl_assign.node"() {name = "y", kind = "value", memory = "materialized", shape = "4"} : () -> memref<4xf32>
  "ocannl_assign.accum_binop"(%y, %x, %w) {accum = "add", op = "mul", initialize_neutral = true, space = array<i64: 4, 3>, indexing_maps = [affine_map<(o, k) -> (o)>, affine_map<(o, k) -> (o + k)>, affine_map<(o, k) -> (k)>]} : (memref<4xf32>, memref<6xf32>, memref<3xf32>) -> ()
  return %y : memref<4xf32>
}
