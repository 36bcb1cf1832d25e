// RUN: ocannl-opt %s --ocannl-lower-to-linalg --split-input-file | FileCheck %s
// RUN: ocannl-opt %s --ocannl-lower-to-linalg --split-input-file | mlir-opt --split-input-file > /dev/null
// RUN: ocannl-opt %s --ocannl-lower-to-linalg=named-ops=false --split-input-file | FileCheck %s --check-prefix=GENERIC

// c[i, j] += a[i, k] * b[k, j] is a linalg.matmul (after the fill).
// CHECK-LABEL: func.func @matmul
// CHECK: %[[F:.*]] = linalg.fill
// CHECK: linalg.matmul ins(%arg0, %arg1 : tensor<4x5xf32>, tensor<5x6xf32>) outs(%[[F]] : tensor<4x6xf32>) -> tensor<4x6xf32>
// GENERIC-LABEL: func.func @matmul
// GENERIC-NOT: linalg.matmul
// GENERIC: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]
func.func @matmul(%a: memref<4x5xf32>, %b: memref<5x6xf32>) -> memref<4x6xf32> {
  %c = "ocannl_assign.node"() {name = "c", kind = "value", memory = "materialized", shape = "4,6"} : () -> memref<4x6xf32>
  "ocannl_assign.accum_binop"(%c, %a, %b) {accum = "add", op = "mul", initialize_neutral = true, space = array<i64: 4, 6, 5>, indexing_maps = [affine_map<(i, j, k) -> (i, j)>, affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>]} : (memref<4x6xf32>, memref<4x5xf32>, memref<5x6xf32>) -> ()
  return %c : memref<4x6xf32>
}

// -----

// A dense layer's product y[b, o] += w[o, i] * x[b, i]: x is the matmul's
// A, and w its B read transposed (indexing maps of the named op).
// CHECK-DAG: #[[A:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG: #[[BT:.*]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-DAG: #[[C:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @dense
// CHECK: linalg.matmul indexing_maps = [#[[A]], #[[BT]], #[[C]]] ins(%arg1, %arg0 : tensor<10x2xf32>, tensor<16x2xf32>)
func.func @dense(%w: memref<16x2xf32>, %x: memref<10x2xf32>) -> memref<10x16xf32> {
  %y = "ocannl_assign.node"() {name = "y", kind = "value", memory = "materialized", shape = "10|16"} : () -> memref<10x16xf32>
  "ocannl_assign.accum_binop"(%y, %w, %x) {accum = "add", op = "mul", initialize_neutral = true, space = array<i64: 10, 16, 2>, indexing_maps = [affine_map<(b, o, i) -> (b, o)>, affine_map<(b, o, i) -> (o, i)>, affine_map<(b, o, i) -> (b, i)>]} : (memref<10x16xf32>, memref<16x2xf32>, memref<10x2xf32>) -> ()
  return %y : memref<10x16xf32>
}

// -----

// A batch of products, A transposed: c[b, i, j] += a[b, k, i] * y[b, k, j].
// Without initialize_neutral the product accumulates onto c's value.
// CHECK-DAG: #[[AT:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d3, d1)>
// CHECK-LABEL: func.func @batch
// CHECK-NOT: linalg.fill
// CHECK: linalg.batch_matmul indexing_maps = [#[[AT]], #{{.*}}, #{{.*}}] ins(%arg0, %arg1 : tensor<2x3x4xf32>, tensor<2x3x5xf32>) outs(%arg2 : tensor<2x4x5xf32>)
// GENERIC-LABEL: func.func @batch
// GENERIC: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "reduction"]
func.func @batch(%a: memref<2x3x4xf32>, %y: memref<2x3x5xf32>, %c: memref<2x4x5xf32>) {
  "ocannl_assign.accum_binop"(%c, %a, %y) {accum = "add", op = "mul", space = array<i64: 2, 4, 5, 3>, indexing_maps = [affine_map<(b, i, j, k) -> (b, i, j)>, affine_map<(b, i, j, k) -> (b, k, i)>, affine_map<(b, i, j, k) -> (b, k, j)>]} : (memref<2x4x5xf32>, memref<2x3x4xf32>, memref<2x3x5xf32>) -> ()
  return
}

// -----

// Not a matrix product: an outer product (no reduction), a max of
// products, a broadcast operand.
// CHECK-LABEL: func.func @others
// CHECK-NOT: linalg.matmul
// CHECK-NOT: linalg.batch_matmul
// CHECK: return
func.func @others(%a: memref<4xf32>, %b: memref<6xf32>, %m: memref<4x1xf32>) -> (memref<4x6xf32>, memref<4x6xf32>) {
  %c = "ocannl_assign.node"() {name = "c", kind = "value", memory = "materialized", shape = "4,6"} : () -> memref<4x6xf32>
  "ocannl_assign.accum_binop"(%c, %a, %b) {accum = "add", op = "mul", initialize_neutral = true, space = array<i64: 4, 6>, indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (j)>]} : (memref<4x6xf32>, memref<4xf32>, memref<6xf32>) -> ()
  %d = "ocannl_assign.node"() {name = "d", kind = "value", memory = "materialized", shape = "4,6"} : () -> memref<4x6xf32>
  "ocannl_assign.accum_binop"(%d, %m, %b) {accum = "add", op = "mul", initialize_neutral = true, space = array<i64: 4, 6, 1>, indexing_maps = [affine_map<(i, j, k) -> (i, j)>, affine_map<(i, j, k) -> (i, 0)>, affine_map<(i, j, k) -> (j)>]} : (memref<4x6xf32>, memref<4x1xf32>, memref<6xf32>) -> ()
  return %c, %d : memref<4x6xf32>, memref<4x6xf32>
}
