// RUN: ocannl-opt %s --ocannl-lower-to-loops --split-input-file | FileCheck %s

// c[i, j] += a[i, k] * b[k, j] with one whole 8x32 tile: b is packed into
// a 64-byte aligned panel, then the tile's 8x2 vectors of 16 lanes are
// loaded, carried through the k loop (iter_args), each step broadcasting a
// cell of a per row and multiply-adding a panel row, and stored back.
// CHECK-LABEL: func.func @tile
// CHECK: %[[P:.*]] = memref.alloc() {alignment = 64 : i64} : memref<1x5x32xf32>
// CHECK: %[[V:.*]] = memref.load %arg1[{{.*}}] : memref<5x32xf32>
// CHECK-NEXT: memref.store %[[V]], %[[P]][{{.*}}] : memref<1x5x32xf32>
// CHECK-COUNT-16: vector.load %{{.*}} : memref<8x32xf32>, vector<16xf32>
// CHECK: scf.for {{.*}} iter_args({{.*}}) -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>)
// CHECK-COUNT-2: vector.load %[[P]]
// CHECK: %[[A:.*]] = memref.load %arg0
// CHECK-NEXT: %[[AB:.*]] = vector.broadcast %[[A]] : f32 to vector<16xf32>
// CHECK-NEXT: vector.fma %[[AB]], {{.*}} : vector<16xf32>
// CHECK-NEXT: vector.fma %[[AB]], {{.*}} : vector<16xf32>
// CHECK-COUNT-16: vector.store
// CHECK: memref.dealloc %[[P]]
// CHECK-NOT: scf.for
// CHECK: return
func.func @tile(%a: memref<8x5xf32>, %b: memref<5x32xf32>) -> memref<8x32xf32> {
  %c = "ocannl_assign.node"() {name = "c", kind = "value", memory = "materialized", shape = "8,32"} : () -> memref<8x32xf32>
  "ocannl_assign.accum_binop"(%c, %a, %b) {accum = "add", op = "mul", space = array<i64: 8, 32, 5>, indexing_maps = [affine_map<(i, j, k) -> (i, j)>, affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>]} : (memref<8x32xf32>, memref<8x5xf32>, memref<5x32xf32>) -> ()
  return %c : memref<8x32xf32>
}

// -----

// Rows and columns beyond whole tiles (10 = 8 + 2 rows, 40 = 32 + 8
// columns) are computed by scalar loops after the kernel: rows 8..10 at every
// column, then rows 0..8 at columns 32..40.
// CHECK-LABEL: func.func @edges
// CHECK: vector.fma
// CHECK: memref.dealloc
// CHECK: scf.for %{{.*}} = %c8 to %c10
// CHECK: scf.for %{{.*}} = %c0{{.*}} to %c8{{.*}} step
// CHECK: scf.for %{{.*}} = %c32 to %c40
func.func @edges(%a: memref<10x5xf32>, %b: memref<5x40xf32>) -> memref<10x40xf32> {
  %c = "ocannl_assign.node"() {name = "c", kind = "value", memory = "materialized", shape = "10,40"} : () -> memref<10x40xf32>
  "ocannl_assign.accum_binop"(%c, %a, %b) {accum = "add", op = "mul", space = array<i64: 10, 40, 5>, indexing_maps = [affine_map<(i, j, k) -> (i, j)>, affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>]} : (memref<10x40xf32>, memref<10x5xf32>, memref<5x40xf32>) -> ()
  return %c : memref<10x40xf32>
}

// -----

// A max-plus product is not an add of products: scalar loops only.
// CHECK-LABEL: func.func @maxplus
// CHECK-NOT: vector.
// CHECK: return
func.func @maxplus(%a: memref<8x5xf32>, %b: memref<5x32xf32>) -> memref<8x32xf32> {
  %c = "ocannl_assign.node"() {name = "c", kind = "value", memory = "materialized", shape = "8,32"} : () -> memref<8x32xf32>
  "ocannl_assign.accum_binop"(%c, %a, %b) {accum = "max", op = "add", space = array<i64: 8, 32, 5>, indexing_maps = [affine_map<(i, j, k) -> (i, j)>, affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>]} : (memref<8x32xf32>, memref<8x5xf32>, memref<5x32xf32>) -> ()
  return %c : memref<8x32xf32>
}
