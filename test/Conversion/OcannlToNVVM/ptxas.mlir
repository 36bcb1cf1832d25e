// The PTX of every kernel kind assembles with NVIDIA's ptxas for sm_90:
// pointwise, tiled and per-cell matmuls, reductions, a padded convolution,
// a train step (and math functions through libdevice, when it is found).
// REQUIRES: ptxas
// RUN: ocannl-opt %S/pointwise.mlir --ocannl-to-nvvm --ocannl-print-ptx=file=%t.pointwise.ptx -o /dev/null
// RUN: %ptxas -arch=sm_90 %t.pointwise.ptx -o %t.cubin
// RUN: ocannl-opt %S/matmul.mlir --ocannl-to-nvvm --ocannl-print-ptx=file=%t.matmul.ptx -o /dev/null
// RUN: %ptxas -arch=sm_90 %t.matmul.ptx -o %t.cubin
// RUN: ocannl-opt %S/reduction.mlir --ocannl-to-nvvm --ocannl-print-ptx=file=%t.reduction.ptx -o /dev/null
// RUN: %ptxas -arch=sm_90 %t.reduction.ptx -o %t.cubin
// RUN: ocannl-opt %S/conv.mlir --ocannl-to-nvvm --ocannl-print-ptx=file=%t.conv.ptx -o /dev/null
// RUN: %ptxas -arch=sm_90 %t.conv.ptx -o %t.cubin
// RUN: ocannl-opt %S/backprop.mlir --pass-pipeline='builtin.module(ocannl-infer-shapes,ocannl-lower-to-assign{params-as-arguments=true},ocannl-autodiff,ocannl-train-step,ocannl-lower-to-loops{target=gpu},func.func(canonicalize,cse),ocannl-loops-to-nvvm,ocannl-print-ptx{file=%t.backprop.ptx})' -o /dev/null
// RUN: %ptxas -arch=sm_90 %t.backprop.ptx -o %t.cubin
// The tiled kernel in f64 (below):
// RUN: ocannl-opt %s --ocannl-to-nvvm --ocannl-print-ptx=file=%t.f64.ptx -o /dev/null
// RUN: %ptxas -arch=sm_90 -v %t.f64.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=F64
// An older chip and PTX version:
// RUN: ocannl-opt %S/matmul.mlir --ocannl-to-nvvm="chip=sm_80 ptx=78" --ocannl-print-ptx=file=%t.sm80.ptx -o /dev/null
// RUN: %ptxas -arch=sm_80 %t.sm80.ptx -o %t.cubin
// RUN: %if libdevice %{ ocannl-opt %S/libdevice.mlir --ocannl-to-nvvm --ocannl-print-ptx=file=%t.libdevice.ptx -o /dev/null %}
// RUN: %if libdevice %{ %ptxas -arch=sm_90 %t.libdevice.ptx -o %t.cubin %}
// ptxas reports what the tiled kernel uses: shared memory and no spills.
// RUN: %ptxas -arch=sm_90 -v %t.matmul.ptx -o %t.cubin 2>&1 | FileCheck %s
// CHECK: Function properties for big_kernel{{$}}
// CHECK-NEXT: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// CHECK-NEXT: Used {{[0-9]+}} registers, used 1 barriers, 8192 bytes smem
// F64: Function properties for mm64_kernel{{$}}
// F64-NEXT: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// F64-NEXT: Used {{[0-9]+}} registers, used 1 barriers, 16384 bytes smem
func.func @mm64(%a: !ocannl_shape.tensor<"100->64", f64>, %b: !ocannl_shape.tensor<"70->100", f64>) -> !ocannl_shape.tensor<"?", f64> {
  %c = "ocannl_shape.compose"(%a, %b) : (!ocannl_shape.tensor<"100->64", f64>, !ocannl_shape.tensor<"70->100", f64>) -> !ocannl_shape.tensor<"?", f64>
  return %c : !ocannl_shape.tensor<"?", f64>
}
