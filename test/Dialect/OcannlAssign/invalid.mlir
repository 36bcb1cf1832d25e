// RUN: ocannl-opt %s --split-input-file --verify-diagnostics

func.func @bad_memory_mode() {
  // expected-error@+1 {{invalid 'memory' value 'cached'; expected one of: undecided, virtual, local, on_device, materialized}}
  %w = "ocannl_assign.node"() {name = "w", kind = "value", memory = "cached", shape = "3"} : () -> memref<3xf32>
  return
}

// -----

func.func @bad_kind() {
  // expected-error@+1 {{invalid 'kind' value 'momentum'; expected one of: value, grad}}
  %w = "ocannl_assign.node"() {name = "w", kind = "momentum", memory = "virtual", shape = "3"} : () -> memref<3xf32>
  return
}

// -----

func.func @node_not_memref() {
  // expected-error@+1 {{expected base type 'builtin.memref' but got 'builtin.f32'}}
  %w = "ocannl_assign.node"() {name = "w", kind = "value", memory = "virtual", shape = "3"} : () -> f32
  return
}

// -----

func.func @wrong_map_count(%a: memref<3xf32>) {
  // expected-error@+1 {{expected 2 indexing maps (one per operand), found 1}}
  "ocannl_assign.accum_unop"(%a, %a) {accum = "add", op = "identity", space = array<i64: 3>, indexing_maps = [affine_map<(i) -> (i)>]} : (memref<3xf32>, memref<3xf32>) -> ()
  return
}

// -----

func.func @map_rank_mismatch(%a: memref<3xf32>, %b: memref<3x2xf32>) {
  // expected-error@+1 {{indexing map #1 has 1 results but operand #1 has rank 2}}
  "ocannl_assign.accum_unop"(%a, %b) {accum = "add", op = "identity", space = array<i64: 3>, indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>]} : (memref<3xf32>, memref<3x2xf32>) -> ()
  return
}

// -----

func.func @map_dims_mismatch(%a: memref<3xf32>) {
  // expected-error@+1 {{indexing map #0 has 2 dims but 'space' has 1 iterators}}
  "ocannl_assign.accum_unop"(%a, %a) {accum = "add", op = "identity", space = array<i64: 3>, indexing_maps = [affine_map<(i, j) -> (i)>, affine_map<(i) -> (i)>]} : (memref<3xf32>, memref<3xf32>) -> ()
  return
}

// -----

func.func @bad_accum(%a: memref<3xf32>) {
  // expected-error@+1 {{invalid 'accum' value 'relu'}}
  "ocannl_assign.accum_unop"(%a, %a) {accum = "relu", op = "identity", space = array<i64: 3>, indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>]} : (memref<3xf32>, memref<3xf32>) -> ()
  return
}

// -----

func.func @bad_initialize_neutral(%a: memref<3xf32>) {
  // expected-error@+1 {{attribute 'initialize_neutral' must be a bool, found 1 : i32}}
  "ocannl_assign.accum_unop"(%a, %a) {accum = "add", op = "identity", initialize_neutral = 1 : i32, space = array<i64: 3>, indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>]} : (memref<3xf32>, memref<3xf32>) -> ()
  return
}

// -----

func.func @empty_space(%a: memref<3xf32>) {
  // expected-error@+1 {{every size in 'space' must be positive}}
  "ocannl_assign.accum_unop"(%a, %a) {accum = "add", op = "identity", space = array<i64: 0>, indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>]} : (memref<3xf32>, memref<3xf32>) -> ()
  return
}

// -----

func.func @zero_axis_node() {
  // expected-error@+1 {{invalid shape: a dimension of size 0: every axis has at least one cell at position 2 in "3,0"}}
  %w = "ocannl_assign.node"() {name = "w", kind = "value", memory = "virtual", shape = "3,0"} : () -> memref<3x0xf32>
  return
}

// -----

func.func @zero_axis_operand(%a: memref<3x0xf32>, %b: memref<1xf32>) {
  // expected-error@+1 {{operand #1: memref<3x0xf32>: axis 1 of the buffer of sizes [3, 0] (batch, output, input) has size 0; every axis needs at least one cell}}
  "ocannl_assign.accum_unop"(%b, %a) {accum = "add", op = "identity", initialize_neutral = true, space = array<i64: 3, 1>, indexing_maps = [affine_map<(i, j) -> (0)>, affine_map<(i, j) -> (i, j)>]} : (memref<1xf32>, memref<3x0xf32>) -> ()
  return
}

// -----

func.func @huge_operand(%a: memref<4294967296x4294967296xf32>, %b: memref<1xf32>) {
  // expected-error@+1 {{operand #1: memref<4294967296x4294967296xf32>: the buffer of sizes [4294967296, 4294967296] (batch, output, input) with 4-byte elements needs more than 9223372036854775807 bytes}}
  "ocannl_assign.accum_unop"(%b, %a) {accum = "add", op = "identity", initialize_neutral = true, space = array<i64: 4294967296, 4294967296>, indexing_maps = [affine_map<(i, j) -> (0)>, affine_map<(i, j) -> (i, j)>]} : (memref<1xf32>, memref<4294967296x4294967296xf32>) -> ()
  return
}

// -----

// Indices stay inside their axes over the iteration space: writes always,
// reads unless they pad.
func.func @space_beyond_result(%x: memref<64x128xf32>) {
  %y = "ocannl_assign.node"() {name = "y", kind = "value", memory = "undecided", shape = "64,128"} : () -> memref<64x128xf32>
  // expected-error@+1 {{indexing map #0 writes axis 0 of operand #0 (size 64) at indices 0 to 99 over the iteration space [100, 128]; every index must be inside the axis}}
  "ocannl_assign.accum_unop"(%y, %x) {accum = "assign", op = "relu", space = array<i64: 100, 128>, indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>]} : (memref<64x128xf32>, memref<64x128xf32>) -> ()
  return
}

// -----

func.func @fixed_index_beyond_operand(%x: memref<4xf32>, %y: memref<1xf32>) {
  // expected-error@+1 {{indexing map #1 reads axis 0 of operand #1 (size 4) at indices 4 to 4 over the iteration space [1]; every index must be inside the axis}}
  "ocannl_assign.accum_unop"(%y, %x) {accum = "assign", op = "identity", space = array<i64: 1>, indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (4)>]} : (memref<1xf32>, memref<4xf32>) -> ()
  return
}
