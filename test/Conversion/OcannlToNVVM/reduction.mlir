// Reductions: one thread per result cell, reducing in a register from the
// neutral element (each thread owns its cell: no fill kernel before).
// RUN: ocannl-opt %s --pass-pipeline='builtin.module(ocannl-infer-shapes,ocannl-lower-to-assign,ocannl-lower-to-loops{target=gpu})' | FileCheck %s --check-prefix=LOOPS
// RUN: ocannl-opt %s --ocannl-to-nvvm --ocannl-print-ptx -o /dev/null | FileCheck %s --check-prefix=PTX

// The sum of each row: 8 threads (one warp launched), 300 steps each.
// LOOPS-LABEL: func.func @rows
// LOOPS: %[[S:.*]] = memref.alloc() : memref<8xf32>
// LOOPS: gpu.launch
// LOOPS: %[[LIN:.*]] = arith.addi
// LOOPS: %[[IN:.*]] = arith.cmpi ult, %[[LIN]], %c8 : index
// LOOPS: scf.if %[[IN]] {
// LOOPS: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// LOOPS: %[[SUM:.*]] = scf.for %[[I:.*]] = %{{.*}} to %c300 step %{{.*}} iter_args(%[[ACC:.*]] = %[[ZERO]]) -> (f32) {
// LOOPS: %[[X:.*]] = memref.load %arg0[%[[LIN]], %[[I]]] : memref<8x300xf32>
// LOOPS: %[[NEW:.*]] = arith.addf %[[ACC]], %[[X]] fastmath<reassoc,contract> : f32
// LOOPS: scf.yield %[[NEW]] : f32
// LOOPS: }
// LOOPS: memref.store %[[SUM]], %[[S]][%[[LIN]]] : memref<8xf32>
// LOOPS: gpu.terminator
// LOOPS-NOT: gpu.launch
// LOOPS: return %[[S]]

// The sum of everything: one thread, both axes in registers.
// LOOPS-LABEL: func.func @all
// LOOPS: gpu.launch
// LOOPS: %[[IN:.*]] = arith.cmpi ult, %{{.*}}, %c1{{.*}} : index
// LOOPS: scf.for %{{.*}} = %{{.*}} to %c8 step
// LOOPS: scf.for %{{.*}} = %{{.*}} to %c300 step
// LOOPS: memref.load %arg0
// LOOPS: arith.addf
// LOOPS-NOT: gpu.launch
// LOOPS: return

// PTX: .visible .entry rows_kernel(
// PTX: setp.gt.u32 {{.*}}, 7;
// PTX: ld.global.b32
// PTX: add.f32
// PTX: st.global.b32
// PTX: .visible .entry all_kernel(

func.func @rows(%x: !ocannl_shape.tensor<"8|300", f32>) -> !ocannl_shape.tensor<"?", f32> {
  %s = "ocannl_shape.einsum"(%x) {spec = "b|i => b"} : (!ocannl_shape.tensor<"8|300", f32>) -> !ocannl_shape.tensor<"?", f32>
  return %s : !ocannl_shape.tensor<"?", f32>
}

func.func @all(%x: !ocannl_shape.tensor<"8|300", f32>) -> !ocannl_shape.tensor<"?", f32> {
  %s = "ocannl_shape.einsum"(%x) {spec = "...|... => 0"} : (!ocannl_shape.tensor<"8|300", f32>) -> !ocannl_shape.tensor<"?", f32>
  return %s : !ocannl_shape.tensor<"?", f32>
}
