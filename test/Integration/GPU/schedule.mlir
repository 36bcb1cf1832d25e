// REQUIRES: ocannl-run
// What the host does to run a function on the GPU, read from the compiled
// module without a GPU: allocations, kernel launches (grid, block and
// arguments: the caller's buffers, the function's own, constants uploaded
// once, index arguments), frees after last uses, results.
// RUN: ocannl-run %s --entry layer --device cuda --print-schedule | FileCheck %s --check-prefix=LAYER
// RUN: ocannl-run %s --entry slice --device cuda --print-schedule | FileCheck %s --check-prefix=SLICE

// The param (generated), the literal (copied from its constant), the
// product (one thread per result cell, summing from 0), then the pointwise
// ops in one kernel: ocannl-virtualize inlines the zero constant and the
// scaled product into the max, so they get no buffer.
// LAYER: @layer(f32[8,3]) -> (f32[8,4])
// LAYER-NEXT: alloc %[[W:[0-9]+]] 48 bytes
// LAYER-NEXT: launch [[M:.*]]::layer_kernel grid 1x1x1 block 32x1x1 (%[[W]])
// LAYER-NEXT: alloc %[[H:[0-9]+]] 16 bytes
// LAYER-NEXT: launch [[M]]::layer_kernel_{{[0-9]+}} grid 1x1x1 block 32x1x1 (@__ocannl_literal_1, %[[H]])
// LAYER-NEXT: alloc %[[P:[0-9]+]] 128 bytes
// LAYER-NEXT: launch [[M]]::{{.*}} (%[[W]], arg0, %[[P]])
// LAYER-NEXT: free %[[W]]
// LAYER-NEXT: alloc %[[R:[0-9]+]] 128 bytes
// LAYER-NEXT: launch [[M]]::{{.*}} (%[[P]], %[[H]], %[[R]])
// LAYER-NEXT: free %[[P]]
// LAYER-NEXT: free %[[H]]
// LAYER-NEXT: return %[[R]]

// An index argument is passed to the kernel as a 64-bit integer.
// SLICE: @slice(f32[7,2,3], index) -> (f32[2,3])
// SLICE-NEXT: alloc %0 24 bytes
// SLICE-NEXT: launch {{.*}}::slice_kernel grid 1x1x1 block 32x1x1 (arg0, index arg1, %0)
// SLICE-NEXT: return %0

func.func @layer(%x: !ocannl_shape.tensor<"8|3", f32>) -> !ocannl_shape.tensor<"?", f32> {
  %w = "ocannl_shape.param"() {name = "w"} : () -> !ocannl_shape.tensor<"...->4", f32>
  %hv = "ocannl_shape.constant"() {value = dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>} : () -> !ocannl_shape.tensor<"?", f32>
  %z = "ocannl_shape.constant"() {value = 0.0 : f32} : () -> !ocannl_shape.tensor<"1", f32>
  %m = "ocannl_shape.compose"(%w, %x) : (!ocannl_shape.tensor<"...->4", f32>, !ocannl_shape.tensor<"8|3", f32>) -> !ocannl_shape.tensor<"?", f32>
  %s = "ocannl_shape.pointwise_binary"(%m, %hv) {op = "mul"} : (!ocannl_shape.tensor<"?", f32>, !ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  %r = "ocannl_shape.pointwise_binary"(%s, %z) {op = "max"} : (!ocannl_shape.tensor<"?", f32>, !ocannl_shape.tensor<"1", f32>) -> !ocannl_shape.tensor<"?", f32>
  return %r : !ocannl_shape.tensor<"?", f32>
}

func.func @slice(%x: !ocannl_shape.tensor<"7,2|3", f32>, %i: index) -> !ocannl_shape.tensor<"?", f32> {
  %y = "ocannl_shape.batch_slice"(%x, %i) : (!ocannl_shape.tensor<"7,2|3", f32>, index) -> !ocannl_shape.tensor<"?", f32>
  return %y : !ocannl_shape.tensor<"?", f32>
}
