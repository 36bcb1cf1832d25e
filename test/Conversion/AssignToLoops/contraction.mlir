// RUN: ocannl-opt %s --ocannl-lower-to-loops=cpu=x86-64-v4 --split-input-file | FileCheck %s

// c[i, j] += a[i, k] * b[k, j] with one whole 8x32 tile: every buffer is
// addressed flat; the tile's 8x2 vectors of 16 lanes are loaded, carried
// through the k loop (iter_args), each step reading a row of b (small and
// contiguous along j: read in place) and broadcasting a cell of a per row
// to multiply-add, and stored back.
// CHECK-LABEL: func.func @tile
// CHECK: %[[C:.*]] = memref.collapse_shape %{{.*}} {{\[}}[0, 1]] : memref<8x32xf32> into memref<256xf32>
// CHECK: %[[A:.*]] = memref.collapse_shape %arg0
// CHECK: %[[B:.*]] = memref.collapse_shape %arg1
// CHECK-NOT: memref.alloc
// CHECK-COUNT-16: vector.load %[[C]]
// CHECK: scf.for {{.*}} iter_args({{.*}}) -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>)
// CHECK-COUNT-2: vector.load %[[B]]
// CHECK: %[[X:.*]] = memref.load %[[A]]
// CHECK-NEXT: %[[XB:.*]] = vector.broadcast %[[X]] : f32 to vector<16xf32>
// CHECK-NEXT: vector.fma %[[XB]], {{.*}} : vector<16xf32>
// CHECK-NEXT: vector.fma %[[XB]], {{.*}} : vector<16xf32>
// CHECK-COUNT-16: vector.store {{.*}}, %[[C]]
// CHECK-NOT: scf.for
// CHECK: return
func.func @tile(%a: memref<8x16xf32>, %b: memref<16x32xf32>) -> memref<8x32xf32> {
  %c = "ocannl_assign.node"() {name = "c", kind = "value", memory = "materialized", shape = "8,32"} : () -> memref<8x32xf32>
  "ocannl_assign.accum_binop"(%c, %a, %b) {accum = "add", op = "mul", space = array<i64: 8, 32, 16>, indexing_maps = [affine_map<(i, j, k) -> (i, j)>, affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>]} : (memref<8x32xf32>, memref<8x16xf32>, memref<16x32xf32>) -> ()
  return %c : memref<8x32xf32>
}

// -----

// A result that starts at 0 (initialize_neutral) and whose every cell is in
// one tile running the whole reduction: no fill before the kernel, and the
// tile starts at zero vectors instead of loading the result.
// CHECK-LABEL: func.func @fresh
// CHECK: %[[Z:.*]] = arith.constant dense<0.000000e+00> : vector<16xf32>
// CHECK-NOT: memref.store
// CHECK-NOT: vector.load %{{.*}} : memref<256xf32>
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %[[Z]], %{{.*}} = %[[Z]],
// CHECK: vector.fma
// CHECK-COUNT-16: vector.store
func.func @fresh(%a: memref<8x16xf32>, %b: memref<16x32xf32>) -> memref<8x32xf32> {
  %c = "ocannl_assign.node"() {name = "c", kind = "value", memory = "materialized", shape = "8,32"} : () -> memref<8x32xf32>
  "ocannl_assign.accum_binop"(%c, %a, %b) {accum = "add", op = "mul", initialize_neutral = true, space = array<i64: 8, 32, 16>, indexing_maps = [affine_map<(i, j, k) -> (i, j)>, affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>]} : (memref<8x32xf32>, memref<8x16xf32>, memref<16x32xf32>) -> ()
  return %c : memref<8x32xf32>
}

// -----

// Odd sizes stay in the kernel: 14 rows are two tiles of 7, and the 40
// columns a tile of 32 and one of 8: one loop over both, each vector's lanes
// masked to those inside the result (computed from the tile's first
// column), so no scalar loop is left and the tile's code is emitted once.
// CHECK-LABEL: func.func @edges
// CHECK: scf.for %{{.*}} = %{{.*}} to %c2{{(_[0-9]+)?}} step
// CHECK: scf.for %{{.*}} = %{{.*}} to %c2{{.*}} step
// CHECK: %[[M:.*]] = vector.create_mask %{{.*}} : vector<16xi1>
// CHECK: vector.maskedload %{{.*}}[%{{.*}}], %[[M]]
// CHECK: scf.for {{.*}} -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>)
// CHECK: vector.maskedload %{{.*}}[%{{.*}}], %[[M]]
// CHECK: vector.fma
// CHECK-COUNT-14: vector.maskedstore
// CHECK-NOT: memref.load %arg
// CHECK-NOT: vector.fma
// CHECK: return
func.func @edges(%a: memref<14x16xf32>, %b: memref<16x40xf32>) -> memref<14x40xf32> {
  %c = "ocannl_assign.node"() {name = "c", kind = "value", memory = "materialized", shape = "14,40"} : () -> memref<14x40xf32>
  "ocannl_assign.accum_binop"(%c, %a, %b) {accum = "add", op = "mul", space = array<i64: 14, 40, 16>, indexing_maps = [affine_map<(i, j, k) -> (i, j)>, affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>]} : (memref<14x40xf32>, memref<14x16xf32>, memref<16x40xf32>) -> ()
  return %c : memref<14x40xf32>
}

// -----

// c = a b^T: b is strided along j, so its columns are packed first, one
// cell at a time, into a 64-byte aligned panel of 32 columns (24 of b,
// then 8 of zeros, which the tile's last lanes read), which the tiles read
// as vectors.
// CHECK-LABEL: func.func @transposed
// CHECK: %[[P:.*]] = memref.alloc() {alignment = 64 : i64} : memref<1024xf32>
// CHECK: scf.for %{{.*}} = %{{.*}} to %c24
// CHECK: %[[V:.*]] = memref.load %{{.*}} : memref<768xf32>
// CHECK-NEXT: memref.store %[[V]], %[[P]]
// CHECK: scf.for %{{.*}} = %c24{{.*}} to %c32
// CHECK: memref.store %{{.*}}, %[[P]]
// CHECK: vector.load %[[P]]
// CHECK: vector.fma
// CHECK: memref.dealloc %[[P]]
func.func @transposed(%a: memref<8x32xf32>, %b: memref<24x32xf32>) -> memref<8x24xf32> {
  %c = "ocannl_assign.node"() {name = "c", kind = "value", memory = "materialized", shape = "8,24"} : () -> memref<8x24xf32>
  "ocannl_assign.accum_binop"(%c, %a, %b) {accum = "add", op = "mul", space = array<i64: 8, 24, 32>, indexing_maps = [affine_map<(i, j, k) -> (i, j)>, affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (j, k)>]} : (memref<8x24xf32>, memref<8x32xf32>, memref<24x32xf32>) -> ()
  return %c : memref<8x24xf32>
}

// -----

// A padded convolution, y[b, oh, ow, oc] += x[b, oh + kh - 1, ow + kw - 1,
// ic] * w[oc, kh, kw, ic]: x is copied into a buffer with a border of 0
// (2x10x10x3 cells), read without checks; rows along ow, columns along
// oc, the reduction over kh, kw and ic inside the tile.
// CHECK-LABEL: func.func @conv
// CHECK: %[[X:.*]] = memref.alloc() {alignment = 64 : i64} : memref<600xf32>
// CHECK: memref.load %arg0[
// CHECK: memref.store %{{.*}}, %[[X]]
// CHECK: scf.for {{.*}} -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>)
// CHECK: scf.for {{.*}} -> (vector<16xf32>,
// CHECK: scf.for {{.*}} -> (vector<16xf32>,
// CHECK: memref.load %[[X]]
// CHECK: vector.fma
// CHECK-NOT: scf.if
// CHECK: memref.dealloc %[[X]]
func.func @conv(%x: memref<2x8x8x3xf32>, %w: memref<16x3x3x3xf32>) -> memref<2x8x8x16xf32> {
  %y = "ocannl_assign.node"() {name = "y", kind = "value", memory = "materialized", shape = "2|8,8,16"} : () -> memref<2x8x8x16xf32>
  "ocannl_assign.accum_binop"(%y, %x, %w) {accum = "add", op = "mul", initialize_neutral = true, space = array<i64: 2, 8, 8, 16, 3, 3, 3>, indexing_maps = [affine_map<(b, oh, ow, oc, ic, kh, kw) -> (b, oh, ow, oc)>, affine_map<(b, oh, ow, oc, ic, kh, kw) -> (b, oh + kh - 1, ow + kw - 1, ic)>, affine_map<(b, oh, ow, oc, ic, kh, kw) -> (oc, kh, kw, ic)>]} : (memref<2x8x8x16xf32>, memref<2x8x8x3xf32>, memref<16x3x3x3xf32>) -> ()
  return %y : memref<2x8x8x16xf32>
}

// -----

// The gradient of a convolution w.r.t. its input scatters
// (dx[b, oh + kh, ow + kw, ic]); in gather form it runs over dx's cells,
// reading dy padded with 0 (2x12x12x16 cells), so the tile's cells are
// distinct and no write is checked. Three channels: vectors of 8 lanes,
// 3 of them loaded and stored.
// CHECK-LABEL: func.func @input_grad
// CHECK: vector.constant_mask [3] : vector<8xi1>
// CHECK: %[[DY:.*]] = memref.alloc() {alignment = 64 : i64} : memref<4608xf32>
// CHECK: memref.load %[[DY]]
// CHECK: vector.fma {{.*}} : vector<8xf32>
// CHECK: vector.maskedstore
// CHECK-NOT: scf.if
// CHECK: return
func.func @input_grad(%dy: memref<2x8x8x16xf32>, %w: memref<16x3x3x3xf32>) -> memref<2x10x10x3xf32> {
  %dx = "ocannl_assign.node"() {name = "dx", kind = "grad", memory = "materialized", shape = "2|10,10,3"} : () -> memref<2x10x10x3xf32>
  "ocannl_assign.accum_binop"(%dx, %dy, %w) {accum = "add", op = "mul", initialize_neutral = true, space = array<i64: 2, 8, 8, 16, 3, 3, 3>, indexing_maps = [affine_map<(b, oh, ow, oc, ic, kh, kw) -> (b, oh + kh, ow + kw, ic)>, affine_map<(b, oh, ow, oc, ic, kh, kw) -> (b, oh, ow, oc)>, affine_map<(b, oh, ow, oc, ic, kh, kw) -> (oc, kh, kw, ic)>]} : (memref<2x10x10x3xf32>, memref<2x8x8x16xf32>, memref<16x3x3x3xf32>) -> ()
  return %dx : memref<2x10x10x3xf32>
}

// -----

// A strided convolution's input gradient has no gather form that would not
// multiply the work: scalar loops, writing only inside dx.
// CHECK-LABEL: func.func @strided_input_grad
// CHECK-NOT: vector.
// CHECK: scf.if
// CHECK: return
func.func @strided_input_grad(%dy: memref<2x8x8x16xf32>, %w: memref<16x3x3x3xf32>) -> memref<2x17x17x3xf32> {
  %dx = "ocannl_assign.node"() {name = "dx", kind = "grad", memory = "materialized", shape = "2|17,17,3"} : () -> memref<2x17x17x3xf32>
  "ocannl_assign.accum_binop"(%dx, %dy, %w) {accum = "add", op = "mul", initialize_neutral = true, space = array<i64: 2, 8, 8, 16, 3, 3, 3>, indexing_maps = [affine_map<(b, oh, ow, oc, ic, kh, kw) -> (b, oh * 2 + kh, ow * 2 + kw, ic)>, affine_map<(b, oh, ow, oc, ic, kh, kw) -> (b, oh, ow, oc)>, affine_map<(b, oh, ow, oc, ic, kh, kw) -> (oc, kh, kw, ic)>]} : (memref<2x17x17x3xf32>, memref<2x8x8x16xf32>, memref<16x3x3x3xf32>) -> ()
  return %dx : memref<2x17x17x3xf32>
}

// -----

// A max-plus product is not an add of products: scalar loops only.
// CHECK-LABEL: func.func @maxplus
// CHECK-NOT: vector.
// CHECK: return
func.func @maxplus(%a: memref<8x16xf32>, %b: memref<16x32xf32>) -> memref<8x32xf32> {
  %c = "ocannl_assign.node"() {name = "c", kind = "value", memory = "materialized", shape = "8,32"} : () -> memref<8x32xf32>
  "ocannl_assign.accum_binop"(%c, %a, %b) {accum = "max", op = "add", space = array<i64: 8, 32, 16>, indexing_maps = [affine_map<(i, j, k) -> (i, j)>, affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>]} : (memref<8x32xf32>, memref<8x16xf32>, memref<16x32xf32>) -> ()
  return %c : memref<8x32xf32>
}

// -----

// Too small to pay for the kernel's code: scalar loops.
// CHECK-LABEL: func.func @tiny
// CHECK-NOT: vector.
// CHECK: return
func.func @tiny(%a: memref<4x5xf32>, %b: memref<5x6xf32>) -> memref<4x6xf32> {
  %c = "ocannl_assign.node"() {name = "c", kind = "value", memory = "materialized", shape = "4,6"} : () -> memref<4x6xf32>
  "ocannl_assign.accum_binop"(%c, %a, %b) {accum = "add", op = "mul", space = array<i64: 4, 6, 5>, indexing_maps = [affine_map<(i, j, k) -> (i, j)>, affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>]} : (memref<4x6xf32>, memref<4x5xf32>, memref<5x6xf32>) -> ()
  return %c : memref<4x6xf32>
}
