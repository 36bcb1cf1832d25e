// RUN: ocannl-opt %s --split-input-file --ocannl-one-hot-to-gather | FileCheck %s
// A second run changes nothing:
// RUN: ocannl-opt %s --split-input-file --ocannl-one-hot-to-gather --ocannl-one-hot-to-gather | FileCheck %s

// The one-hot h[b, v] = (ids[b, 0] == classes[v]) is read as a factor of an
// embedding's sum over v (a gather: v leaves the space, the table is read
// at the row ids[b, 0]) and of the table's gradient (a scatter-add into the
// row ids[b, 0]); then nothing reads it: its computation goes, it is
// virtual.

#id = affine_map<(b, v) -> (b, v)>
#ids = affine_map<(b, v) -> (b, 0)>
#classes = affine_map<(b, v) -> (v)>
// CHECK-DAG: #[[BD:.*]] = affine_map<(d0, d1)[s0] -> (d0, d1)>
// CHECK-DAG: #[[IDS:.*]] = affine_map<(d0, d1)[s0] -> (d0, 0)>
// CHECK-DAG: #[[ROW:.*]] = affine_map<(d0, d1)[s0] -> (s0, d1)>
// CHECK-LABEL: func.func @embed
func.func @embed(%t: memref<5x3xf32>, %g: memref<6x3xf32>) -> (memref<6x3xf32>, memref<5x3xf32>) {
  %ids = "ocannl_assign.node"() {name = "ids", kind = "value", memory = "materialized", shape = "6|1"} : () -> memref<6x1xf32>
  "ocannl_assign.literal"(%ids) {value = dense<[[2.0], [0.0], [4.0], [2.0], [7.0], [1.5]]> : tensor<6x1xf32>} : (memref<6x1xf32>) -> ()
  %classes = "ocannl_assign.node"() {name = "classes", kind = "value", memory = "materialized", shape = "5"} : () -> memref<5xf32>
  "ocannl_assign.literal"(%classes) {value = dense<[0.0, 1.0, 2.0, 3.0, 4.0]> : tensor<5xf32>} : (memref<5xf32>) -> ()
  // CHECK: "ocannl_assign.node"() {kind = "value", memory = "virtual", memory_reason = "a one-hot node read only through its ids (ocannl-one-hot-to-gather)", name = "h"
  // CHECK-NOT: cmpeq
  %h = "ocannl_assign.node"() {name = "h", kind = "value", memory = "undecided", shape = "6|5"} : () -> memref<6x5xf32>
  "ocannl_assign.accum_binop"(%h, %ids, %classes) {accum = "assign", op = "cmpeq", space = array<i64: 6, 5>, indexing_maps = [#id, #ids, #classes]} : (memref<6x5xf32>, memref<6x1xf32>, memref<5xf32>) -> ()
  // CHECK: %[[E:.*]] = "ocannl_assign.node"() {{.*}}name = "e"
  // CHECK-NEXT: "ocannl_assign.accum"(%[[E]], %[[IDSV:.*]], %arg0) ({
  // CHECK-NEXT: ^bb0(%{{.*}}: f32, %[[TV:.*]]: f32):
  // CHECK-NEXT: vector.yield %[[TV]] : f32
  // CHECK-NEXT: }) {accum = "add", dynamic_indices = array<i64: 1, 5>, indexing_maps = [#[[BD]], #[[IDS]], #[[ROW]]], initialize_neutral = true, space = array<i64: 6, 3>}
  %e = "ocannl_assign.node"() {name = "e", kind = "value", memory = "materialized", shape = "6|3"} : () -> memref<6x3xf32>
  "ocannl_assign.accum_binop"(%e, %h, %t) {accum = "add", op = "mul", initialize_neutral = true, space = array<i64: 6, 3, 5>, indexing_maps = [affine_map<(b, d, v) -> (b, d)>, affine_map<(b, d, v) -> (b, v)>, affine_map<(b, d, v) -> (v, d)>]} : (memref<6x3xf32>, memref<6x5xf32>, memref<5x3xf32>) -> ()
  // The gradient's sum over the batch reads g at the batch, the ids at
  // the batch, and writes the row of the id:
  // CHECK: %[[DT:.*]] = "ocannl_assign.node"() {{.*}}name = "dt"
  // CHECK-NEXT: "ocannl_assign.accum"(%[[DT]], %[[IDSV]], %arg1) ({
  // CHECK: }) {accum = "add", dynamic_indices = array<i64: 1, 5>, indexing_maps = [#[[ROW]], #[[IDS]], #[[BD]]], initialize_neutral = true, space = array<i64: 6, 3>}
  %dt = "ocannl_assign.node"() {name = "dt", kind = "value", memory = "materialized", shape = "5,3"} : () -> memref<5x3xf32>
  "ocannl_assign.accum_binop"(%dt, %h, %g) {accum = "add", op = "mul", initialize_neutral = true, space = array<i64: 6, 3, 5>, indexing_maps = [affine_map<(b, d, v) -> (v, d)>, affine_map<(b, d, v) -> (b, v)>, affine_map<(b, d, v) -> (b, d)>]} : (memref<5x3xf32>, memref<6x5xf32>, memref<6x3xf32>) -> ()
  return %e, %dt : memref<6x3xf32>, memref<5x3xf32>
}

// -----

#id = affine_map<(b, v) -> (b, v)>
#ids = affine_map<(b, v) -> (b, 0)>
#classes = affine_map<(b, v) -> (v)>
// What is not a sum of products with the one-hot stays: a sum of the
// one-hot and another operand, and a product read after the ids changed.
// The one-hot is still read: it keeps its computation and its mode.
// CHECK-LABEL: func.func @kept
// CHECK: memory = "undecided"{{.*}}name = "h"
// CHECK-NEXT: cmpeq
// CHECK-NOT: dynamic_indices
// CHECK: return
func.func @kept(%ids: memref<6x1xf32>, %t: memref<5x3xf32>) -> (memref<6x5xf32>, memref<6x3xf32>) {
  %classes = "ocannl_assign.node"() {name = "classes", kind = "value", memory = "materialized", shape = "5"} : () -> memref<5xf32>
  "ocannl_assign.range"(%classes) : (memref<5xf32>) -> ()
  %h = "ocannl_assign.node"() {name = "h", kind = "value", memory = "undecided", shape = "6|5"} : () -> memref<6x5xf32>
  "ocannl_assign.accum_binop"(%h, %ids, %classes) {accum = "assign", op = "cmpeq", space = array<i64: 6, 5>, indexing_maps = [#id, #ids, #classes]} : (memref<6x5xf32>, memref<6x1xf32>, memref<5xf32>) -> ()
  %s = "ocannl_assign.node"() {name = "s", kind = "value", memory = "materialized", shape = "6|5"} : () -> memref<6x5xf32>
  "ocannl_assign.accum_binop"(%s, %h, %h) {accum = "add", op = "add", initialize_neutral = true, space = array<i64: 6, 5>, indexing_maps = [#id, #id, #id]} : (memref<6x5xf32>, memref<6x5xf32>, memref<6x5xf32>) -> ()
  "ocannl_assign.range"(%ids) : (memref<6x1xf32>) -> ()
  %e = "ocannl_assign.node"() {name = "e", kind = "value", memory = "materialized", shape = "6|3"} : () -> memref<6x3xf32>
  "ocannl_assign.accum_binop"(%e, %h, %t) {accum = "add", op = "mul", initialize_neutral = true, space = array<i64: 6, 3, 5>, indexing_maps = [affine_map<(b, d, v) -> (b, d)>, affine_map<(b, d, v) -> (b, v)>, affine_map<(b, d, v) -> (v, d)>]} : (memref<6x3xf32>, memref<6x5xf32>, memref<5x3xf32>) -> ()
  return %s, %e : memref<6x5xf32>, memref<6x3xf32>
}
