// REQUIRES: ocannl-run
// UNSUPPORTED: cuda
// Without an NVIDIA GPU and its driver, --device cuda says so in one line
// and exits with 1, before compiling anything.
// RUN: not ocannl-run %s --entry f --arg range --device cuda 2>&1 | FileCheck %s
// RUN: not ocannl-run %s --entry f --arg range --device cuda 2>&1 | count 1
// RUN: not ocannl-run %s --entry f --device cuda --device-info 2>&1 | count 1
// CHECK: {{^(no CUDA driver: libcuda.so was not found|no CUDA device|the CUDA driver cannot be used)}}
func.func @f(%x: !ocannl_shape.tensor<"4", f32>) -> !ocannl_shape.tensor<"?", f32> {
  %y = "ocannl_shape.pointwise_unary"(%x) {op = "relu"} : (!ocannl_shape.tensor<"4", f32>) -> !ocannl_shape.tensor<"?", f32>
  return %y : !ocannl_shape.tensor<"?", f32>
}
