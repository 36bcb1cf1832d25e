// RUN: ocannl-opt %s --ocannl-one-hot-to-gather=explain=true --verify-diagnostics -o /dev/null

// explain=true reports each rewrite at its op, with its points before and
// after: a cross-entropy's pick of the target's log-probability reads one
// cell per row instead of the whole row.
func.func @pick(%ids: memref<8x1xf32>, %logp: memref<8x100xf32>) -> memref<8xf32> {
  %classes = "ocannl_assign.node"() {name = "classes", kind = "value", memory = "materialized", shape = "100"} : () -> memref<100xf32>
  "ocannl_assign.range"(%classes) : (memref<100xf32>) -> ()
  %h = "ocannl_assign.node"() {name = "targets", kind = "value", memory = "undecided", shape = "8|100"} : () -> memref<8x100xf32>
  "ocannl_assign.accum_binop"(%h, %ids, %classes) {accum = "assign", op = "cmpeq", space = array<i64: 8, 100>, indexing_maps = [affine_map<(b, v) -> (b, v)>, affine_map<(b, v) -> (b, 0)>, affine_map<(b, v) -> (v)>]} : (memref<8x100xf32>, memref<8x1xf32>, memref<100xf32>) -> ()
  %s = "ocannl_assign.node"() {name = "s", kind = "value", memory = "materialized", shape = "8"} : () -> memref<8xf32>
  // expected-remark@+1 {{the one-hot node 'targets' is read through the ids: 8 points instead of 800}}
  "ocannl_assign.accum_binop"(%s, %logp, %h) {accum = "add", op = "mul", initialize_neutral = true, space = array<i64: 8, 100>, indexing_maps = [affine_map<(b, v) -> (b)>, affine_map<(b, v) -> (b, v)>, affine_map<(b, v) -> (b, v)>]} : (memref<8xf32>, memref<8x100xf32>, memref<8x100xf32>) -> ()
  return %s : memref<8xf32>
}

// After inlining, the comparison is in the sum's body: the same rewrite.
func.func @inlined(%ids: memref<8x1xf32>, %logp: memref<8x100xf32>) -> memref<8xf32> {
  %classes = "ocannl_assign.node"() {name = "classes", kind = "value", memory = "materialized", shape = "100"} : () -> memref<100xf32>
  "ocannl_assign.range"(%classes) : (memref<100xf32>) -> ()
  %s = "ocannl_assign.node"() {name = "s", kind = "value", memory = "materialized", shape = "8"} : () -> memref<8xf32>
  // expected-remark@+1 {{a comparison of ids with a range is read through the ids: 8 points instead of 800}}
  "ocannl_assign.accum"(%s, %ids, %classes, %logp) ({
  ^bb0(%x: f32, %r: f32, %l: f32):
    %eq = arith.cmpf oeq, %x, %r : f32
    %one = arith.constant 1.0 : f32
    %zero = arith.constant 0.0 : f32
    %h = arith.select %eq, %one, %zero : f32
    %p = arith.mulf %h, %l : f32
    vector.yield %p : f32
  }) {accum = "add", initialize_neutral = true, space = array<i64: 8, 100>, indexing_maps = [affine_map<(b, v) -> (b)>, affine_map<(b, v) -> (b, 0)>, affine_map<(b, v) -> (v)>, affine_map<(b, v) -> (b, v)>]} : (memref<8xf32>, memref<8x1xf32>, memref<100xf32>, memref<8x100xf32>) -> ()
  return %s : memref<8xf32>
}
