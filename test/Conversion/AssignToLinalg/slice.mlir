// RUN: ocannl-opt %s --ocannl-lower-to-linalg --split-input-file | FileCheck %s
// RUN: ocannl-opt %s --ocannl-lower-to-linalg --split-input-file | mlir-opt --split-input-file > /dev/null

// batch_slice reads x[s0, j]: x is cut to the one row at the run-time
// index (tensor.extract_slice with a dynamic offset), read at row 0; the
// index is checked first (cf.assert, with the message the loops' run-time
// check gives).
// CHECK-DAG: #[[ROW:.*]] = affine_map<(d0) -> (0, d0)>
// CHECK-LABEL: func.func @slice
// CHECK-SAME: (%[[X:.*]]: tensor<3x2xf32>, %[[I:.*]]: index) -> tensor<2xf32>
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[LAST:.*]] = arith.constant 2 : index
// CHECK: %[[GE:.*]] = arith.cmpi sge, %[[I]], %[[ZERO]] : index
// CHECK: %[[LE:.*]] = arith.cmpi sle, %[[I]], %[[LAST]] : index
// CHECK: %[[OK:.*]] = arith.andi %[[GE]], %[[LE]] : i1
// CHECK: cf.assert %[[OK]], "{{.*}}slice.mlir:[[@LINE+5]]:3: error: the slice index (argument #1 of @slice) is outside the axis of 3 cell(s) (valid indices: 0 to 2)"
// CHECK: %[[ROWS:.*]] = tensor.extract_slice %[[X]][%[[I]], 0] [1, 2] [1, 1] : tensor<3x2xf32> to tensor<1x2xf32>
// CHECK: linalg.generic {indexing_maps = [#[[ROW]], #{{.*}}], iterator_types = ["parallel"]} ins(%[[ROWS]] : tensor<1x2xf32>)
func.func @slice(%x: memref<3x2xf32>, %i: index) -> memref<2xf32> {
  %y = "ocannl_assign.node"() {kind = "value", memory = "materialized", name = "slice_1", shape = "2"} : () -> memref<2xf32>
  "ocannl_assign.accum_unop"(%y, %x, %i) {accum = "assign", indexing_maps = [affine_map<(d0)[s0] -> (d0)>, affine_map<(d0)[s0] -> (s0, d0)>], op = "identity", space = array<i64: 2>} : (memref<2xf32>, memref<3x2xf32>, index) -> ()
  return %y : memref<2xf32>
}

// -----

// The gradient of a slice writes g[s0, j]: the row is cut out of g,
// updated, and inserted back at the same run-time offset.
// CHECK-LABEL: func.func @slice_grad
// CHECK-SAME: (%[[D:.*]]: tensor<2xf32>, %[[G:.*]]: tensor<3x2xf32>, %[[I:.*]]: index) -> tensor<3x2xf32>
// CHECK: cf.assert
// CHECK: %[[ROW:.*]] = tensor.extract_slice %[[G]][%[[I]], 0] [1, 2] [1, 1]
// CHECK: %[[NEW:.*]] = linalg.generic {{.*}} outs(%[[ROW]] : tensor<1x2xf32>)
// CHECK: %[[R:.*]] = tensor.insert_slice %[[NEW]] into %[[G]][%[[I]], 0] [1, 2] [1, 1] : tensor<1x2xf32> into tensor<3x2xf32>
// CHECK: return %[[R]]
func.func @slice_grad(%d: memref<2xf32>, %g: memref<3x2xf32>, %i: index) {
  "ocannl_assign.accum_unop"(%g, %d, %i) {accum = "add", indexing_maps = [affine_map<(d0)[s0] -> (s0, d0)>, affine_map<(d0)[s0] -> (d0)>], op = "identity", space = array<i64: 2>} : (memref<3x2xf32>, memref<2xf32>, index) -> ()
  return
}

// -----

// A window of several rows at 2 * s0 + 1: the start is computed with arith
// ops and checked to leave room for the whole window.
// CHECK-LABEL: func.func @window
// CHECK: %[[M:.*]] = arith.muli %arg1, %{{.*}} : index
// CHECK: %[[S:.*]] = arith.addi %[[M]], %{{.*}} : index
// CHECK: arith.cmpi sle, %[[S]], %{{.*}} : index
// CHECK: cf.assert %{{.*}}, "{{.*}}slice.mlir:[[@LINE+4]]:3: error: the window of 2 cell(s) of axis 0 of operand #1, which starts at a run-time index, does not fit in the axis of 8 cell(s) (valid starts: 0 to 6)"
// CHECK: tensor.extract_slice %arg0[%[[S]]] [2] [1] : tensor<8xf32> to tensor<2xf32>
func.func @window(%x: memref<8xf32>, %i: index) -> memref<2xf32> {
  %y = "ocannl_assign.node"() {kind = "value", memory = "materialized", name = "y", shape = "2"} : () -> memref<2xf32>
  "ocannl_assign.accum_unop"(%y, %x, %i) {accum = "assign", indexing_maps = [affine_map<(d0)[s0] -> (d0)>, affine_map<(d0)[s0] -> (s0 * 2 + d0 + 1)>], op = "identity", space = array<i64: 2>} : (memref<2xf32>, memref<8xf32>, index) -> ()
  return %y : memref<2xf32>
}
