// RUN: ocannl-opt %s --split-input-file --verify-diagnostics --ocannl-lower-to-loops="explain=true cpu=x86-64-v4" -o /dev/null

// A sum over a broadcast operand (what a convolution's input gradient
// becomes when its incoming gradient, a constant, is inlined and
// simplified away): 61 million points over 224 thousand cells, which no
// kernel takes.
func.func @scattered(%w: memref<16x5x5x6xf32>) -> memref<64x24x24x6xf32> {
  %g = "ocannl_assign.node"() {name = "g", kind = "grad", memory = "materialized", shape = "64,24,24,6"} : () -> memref<64x24x24x6xf32>
  // expected-remark @+1 {{a contraction of 61440000 points runs in scalar loops: no kernel of the 'cpu' target computes it}}
  "ocannl_assign.accum"(%g, %w) ({
  ^bb0(%x: f32):
    vector.yield %x : f32
  }) {accum = "add", indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1 + d5, d2 + d6, d4)>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d3, d5, d6, d4)>], space = array<i64: 64, 20, 20, 16, 6, 5, 5>} : (memref<64x24x24x6xf32>, memref<16x5x5x6xf32>) -> ()
  return %g : memref<64x24x24x6xf32>
}

// -----

// A matmul the kernel takes: nothing to report.
func.func @kernel(%a: memref<96x256xf32>, %b: memref<256x512xf32>) -> memref<96x512xf32> {
  %c = "ocannl_assign.node"() {name = "c", kind = "value", memory = "materialized", shape = "96,512"} : () -> memref<96x512xf32>
  "ocannl_assign.accum_binop"(%c, %a, %b) {accum = "add", op = "mul", initialize_neutral = true, space = array<i64: 96, 512, 256>, indexing_maps = [affine_map<(i, j, k) -> (i, j)>, affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>]} : (memref<96x512xf32>, memref<96x256xf32>, memref<256x512xf32>) -> ()
  return %c : memref<96x512xf32>
}

// -----

// A dot product over two large buffers is bound by memory: not reported.
func.func @dot(%a: memref<1024x256xf32>, %b: memref<1024x256xf32>) -> memref<1xf32> {
  %c = "ocannl_assign.node"() {name = "c", kind = "value", memory = "materialized", shape = "1"} : () -> memref<1xf32>
  "ocannl_assign.accum_binop"(%c, %a, %b) {accum = "add", op = "mul", initialize_neutral = true, space = array<i64: 1024, 256>, indexing_maps = [affine_map<(i, j) -> (0)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>]} : (memref<1xf32>, memref<1024x256xf32>, memref<1024x256xf32>) -> ()
  return %c : memref<1xf32>
}
