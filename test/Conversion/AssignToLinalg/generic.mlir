// RUN: ocannl-opt %s --ocannl-lower-to-linalg --split-input-file | FileCheck %s
// RUN: ocannl-opt %s --ocannl-lower-to-linalg --split-input-file | mlir-opt --split-input-file > /dev/null

// A pointwise assignment: every iterator indexes the result as itself, so
// every iterator is parallel; the body is the op, assigned (no
// accumulation reads the result).
// CHECK-LABEL: func.func @pointwise
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>, %[[Y:.*]]: tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: %[[E:.*]] = tensor.empty() : tensor<2x3xf32>
// CHECK: %[[R:.*]] = linalg.generic {indexing_maps = [#[[ID:map[0-9]*]], #[[ID]], #[[ID]]], iterator_types = ["parallel", "parallel"]} ins(%[[X]], %[[Y]] : tensor<2x3xf32>, tensor<2x3xf32>) outs(%[[E]] : tensor<2x3xf32>)
// CHECK-NEXT: ^bb0(%[[A:.*]]: f32, %[[B:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[A]], %[[B]] : f32
// CHECK-NEXT: linalg.yield %[[S]] : f32
// CHECK: return %[[R]]
func.func @pointwise(%x: memref<2x3xf32>, %y: memref<2x3xf32>) -> memref<2x3xf32> {
  %z = "ocannl_assign.node"() {name = "z", kind = "value", memory = "materialized", shape = "2|3"} : () -> memref<2x3xf32>
  "ocannl_assign.accum_binop"(%z, %x, %y) {accum = "assign", op = "add", space = array<i64: 2, 3>, indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>]} : (memref<2x3xf32>, memref<2x3xf32>, memref<2x3xf32>) -> ()
  return %z : memref<2x3xf32>
}

// -----

// A reduction: the iterator the result does not depend on is a reduction,
// and the body accumulates onto the output's value. A broadcast axis reads
// index 0 (a constant map result).
// CHECK-DAG: #[[RES:.*]] = affine_map<(d0, d1) -> (d0)>
// CHECK-DAG: #[[ARG:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[BC:.*]] = affine_map<(d0, d1) -> (0, d1)>
// CHECK-LABEL: func.func @sum
// CHECK: linalg.generic {indexing_maps = [#[[ARG]], #[[BC]], #[[RES]]], iterator_types = ["parallel", "reduction"]}
// CHECK-NEXT: ^bb0(%[[A:.*]]: f32, %[[B:.*]]: f32, %[[OUT:.*]]: f32):
// CHECK-NEXT: %[[M:.*]] = arith.mulf %[[A]], %[[B]] : f32
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[OUT]], %[[M]] fastmath<reassoc,contract> : f32
// CHECK-NEXT: linalg.yield %[[S]] : f32
func.func @sum(%x: memref<3x4xf32>, %w: memref<1x4xf32>) -> memref<3xf32> {
  %y = "ocannl_assign.node"() {name = "y", kind = "value", memory = "materialized", shape = "3"} : () -> memref<3xf32>
  "ocannl_assign.accum_binop"(%y, %x, %w) {accum = "add", op = "mul", space = array<i64: 3, 4>, indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (0, d1)>]} : (memref<3xf32>, memref<3x4xf32>, memref<1x4xf32>) -> ()
  return %y : memref<3xf32>
}

// -----

// A result index combining iterators (a convolution's input gradient,
// g[o + k] += d[o] * w[k]): distinct iterations write the same cells, so
// both iterators are reductions.
// CHECK-LABEL: func.func @scatter
// CHECK: linalg.generic {{.*}} iterator_types = ["reduction", "reduction"]
func.func @scatter(%d: memref<4xf32>, %w: memref<3xf32>, %g: memref<6xf32>) {
  "ocannl_assign.accum_binop"(%g, %d, %w) {accum = "add", op = "mul", space = array<i64: 4, 3>, indexing_maps = [affine_map<(o, k) -> (o + k)>, affine_map<(o, k) -> (o)>, affine_map<(o, k) -> (k)>]} : (memref<6xf32>, memref<4xf32>, memref<3xf32>) -> ()
  return
}

// -----

// An iterator that no operand indexes as itself (here s[0] += x[2i]): a
// shape-only operand of its extent gives the op its bounds.
// CHECK-LABEL: func.func @strided
// CHECK: %[[D:.*]] = tensor.empty() : tensor<3xf32>
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}, #{{.*}}], iterator_types = ["reduction"]} ins(%arg0, %[[D]] : tensor<6xf32>, tensor<3xf32>)
func.func @strided(%x: memref<6xf32>) -> memref<1xf32> {
  %s = "ocannl_assign.node"() {name = "s", kind = "value", memory = "materialized", shape = "1"} : () -> memref<1xf32>
  "ocannl_assign.accum_unop"(%s, %x) {accum = "add", op = "identity", space = array<i64: 3>, indexing_maps = [affine_map<(i) -> (0)>, affine_map<(i) -> (i * 2)>]} : (memref<1xf32>, memref<6xf32>) -> ()
  return %s : memref<1xf32>
}

// -----

// A body of several ops (`ocannl_assign.accum`) is emitted as it reads.
// CHECK-LABEL: func.func @body
// CHECK: linalg.generic
// CHECK: math.exp
// CHECK: arith.mulf
// CHECK: arith.maximumf
func.func @body(%x: memref<4xf32>) -> memref<4xf32> {
  %y = "ocannl_assign.node"() {name = "y", kind = "value", memory = "materialized", shape = "4"} : () -> memref<4xf32>
  "ocannl_assign.accum"(%y, %x) ({
  ^bb0(%a: f32):
    %e = math.exp %a : f32
    %m = arith.mulf %e, %a : f32
    vector.yield %m : f32
  }) {accum = "max", initialize_neutral = true, space = array<i64: 4>, indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>]} : (memref<4xf32>, memref<4xf32>) -> ()
  return %y : memref<4xf32>
}
