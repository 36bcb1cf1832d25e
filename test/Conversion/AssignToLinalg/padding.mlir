// RUN: ocannl-opt %s --ocannl-lower-to-linalg --split-input-file | FileCheck %s
// RUN: ocannl-opt %s --ocannl-lower-to-linalg --split-input-file | mlir-opt --split-input-file > /dev/null

// A padded convolution reads x[o + k - 1], which leaves x at both ends: x
// is padded by one cell each side with the padding value, the
// accumulation's neutral element (0 for a sum), and read at o + k.
// CHECK-DAG: #[[XM:.*]] = affine_map<(d0, d1) -> (d0 + d1)>
// CHECK-LABEL: func.func @padded
// CHECK: %[[P:.*]] = tensor.pad %arg0 low[1] high[1] {
// CHECK-NEXT: ^bb0(%{{.*}}: index):
// CHECK-NEXT: %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: tensor.yield %[[Z]] : f32
// CHECK-NEXT: } : tensor<6xf32> to tensor<8xf32>
// CHECK: linalg.generic {indexing_maps = [#[[XM]], #{{.*}}, #{{.*}}], iterator_types = ["parallel", "reduction"]} ins(%[[P]], %arg1 : tensor<8xf32>, tensor<3xf32>)
func.func @padded(%x: memref<6xf32>, %w: memref<3xf32>) -> memref<6xf32> {
  %y = "ocannl_assign.node"() {name = "y", kind = "value", memory = "materialized", shape = "6"} : () -> memref<6xf32>
  "ocannl_assign.accum_binop"(%y, %x, %w) {accum = "add", op = "mul", initialize_neutral = true, space = array<i64: 6, 3>, indexing_maps = [affine_map<(o, k) -> (o)>, affine_map<(o, k) -> (o + k - 1)>, affine_map<(o, k) -> (k)>]} : (memref<6xf32>, memref<6xf32>, memref<3xf32>) -> ()
  return %y : memref<6xf32>
}

// -----

// Max-pooling pads with -inf; a stride reading only the low edge pads
// only there.
// CHECK-LABEL: func.func @pool
// CHECK: tensor.pad %arg0 low[1] high[0]
// CHECK: arith.constant 0xFF800000 : f32
// CHECK: } : tensor<6xf32> to tensor<7xf32>
func.func @pool(%x: memref<6xf32>) -> memref<3xf32> {
  %y = "ocannl_assign.node"() {name = "y", kind = "value", memory = "materialized", shape = "3"} : () -> memref<3xf32>
  "ocannl_assign.accum_unop"(%y, %x) {accum = "max", op = "identity", initialize_neutral = true, space = array<i64: 3, 3>, indexing_maps = [affine_map<(o, k) -> (o)>, affine_map<(o, k) -> (o * 2 + k - 1)>]} : (memref<3xf32>, memref<6xf32>) -> ()
  return %y : memref<3xf32>
}

// -----

// A valid convolution stays inside x: no padding.
// CHECK-LABEL: func.func @valid
// CHECK-NOT: tensor.pad
// CHECK: return
func.func @valid(%x: memref<6xf32>, %w: memref<3xf32>) -> memref<4xf32> {
  %y = "ocannl_assign.node"() {name = "y", kind = "value", memory = "materialized", shape = "4"} : () -> memref<4xf32>
  "ocannl_assign.accum_binop"(%y, %x, %w) {accum = "add", op = "mul", initialize_neutral = true, space = array<i64: 4, 3>, indexing_maps = [affine_map<(o, k) -> (o)>, affine_map<(o, k) -> (o + k)>, affine_map<(o, k) -> (k)>]} : (memref<4xf32>, memref<6xf32>, memref<3xf32>) -> ()
  return %y : memref<4xf32>
}

// -----

// The gradient of a padded read writes g[o + k - 1]: the result is padded,
// updated, and its padding cut off again (writes outside are dropped).
// CHECK-LABEL: func.func @padded_write
// CHECK: %[[P:.*]] = tensor.pad %arg2 low[1] high[1]
// CHECK: %[[R:.*]] = linalg.generic {{.*}} outs(%[[P]] : tensor<8xf32>)
// CHECK: %[[G:.*]] = tensor.extract_slice %[[R]][1] [6] [1] : tensor<8xf32> to tensor<6xf32>
// CHECK: return %[[G]] : tensor<6xf32>
func.func @padded_write(%d: memref<6xf32>, %w: memref<3xf32>, %g: memref<6xf32>) {
  "ocannl_assign.accum_binop"(%g, %d, %w) {accum = "add", op = "mul", space = array<i64: 6, 3>, indexing_maps = [affine_map<(o, k) -> (o + k - 1)>, affine_map<(o, k) -> (o)>, affine_map<(o, k) -> (k)>]} : (memref<6xf32>, memref<6xf32>, memref<3xf32>) -> ()
  return
}
