// RUN: ocannl-opt %s --ocannl-virtualize="explain=true recompute-when-cheaper=false" --verify-diagnostics -o /dev/null
// With the cost model off, OCANNL's visit budget alone decides: a relu
// read by 3 cells of its reader keeps a buffer (with it on, it is
// recomputed: refusals.mlir, @cheaper_recomputed).

#id = affine_map<(i) -> (i)>
func.func @budget_only(%x: memref<4xf32>) -> memref<4x3xf32> {
  // With the cost model off, OCANNL's budget alone decides.
  // expected-remark@+1 {{node 'r' is local: each cell would be computed 3 times (budget: 1)}}
  %r = "ocannl_assign.node"() {name = "r", kind = "value", memory = "undecided", shape = "4"} : () -> memref<4xf32>
  "ocannl_assign.accum_unop"(%r, %x) {accum = "assign", op = "relu", space = array<i64: 4>, indexing_maps = [#id, #id]} : (memref<4xf32>, memref<4xf32>) -> ()
  // expected-remark@+1 {{node 'y' is materialized}}
  %y = "ocannl_assign.node"() {name = "y", kind = "value", memory = "undecided", shape = "4,3"} : () -> memref<4x3xf32>
  "ocannl_assign.accum_unop"(%y, %r) {accum = "assign", op = "neg", space = array<i64: 4, 3>, indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>]} : (memref<4x3xf32>, memref<4xf32>) -> ()
  return %y : memref<4x3xf32>
}
