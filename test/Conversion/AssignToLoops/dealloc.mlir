// RUN: ocannl-opt %s --ocannl-lower-to-loops | FileCheck %s

// A node that is not returned is freed right after the last assignment that
// reads it; the returned node is not freed.
// CHECK-LABEL: func.func @chain
// CHECK: %[[T:.*]] = memref.alloc() : memref<4xf32>
// CHECK: %[[U:.*]] = memref.alloc() : memref<4xf32>
// CHECK: math.tanh
// CHECK: memref.dealloc %[[T]] : memref<4xf32>
// CHECK-NOT: memref.dealloc %[[U]]
// CHECK: return %[[U]]
func.func @chain(%x: memref<4xf32>) -> memref<4xf32> {
  %t = "ocannl_assign.node"() {name = "t", kind = "value", memory = "undecided", shape = "4"} : () -> memref<4xf32>
  "ocannl_assign.accum_unop"(%t, %x) {accum = "assign", op = "exp", space = array<i64: 4>, indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>]} : (memref<4xf32>, memref<4xf32>) -> ()
  %u = "ocannl_assign.node"() {name = "u", kind = "value", memory = "materialized", shape = "4"} : () -> memref<4xf32>
  "ocannl_assign.accum_unop"(%u, %t) {accum = "assign", op = "tanh", space = array<i64: 4>, indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>]} : (memref<4xf32>, memref<4xf32>) -> ()
  return %u : memref<4xf32>
}
