// Math functions in kernels come from libdevice, linked when a CUDA
// toolkit is found (CUDA_ROOT); without one, the PTX would call functions
// it does not define, and the pipeline says where to get libdevice (after
// gpu-module-to-binary's own complaint when CUDA_ROOT names a directory
// without it).
// RUN: rm -rf %t.empty && mkdir -p %t.empty
// RUN: env CUDA_ROOT=%t.empty CUDA_HOME=%t.empty CUDA_PATH=%t.empty not ocannl-opt %s --ocannl-to-nvvm -o /dev/null 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: %if libdevice %{ ocannl-opt %s --ocannl-to-nvvm --ocannl-print-ptx -o /dev/null | FileCheck %s --check-prefix=LINKED %}

// MISSING: error: LibDevice path: {{.*}}libdevice.10.bc does not exist or is not a file.
// MISSING: libdevice.mlir:[[# @LINE + 8]]:8: error: the kernels of @f_kernel call libdevice functions (__nv_expf, __nv_tanhf) but libdevice was not linked: set CUDA_ROOT to a CUDA toolkit
// LINKED-NOT: .extern
// LINKED: .visible .entry f_kernel(
// LINKED: ex2.approx
// LINKED-NOT: call
// LINKED: ret;
func.func @f(%x: !ocannl_shape.tensor<"100", f32>) -> !ocannl_shape.tensor<"?", f32> {
  %e = "ocannl_shape.pointwise_unary"(%x) {op = "exp"} : (!ocannl_shape.tensor<"100", f32>) -> !ocannl_shape.tensor<"?", f32>
  %t = "ocannl_shape.pointwise_unary"(%e) {op = "tanh"} : (!ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  return %t : !ocannl_shape.tensor<"?", f32>
}
