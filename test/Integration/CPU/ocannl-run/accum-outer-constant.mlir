// REQUIRES: ocannl-run
// A body may read float constants of the enclosing region: upstream
// `canonicalize` hoists constants out of an `ocannl_assign.accum` body (it
// cannot be declared isolated from above), and the result still verifies,
// lowers and computes the same values.
// RUN: ocannl-opt %s --canonicalize | FileCheck %s --check-prefix=HOISTED
// RUN: ocannl-opt %s --canonicalize | ocannl-run - --entry f --arg range --arg range | FileCheck %s
// RUN: ocannl-run %s --entry f --arg range --arg range --interpret | FileCheck %s

// HOISTED: func.func @f
// HOISTED-DAG: arith.constant 2.000000e+00 : f32
// HOISTED-DAG: arith.constant 0.000000e+00 : f32
// HOISTED: "ocannl_assign.accum"

// y[i] = sum_j max(x[i, j] - b[j], 0) * 2 with x = 0..11 (4x3), b = 0..2.
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
