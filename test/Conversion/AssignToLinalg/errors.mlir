// RUN: ocannl-opt %s --ocannl-lower-to-linalg --split-input-file --verify-diagnostics

// The result read at other cells than the ones written: on memory the
// order of the writes decides what is read; a structured op reads its
// inputs as they were.
func.func @shift(%x: memref<4xf32>) {
  // expected-error@+1 {{operand #1 is the result read at other cells than the ones written; the result of a structured op cannot be read while it is written (copy the operand first)}}
  "ocannl_assign.accum_unop"(%x, %x) {accum = "add", op = "identity", space = array<i64: 3>, indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0 + 1)>]} : (memref<4xf32>, memref<4xf32>) -> ()
  return
}

// -----

// An index multiplying an iterator by an index operand.
func.func @mixed(%x: memref<8xf32>, %i: index) -> memref<2xf32> {
  %y = "ocannl_assign.node"() {kind = "value", memory = "materialized", name = "y", shape = "2"} : () -> memref<2xf32>
  // expected-error@+1 {{the index d0 * s0 of axis 0 of operand #1 combines iterators with index operands}}
  "ocannl_assign.accum_unop"(%y, %x, %i) {accum = "assign", indexing_maps = [affine_map<(d0)[s0] -> (d0)>, affine_map<(d0)[s0] -> (d0 * s0)>], op = "identity", space = array<i64: 2>} : (memref<2xf32>, memref<8xf32>, index) -> ()
  return %y : memref<2xf32>
}

// -----

// Another op on the routine's buffers.
func.func @load(%x: memref<4xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  // expected-error@+1 {{'memref.load' uses buffers and has no linalg form: ocannl-lower-to-linalg converts the ocannl_assign ops of a routine, whose buffers no other op may use}}
  %v = memref.load %x[%c0] : memref<4xf32>
  return %v : f32
}

// -----

// A module at the ocannl_shape stage.
func.func @shapes() -> memref<2xf32> {
  // expected-error@+1 {{'ocannl_shape.constant' uses buffers and has no linalg form: run ocannl-infer-shapes and ocannl-lower-to-assign first (or the pipeline ocannl-to-linalg)}}
  %a = "ocannl_shape.constant"() {value = 1.0 : f32} : () -> !ocannl_shape.tensor<"2", f32>
  %y = "ocannl_assign.node"() {kind = "value", memory = "materialized", name = "y", shape = "2"} : () -> memref<2xf32>
  return %y : memref<2xf32>
}

// -----

// A virtual node still read.
func.func @virtual(%x: memref<4xf32>) -> memref<4xf32> {
  // expected-error@+1 {{node 'v' is virtual but still read or written; run ocannl-virtualize to inline it, or give it a buffer (memory = "local")}}
  %v = "ocannl_assign.node"() {name = "v", kind = "value", memory = "virtual", shape = "4"} : () -> memref<4xf32>
  "ocannl_assign.accum_unop"(%v, %x) {accum = "assign", op = "neg", space = array<i64: 4>, indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>]} : (memref<4xf32>, memref<4xf32>) -> ()
  return %v : memref<4xf32>
}

// -----

// A declaration on buffers.
// expected-error@+1 {{a function declaration with the type memref<4xf32> has no linalg form; declare it on tensors}}
func.func private @external(memref<4xf32>)
