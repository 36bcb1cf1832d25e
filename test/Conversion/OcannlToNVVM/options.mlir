// The pipelines' options: the chip, the PTX version and the NVPTX
// optimization level reach the target attribute and the PTX.
// RUN: ocannl-opt %s --ocannl-to-nvvm="chip=sm_80 ptx=78 opt-level=2" | FileCheck %s --check-prefix=ATTR
// RUN: ocannl-opt %s --pass-pipeline='builtin.module(ocannl-to-nvvm{chip=sm_80 ptx=78},ocannl-print-ptx)' -o /dev/null | FileCheck %s --check-prefix=PTX
// The loops alone, lowered for the GPU, then to PTX with the defaults:
// RUN: ocannl-opt %s --pass-pipeline='builtin.module(ocannl-infer-shapes,ocannl-lower-to-assign,ocannl-lower-to-loops{target=gpu},ocannl-loops-to-nvvm,ocannl-print-ptx)' -o /dev/null | FileCheck %s --check-prefix=DEFAULT
// An unknown loop target is a located error naming the known ones:
// RUN: not ocannl-opt %s --pass-pipeline='builtin.module(ocannl-infer-shapes,ocannl-lower-to-assign,ocannl-lower-to-loops{target=tpu})' 2>&1 | FileCheck %s --check-prefix=TARGET
// The default target is still the CPU's:
// RUN: ocannl-opt %s --ocannl-infer-shapes --ocannl-lower-to-assign --ocannl-lower-to-loops | FileCheck %s --check-prefix=CPU

// ATTR: gpu.binary @relu_kernel [#gpu.object<#nvvm.target<chip = "sm_80", features = "+ptx78">, properties = {{{.*}}O = 2 : i32}
// PTX: .version 7.8
// PTX-NEXT: .target sm_80
// PTX: max.NaN.f32
// DEFAULT: .version 8.0
// DEFAULT-NEXT: .target sm_90
// TARGET: error: unknown loop target 'tpu' (known targets: cpu, gpu, sequential)
// CPU-LABEL: func.func @relu
// CPU-NOT: gpu.
// CPU: scf.for
func.func @relu(%x: !ocannl_shape.tensor<"1000", f32>) -> !ocannl_shape.tensor<"?", f32> {
  %y = "ocannl_shape.pointwise_unary"(%x) {op = "relu"} : (!ocannl_shape.tensor<"1000", f32>) -> !ocannl_shape.tensor<"?", f32>
  return %y : !ocannl_shape.tensor<"?", f32>
}
