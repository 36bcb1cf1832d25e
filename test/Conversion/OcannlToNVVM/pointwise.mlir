// A broadcasted pointwise op: y[b, o] = x[b, o] + bias[o], one thread per
// cell of y (7 x 5 = 35 cells: one block of 64 threads, those beyond the
// last cell doing nothing), the cell's coordinates from its linear index.
// RUN: ocannl-opt %s --pass-pipeline='builtin.module(ocannl-infer-shapes,ocannl-lower-to-assign,ocannl-lower-to-loops{target=gpu})' | FileCheck %s --check-prefix=LOOPS
// RUN: ocannl-opt %s --ocannl-to-nvvm | FileCheck %s --check-prefix=HOST
// RUN: ocannl-opt %s --ocannl-to-nvvm --ocannl-print-ptx -o /dev/null | FileCheck %s --check-prefix=PTX

// LOOPS-LABEL: func.func @add
// LOOPS: %[[Y:.*]] = memref.alloc() : memref<7x5xf32>
// LOOPS: %[[ONE:.*]] = arith.constant 1 : index
// LOOPS: %[[T:.*]] = arith.constant 64 : index
// LOOPS: gpu.launch blocks(%[[BX:.*]], %{{.*}}, %{{.*}}) in ({{.*}} = %[[ONE]], {{.*}}) threads(%[[TX:.*]], %{{.*}}, %{{.*}}) in ({{.*}} = %[[T]],
// LOOPS: %[[B:.*]] = arith.muli %[[BX]], %{{.*}} : index
// LOOPS: %[[LIN:.*]] = arith.addi %[[B]], %[[TX]] : index
// LOOPS: %[[IN:.*]] = arith.cmpi ult, %[[LIN]], %c35 : index
// LOOPS: scf.if %[[IN]] {
// LOOPS: %[[O:.*]] = arith.remui %[[LIN]], %c5 : index
// LOOPS: %[[R:.*]] = arith.divui %[[LIN]], %c5 : index
// LOOPS-DAG: memref.load %arg0[%[[O]]] : memref<5xf32>
// LOOPS-DAG: memref.load %arg1[%[[R]], %[[O]]] : memref<7x5xf32>
// LOOPS: arith.addf
// LOOPS: memref.store %{{.*}}, %[[Y]][%[[R]], %[[O]]] : memref<7x5xf32>
// LOOPS: gpu.terminator
// LOOPS-NOT: scf.for
// LOOPS: return %[[Y]]

// The host allocates, launches the kernel and returns.
// HOST: module attributes {gpu.container_module}
// HOST-LABEL: func.func @add
// HOST-NEXT: arith.constant
// HOST: %[[Y:.*]] = memref.alloc() : memref<7x5xf32>
// HOST-NEXT: gpu.launch_func @add_kernel::@add_kernel blocks in (%c1, %c1, %c1) threads in (%c64, %c1, %c1) args(%arg0 : memref<5xf32>, %arg1 : memref<7x5xf32>, %[[Y]] : memref<7x5xf32>)
// HOST-NEXT: return %[[Y]]
// HOST: gpu.binary @add_kernel [#gpu.object<#nvvm.target<O = 3, chip = "sm_90", features = "+ptx80">

// Memrefs are bare pointers; the kernel reads the global buffers.
// PTX: .version 8.0
// PTX: .target sm_90
// PTX: .visible .entry add_kernel(
// PTX-NEXT: .param .u64 .ptr .align 1 add_kernel_param_0,
// PTX-NEXT: .param .u64 .ptr .align 1 add_kernel_param_1,
// PTX-NEXT: .param .u64 .ptr .align 1 add_kernel_param_2
// PTX: .maxntid 64, 1, 1
// PTX: mov.u32 {{.*}}%tid.x
// PTX: ld.global.b32
// PTX: ld.global.b32
// PTX: add.rn.f32
// PTX: st.global.b32
// PTX: ret;
func.func @add(%b: !ocannl_shape.tensor<"5", f32>, %x: !ocannl_shape.tensor<"7|5", f32>) -> !ocannl_shape.tensor<"?", f32> {
  %y = "ocannl_shape.pointwise_binary"(%b, %x) {op = "add"} : (!ocannl_shape.tensor<"5", f32>, !ocannl_shape.tensor<"7|5", f32>) -> !ocannl_shape.tensor<"?", f32>
  return %y : !ocannl_shape.tensor<"?", f32>
}
