// RUN: ocannl-opt %s --ocannl-lower-to-loops --split-input-file | FileCheck %s

// A loop nest over 2^16 cells or more runs its outermost loop in parallel
// (scf.parallel, which the LLVM pipeline lowers to OpenMP).
// CHECK-LABEL: func.func @large
// CHECK: scf.parallel (%[[I:.*]]) =
// CHECK: scf.for %[[J:.*]] =
// CHECK: arith.maximumf
// CHECK: scf.reduce
func.func @large(%x: memref<512x128xf32>) -> memref<512x128xf32> {
  %y = "ocannl_assign.node"() {name = "y", kind = "value", memory = "materialized", shape = "512,128"} : () -> memref<512x128xf32>
  "ocannl_assign.accum_unop"(%y, %x) {accum = "assign", op = "relu", space = array<i64: 512, 128>, indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>]} : (memref<512x128xf32>, memref<512x128xf32>) -> ()
  return %y : memref<512x128xf32>
}

// -----

// Smaller nests stay sequential.
// CHECK-LABEL: func.func @small
// CHECK-NOT: scf.parallel
// CHECK: return
func.func @small(%x: memref<64x128xf32>) -> memref<64x128xf32> {
  %y = "ocannl_assign.node"() {name = "y", kind = "value", memory = "materialized", shape = "64,128"} : () -> memref<64x128xf32>
  "ocannl_assign.accum_unop"(%y, %x) {accum = "assign", op = "relu", space = array<i64: 64, 128>, indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>]} : (memref<64x128xf32>, memref<64x128xf32>) -> ()
  return %y : memref<64x128xf32>
}

// -----

// A large reduction whose outermost loop the result does not depend on
// would race on the result's cells: it stays sequential.
// CHECK-LABEL: func.func @total
// CHECK-NOT: scf.parallel
// CHECK: return
func.func @total(%x: memref<512x128xf32>) -> memref<1xf32> {
  %y = "ocannl_assign.node"() {name = "y", kind = "value", memory = "materialized", shape = "1"} : () -> memref<1xf32>
  "ocannl_assign.accum_unop"(%y, %x) {accum = "add", op = "identity", space = array<i64: 512, 128>, indexing_maps = [affine_map<(d0, d1) -> (0)>, affine_map<(d0, d1) -> (d0, d1)>]} : (memref<1xf32>, memref<512x128xf32>) -> ()
  return %y : memref<1xf32>
}
