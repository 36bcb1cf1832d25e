// RUN: ocannl-opt %s --split-input-file --verify-diagnostics
// Stock mlir-opt with the IRDL file rejects the cases IRDL can express:
// RUN: not mlir-opt --irdl-file=%assign_irdl %s --split-input-file 2>&1 | FileCheck %s --check-prefix=STOCK

func.func @bad_memory_mode() {
  // STOCK: invalid.mlir:[[@LINE+2]]:{{[0-9]+}}: error: '"cached"' does not satisfy the constraint
  // expected-error@+1 {{'ocannl_assign.node' op attribute 'memory' must be one of the memory modes undecided, virtual, local, on_device, materialized, but got "cached"}}
  %w = "ocannl_assign.node"() {name = "w", kind = "value", memory = "cached", shape = "3"} : () -> memref<3xf32>
  return
}

// -----

func.func @bad_kind() {
  // STOCK: invalid.mlir:[[@LINE+2]]:{{[0-9]+}}: error: '"momentum"' does not satisfy the constraint
  // expected-error@+1 {{'ocannl_assign.node' op attribute 'kind' must be one of the node kinds value, grad, but got "momentum"}}
  %w = "ocannl_assign.node"() {name = "w", kind = "momentum", memory = "virtual", shape = "3"} : () -> memref<3xf32>
  return
}

// -----

func.func @node_not_memref() {
  // STOCK: invalid.mlir:[[@LINE+2]]:{{[0-9]+}}: error: expected base type 'builtin.memref' but got 'builtin.f32'
  // expected-error@+1 {{'ocannl_assign.node' op result #0 ('result') must be a memref of f16, bf16, f32 or f64, but got 'f32'}}
  %w = "ocannl_assign.node"() {name = "w", kind = "value", memory = "virtual", shape = "3"} : () -> f32
  return
}

// -----

func.func @node_integer_elements() {
  // expected-error@+1 {{'ocannl_assign.node' op result #0 ('result') must be a memref of f16, bf16, f32 or f64, but got 'memref<3xi32>'}}
  %w = "ocannl_assign.node"() {name = "w", kind = "value", memory = "virtual", shape = "3"} : () -> memref<3xi32>
  return
}

// -----

func.func @node_bad_shape() {
  // expected-error@+1 {{'ocannl_assign.node' op invalid shape: unexpected second '|' (a shape has one batch row) at position 3 in "2|3|4"}}
  %w = "ocannl_assign.node"() {name = "w", kind = "value", memory = "virtual", shape = "2|3|4"} : () -> memref<2x3x4xf32>
  return
}

// -----

func.func @node_dims_mismatch() {
  // expected-error@+1 {{'ocannl_assign.node' op the shape "2->3" has dims [3, 2] in memory order (batch, output, input) but the buffer has [2, 3]}}
  %w = "ocannl_assign.node"() {name = "w", kind = "value", memory = "virtual", shape = "2->3"} : () -> memref<2x3xf32>
  return
}

// -----

func.func @node_missing_shape() {
  // STOCK: invalid.mlir:[[@LINE+2]]:{{[0-9]+}}: error: 'ocannl_assign.node' op attribute "shape" is expected but not provided
  // expected-error@+1 {{'ocannl_assign.node' op requires attribute 'shape'}}
  %w = "ocannl_assign.node"() {name = "w", kind = "value", memory = "virtual"} : () -> memref<3xf32>
  return
}

// -----

func.func @wrong_map_count(%a: memref<3xf32>) {
  // expected-error@+1 {{'ocannl_assign.accum_unop' op expected 2 indexing maps (one per buffer operand), found 1}}
  "ocannl_assign.accum_unop"(%a, %a) {accum = "add", op = "identity", space = array<i64: 3>, indexing_maps = [affine_map<(i) -> (i)>]} : (memref<3xf32>, memref<3xf32>) -> ()
  return
}

// -----

func.func @map_rank_mismatch(%a: memref<3xf32>, %b: memref<3x2xf32>) {
  // expected-error@+1 {{'ocannl_assign.accum_unop' op indexing map #1 has 1 results but operand #1 has rank 2}}
  "ocannl_assign.accum_unop"(%a, %b) {accum = "add", op = "identity", space = array<i64: 3>, indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>]} : (memref<3xf32>, memref<3x2xf32>) -> ()
  return
}

// -----

func.func @map_dims_mismatch(%a: memref<3xf32>) {
  // expected-error@+1 {{'ocannl_assign.accum_unop' op indexing map #0 has 2 dims but 'space' has 1 iterators}}
  "ocannl_assign.accum_unop"(%a, %a) {accum = "add", op = "identity", space = array<i64: 3>, indexing_maps = [affine_map<(i, j) -> (i)>, affine_map<(i) -> (i)>]} : (memref<3xf32>, memref<3xf32>) -> ()
  return
}

// -----

func.func @map_symbols_mismatch(%a: memref<3xf32>, %i: index) {
  // expected-error@+1 {{'ocannl_assign.accum_unop' op indexing map #0 has 0 symbols but the op has 1 index operand(s)}}
  "ocannl_assign.accum_unop"(%a, %a, %i) {accum = "add", op = "identity", space = array<i64: 3>, indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>]} : (memref<3xf32>, memref<3xf32>, index) -> ()
  return
}

// -----

func.func @integer_buffer(%a: memref<3xf32>, %b: memref<3xi32>) {
  // expected-error@+1 {{'ocannl_assign.accum_unop' op operand #1 ('rhs') must be a memref of f16, bf16, f32 or f64, but got 'memref<3xi32>'}}
  "ocannl_assign.accum_unop"(%a, %b) {accum = "add", op = "identity", space = array<i64: 3>, indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>]} : (memref<3xf32>, memref<3xi32>) -> ()
  return
}

// -----

func.func @bad_accum(%a: memref<3xf32>) {
  // STOCK: invalid.mlir:[[@LINE+2]]:{{[0-9]+}}: error: '"relu"' does not satisfy the constraint
  // expected-error@+1 {{'ocannl_assign.accum_unop' op attribute 'accum' must be one of the accumulations assign, add, sub, mul, div, max, min, but got "relu"}}
  "ocannl_assign.accum_unop"(%a, %a) {accum = "relu", op = "identity", space = array<i64: 3>, indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>]} : (memref<3xf32>, memref<3xf32>) -> ()
  return
}

// -----

func.func @comparison_name(%a: memref<3xf32>) {
  // STOCK: invalid.mlir:[[@LINE+2]]:{{[0-9]+}}: error: '"lt"' does not satisfy the constraint
  // expected-error@+1 {{'ocannl_assign.accum_binop' op attribute 'op' must be one of the binary ops}}
  "ocannl_assign.accum_binop"(%a, %a, %a) {accum = "assign", op = "lt", space = array<i64: 3>, indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>, affine_map<(i) -> (i)>]} : (memref<3xf32>, memref<3xf32>, memref<3xf32>) -> ()
  return
}

// -----

func.func @misspelled_initialize(%a: memref<3xf32>) {
  // expected-error@+1 {{'ocannl_assign.accum_unop' op has an unknown attribute 'initialise_neutral' (did you mean 'initialize_neutral'?)}}
  "ocannl_assign.accum_unop"(%a, %a) {accum = "add", op = "identity", initialise_neutral = true, space = array<i64: 3>, indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>]} : (memref<3xf32>, memref<3xf32>) -> ()
  return
}

// -----

func.func @bad_initialize_neutral(%a: memref<3xf32>) {
  // expected-error@+1 {{'ocannl_assign.accum_unop' op attribute 'initialize_neutral' must be true or false, but got 1 : i32}}
  "ocannl_assign.accum_unop"(%a, %a) {accum = "add", op = "identity", initialize_neutral = 1 : i32, space = array<i64: 3>, indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>]} : (memref<3xf32>, memref<3xf32>) -> ()
  return
}

// -----

func.func @empty_space(%a: memref<3xf32>) {
  // expected-error@+1 {{'ocannl_assign.accum_unop' op every size in 'space' must be positive}}
  "ocannl_assign.accum_unop"(%a, %a) {accum = "add", op = "identity", space = array<i64: 0>, indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>]} : (memref<3xf32>, memref<3xf32>) -> ()
  return
}

// -----

func.func @fill_type(%a: memref<3xf32>) {
  // expected-error@+1 {{'ocannl_assign.fill' op the value 1.000000e+00 : f64 has type f64, which differs from the buffer's element type f32}}
  "ocannl_assign.fill"(%a) {value = 1.0 : f64} : (memref<3xf32>) -> ()
  return
}

// -----

func.func @zero_axis_node() {
  // expected-error@+1 {{invalid shape: a dimension of size 0: every axis has at least one cell at position 2 in "3,0"}}
  %w = "ocannl_assign.node"() {name = "w", kind = "value", memory = "virtual", shape = "3,0"} : () -> memref<3x0xf32>
  return
}

// -----

func.func @literal_count(%a: memref<3xf32>) {
  // expected-error@+1 {{'ocannl_assign.literal' op the literal has 2 elements but the buffer has 3 cells}}
  "ocannl_assign.literal"(%a) {value = dense<[1.0, 2.0]> : tensor<2xf32>} : (memref<3xf32>) -> ()
  return
}

// -----

func.func @zero_axis_operand(%a: memref<3x0xf32>, %b: memref<1xf32>) {
  // expected-error@+1 {{operand #1: memref<3x0xf32>: axis 1 of the buffer of sizes [3, 0] (batch, output, input) has size 0; every axis needs at least one cell}}
  "ocannl_assign.accum_unop"(%b, %a) {accum = "add", op = "identity", initialize_neutral = true, space = array<i64: 3, 1>, indexing_maps = [affine_map<(i, j) -> (0)>, affine_map<(i, j) -> (i, j)>]} : (memref<1xf32>, memref<3x0xf32>) -> ()
  return
}

// -----

func.func @uniform_bound(%a: memref<3xf32>) {
  // expected-error@+1 {{'ocannl_assign.uniform' op attribute 'low' must be a float (such as 2.5 : f32), but got 0 : i64}}
  "ocannl_assign.uniform"(%a) {seed = 1 : i64, low = 0} : (memref<3xf32>) -> ()
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

// -----

func.func @accum_index_before_buffer(%x: memref<4xf32>, %y: memref<4xf32>, %i: index) {
  // expected-error@+1 {{'ocannl_assign.accum' op buffer operands must come before the index operands}}
  "ocannl_assign.accum"(%y, %i, %x) ({
  ^bb0(%a: f32):
    vector.yield %a : f32
  }) {accum = "assign", space = array<i64: 4>, indexing_maps = [affine_map<(i)[s] -> (i)>, affine_map<(i)[s] -> (i)>]} : (memref<4xf32>, index, memref<4xf32>) -> ()
  return
}

// -----

func.func @accum_block_arguments(%x: memref<4xf32>, %y: memref<4xf32>) {
  // expected-error@+1 {{'ocannl_assign.accum' op the body has 2 block argument(s) but the op reads 1 buffer(s)}}
  "ocannl_assign.accum"(%y, %x) ({
  ^bb0(%a: f32, %b: f32):
    vector.yield %a : f32
  }) {accum = "assign", space = array<i64: 4>, indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>]} : (memref<4xf32>, memref<4xf32>) -> ()
  return
}

// -----

func.func @accum_block_argument_type(%x: memref<4xf32>, %y: memref<4xf32>) {
  // expected-error@+1 {{'ocannl_assign.accum' op block argument #0 has type f64 but the buffers' element type is f32}}
  "ocannl_assign.accum"(%y, %x) ({
  ^bb0(%a: f64):
    %t = arith.truncf %a : f64 to f32
    vector.yield %t : f32
  }) {accum = "assign", space = array<i64: 4>, indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>]} : (memref<4xf32>, memref<4xf32>) -> ()
  return
}

// -----

func.func @accum_yields_two(%x: memref<4xf32>, %y: memref<4xf32>) {
  // expected-error@+1 {{'ocannl_assign.accum' op the body must end with 'vector.yield' of one value, found 2 values}}
  "ocannl_assign.accum"(%y, %x) ({
  ^bb0(%a: f32):
    vector.yield %a, %a : f32, f32
  }) {accum = "assign", space = array<i64: 4>, indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>]} : (memref<4xf32>, memref<4xf32>) -> ()
  return
}

// -----

func.func @accum_unsupported_op(%x: memref<4xf32>, %y: memref<4xf32>) {
  // expected-error@+1 {{'ocannl_assign.accum' op 'math.atan' is not supported in an assignment body}}
  "ocannl_assign.accum"(%y, %x) ({
  ^bb0(%a: f32):
    %t = math.atan %a : f32
    vector.yield %t : f32
  }) {accum = "assign", space = array<i64: 4>, indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>]} : (memref<4xf32>, memref<4xf32>) -> ()
  return
}

// -----

func.func @accum_uses_outer_value(%x: memref<4xf32>, %y: memref<4xf32>, %f: f32) {
  %c = arith.addf %f, %f : f32
  // expected-error@+1 {{'ocannl_assign.accum' op an op of the body uses a value defined outside it that is not a float constant}}
  "ocannl_assign.accum"(%y, %x) ({
  ^bb0(%a: f32):
    %t = arith.mulf %a, %c : f32
    vector.yield %t : f32
  }) {accum = "assign", space = array<i64: 4>, indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>]} : (memref<4xf32>, memref<4xf32>) -> ()
  return
}

// -----

func.func @normal_negative_std(%a: memref<3xf32>) {
  // expected-error@+1 {{'ocannl_assign.normal' op attribute 'std' must not be negative, found -1}}
  "ocannl_assign.normal"(%a) {seed = 1 : i64, std = -1.0 : f64} : (memref<3xf32>) -> ()
  return
}

// -----

func.func @normal_infinite_mean(%a: memref<3xf32>) {
  // expected-error@+1 {{'ocannl_assign.normal' op attribute 'mean' must be a finite number, found 0x7FF0000000000000 : f64}}
  "ocannl_assign.normal"(%a) {seed = 1 : i64, mean = 0x7FF0000000000000 : f64} : (memref<3xf32>) -> ()
  return
}

// -----

func.func @unknown_generator(%a: memref<3xf32>) {
  // expected-error@+1 {{'ocannl_assign.uniform' op attribute 'generator' must be one of the generators splitmix64, threefry, but got "philox"}}
  "ocannl_assign.uniform"(%a) {seed = 1 : i64, generator = "philox"} : (memref<3xf32>) -> ()
  return
}
