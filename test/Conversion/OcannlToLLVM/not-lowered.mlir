// The pipelines from the loops stage refuse an ocannl_assign op left in the
// module, at the op, rather than rewriting the scalar ops of its body into
// IR that no longer verifies.
// RUN: ocannl-opt %s --ocannl-loops-to-llvm --verify-diagnostics -o /dev/null
// RUN: ocannl-opt %s --ocannl-loops-to-nvvm --verify-diagnostics -o /dev/null
// RUN: ocannl-opt %s --ocannl-check-lowered --verify-diagnostics -o /dev/null

func.func @f(%y: memref<3xf32>, %x: memref<3x4xf32>) {
  // expected-error @+1 {{'ocannl_assign.accum_unop' is not lowered: this pipeline takes the loops stage}}
  "ocannl_assign.accum_unop"(%y, %x) {accum = "add", op = "identity", initialize_neutral = true, space = array<i64: 3, 4>, indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>]} : (memref<3xf32>, memref<3x4xf32>) -> ()
  return
}
