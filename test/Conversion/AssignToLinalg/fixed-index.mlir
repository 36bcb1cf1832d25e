// RUN: ocannl-opt %s --ocannl-lower-to-linalg --split-input-file | FileCheck %s
// RUN: ocannl-opt %s --ocannl-lower-to-linalg --split-input-file | mlir-opt --split-input-file > /dev/null

// A fixed index of the result (OCANNL's `i=>i2`): the op writes the
// one-cell window at it (a constant 0 result of its map), inserted back,
// so that its output map covers all it sees; the result's other cells keep
// the neutral element of the fill. An operand's fixed index is a constant
// result of its map.
// CHECK-DAG: #[[FIXED:.*]] = affine_map<(d0) -> (d0, 0)>
// CHECK-DAG: #[[READ:.*]] = affine_map<(d0) -> (1, d0)>
// CHECK-LABEL: func.func @fixed
// CHECK: %[[F:.*]] = linalg.fill
// CHECK: %[[W:.*]] = tensor.extract_slice %[[F]][0, 2] [4, 1] [1, 1] : tensor<4x3xf32> to tensor<4x1xf32>
// CHECK: %[[R:.*]] = linalg.generic {indexing_maps = [#[[READ]], #[[FIXED]]], iterator_types = ["parallel"]} ins(%arg0 : tensor<2x4xf32>) outs(%[[W]] : tensor<4x1xf32>)
// CHECK: tensor.insert_slice %[[R]] into %[[F]][0, 2] [4, 1] [1, 1] : tensor<4x1xf32> into tensor<4x3xf32>
func.func @fixed(%x: memref<2x4xf32>) -> memref<4x3xf32> {
  %y = "ocannl_assign.node"() {name = "y", kind = "value", memory = "materialized", shape = "4,3"} : () -> memref<4x3xf32>
  "ocannl_assign.accum_unop"(%y, %x) {accum = "add", op = "identity", initialize_neutral = true, space = array<i64: 4>, indexing_maps = [affine_map<(i) -> (i, 2)>, affine_map<(i) -> (1, i)>]} : (memref<4x3xf32>, memref<2x4xf32>) -> ()
  return %y : memref<4x3xf32>
}

// -----

// A plain iterator over part of its axis (4 of the 5 rows, as when a
// consumer's fixed index widened the result): the op sees that window of
// the result, which is inserted back.
// CHECK-LABEL: func.func @part
// CHECK: %[[W:.*]] = tensor.extract_slice %[[F:.*]][0, 0] [4, 3] [1, 1] : tensor<5x3xf32> to tensor<4x3xf32>
// CHECK: %[[R:.*]] = linalg.generic {{.*}} outs(%[[W]] : tensor<4x3xf32>)
// CHECK: tensor.insert_slice %[[R]] into %[[F]][0, 0] [4, 3] [1, 1] : tensor<4x3xf32> into tensor<5x3xf32>
func.func @part(%x: memref<4x3xf32>) -> memref<5x3xf32> {
  %y = "ocannl_assign.node"() {name = "y", kind = "value", memory = "materialized", shape = "5,3"} : () -> memref<5x3xf32>
  "ocannl_assign.accum_unop"(%y, %x) {accum = "add", op = "identity", initialize_neutral = true, space = array<i64: 4, 3>, indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>]} : (memref<5x3xf32>, memref<4x3xf32>) -> ()
  return %y : memref<5x3xf32>
}
