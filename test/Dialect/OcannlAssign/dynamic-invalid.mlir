// RUN: ocannl-opt %s --split-input-file --verify-diagnostics

// Dynamic indices (`dynamic_indices`, pairs of operand and bound): each is
// read from a buffer the body does not read, stays inside the axes it
// indexes, and is the maps' symbol after the index operands'.

#ids = affine_map<(b, d)[s0] -> (b, 0)>
#row = affine_map<(b, d)[s0] -> (s0, d)>
#bd = affine_map<(b, d)[s0] -> (b, d)>
func.func @source_read_by_the_body(%e: memref<6x3xf32>, %ids: memref<6x1xf32>, %t: memref<5x3xf32>) {
  // expected-error@+1 {{'ocannl_assign.accum' op dynamic index 0 names operand #1, which the body reads: a dynamic index's operand holds indices, not values}}
  "ocannl_assign.accum"(%e, %ids, %t) ({
  ^bb0(%x: f32, %tv: f32):
    %s = arith.addf %x, %tv : f32
    vector.yield %s : f32
  }) {accum = "add", dynamic_indices = array<i64: 1, 5>, initialize_neutral = true, space = array<i64: 6, 3>, indexing_maps = [#bd, #ids, #row]} : (memref<6x3xf32>, memref<6x1xf32>, memref<5x3xf32>) -> ()
  return
}

// -----

#ids = affine_map<(b, d)[s0] -> (b, 0)>
#row = affine_map<(b, d)[s0] -> (s0, d)>
#bd = affine_map<(b, d)[s0] -> (b, d)>
func.func @bound_beyond_the_axis(%e: memref<6x3xf32>, %ids: memref<6x1xf32>, %t: memref<5x3xf32>) {
  // expected-error@+1 {{'ocannl_assign.accum' op indexing map #2 reads axis 0 of operand #2 (size 5) at indices 0 to 8 over the iteration space [6, 3, 9]; every index must be inside the axis}}
  "ocannl_assign.accum"(%e, %ids, %t) ({
  ^bb0(%x: f32, %tv: f32):
    vector.yield %tv : f32
  }) {accum = "add", dynamic_indices = array<i64: 1, 9>, initialize_neutral = true, space = array<i64: 6, 3>, indexing_maps = [#bd, #ids, #row]} : (memref<6x3xf32>, memref<6x1xf32>, memref<5x3xf32>) -> ()
  return
}

// -----

#ids = affine_map<(b, d)[s0] -> (b, 0)>
#row = affine_map<(b, d)[s0] -> (s0, d)>
#bd = affine_map<(b, d)[s0] -> (b, d)>
func.func @the_result_as_source(%e: memref<6x3xf32>, %ids: memref<6x1xf32>, %t: memref<5x3xf32>) {
  // expected-error@+1 {{'ocannl_assign.accum' op dynamic index 0 is (0, 5): the operand must be a buffer read (1 or more) and the bound at least 1}}
  "ocannl_assign.accum"(%e, %ids, %t) ({
  ^bb0(%x: f32, %tv: f32):
    vector.yield %tv : f32
  }) {accum = "add", dynamic_indices = array<i64: 0, 5>, initialize_neutral = true, space = array<i64: 6, 3>, indexing_maps = [#bd, #ids, #row]} : (memref<6x3xf32>, memref<6x1xf32>, memref<5x3xf32>) -> ()
  return
}

// -----

#ids = affine_map<(b, d) -> (b, 0)>
#bd = affine_map<(b, d) -> (b, d)>
func.func @a_symbol_per_dynamic_index(%e: memref<6x3xf32>, %ids: memref<6x1xf32>, %t: memref<5x3xf32>) {
  // expected-error@+1 {{'ocannl_assign.accum' op indexing map #0 has 0 symbols but the op has 0 index operand(s) and 1 dynamic index(es)}}
  "ocannl_assign.accum"(%e, %ids, %t) ({
  ^bb0(%x: f32, %tv: f32):
    vector.yield %tv : f32
  }) {accum = "add", dynamic_indices = array<i64: 1, 5>, initialize_neutral = true, space = array<i64: 6, 3>, indexing_maps = [#bd, #ids, affine_map<(b, d) -> (0, d)>]} : (memref<6x3xf32>, memref<6x1xf32>, memref<5x3xf32>) -> ()
  return
}

// -----

#ids = affine_map<(b, d)[s0] -> (b, 0)>
#row = affine_map<(b, d)[s0] -> (s0, d)>
#bd = affine_map<(b, d)[s0] -> (b, d)>
func.func @pairs(%e: memref<6x3xf32>, %ids: memref<6x1xf32>, %t: memref<5x3xf32>) {
  // expected-error@+1 {{'ocannl_assign.accum' op attribute 'dynamic_indices' holds (operand, bound) pairs; found 3 values}}
  "ocannl_assign.accum"(%e, %ids, %t) ({
  ^bb0(%x: f32, %tv: f32):
    vector.yield %tv : f32
  }) {accum = "add", dynamic_indices = array<i64: 1, 5, 2>, initialize_neutral = true, space = array<i64: 6, 3>, indexing_maps = [#bd, #ids, #row]} : (memref<6x3xf32>, memref<6x1xf32>, memref<5x3xf32>) -> ()
  return
}

// -----

#ids = affine_map<(b, d)[s0] -> (b, s0)>
#row = affine_map<(b, d)[s0] -> (s0, d)>
#bd = affine_map<(b, d)[s0] -> (b, d)>
func.func @read_at_itself(%e: memref<6x3xf32>, %ids: memref<6x5xf32>, %t: memref<5x3xf32>) {
  // expected-error@+1 {{'ocannl_assign.accum' op dynamic index 0 is read from operand #1 at a dynamic index}}
  "ocannl_assign.accum"(%e, %ids, %t) ({
  ^bb0(%x: f32, %tv: f32):
    vector.yield %tv : f32
  }) {accum = "add", dynamic_indices = array<i64: 1, 5>, initialize_neutral = true, space = array<i64: 6, 3>, indexing_maps = [#bd, #ids, #row]} : (memref<6x3xf32>, memref<6x5xf32>, memref<5x3xf32>) -> ()
  return
}
