// RUN: ocannl-opt %s --split-input-file --ocannl-virtualize | FileCheck %s
// RUN: ocannl-opt %s --split-input-file --ocannl-virtualize | FileCheck %s --check-prefix=MAPS
// A second run changes nothing:
// RUN: ocannl-opt %s --split-input-file --ocannl-virtualize --ocannl-virtualize | FileCheck %s
// RUN: ocannl-opt %s --split-input-file --ocannl-virtualize=max-visits=3 | FileCheck %s --check-prefix=BUDGET
// MAPS: affine_map<(d0)[s0] -> (s0, d0)>
// Virtual nodes are inlined into their readers through the projections:
// the reader becomes an ocannl_assign.accum whose body computes the node's
// cell, and the node's op stays, unused, as the record of the decision.

#id = affine_map<(i, j) -> (i, j)>
// CHECK-LABEL: func.func @chain
func.func @chain(%x: memref<4x3xf32>) -> memref<4xf32> {
  // CHECK: "ocannl_assign.node"() {kind = "value", memory = "virtual", memory_reason = "inlined into 1 assignment", name = "h"
  %h = "ocannl_assign.node"() {name = "h", kind = "value", memory = "undecided", shape = "4,3"} : () -> memref<4x3xf32>
  "ocannl_assign.accum_unop"(%h, %x) {accum = "assign", op = "relu", space = array<i64: 4, 3>, indexing_maps = [#id, #id]} : (memref<4x3xf32>, memref<4x3xf32>) -> ()
  // CHECK: "ocannl_assign.node"() {kind = "value", memory = "virtual", memory_reason = "inlined into 1 assignment", name = "two"
  %two = "ocannl_assign.node"() {name = "two", kind = "value", memory = "undecided", shape = "1"} : () -> memref<1xf32>
  "ocannl_assign.fill"(%two) {value = 2.0 : f32} : (memref<1xf32>) -> ()
  // The transposed read of h substitutes h's iterators by the reader's
  // indices: h[j, i] in a space (j, i) reads x at (j, i).
  // CHECK: "ocannl_assign.node"() {kind = "value", memory = "materialized", memory_reason = "returned by the routine", name = "y"
  // CHECK-NOT: ocannl_assign.fill
  // CHECK: "ocannl_assign.accum"(%{{.*}}, %arg0) ({
  // CHECK-NEXT: ^bb0(%[[X:.*]]: f32):
  // CHECK-NEXT: %[[Z:.*]] = arith.constant 0.000000e+00 : f32
  // CHECK-NEXT: %[[R:.*]] = arith.maximumf %[[X]], %[[Z]] : f32
  // CHECK-NEXT: %[[C:.*]] = arith.constant 2.000000e+00 : f32
  // CHECK-NEXT: %[[M:.*]] = arith.mulf %[[R]], %[[C]] : f32
  // CHECK-NEXT: vector.yield %[[M]] : f32
  // CHECK-NEXT: }) {accum = "add", indexing_maps = [#{{.*}}, #[[XMAP:.*]]], initialize_neutral = true, space = array<i64: 3, 4>}
  %y = "ocannl_assign.node"() {name = "y", kind = "value", memory = "undecided", shape = "4"} : () -> memref<4xf32>
  "ocannl_assign.accum_binop"(%y, %h, %two) {accum = "add", op = "mul", initialize_neutral = true, space = array<i64: 3, 4>, indexing_maps = [affine_map<(j, i) -> (i)>, affine_map<(j, i) -> (i, j)>, affine_map<(j, i) -> (0)>]} : (memref<4xf32>, memref<4x3xf32>, memref<1xf32>) -> ()
  return %y : memref<4xf32>
}

// -----

#id = affine_map<(i) -> (i)>
// A fill then one accumulation (a gradient's `=-`) is one computation:
// 0 - x.
// CHECK-LABEL: func.func @fill_then_accumulate
func.func @fill_then_accumulate(%x: memref<4xf32>) -> memref<4xf32> {
  // CHECK: memory = "virtual"
  %g = "ocannl_assign.node"() {name = "g", kind = "grad", memory = "undecided", shape = "4"} : () -> memref<4xf32>
  "ocannl_assign.fill"(%g) {value = 0.0 : f32} : (memref<4xf32>) -> ()
  "ocannl_assign.accum_unop"(%g, %x) {accum = "sub", op = "identity", space = array<i64: 4>, indexing_maps = [#id, #id]} : (memref<4xf32>, memref<4xf32>) -> ()
  // CHECK: "ocannl_assign.accum"(%{{.*}}, %arg0) ({
  // CHECK-NEXT: ^bb0(%[[X:.*]]: f32):
  // CHECK-NEXT: %[[Z:.*]] = arith.constant 0.000000e+00 : f32
  // CHECK-NEXT: %[[D:.*]] = arith.subf %[[Z]], %[[X]] : f32
  // CHECK-NEXT: %[[E:.*]] = math.exp %[[D]] : f32
  // CHECK-NEXT: vector.yield %[[E]] : f32
  %y = "ocannl_assign.node"() {name = "y", kind = "value", memory = "undecided", shape = "4"} : () -> memref<4xf32>
  "ocannl_assign.accum_unop"(%y, %g) {accum = "assign", op = "exp", space = array<i64: 4>, indexing_maps = [#id, #id]} : (memref<4xf32>, memref<4xf32>) -> ()
  return %y : memref<4xf32>
}

// -----

// A batch slice (an index operand) inlined: the reader takes the index.
// Its body is one op of its operands, so it keeps the one-op form.
// CHECK-LABEL: func.func @slice
func.func @slice(%x: memref<5x3xf32>, %i: index) -> memref<3xf32> {
  // CHECK: memory = "virtual"
  %s = "ocannl_assign.node"() {name = "s", kind = "value", memory = "undecided", shape = "3"} : () -> memref<3xf32>
  "ocannl_assign.accum_unop"(%s, %x, %i) {accum = "assign", op = "identity", space = array<i64: 3>, indexing_maps = [affine_map<(j)[s0] -> (j)>, affine_map<(j)[s0] -> (s0, j)>]} : (memref<3xf32>, memref<5x3xf32>, index) -> ()
  // CHECK: "ocannl_assign.accum_unop"(%{{.*}}, %arg0, %arg1) {accum = "assign", indexing_maps = [#{{.*}}, #{{.*}}], op = "tanh"
  %y = "ocannl_assign.node"() {name = "y", kind = "value", memory = "undecided", shape = "3"} : () -> memref<3xf32>
  "ocannl_assign.accum_unop"(%y, %s) {accum = "assign", op = "tanh", space = array<i64: 3>, indexing_maps = [affine_map<(j) -> (j)>, affine_map<(j) -> (j)>]} : (memref<3xf32>, memref<3xf32>) -> ()
  return %y : memref<3xf32>
}

// -----

// A broadcast read computes each cell of h 3 times: over the default
// budget, within max-visits=3.
// CHECK-LABEL: func.func @broadcast
// BUDGET-LABEL: func.func @broadcast
func.func @broadcast(%x: memref<4xf32>) -> memref<4x3xf32> {
  // CHECK: memory = "local", memory_reason = "each cell would be computed 3 times (budget: 1)"
  // BUDGET: memory = "virtual"
  %h = "ocannl_assign.node"() {name = "h", kind = "value", memory = "undecided", shape = "4"} : () -> memref<4xf32>
  "ocannl_assign.accum_unop"(%h, %x) {accum = "assign", op = "exp", space = array<i64: 4>, indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>]} : (memref<4xf32>, memref<4xf32>) -> ()
  // BUDGET: "ocannl_assign.accum"(%{{.*}}, %arg0) ({
  // BUDGET: math.exp
  // BUDGET-NEXT: arith.negf
  // BUDGET: {accum = "assign", indexing_maps = [#{{.*}}, #{{.*}}], space = array<i64: 4, 3>}
  %y = "ocannl_assign.node"() {name = "y", kind = "value", memory = "undecided", shape = "4,3"} : () -> memref<4x3xf32>
  "ocannl_assign.accum_unop"(%y, %h) {accum = "assign", op = "neg", space = array<i64: 4, 3>, indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>]} : (memref<4x3xf32>, memref<4xf32>) -> ()
  return %y : memref<4x3xf32>
}
