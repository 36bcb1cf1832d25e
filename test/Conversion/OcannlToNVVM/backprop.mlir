// A train step's backprop on the GPU: the forward kernels, then the
// gradients (w's through the tiled kernel, reducing over the batch; b's
// with one thread per cell reducing the batch in a register), then the SGD
// updates of the params in place.
// RUN: ocannl-opt %s --pass-pipeline='builtin.module(ocannl-infer-shapes,ocannl-lower-to-assign{params-as-arguments=true},ocannl-autodiff,ocannl-train-step,ocannl-lower-to-loops{target=gpu},func.func(canonicalize,cse),ocannl-loops-to-nvvm)' | FileCheck %s --check-prefix=HOST
// RUN: ocannl-opt %s --pass-pipeline='builtin.module(ocannl-infer-shapes,ocannl-lower-to-assign{params-as-arguments=true},ocannl-autodiff,ocannl-train-step,ocannl-lower-to-loops{target=gpu},func.func(canonicalize,cse),ocannl-loops-to-nvvm,ocannl-print-ptx)' -o /dev/null | FileCheck %s --check-prefix=PTX

// HOST-LABEL: func.func @loss_train_step(
// HOST-SAME: %[[X:.*]]: memref<32x40xf32>, %[[W:.*]]: memref<48x40xf32> {ocannl.param = "w"}, %[[B:.*]]: memref<48xf32> {ocannl.param = "b"}, %[[LR:.*]]: memref<f32> {ocannl.learning_rate = ""})
// The forward product, tiled (48 x 32 results: one block of 16 x 16).
// HOST: gpu.launch_func @[[M:.*]]::@[[FWD:.*]] blocks in (%c1, %c1, %c1) threads in (%c16, %c16, %c1) args(%[[X]] : memref<32x40xf32>, %[[W]] : memref<48x40xf32>, %{{.*}} : memref<32x48xf32>)
// The gradients, zeroed first.
// HOST: %[[GW:.*]] = memref.alloc() : memref<48x40xf32>
// HOST: %[[GB:.*]] = memref.alloc() : memref<48xf32>
// HOST: memref.alloc() : memref<32x48xf32>
// HOST-NEXT: %[[GH:.*]] = memref.alloc() : memref<32x48xf32>
// HOST: gpu.launch_func @[[M]]::@{{.*}} blocks in (%c8, %c1, %c1) threads in (%c256, %c1, %c1) args(%[[GW]] : memref<48x40xf32>)
// HOST-NEXT: gpu.launch_func @[[M]]::@{{.*}} blocks in (%c1, %c1, %c1) threads in (%c64, %c1, %c1) args(%[[GB]] : memref<48xf32>)
// b's gradient: 48 threads summing the batch.
// HOST: gpu.launch_func @[[M]]::@{{.*}} blocks in (%c1, %c1, %c1) threads in (%c64, %c1, %c1) args(%[[GB]] : memref<48xf32>, %[[GH]] : memref<32x48xf32>)
// w's gradient: tiled, k over the batch.
// HOST-NEXT: gpu.launch_func @[[M]]::@{{.*}} blocks in (%c1, %c1, %c1) threads in (%c16, %c16, %c1) args(%[[GH]] : memref<32x48xf32>, %[[X]] : memref<32x40xf32>, %[[GW]] : memref<48x40xf32>)
// The updates, in place.
// HOST: gpu.launch_func @[[M]]::@{{.*}} blocks in (%c8, %c1, %c1) threads in (%c256, %c1, %c1) args(%[[LR]] : memref<f32>, %[[GW]] : memref<48x40xf32>, %[[W]] : memref<48x40xf32>)
// HOST: gpu.launch_func @[[M]]::@{{.*}} blocks in (%c1, %c1, %c1) threads in (%c64, %c1, %c1) args(%[[LR]] : memref<f32>, %[[GB]] : memref<48xf32>, %[[B]] : memref<48xf32>)
// HOST: return

// Every function's kernels in one PTX module; the update reads the
// learning rate and writes the param.
// PTX-COUNT-1: .version 8.0
// PTX: .visible .entry loss_kernel(
// PTX: .visible .entry loss_grad_kernel
// PTX: .visible .entry loss_train_step_kernel
// PTX: bar.sync 0;
// PTX: .visible .entry loss_train_step_kernel
// PTX: ld.global.b32
// PTX: mul.rn.f32
// PTX: sub.f32
// PTX: st.global.b32

// A layer's loss, y = relu(w * x + b) summed: trained on the GPU.
func.func @loss(%x: !ocannl_shape.tensor<"32|40", f32>) -> !ocannl_shape.tensor<"?", f32> {
  %w = "ocannl_shape.param"() {name = "w"} : () -> !ocannl_shape.tensor<"...->48", f32>
  %b = "ocannl_shape.param"() {name = "b"} : () -> !ocannl_shape.tensor<"48", f32>
  %h0 = "ocannl_shape.compose"(%w, %x) : (!ocannl_shape.tensor<"...->48", f32>, !ocannl_shape.tensor<"32|40", f32>) -> !ocannl_shape.tensor<"?", f32>
  %h1 = "ocannl_shape.pointwise_binary"(%b, %h0) {op = "add"} : (!ocannl_shape.tensor<"48", f32>, !ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  %h = "ocannl_shape.pointwise_unary"(%h1) {op = "relu"} : (!ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  %l = "ocannl_shape.einsum"(%h) {spec = "...|... => 0"} : (!ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  return %l : !ocannl_shape.tensor<"?", f32>
}
