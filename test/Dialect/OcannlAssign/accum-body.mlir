// RUN: ocannl-opt %s | ocannl-opt | FileCheck %s
// Stock mlir-opt with the IRDL file parses and prints it too (its inputs
// share one type, the IRDL limit), and with the plugin whatever the types:
// RUN: mlir-opt --irdl-file=%assign_irdl %s | mlir-opt --irdl-file=%assign_irdl | FileCheck %s
// RUN: %if plugin %{ mlir-opt --load-dialect-plugin=%plugin %s | FileCheck %s %}
// Upstream passes work inside a body: cse merges the repeated constant.
// RUN: ocannl-opt %s --cse | FileCheck %s --check-prefix=CSE

// An assignment with a region body round-trips: the block arguments are the
// elements read, the body is arith/math ending with vector.yield.

// CHECK-LABEL: func.func @fused
// CHECK: "ocannl_assign.accum"(%{{.*}}, %{{.*}}, %{{.*}}) ({
// CHECK-NEXT: ^bb0(%[[A:.*]]: f32, %[[B:.*]]: f32):
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[A]], %[[B]] : f32
// CHECK-NEXT: %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: %[[R:.*]] = arith.maximumf %[[S]], %[[Z]] : f32
// CHECK: vector.yield %{{.*}} : f32
// CHECK-NEXT: }) {accum = "add", indexing_maps = [#{{.*}}, #{{.*}}, #{{.*}}], initialize_neutral = true, space = array<i64: 4, 3>} : (memref<4xf32>, memref<4x3xf32>, memref<4x3xf32>) -> ()
// CSE-LABEL: func.func @fused
// CSE-COUNT-1: arith.constant 0.0
// CSE-NOT: arith.constant 0.0
func.func @fused(%x: memref<4x3xf32>, %b: memref<4x3xf32>, %y: memref<4xf32>) {
  "ocannl_assign.accum"(%y, %x, %b) ({
  ^bb0(%xv: f32, %bv: f32):
    %s = arith.addf %xv, %bv : f32
    %zero = arith.constant 0.0 : f32
    %r = arith.maximumf %s, %zero : f32
    %zero2 = arith.constant 0.0 : f32
    %t = arith.addf %r, %zero2 : f32
    vector.yield %t : f32
  }) {accum = "add", initialize_neutral = true, space = array<i64: 4, 3>, indexing_maps = [affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>]} : (memref<4xf32>, memref<4x3xf32>, memref<4x3xf32>) -> ()
  return
}
