// RUN: ocannl-opt %s --split-input-file --ocannl-infer-shapes --ocannl-lower-to-assign | FileCheck %s

// Projections of each shape logic, as an iteration space and affine maps.
// Axes are in memory order: batch, output, input.

// CHECK-DAG: #[[C:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-DAG: #[[A:.*]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-DAG: #[[B:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-LABEL: func.func @matmul
// CHECK-SAME: (%[[W:.*]]: memref<4x3xf32>, %[[X:.*]]: memref<10x3xf32>) -> memref<10x4xf32>
// CHECK: %[[Y:.*]] = "ocannl_assign.node"() {kind = "value", memory = "materialized", name = "compose_1", shape = "10|4"} : () -> memref<10x4xf32>
// CHECK-NEXT: "ocannl_assign.accum_binop"(%[[Y]], %[[W]], %[[X]]) {accum = "add", indexing_maps = [#[[C]], #[[A]], #[[B]]], initialize_neutral = true, op = "mul", space = array<i64: 10, 4, 3>}
func.func @matmul(%w: !ocannl_shape.tensor<"3->4", f32>, %x: !ocannl_shape.tensor<"10|3", f32>) -> !ocannl_shape.tensor<"?", f32> {
  %y = "ocannl_shape.compose"(%w, %x) : (!ocannl_shape.tensor<"3->4", f32>, !ocannl_shape.tensor<"10|3", f32>) -> !ocannl_shape.tensor<"?", f32>
  return %y : !ocannl_shape.tensor<"?", f32>
}

// -----

// A broadcast dim-1 axis is read at index 0; no reduction: plain assignment.
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[COL:.*]] = affine_map<(d0, d1) -> (d0, 0)>
// CHECK-DAG: #[[ROW:.*]] = affine_map<(d0, d1) -> (0, d1)>
// CHECK-LABEL: func.func @broadcast
// CHECK: "ocannl_assign.accum_binop"({{.*}}) {accum = "assign", indexing_maps = [#[[ID]], #[[COL]], #[[ROW]]], op = "add", space = array<i64: 3, 4>}
func.func @broadcast(%a: !ocannl_shape.tensor<"3,1", f32>, %b: !ocannl_shape.tensor<"1,4", f32>) {
  %c = "ocannl_shape.pointwise_binary"(%a, %b) {op = "add"} : (!ocannl_shape.tensor<"3,1", f32>, !ocannl_shape.tensor<"1,4", f32>) -> !ocannl_shape.tensor<"?", f32>
  return
}

// -----

// Reduction to a scalar: every iterator is reduced.
// CHECK-DAG: #[[OUT:.*]] = affine_map<(d0, d1, d2) -> (0)>
// CHECK-DAG: #[[IN:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @sum
// CHECK: "ocannl_assign.accum_unop"({{.*}}) {accum = "add", indexing_maps = [#[[OUT]], #[[IN]]], initialize_neutral = true, op = "identity", space = array<i64: 7, 4, 3>}
func.func @sum(%x: !ocannl_shape.tensor<"7|3->4", f32>) {
  %s = "ocannl_shape.einsum"(%x) {spec = "...|...->... => 0"} : (!ocannl_shape.tensor<"7|3->4", f32>) -> !ocannl_shape.tensor<"?", f32>
  return
}

// -----

// A fixed index and max as the accumulation.
// CHECK-DAG: #[[SEL:.*]] = affine_map<(d0, d1) -> (d0, 2, d1)>
// CHECK-LABEL: func.func @select
// CHECK: "ocannl_assign.accum_unop"({{.*}}) {accum = "assign", indexing_maps = [#{{.*}}, #[[SEL]]], op = "identity", space = array<i64: 7, 5>}
func.func @select(%x: !ocannl_shape.tensor<"7|3,5", f32>) {
  %y = "ocannl_shape.einsum"(%x) {spec = "...|2,j => ...|j", accum = "max"} : (!ocannl_shape.tensor<"7|3,5", f32>) -> !ocannl_shape.tensor<"?", f32>
  return
}

// -----

// The diagonal: one iterator indexes both axes.
// CHECK-DAG: #[[DIAG:.*]] = affine_map<(d0) -> (d0, d0)>
// CHECK-LABEL: func.func @diagonal
// CHECK: indexing_maps = [#{{.*}}, #[[DIAG]]]
func.func @diagonal(%x: !ocannl_shape.tensor<"3,3", f32>) {
  %y = "ocannl_shape.einsum"(%x) {spec = "ii=>i"} : (!ocannl_shape.tensor<"3,3", f32>) -> !ocannl_shape.tensor<"?", f32>
  return
}

// -----

// A transpose swaps the output and input iterators.
// CHECK-DAG: #[[T:.*]] = affine_map<(d0, d1, d2) -> (d0, d2, d1)>
// CHECK-LABEL: func.func @transpose
// CHECK: "ocannl_assign.accum_unop"({{.*}}) {accum = "assign", indexing_maps = [#{{.*}}, #[[T]]], op = "identity", space = array<i64: 2, 3, 4>}
func.func @transpose(%x: !ocannl_shape.tensor<"2|3->4", f32>) {
  %y = "ocannl_shape.transpose"(%x) : (!ocannl_shape.tensor<"2|3->4", f32>) -> !ocannl_shape.tensor<"?", f32>
  return
}

// -----

// Convolution with stride 2 and dilation 1, then stride 1 and dilation 2.
// CHECK-DAG: #[[S2:.*]] = affine_map<(d0, d1) -> (d0 * 2 + d1)>
// CHECK-DAG: #[[D2:.*]] = affine_map<(d0, d1) -> (d0 + d1 * 2)>
// CHECK-LABEL: func.func @conv
// CHECK: "ocannl_assign.accum_binop"({{.*}}) {accum = "add", indexing_maps = [#{{.*}}, #[[S2]], #{{.*}}], initialize_neutral = true, op = "mul", space = array<i64: 4, 3>}
// CHECK: "ocannl_assign.accum_binop"({{.*}}) {accum = "add", indexing_maps = [#{{.*}}, #[[D2]], #{{.*}}], initialize_neutral = true, op = "mul", space = array<i64: 6, 3>}
func.func @conv(%x: !ocannl_shape.tensor<"10", f32>, %k: !ocannl_shape.tensor<"3", f32>) {
  %a = "ocannl_shape.einsum"(%x, %k) {spec = "2*o<+k; k => o"} : (!ocannl_shape.tensor<"10", f32>, !ocannl_shape.tensor<"3", f32>) -> !ocannl_shape.tensor<"?", f32>
  %b = "ocannl_shape.einsum"(%x, %k) {spec = "o<+2*k; k => o"} : (!ocannl_shape.tensor<"10", f32>, !ocannl_shape.tensor<"3", f32>) -> !ocannl_shape.tensor<"?", f32>
  return
}

// -----

// A batch slice reads the leftmost batch axis at the slice index.
// CHECK-DAG: #[[SL:.*]] = affine_map<(d0, d1)[s0] -> (s0, d0, d1)>
// CHECK-LABEL: func.func @slice
// CHECK-SAME: (%{{.*}}: memref<7x2x3xf32>, %[[I:.*]]: index)
// CHECK: "ocannl_assign.accum_unop"(%{{.*}}, %{{.*}}, %[[I]]) {accum = "assign", indexing_maps = [#{{.*}}, #[[SL]]], op = "identity", space = array<i64: 2, 3>}
func.func @slice(%x: !ocannl_shape.tensor<"7,2|3", f32>, %i: index) {
  %y = "ocannl_shape.batch_slice"(%x, %i) : (!ocannl_shape.tensor<"7,2|3", f32>, index) -> !ocannl_shape.tensor<"?", f32>
  return
}

// -----

// A fixed index in the result writes its position (the other cells keep the
// neutral value), and a consumer's fixed index reads exactly its own:
// OCANNL's `sparse = range 4 ++ "i=>i0"` read by `sparse ++ "i2=>i"`.
// CHECK-DAG: #[[W0:.*]] = affine_map<(d0) -> (d0, 0)>
// CHECK-DAG: #[[R2:.*]] = affine_map<(d0) -> (d0, 2)>
// CHECK-LABEL: func.func @sparse
// CHECK: %[[S:.*]] = "ocannl_assign.node"() {{{.*}}shape = "4,3"} : () -> memref<4x3xf32>
// CHECK-NEXT: "ocannl_assign.accum_unop"(%[[S]], %{{.*}}) {accum = "add", indexing_maps = [#[[W0]], #{{.*}}], initialize_neutral = true,
// CHECK: "ocannl_assign.accum_unop"(%{{.*}}, %[[S]]) {accum = "assign", indexing_maps = [#{{.*}}, #[[R2]]],
func.func @sparse(%r: !ocannl_shape.tensor<"4", f32>) -> !ocannl_shape.tensor<"?", f32> {
  %sparse = "ocannl_shape.einsum"(%r) {spec = "i=>i0"} : (!ocannl_shape.tensor<"4", f32>) -> !ocannl_shape.tensor<"?", f32>
  %y = "ocannl_shape.einsum"(%sparse) {spec = "i2=>i"} : (!ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  return %y : !ocannl_shape.tensor<"?", f32>
}
