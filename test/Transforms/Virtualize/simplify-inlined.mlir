// RUN: ocannl-opt %s --split-input-file --ocannl-virtualize=max-visits=2 --ocannl-simplify | FileCheck %s
// RUN: ocannl-opt %s --split-input-file --ocannl-virtualize=max-visits=2 --ocannl-simplify=fast-math=true | FileCheck %s --check-prefix=FAST
// After inlining, the simplifier works across the inlined computations:
// one e-graph per body shares what two inlined reads compute, and folds
// the inlined constants.

#id = affine_map<(i) -> (i)>
// CHECK-LABEL: func.func @shared
// The two reads of h are one operand (same buffer, same indices).
// CHECK: "ocannl_assign.accum"(%{{.*}}, %arg0) ({
// CHECK-NEXT: ^bb0(%[[X:.*]]: f32):
// CHECK-NEXT: %[[E:.*]] = math.exp %[[X]] : f32
// CHECK-NEXT: %[[M:.*]] = arith.mulf %[[E]], %[[E]] : f32
// CHECK-NEXT: vector.yield %[[M]] : f32
func.func @shared(%x: memref<4xf32>) -> memref<4xf32> {
  %h = "ocannl_assign.node"() {name = "h", kind = "value", memory = "undecided", shape = "4"} : () -> memref<4xf32>
  "ocannl_assign.accum_unop"(%h, %x) {accum = "assign", op = "exp", space = array<i64: 4>, indexing_maps = [#id, #id]} : (memref<4xf32>, memref<4xf32>) -> ()
  %y = "ocannl_assign.node"() {name = "y", kind = "value", memory = "undecided", shape = "4"} : () -> memref<4xf32>
  "ocannl_assign.accum_binop"(%y, %h, %h) {accum = "assign", op = "mul", space = array<i64: 4>, indexing_maps = [#id, #id, #id]} : (memref<4xf32>, memref<4xf32>, memref<4xf32>) -> ()
  return %y : memref<4xf32>
}

// -----

#id = affine_map<(i) -> (i)>
// (x * 2) * 3 with both constants inlined: exactly (x + x) * 3 (doubling
// is exact; reassociating is not), x * 6 with fast-math.
// CHECK-LABEL: func.func @constants
// CHECK: %[[C:.*]] = arith.constant 3.000000e+00
// CHECK-NEXT: %[[D:.*]] = arith.addf %[[X:.*]], %[[X]]
// CHECK-NEXT: arith.mulf %[[D]], %[[C]]
// FAST-LABEL: func.func @constants
// FAST: "ocannl_assign.accum"(%{{.*}}, %arg0) ({
// FAST-NEXT: ^bb0(%[[X:.*]]: f32):
// FAST-NEXT: %[[C:.*]] = arith.constant 6.000000e+00
// FAST-NEXT: %[[M:.*]] = arith.mulf %[[X]], %[[C]] : f32
// FAST-NEXT: vector.yield %[[M]] : f32
func.func @constants(%x: memref<4xf32>) -> memref<4xf32> {
  %two = "ocannl_assign.node"() {name = "two", kind = "value", memory = "undecided", shape = "1"} : () -> memref<1xf32>
  "ocannl_assign.fill"(%two) {value = 2.0 : f32} : (memref<1xf32>) -> ()
  %three = "ocannl_assign.node"() {name = "three", kind = "value", memory = "undecided", shape = "1"} : () -> memref<1xf32>
  "ocannl_assign.fill"(%three) {value = 3.0 : f32} : (memref<1xf32>) -> ()
  %h = "ocannl_assign.node"() {name = "h", kind = "value", memory = "undecided", shape = "4"} : () -> memref<4xf32>
  "ocannl_assign.accum_binop"(%h, %x, %two) {accum = "assign", op = "mul", space = array<i64: 4>, indexing_maps = [#id, #id, affine_map<(i) -> (0)>]} : (memref<4xf32>, memref<4xf32>, memref<1xf32>) -> ()
  %y = "ocannl_assign.node"() {name = "y", kind = "value", memory = "undecided", shape = "4"} : () -> memref<4xf32>
  "ocannl_assign.accum_binop"(%y, %h, %three) {accum = "assign", op = "mul", space = array<i64: 4>, indexing_maps = [#id, #id, affine_map<(i) -> (0)>]} : (memref<4xf32>, memref<4xf32>, memref<1xf32>) -> ()
  return %y : memref<4xf32>
}
