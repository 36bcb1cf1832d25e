// REQUIRES: ocannl-run
// RUN: ocannl-run %s --entry f --arg range --arg range | FileCheck %s
// RUN: ocannl-run %s --entry f --arg range --arg range --interpret | FileCheck %s
// RUN: ocannl-run %s --entry f --arg range --arg range --no-optimize | FileCheck %s

// An assignment with a region body runs compiled and interpreted:
// y[i] = sum_j max(x[i, j] - b[j], 0) * 2 with x = 0..11 (4x3), b = 0..2:
// x[i, j] - b[j] = 3i, so y[i] = 3 * 3i * 2 = 18i.
// CHECK: result0: shape [4] dtype f32
// CHECK-NEXT: [0, 18, 36, 54]
func.func @f(%x: memref<4x3xf32>, %b: memref<3xf32>) -> memref<4xf32> {
  %y = "ocannl_assign.node"() {name = "y", kind = "value", memory = "materialized", shape = "4"} : () -> memref<4xf32>
  "ocannl_assign.accum"(%y, %x, %b) ({
  ^bb0(%xv: f32, %bv: f32):
    %s = arith.subf %xv, %bv : f32
    %zero = arith.constant 0.0 : f32
    %r = arith.maximumf %s, %zero : f32
    %two = arith.constant 2.0 : f32
    %t = arith.mulf %r, %two : f32
    vector.yield %t : f32
  }) {accum = "add", initialize_neutral = true, space = array<i64: 4, 3>, indexing_maps = [affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>]} : (memref<4xf32>, memref<4x3xf32>, memref<3xf32>) -> ()
  return %y : memref<4xf32>
}
