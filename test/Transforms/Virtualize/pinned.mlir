// RUN: ocannl-opt %s --ocannl-virtualize --verify-diagnostics -o /dev/null
// A node the user pins virtual must be inlined; when it cannot be, the
// pass fails at the node with the reason.

func.func @pinned_virtual(%x: memref<4x3xf32>) -> memref<4xf32> {
  // expected-error@+1 {{node 's' is pinned virtual but cannot be inlined: its computation reduces over iterator d1 of size 3, which would be recomputed per cell read; give it a buffer (memory = "local") or change how it is computed}}
  %s = "ocannl_assign.node"() {name = "s", kind = "value", memory = "virtual", shape = "4"} : () -> memref<4xf32>
  "ocannl_assign.accum_unop"(%s, %x) {accum = "add", op = "identity", initialize_neutral = true, space = array<i64: 4, 3>, indexing_maps = [affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i, j)>]} : (memref<4xf32>, memref<4x3xf32>) -> ()
  %y = "ocannl_assign.node"() {name = "y", kind = "value", memory = "undecided", shape = "4"} : () -> memref<4xf32>
  "ocannl_assign.accum_unop"(%y, %s) {accum = "assign", op = "neg", space = array<i64: 4>, indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>]} : (memref<4xf32>, memref<4xf32>) -> ()
  return %y : memref<4xf32>
}
