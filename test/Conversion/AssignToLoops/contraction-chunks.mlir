// A contraction whose packed panels of b would not fit half of the L2
// cache is computed chunk by chunk: for each block of 256 reduction steps,
// the panels of one chunk of columns are packed, then every row tile runs
// over that chunk's column tiles. Planned for x86-64-v3 with the default
// caches (32 KiB L1, 1 MiB L2): a panel is 256 steps of 16 f32 (16 KiB),
// 32 panels (512 columns) make a chunk, 1536 columns make 3 chunks.

// RUN: ocannl-opt %s --ocannl-lower-to-loops=cpu=x86-64-v3 | FileCheck %s

// Its loops' bounds are dynamic (blocks, chunks): the kernel marks its nest
// with the multiply-adds (96 x 1536 x 512), which its outlined kernel
// reports.
// RUN: ocannl-opt %s --pass-pipeline='builtin.module(ocannl-lower-to-loops{cpu=x86-64-v3 kernels=true})' | FileCheck %s --check-prefix=MADDS
// MADDS: ocannl.kernel_kind = "contraction", ocannl.kernel_madds = 75497472 : i64
// MADDS: ocannl.kernel_kind = "contraction", ocannl.kernel_madds = 25165824 : i64

// CHECK-LABEL: func.func @wide
// CHECK: scf.for %[[K0:.*]] = %{{.*}} to %c512{{.*}} step %c256
// CHECK: %[[CHUNKS:.*]] = arith.constant 3 : index
// CHECK: scf.for %[[C:.*]] = %{{.*}} to %[[CHUNKS]] step
// CHECK-NEXT: %[[LO:.*]] = arith.muli %[[C]], %c32
// CHECK-NEXT: %[[END:.*]] = arith.addi %[[LO]], %c32
// CHECK-NEXT: %[[HI:.*]] = arith.minsi %[[END]], %c96
// The chunk's whole panels, packed in parallel.
// CHECK: scf.parallel (%{{.*}}) = (%[[LO]]) to (%{{.*}})
// CHECK: vector.store
// Then the 16 row tiles of 6 rows over the chunk's column tiles.
// CHECK: scf.parallel (%{{.*}}) = (%{{.*}}) to (%c16{{.*}})
// CHECK: scf.for %{{.*}} = %[[LO]] to %[[HI]] step
// CHECK: scf.for {{.*}} iter_args

// A contraction whose panels fit (512 columns) is computed in one chunk:
// its column tiles run from 0 to 32, no chunk bounds.
// CHECK-LABEL: func.func @narrow
// CHECK-NOT: arith.minsi {{.*}}, %c32
// CHECK: scf.for %{{.*}} = %{{.*}} to %c32{{.*}} step
// CHECK: scf.for {{.*}} iter_args

func.func @wide(%a: memref<96x512xf32>, %b: memref<512x1536xf32>) -> memref<96x1536xf32> {
  %c = "ocannl_assign.node"() {name = "c", kind = "value", memory = "materialized", shape = "96,1536"} : () -> memref<96x1536xf32>
  "ocannl_assign.accum_binop"(%c, %a, %b) {accum = "add", op = "mul", initialize_neutral = true, space = array<i64: 96, 1536, 512>, indexing_maps = [affine_map<(i, j, k) -> (i, j)>, affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>]} : (memref<96x1536xf32>, memref<96x512xf32>, memref<512x1536xf32>) -> ()
  return %c : memref<96x1536xf32>
}

func.func @narrow(%a: memref<96x512xf32>, %b: memref<512x512xf32>) -> memref<96x512xf32> {
  %c = "ocannl_assign.node"() {name = "c", kind = "value", memory = "materialized", shape = "96,512"} : () -> memref<96x512xf32>
  "ocannl_assign.accum_binop"(%c, %a, %b) {accum = "add", op = "mul", initialize_neutral = true, space = array<i64: 96, 512, 512>, indexing_maps = [affine_map<(i, j, k) -> (i, j)>, affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>]} : (memref<96x512xf32>, memref<96x512xf32>, memref<512x512xf32>) -> ()
  return %c : memref<96x512xf32>
}
