// A sum of bf16 products is computed in f32 and rounded to bf16 once per
// cell: the operands are loaded and extended, the reduction (k) is the
// innermost loop, carried in an f32 register even though the result's
// contiguous axis (j) would otherwise run innermost, and the sum is
// rounded to nearest-even in integer ops (no library call) when stored.

// RUN: ocannl-opt %s --ocannl-lower-to-loops=cpu=x86-64-v3 | FileCheck %s

// CHECK-LABEL: func.func @mm
// CHECK: scf.for %[[I:.*]] = %{{.*}} to %c4
// CHECK: scf.for %[[J:.*]] = %{{.*}} to %c8
// CHECK: %[[OLD:.*]] = memref.load %{{.*}}[%[[I]], %[[J]]] : memref<4x8xbf16>
// CHECK: %[[START:.*]] = arith.extf %[[OLD]] : bf16 to f32
// CHECK: %[[SUM:.*]] = scf.for %[[K:.*]] = %{{.*}} to %c16 {{.*}} iter_args(%[[ACC:.*]] = %[[START]]) -> (f32)
// CHECK: arith.extf %{{.*}} : bf16 to f32
// CHECK: arith.extf %{{.*}} : bf16 to f32
// CHECK: %[[P:.*]] = arith.mulf %{{.*}}, %{{.*}} : f32
// CHECK: arith.addf %[[ACC]], %[[P]] {{.*}} : f32
// CHECK: %[[BITS:.*]] = arith.bitcast %[[SUM]] : f32 to i32
// CHECK: arith.cmpf uno, %[[SUM]], %[[SUM]] : f32
// CHECK: %[[H:.*]] = arith.trunci %{{.*}} : i32 to i16
// CHECK: %[[R:.*]] = arith.bitcast %[[H]] : i16 to bf16
// CHECK: memref.store %[[R]], %{{.*}}[%[[I]], %[[J]]] : memref<4x8xbf16>
// CHECK-NOT: arith.truncf {{.*}} to bf16

func.func @mm(%a: memref<4x16xbf16>, %b: memref<16x8xbf16>) -> memref<4x8xbf16> {
  %c = "ocannl_assign.node"() {name = "c", kind = "value", memory = "materialized", shape = "4,8"} : () -> memref<4x8xbf16>
  "ocannl_assign.accum_binop"(%c, %a, %b) {accum = "add", op = "mul", initialize_neutral = true, space = array<i64: 4, 8, 16>, indexing_maps = [affine_map<(i, j, k) -> (i, j)>, affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>]} : (memref<4x8xbf16>, memref<4x16xbf16>, memref<16x8xbf16>) -> ()
  return %c : memref<4x8xbf16>
}

// An f16 sum: extended on load, truncated once on store.
// CHECK-LABEL: func.func @sum16
// CHECK: %[[S:.*]] = scf.for {{.*}} -> (f32)
// CHECK: %[[T:.*]] = arith.truncf %[[S]] : f32 to f16
// CHECK: memref.store %[[T]]
func.func @sum16(%a: memref<64xf16>) -> memref<1xf16> {
  %s = "ocannl_assign.node"() {name = "s", kind = "value", memory = "materialized", shape = "1"} : () -> memref<1xf16>
  "ocannl_assign.accum_unop"(%s, %a) {accum = "add", op = "identity", initialize_neutral = true, space = array<i64: 64>, indexing_maps = [affine_map<(i) -> (0)>, affine_map<(i) -> (i)>]} : (memref<1xf16>, memref<64xf16>) -> ()
  return %s : memref<1xf16>
}
