// Contractions on the GPU.
// RUN: ocannl-opt %s --pass-pipeline='builtin.module(ocannl-infer-shapes,ocannl-lower-to-assign,ocannl-lower-to-loops{target=gpu})' | FileCheck %s --check-prefix=LOOPS
// RUN: ocannl-opt %s --ocannl-to-nvvm | FileCheck %s --check-prefix=HOST
// RUN: ocannl-opt %s --ocannl-to-nvvm --ocannl-print-ptx -o /dev/null | FileCheck %s --check-prefix=PTX

// A 64x100 by 100x70 matmul: the tiled kernel runs 2 x 1 blocks of 16 x 16
// threads over 64 x 64 tiles of the result. Each k step of 16 loads a
// 64 x 16 tile of a and a 16 x 64 tile of b into shared memory (4 cells per
// thread; cells beyond the operands read 0: 100 and 70 are not multiples
// of the tile), waits at a barrier, and multiply-adds 4 x 4 sums per thread
// carried through both loops, from 0; the sums are stored into the result
// where it exists (the kernel writes each cell once: no zeroing kernel).
// LOOPS-LABEL: func.func @big
// LOOPS: %[[C:.*]] = memref.alloc() : memref<64x70xf32>
// LOOPS-NOT: memref.store %cst, %[[C]]
// LOOPS: gpu.launch blocks({{.*}}) in ({{.*}} = %c2, {{.*}} = %c1{{.*}}, {{.*}}) threads({{.*}}) in ({{.*}} = %c16, {{.*}} = %c16{{.*}}, {{.*}}) workgroup(%[[SA:.*]] : memref<16x64xf32, #gpu.address_space<workgroup>>, %[[SB:.*]] : memref<16x64xf32, #gpu.address_space<workgroup>>)
// LOOPS: scf.for %{{.*}} = %{{.*}} to %c7 step %{{.*}} iter_args({{.*}}) -> (f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)
// LOOPS: %[[K:.*]] = arith.minui %{{.*}}, %c99{{.*}} : index
// LOOPS: %[[A:.*]] = memref.load %arg0[%{{.*}}, %[[K]]] : memref<64x100xf32>
// LOOPS: arith.select %{{.*}}, %[[A]], %{{.*}} : f32
// LOOPS-COUNT-4: memref.store %{{.*}}, %[[SA]]
// LOOPS-COUNT-4: memref.store %{{.*}}, %[[SB]]
// LOOPS-NEXT: gpu.barrier
// LOOPS: scf.for %{{.*}} = %{{.*}} to %c16{{.*}} step %{{.*}} iter_args({{.*}}) -> (f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)
// LOOPS-COUNT-4: memref.load %[[SA]]
// LOOPS-COUNT-4: memref.load %[[SB]]
// LOOPS-COUNT-16: arith.addf
// LOOPS: gpu.barrier
// LOOPS-NOT: memref.load %[[C]]
// LOOPS-COUNT-16: memref.store %{{.*}}#{{[0-9]+}}, %[[C]]
// LOOPS: gpu.terminator
// LOOPS-NEXT: }
// LOOPS-NEXT: return %[[C]]

// A product too small for a tile: one thread per result cell (8 x 4 = 32
// threads), reducing k in a register from 0 (the 5 steps unrolled in the
// PTX).
// LOOPS-LABEL: func.func @small
// LOOPS: %[[C:.*]] = memref.alloc() : memref<8x4xf32>
// LOOPS: gpu.launch blocks({{.*}}) in ({{.*}} = %c1{{.*}}, {{.*}}) threads({{.*}}) in ({{.*}} = %c32{{.*}}, {{.*}})
// LOOPS: %[[J:.*]] = arith.remui %{{.*}}, %c4 : index
// LOOPS: %[[I:.*]] = arith.divui %{{.*}}, %c4 : index
// LOOPS: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// LOOPS: %[[SUM:.*]] = scf.for %[[K:.*]] = %{{.*}} to %c5 step %{{.*}} iter_args(%[[ACC:.*]] = %[[ZERO]]) -> (f32)
// LOOPS: memref.load %arg0[%[[I]], %[[K]]]
// LOOPS: memref.load %arg1[%[[K]], %[[J]]]
// LOOPS: arith.mulf
// LOOPS: arith.addf %[[ACC]]
// LOOPS: memref.store %[[SUM]], %[[C]][%[[I]], %[[J]]]

// The host: one launch per function, kernels of one module.
// HOST-LABEL: func.func @big
// HOST: %[[C:.*]] = memref.alloc() : memref<64x70xf32>
// HOST-NEXT: gpu.launch_func @big_kernel::@big_kernel blocks in (%c2, %c1, %c1) threads in (%c16, %c16, %c1) args(%arg0 : memref<64x100xf32>, %arg1 : memref<100x70xf32>, %[[C]] : memref<64x70xf32>)
// HOST-NEXT: return %[[C]]
// HOST: gpu.binary @big_kernel [#gpu.object<#nvvm.target<O = 3, chip = "sm_90", features = "+ptx80">
// HOST-LABEL: func.func @small
// HOST: %[[C:.*]] = memref.alloc() : memref<8x4xf32>
// HOST-NEXT: gpu.launch_func @big_kernel::@small_kernel blocks in (%c1, %c1, %c1) threads in (%c32, %c1, %c1) args(%arg0 : memref<8x5xf32>, %arg1 : memref<5x4xf32>, %[[C]] : memref<8x4xf32>)
// HOST-NEXT: return %[[C]]

// The tiled kernel: 2 x 4 KiB of shared memory, 256 threads, barriers,
// fused multiply-adds.
// PTX: .visible .entry big_kernel(
// PTX: .maxntid 16, 16, 1
// PTX-DAG: .shared .align 4 .b8 __wg_big_kernel_0[4096];
// PTX-DAG: .shared .align 4 .b8 __wg_big_kernel_1[4096];
// PTX: st.shared.b32
// PTX: bar.sync 0;
// PTX: ld.shared.b32
// PTX: fma.rn.f32
// PTX: bar.sync 0;
// PTX: .visible .entry small_kernel(
// PTX: .maxntid 32, 1, 1
// PTX-COUNT-5: mul.rn.f32
// PTX: st.global.b32

func.func @big(%a: !ocannl_shape.tensor<"100->64", f32>, %b: !ocannl_shape.tensor<"70->100", f32>) -> !ocannl_shape.tensor<"?", f32> {
  %c = "ocannl_shape.compose"(%a, %b) : (!ocannl_shape.tensor<"100->64", f32>, !ocannl_shape.tensor<"70->100", f32>) -> !ocannl_shape.tensor<"?", f32>
  return %c : !ocannl_shape.tensor<"?", f32>
}

func.func @small(%a: !ocannl_shape.tensor<"5->8", f32>, %b: !ocannl_shape.tensor<"4->5", f32>) -> !ocannl_shape.tensor<"?", f32> {
  %c = "ocannl_shape.compose"(%a, %b) : (!ocannl_shape.tensor<"5->8", f32>, !ocannl_shape.tensor<"4->5", f32>) -> !ocannl_shape.tensor<"?", f32>
  return %c : !ocannl_shape.tensor<"?", f32>
}
