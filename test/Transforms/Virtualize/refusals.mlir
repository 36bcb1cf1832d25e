// RUN: ocannl-opt %s --split-input-file --ocannl-virtualize=explain=true --verify-diagnostics -o /dev/null
// Each reason a node keeps a buffer, reported at the node (OCANNL's
// refusals), and the nodes that become virtual.

#id = affine_map<(i) -> (i)>
func.func @returned(%x: memref<4xf32>) -> memref<4xf32> {
  // expected-remark@+1 {{node 'y' is materialized: returned by the routine}}
  %y = "ocannl_assign.node"() {name = "y", kind = "value", memory = "undecided", shape = "4"} : () -> memref<4xf32>
  "ocannl_assign.accum_unop"(%y, %x) {accum = "assign", op = "relu", space = array<i64: 4>, indexing_maps = [#id, #id]} : (memref<4xf32>, memref<4xf32>) -> ()
  return %y : memref<4xf32>
}

// -----

#id = affine_map<(i) -> (i)>
func.func @pinned(%x: memref<4xf32>) -> memref<4xf32> {
  // expected-remark@+1 {{node 'h' is local: pinned local}}
  %h = "ocannl_assign.node"() {name = "h", kind = "value", memory = "local", shape = "4"} : () -> memref<4xf32>
  "ocannl_assign.accum_unop"(%h, %x) {accum = "assign", op = "relu", space = array<i64: 4>, indexing_maps = [#id, #id]} : (memref<4xf32>, memref<4xf32>) -> ()
  // expected-remark@+1 {{node 'y' is materialized: returned by the routine}}
  %y = "ocannl_assign.node"() {name = "y", kind = "value", memory = "undecided", shape = "4"} : () -> memref<4xf32>
  "ocannl_assign.accum_unop"(%y, %h) {accum = "assign", op = "neg", space = array<i64: 4>, indexing_maps = [#id, #id]} : (memref<4xf32>, memref<4xf32>) -> ()
  return %y : memref<4xf32>
}

// -----

#id = affine_map<(i) -> (i)>
func.func @param_gradient(%x: memref<4xf32>, %w: memref<4xf32> {ocannl.param = "w"}) -> memref<4xf32> {
  // expected-remark@+1 {{node 'w.grad' is local: the gradient of param 'w'}}
  %g = "ocannl_assign.node"() {name = "w.grad", kind = "grad", memory = "undecided", shape = "4"} : () -> memref<4xf32>
  "ocannl_assign.accum_unop"(%g, %x) {accum = "assign", op = "identity", space = array<i64: 4>, indexing_maps = [#id, #id]} : (memref<4xf32>, memref<4xf32>) -> ()
  // expected-remark@+1 {{node 'y' is materialized}}
  %y = "ocannl_assign.node"() {name = "y", kind = "value", memory = "undecided", shape = "4"} : () -> memref<4xf32>
  "ocannl_assign.accum_binop"(%y, %g, %w) {accum = "assign", op = "mul", space = array<i64: 4>, indexing_maps = [#id, #id, #id]} : (memref<4xf32>, memref<4xf32>, memref<4xf32>) -> ()
  return %y : memref<4xf32>
}

// -----

#id = affine_map<(i) -> (i)>
func.func @never_written(%x: memref<4xf32>) -> memref<4xf32> {
  // expected-remark@+1 {{node 'h' is local: read but never written}}
  %h = "ocannl_assign.node"() {name = "h", kind = "value", memory = "undecided", shape = "4"} : () -> memref<4xf32>
  // expected-remark@+1 {{node 'y' is materialized}}
  %y = "ocannl_assign.node"() {name = "y", kind = "value", memory = "undecided", shape = "4"} : () -> memref<4xf32>
  "ocannl_assign.accum_binop"(%y, %h, %x) {accum = "assign", op = "add", space = array<i64: 4>, indexing_maps = [#id, #id, #id]} : (memref<4xf32>, memref<4xf32>, memref<4xf32>) -> ()
  return %y : memref<4xf32>
}

// -----

#id = affine_map<(i) -> (i)>
func.func @two_writers(%x: memref<4xf32>) -> memref<4xf32> {
  // expected-remark@+1 {{node 'h' is local: written by 2 computations}}
  %h = "ocannl_assign.node"() {name = "h", kind = "value", memory = "undecided", shape = "4"} : () -> memref<4xf32>
  "ocannl_assign.accum_unop"(%h, %x) {accum = "assign", op = "relu", space = array<i64: 4>, indexing_maps = [#id, #id]} : (memref<4xf32>, memref<4xf32>) -> ()
  "ocannl_assign.accum_unop"(%h, %x) {accum = "add", op = "exp", space = array<i64: 4>, indexing_maps = [#id, #id]} : (memref<4xf32>, memref<4xf32>) -> ()
  // expected-remark@+1 {{node 'y' is materialized}}
  %y = "ocannl_assign.node"() {name = "y", kind = "value", memory = "undecided", shape = "4"} : () -> memref<4xf32>
  "ocannl_assign.accum_unop"(%y, %h) {accum = "assign", op = "neg", space = array<i64: 4>, indexing_maps = [#id, #id]} : (memref<4xf32>, memref<4xf32>) -> ()
  return %y : memref<4xf32>
}

// -----

#id = affine_map<(i) -> (i)>
func.func @from_data(%x: memref<4xf32>) -> memref<4xf32> {
  // expected-remark@+1 {{node 'r' is local: initialized from data}}
  %r = "ocannl_assign.node"() {name = "r", kind = "value", memory = "undecided", shape = "4"} : () -> memref<4xf32>
  "ocannl_assign.range"(%r) : (memref<4xf32>) -> ()
  // expected-remark@+1 {{node 'y' is materialized}}
  %y = "ocannl_assign.node"() {name = "y", kind = "value", memory = "undecided", shape = "4"} : () -> memref<4xf32>
  "ocannl_assign.accum_binop"(%y, %r, %x) {accum = "assign", op = "add", space = array<i64: 4>, indexing_maps = [#id, #id, #id]} : (memref<4xf32>, memref<4xf32>, memref<4xf32>) -> ()
  return %y : memref<4xf32>
}

// -----

#id = affine_map<(i) -> (i)>
func.func @read_before_written(%x: memref<4xf32>) -> memref<4xf32> {
  // expected-remark@+1 {{node 'h' is local: read before it is written}}
  %h = "ocannl_assign.node"() {name = "h", kind = "value", memory = "undecided", shape = "4"} : () -> memref<4xf32>
  // expected-remark@+1 {{node 'y' is materialized}}
  %y = "ocannl_assign.node"() {name = "y", kind = "value", memory = "undecided", shape = "4"} : () -> memref<4xf32>
  "ocannl_assign.accum_binop"(%y, %h, %x) {accum = "assign", op = "add", space = array<i64: 4>, indexing_maps = [#id, #id, #id]} : (memref<4xf32>, memref<4xf32>, memref<4xf32>) -> ()
  "ocannl_assign.accum_unop"(%h, %x) {accum = "assign", op = "relu", space = array<i64: 4>, indexing_maps = [#id, #id]} : (memref<4xf32>, memref<4xf32>) -> ()
  return %y : memref<4xf32>
}

// -----

#id = affine_map<(i) -> (i)>
func.func @reads_itself(%x: memref<4xf32>) -> memref<4xf32> {
  // expected-remark@+1 {{node 'h' is local: its computation reads the node itself}}
  %h = "ocannl_assign.node"() {name = "h", kind = "value", memory = "undecided", shape = "4"} : () -> memref<4xf32>
  "ocannl_assign.fill"(%h) {value = 1.0 : f32} : (memref<4xf32>) -> ()
  "ocannl_assign.accum_binop"(%h, %h, %x) {accum = "assign", op = "mul", space = array<i64: 4>, indexing_maps = [#id, #id, #id]} : (memref<4xf32>, memref<4xf32>, memref<4xf32>) -> ()
  // expected-remark@+1 {{node 'y' is materialized}}
  %y = "ocannl_assign.node"() {name = "y", kind = "value", memory = "undecided", shape = "4"} : () -> memref<4xf32>
  "ocannl_assign.accum_unop"(%y, %h) {accum = "assign", op = "neg", space = array<i64: 4>, indexing_maps = [#id, #id]} : (memref<4xf32>, memref<4xf32>) -> ()
  return %y : memref<4xf32>
}

// -----

#id = affine_map<(i) -> (i)>
func.func @reduction(%x: memref<4x3xf32>) -> memref<4xf32> {
  // expected-remark@+1 {{node 's' is local: its computation reduces over iterator d1 of size 3, which would be recomputed per cell read}}
  %s = "ocannl_assign.node"() {name = "s", kind = "value", memory = "undecided", shape = "4"} : () -> memref<4xf32>
  "ocannl_assign.accum_unop"(%s, %x) {accum = "add", op = "identity", initialize_neutral = true, space = array<i64: 4, 3>, indexing_maps = [affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i, j)>]} : (memref<4xf32>, memref<4x3xf32>) -> ()
  // expected-remark@+1 {{node 'y' is materialized}}
  %y = "ocannl_assign.node"() {name = "y", kind = "value", memory = "undecided", shape = "4"} : () -> memref<4xf32>
  "ocannl_assign.accum_unop"(%y, %s) {accum = "assign", op = "neg", space = array<i64: 4>, indexing_maps = [#id, #id]} : (memref<4xf32>, memref<4xf32>) -> ()
  return %y : memref<4xf32>
}

// -----

#id = affine_map<(i) -> (i)>
func.func @partial_write(%x: memref<4xf32>) -> memref<4xf32> {
  // expected-remark@+1 {{node 'h' is local: its computation writes only part of axis 0}}
  %h = "ocannl_assign.node"() {name = "h", kind = "value", memory = "undecided", shape = "4"} : () -> memref<4xf32>
  "ocannl_assign.accum_unop"(%h, %x) {accum = "assign", op = "relu", space = array<i64: 1>, indexing_maps = [affine_map<(i) -> (2)>, affine_map<(i) -> (2)>]} : (memref<4xf32>, memref<4xf32>) -> ()
  // expected-remark@+1 {{node 'y' is materialized}}
  %y = "ocannl_assign.node"() {name = "y", kind = "value", memory = "undecided", shape = "4"} : () -> memref<4xf32>
  "ocannl_assign.accum_unop"(%y, %h) {accum = "assign", op = "neg", space = array<i64: 4>, indexing_maps = [#id, #id]} : (memref<4xf32>, memref<4xf32>) -> ()
  return %y : memref<4xf32>
}

// -----

#id = affine_map<(i) -> (i)>
func.func @diagonal(%x: memref<4xf32>) -> memref<4xf32> {
  // expected-remark@+1 {{node 'd' is local: inconsistent index pattern: axis 1 is written at d0}}
  %d = "ocannl_assign.node"() {name = "d", kind = "value", memory = "undecided", shape = "4,4"} : () -> memref<4x4xf32>
  "ocannl_assign.fill"(%d) {value = 0.0 : f32} : (memref<4x4xf32>) -> ()
  "ocannl_assign.accum_unop"(%d, %x) {accum = "add", op = "identity", space = array<i64: 4>, indexing_maps = [affine_map<(i) -> (i, i)>, #id]} : (memref<4x4xf32>, memref<4xf32>) -> ()
  // expected-remark@+1 {{node 'y' is materialized}}
  %y = "ocannl_assign.node"() {name = "y", kind = "value", memory = "undecided", shape = "4"} : () -> memref<4xf32>
  "ocannl_assign.accum_unop"(%y, %d) {accum = "assign", op = "neg", space = array<i64: 4>, indexing_maps = [#id, affine_map<(i) -> (i, 0)>]} : (memref<4xf32>, memref<4x4xf32>) -> ()
  return %y : memref<4xf32>
}

// -----

#id = affine_map<(i) -> (i)>
func.func @padded_read(%x: memref<4xf32>, %w: memref<3xf32>) -> memref<4xf32> {
  // expected-remark@+1 {{node 'h' is local: read at the padded index d0 + d1 - 1}}
  %h = "ocannl_assign.node"() {name = "h", kind = "value", memory = "undecided", shape = "4"} : () -> memref<4xf32>
  "ocannl_assign.accum_unop"(%h, %x) {accum = "assign", op = "relu", space = array<i64: 4>, indexing_maps = [#id, #id]} : (memref<4xf32>, memref<4xf32>) -> ()
  // expected-remark@+1 {{node 'y' is materialized}}
  %y = "ocannl_assign.node"() {name = "y", kind = "value", memory = "undecided", shape = "4"} : () -> memref<4xf32>
  "ocannl_assign.accum_binop"(%y, %h, %w) {accum = "add", op = "mul", initialize_neutral = true, space = array<i64: 4, 3>, indexing_maps = [affine_map<(o, k) -> (o)>, affine_map<(o, k) -> (o + k - 1)>, affine_map<(o, k) -> (k)>]} : (memref<4xf32>, memref<4xf32>, memref<3xf32>) -> ()
  return %y : memref<4xf32>
}

// -----

#id = affine_map<(i) -> (i)>
func.func @padding(%x: memref<4xf32>) -> memref<4xf32> {
  // A max-pool of a padded max-pool: inlined (both pad with -inf).
  // expected-remark@+1 {{node 'p' is local: its computation reduces}}
  %p = "ocannl_assign.node"() {name = "p", kind = "value", memory = "undecided", shape = "4"} : () -> memref<4xf32>
  "ocannl_assign.accum_unop"(%p, %x) {accum = "max", op = "identity", initialize_neutral = true, space = array<i64: 4, 2>, indexing_maps = [affine_map<(o, k) -> (o)>, affine_map<(o, k) -> (o + k)>]} : (memref<4xf32>, memref<4xf32>) -> ()
  // A pointwise op reading x at a shifted (padded) index pads with 0.
  // expected-remark@+1 {{node 'q' is local: its computation pads with 0 but a reader pads with -inf}}
  %q = "ocannl_assign.node"() {name = "q", kind = "value", memory = "undecided", shape = "4"} : () -> memref<4xf32>
  "ocannl_assign.accum_unop"(%q, %x) {accum = "assign", op = "neg", space = array<i64: 4, 1>, indexing_maps = [affine_map<(o, k) -> (o)>, affine_map<(o, k) -> (o + k)>]} : (memref<4xf32>, memref<4xf32>) -> ()
  // expected-remark@+1 {{node 'y' is materialized}}
  %y = "ocannl_assign.node"() {name = "y", kind = "value", memory = "undecided", shape = "4"} : () -> memref<4xf32>
  "ocannl_assign.accum_binop"(%y, %p, %q) {accum = "max", op = "add", initialize_neutral = true, space = array<i64: 4>, indexing_maps = [#id, #id, #id]} : (memref<4xf32>, memref<4xf32>, memref<4xf32>) -> ()
  return %y : memref<4xf32>
}

// -----

#id = affine_map<(i) -> (i)>
func.func @visits(%x: memref<4xf32>) -> memref<4x3xf32> {
  // Broadcast along j: each cell of h would be computed 3 times.
  // expected-remark@+1 {{node 'h' is local: each cell would be computed 3 times (budget: 1)}}
  %h = "ocannl_assign.node"() {name = "h", kind = "value", memory = "undecided", shape = "4"} : () -> memref<4xf32>
  "ocannl_assign.accum_unop"(%h, %x) {accum = "assign", op = "exp", space = array<i64: 4>, indexing_maps = [#id, #id]} : (memref<4xf32>, memref<4xf32>) -> ()
  // A copy is exempt from the budget.
  // expected-remark@+1 {{node 'c' is virtual: inlined into 1 assignment}}
  %c = "ocannl_assign.node"() {name = "c", kind = "value", memory = "undecided", shape = "4"} : () -> memref<4xf32>
  "ocannl_assign.accum_unop"(%c, %x) {accum = "assign", op = "identity", space = array<i64: 4>, indexing_maps = [#id, #id]} : (memref<4xf32>, memref<4xf32>) -> ()
  // expected-remark@+1 {{node 'y' is materialized}}
  %y = "ocannl_assign.node"() {name = "y", kind = "value", memory = "undecided", shape = "4,3"} : () -> memref<4x3xf32>
  "ocannl_assign.accum_binop"(%y, %h, %c) {accum = "assign", op = "add", space = array<i64: 4, 3>, indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i)>]} : (memref<4x3xf32>, memref<4xf32>, memref<4xf32>) -> ()
  return %y : memref<4x3xf32>
}

// -----

#id = affine_map<(i) -> (i)>
func.func @cheaper_recomputed(%x: memref<4xf32>, %z: memref<4xf32>) -> memref<4x3xf32> {
  // A relu read by 3 cells of y: recomputing it costs less than a buffer.
  // expected-remark@+1 {{node 'r' is virtual: inlined into 1 assignment, each cell computed 3 times (cheaper than a buffer)}}
  %r = "ocannl_assign.node"() {name = "r", kind = "value", memory = "undecided", shape = "4"} : () -> memref<4xf32>
  "ocannl_assign.accum_unop"(%r, %x) {accum = "assign", op = "relu", space = array<i64: 4>, indexing_maps = [#id, #id]} : (memref<4xf32>, memref<4xf32>) -> ()
  // A quotient of two buffers read 3 times costs more.
  // expected-remark@+1 {{node 'q' is local: each cell would be computed 3 times (budget: 1)}}
  %q = "ocannl_assign.node"() {name = "q", kind = "value", memory = "undecided", shape = "4"} : () -> memref<4xf32>
  "ocannl_assign.accum_binop"(%q, %x, %z) {accum = "assign", op = "div", space = array<i64: 4>, indexing_maps = [#id, #id, #id]} : (memref<4xf32>, memref<4xf32>, memref<4xf32>) -> ()
  // expected-remark@+1 {{node 'y' is materialized}}
  %y = "ocannl_assign.node"() {name = "y", kind = "value", memory = "undecided", shape = "4,3"} : () -> memref<4x3xf32>
  "ocannl_assign.accum_binop"(%y, %r, %q) {accum = "assign", op = "add", space = array<i64: 4, 3>, indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i)>]} : (memref<4x3xf32>, memref<4xf32>, memref<4xf32>) -> ()
  return %y : memref<4x3xf32>
}

// -----

func.func @unused() {
  // expected-remark@+1 {{node 'u' is virtual: inlined into 0 assignments}}
  %u = "ocannl_assign.node"() {name = "u", kind = "value", memory = "undecided", shape = "4"} : () -> memref<4xf32>
  return
}

// -----

#id = affine_map<(i) -> (i)>
func.func @input_overwritten(%x: memref<4xf32>) -> memref<4xf32> {
  // expected-remark@+1 {{node 'h' is local: a buffer its computation reads is written before a reader reads the node}}
  %h = "ocannl_assign.node"() {name = "h", kind = "value", memory = "undecided", shape = "4"} : () -> memref<4xf32>
  "ocannl_assign.accum_unop"(%h, %x) {accum = "assign", op = "exp", space = array<i64: 4>, indexing_maps = [#id, #id]} : (memref<4xf32>, memref<4xf32>) -> ()
  // x changes after h is computed: h must keep the old values.
  "ocannl_assign.fill"(%x) {value = 0.0 : f32} : (memref<4xf32>) -> ()
  // expected-remark@+1 {{node 'y' is materialized}}
  %y = "ocannl_assign.node"() {name = "y", kind = "value", memory = "undecided", shape = "4"} : () -> memref<4xf32>
  "ocannl_assign.accum_binop"(%y, %h, %x) {accum = "assign", op = "add", space = array<i64: 4>, indexing_maps = [#id, #id, #id]} : (memref<4xf32>, memref<4xf32>, memref<4xf32>) -> ()
  return %y : memref<4xf32>
}

// -----

// A constant expression (OCANNL's scalar constexpr) is exempt from the
// budget: 2 * 3 read at every cell of y.
func.func @constexpr() -> memref<4x3xf32> {
  // expected-remark@+1 {{node 'two' is virtual: inlined into 1 assignment}}
  %two = "ocannl_assign.node"() {name = "two", kind = "value", memory = "undecided", shape = "1"} : () -> memref<1xf32>
  "ocannl_assign.fill"(%two) {value = 2.0 : f32} : (memref<1xf32>) -> ()
  // expected-remark@+1 {{node 'six' is virtual: inlined into 1 assignment}}
  %six = "ocannl_assign.node"() {name = "six", kind = "value", memory = "undecided", shape = "1"} : () -> memref<1xf32>
  "ocannl_assign.accum_binop"(%six, %two, %two) {accum = "assign", op = "add", space = array<i64: 1>, indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>, affine_map<(i) -> (i)>]} : (memref<1xf32>, memref<1xf32>, memref<1xf32>) -> ()
  // expected-remark@+1 {{node 'y' is materialized}}
  %y = "ocannl_assign.node"() {name = "y", kind = "value", memory = "undecided", shape = "4,3"} : () -> memref<4x3xf32>
  "ocannl_assign.accum_unop"(%y, %six) {accum = "assign", op = "exp", space = array<i64: 4, 3>, indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (0)>]} : (memref<4x3xf32>, memref<1xf32>) -> ()
  return %y : memref<4x3xf32>
}

// -----

#id = affine_map<(i) -> (i)>
func.func @accumulates_onto_unset(%x: memref<4xf32>) -> memref<4xf32> {
  // expected-remark@+1 {{node 'h' is local: its computation accumulates onto cells nothing set before}}
  %h = "ocannl_assign.node"() {name = "h", kind = "value", memory = "undecided", shape = "4"} : () -> memref<4xf32>
  "ocannl_assign.accum_unop"(%h, %x) {accum = "add", op = "exp", space = array<i64: 4>, indexing_maps = [#id, #id]} : (memref<4xf32>, memref<4xf32>) -> ()
  // expected-remark@+1 {{node 'y' is materialized}}
  %y = "ocannl_assign.node"() {name = "y", kind = "value", memory = "undecided", shape = "4"} : () -> memref<4xf32>
  "ocannl_assign.accum_unop"(%y, %h) {accum = "assign", op = "neg", space = array<i64: 4>, indexing_maps = [#id, #id]} : (memref<4xf32>, memref<4xf32>) -> ()
  return %y : memref<4xf32>
}
