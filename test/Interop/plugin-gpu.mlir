// REQUIRES: plugin
// The plugin brings the GPU target and pipelines to stock mlir-opt too:
// the loops lowered for the GPU and the PTX are what ocannl-opt makes.
// RUN: mlir-opt --load-dialect-plugin=%plugin --load-pass-plugin=%plugin %s --pass-pipeline='builtin.module(ocannl-infer-shapes,ocannl-lower-to-assign,ocannl-lower-to-loops{target=gpu})' > %t.stock
// RUN: ocannl-opt %s --pass-pipeline='builtin.module(ocannl-infer-shapes,ocannl-lower-to-assign,ocannl-lower-to-loops{target=gpu})' > %t.ours
// RUN: diff %t.stock %t.ours
// RUN: FileCheck %s < %t.stock
// RUN: mlir-opt --load-dialect-plugin=%plugin --load-pass-plugin=%plugin %s --pass-pipeline='builtin.module(ocannl-to-nvvm{chip=sm_80 ptx=78},ocannl-print-ptx{file=%t.stock.ptx})' -o /dev/null
// RUN: ocannl-opt %s --pass-pipeline='builtin.module(ocannl-to-nvvm{chip=sm_80 ptx=78},ocannl-print-ptx{file=%t.ours.ptx})' -o /dev/null
// RUN: diff %t.stock.ptx %t.ours.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.stock.ptx
// The GPU's pipelines are listed by --help:
// RUN: mlir-opt --load-pass-plugin=%plugin --help | FileCheck %s --check-prefix=HELP

// CHECK-LABEL: func.func @add
// CHECK: gpu.launch
// CHECK-NOT: ocannl_shape.
// CHECK-NOT: ocannl_assign.
// PTX: .version 7.8
// PTX-NEXT: .target sm_80
// PTX: .visible .entry add_kernel(
// PTX: add.rn.f32
// HELP: --ocannl-loops-to-nvvm
// HELP: --ocannl-to-nvvm
func.func @add(%b: !ocannl_shape.tensor<"5", f32>, %x: !ocannl_shape.tensor<"7|5", f32>) -> !ocannl_shape.tensor<"?", f32> {
  %y = "ocannl_shape.pointwise_binary"(%b, %x) {op = "add"} : (!ocannl_shape.tensor<"5", f32>, !ocannl_shape.tensor<"7|5", f32>) -> !ocannl_shape.tensor<"?", f32>
  return %y : !ocannl_shape.tensor<"?", f32>
}
