// RUN: ocannl-opt %s | ocannl-opt | FileCheck %s

// Tensor nodes and accumulating assignments round-trip.

// CHECK-DAG: #[[LHS:.*]] = affine_map<(d0, d1) -> (d0)>
// CHECK-DAG: #[[A:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[B:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @matvec
func.func @matvec() {
  // CHECK: %[[W:.*]] = "ocannl_assign.node"() {kind = "value", memory = "undecided", name = "w", shape = "2->3"} : () -> memref<3x2xf32>
  %w = "ocannl_assign.node"() {name = "w", kind = "value", memory = "undecided", shape = "2->3"} : () -> memref<3x2xf32>
  // CHECK: %[[X:.*]] = "ocannl_assign.node"() {kind = "value", memory = "materialized", name = "x", shape = "2"} : () -> memref<2xf32>
  %x = "ocannl_assign.node"() {name = "x", kind = "value", memory = "materialized", shape = "2"} : () -> memref<2xf32>
  // CHECK: %[[Y:.*]] = "ocannl_assign.node"() {kind = "grad", memory = "virtual", name = "y", shape = "3"} : () -> memref<3xf32>
  %y = "ocannl_assign.node"() {name = "y", kind = "grad", memory = "virtual", shape = "3"} : () -> memref<3xf32>
  // CHECK: "ocannl_assign.accum_binop"(%[[Y]], %[[W]], %[[X]]) {accum = "add", indexing_maps = [#[[LHS]], #[[A]], #[[B]]], initialize_neutral = true, op = "mul", space = array<i64: 3, 2>}
  "ocannl_assign.accum_binop"(%y, %w, %x) {accum = "add", op = "mul", initialize_neutral = true, space = array<i64: 3, 2>, indexing_maps = [affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>]} : (memref<3xf32>, memref<3x2xf32>, memref<2xf32>) -> ()
  // CHECK: "ocannl_assign.accum_unop"(%[[Y]], %[[Y]]) {accum = "max", indexing_maps = [#[[LHS]], #[[LHS]]], op = "relu", space = array<i64: 3, 2>}
  "ocannl_assign.accum_unop"(%y, %y) {accum = "max", op = "relu", space = array<i64: 3, 2>, indexing_maps = [affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i)>]} : (memref<3xf32>, memref<3xf32>) -> ()
  // CHECK: "ocannl_assign.accum_ternop"(%[[Y]], %[[Y]], %[[Y]], %[[Y]]) {accum = "add", indexing_maps = [#[[LHS]], #[[LHS]], #[[LHS]], #[[LHS]]], op = "fma", space = array<i64: 3, 2>}
  "ocannl_assign.accum_ternop"(%y, %y, %y, %y) {accum = "add", op = "fma", space = array<i64: 3, 2>, indexing_maps = [affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i)>]} : (memref<3xf32>, memref<3xf32>, memref<3xf32>, memref<3xf32>) -> ()
  return
}
