// RUN: ocannl-opt %s --ocannl-lower-to-linalg --split-input-file | FileCheck %s
// RUN: ocannl-opt %s --ocannl-lower-to-linalg --split-input-file | mlir-opt --split-input-file > /dev/null

// initialize_neutral: the result is first filled with the accumulation's
// neutral element (0 for a sum), and the assignment accumulates onto it.
// CHECK-LABEL: func.func @sum
// CHECK: %[[E:.*]] = tensor.empty() : tensor<3xf32>
// CHECK: %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[F:.*]] = linalg.fill ins(%[[Z]] : f32) outs(%[[E]] : tensor<3xf32>) -> tensor<3xf32>
// CHECK: linalg.generic {{.*}} outs(%[[F]] : tensor<3xf32>)
func.func @sum(%x: memref<3x4xf32>) -> memref<3xf32> {
  %y = "ocannl_assign.node"() {name = "y", kind = "value", memory = "materialized", shape = "3"} : () -> memref<3xf32>
  "ocannl_assign.accum_unop"(%y, %x) {accum = "add", op = "identity", initialize_neutral = true, space = array<i64: 3, 4>, indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>]} : (memref<3xf32>, memref<3x4xf32>) -> ()
  return %y : memref<3xf32>
}

// -----

// A max accumulation starts from -inf, a product from 1 (f64 here).
// CHECK-LABEL: func.func @max_prod
// CHECK: %[[NINF:.*]] = arith.constant 0xFFF0000000000000 : f64
// CHECK: linalg.fill ins(%[[NINF]] : f64)
// CHECK: arith.maximumf
// CHECK: %[[ONE:.*]] = arith.constant 1.000000e+00 : f64
// CHECK: linalg.fill ins(%[[ONE]] : f64)
// CHECK: arith.mulf
func.func @max_prod(%x: memref<4xf64>) -> (memref<1xf64>, memref<1xf64>) {
  %m = "ocannl_assign.node"() {name = "m", kind = "value", memory = "materialized", shape = "1"} : () -> memref<1xf64>
  "ocannl_assign.accum_unop"(%m, %x) {accum = "max", op = "identity", initialize_neutral = true, space = array<i64: 4>, indexing_maps = [affine_map<(d0) -> (0)>, affine_map<(d0) -> (d0)>]} : (memref<1xf64>, memref<4xf64>) -> ()
  %p = "ocannl_assign.node"() {name = "p", kind = "value", memory = "materialized", shape = "1"} : () -> memref<1xf64>
  "ocannl_assign.accum_unop"(%p, %x) {accum = "mul", op = "identity", initialize_neutral = true, space = array<i64: 4>, indexing_maps = [affine_map<(d0) -> (0)>, affine_map<(d0) -> (d0)>]} : (memref<1xf64>, memref<4xf64>) -> ()
  return %m, %p : memref<1xf64>, memref<1xf64>
}

// -----

// The `fill` op is a linalg.fill of its value.
// CHECK-LABEL: func.func @fill
// CHECK: %[[C:.*]] = arith.constant 2.500000e+00 : f32
// CHECK: linalg.fill ins(%[[C]] : f32) outs(%{{.*}} : tensor<2x2xf32>)
func.func @fill() -> memref<2x2xf32> {
  %y = "ocannl_assign.node"() {name = "y", kind = "value", memory = "materialized", shape = "2|2"} : () -> memref<2x2xf32>
  "ocannl_assign.fill"(%y) {value = 2.5 : f32} : (memref<2x2xf32>) -> ()
  return %y : memref<2x2xf32>
}
