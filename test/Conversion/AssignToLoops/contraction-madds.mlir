// A contraction kernel's multiply-adds are counted once: 13 rows make a
// tile of 7 rows and a last one of 6, two loops in one kernel, whose
// static trips give 13 x 64 x 64 (the marked count of a packed kernel,
// contraction-chunks.mlir, is not added to them).

// RUN: ocannl-opt %s --pass-pipeline='builtin.module(ocannl-lower-to-loops{cpu=x86-64-v4 kernels=true})' | FileCheck %s
// CHECK: ocannl.kernel_kind = "contraction", ocannl.kernel_madds = 53248 : i64
// CHECK-NOT: ocannl.madds

func.func @mm(%a: memref<13x64xf32>, %b: memref<64x64xf32>) -> memref<13x64xf32> {
  %c = "ocannl_assign.node"() {name = "c", kind = "value", memory = "materialized", shape = "13,64"} : () -> memref<13x64xf32>
  "ocannl_assign.accum_binop"(%c, %a, %b) {accum = "add", op = "mul", initialize_neutral = true, space = array<i64: 13, 64, 64>, indexing_maps = [affine_map<(i, j, k) -> (i, j)>, affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>]} : (memref<13x64xf32>, memref<13x64xf32>, memref<64x64xf32>) -> ()
  return %c : memref<13x64xf32>
}
