// REQUIRES: ocannl-run
// `--profile` times every kernel of the entry over the runs: the matmul's
// contraction kernel, called once per run, at some GFLOP/s and share of
// the machine's measured roof; the element-wise kernel of the relu in GB/s.
// Each row ends with what the kernel computes: the line of its op.
// RUN: env OCANNL_CACHE=0 ocannl-run %s --entry f --arg random:1 --arg random:2 --quiet --repeat 3 --profile | FileCheck %s
// CHECK: profile: 2 kernels called, {{[0-9.]+}} ms in kernels; roof {{[0-9.]+}} GFLOP/s
// Then each kind's calls and time, the slower kind first.
// CHECK-DAG: contraction: 3 calls, {{[0-9.]+}} ms ({{[0-9.]+}} us per call)
// CHECK-DAG: elementwise: 3 calls, {{[0-9.]+}} ms ({{[0-9.]+}} us per call)
// CHECK: kernel kind calls ms share speed roof computes
// CHECK-DAG: __ocannl_kernel_{{[0-9a-f]+}} contraction 3 {{[0-9.]+}} {{[0-9.]+}}% {{[0-9.]+}} GFLOP/s {{[0-9]+}}% {{.*}}profile.mlir:19:8{{ *$}}
// CHECK-DAG: __ocannl_kernel_{{[0-9a-f]+}} elementwise 3 {{[0-9.]+}} {{[0-9.]+}}% {{[0-9.]+}} GB/s {{.*}}profile.mlir:20:8{{ *$}}
// Without --profile nothing is timed or printed.
// RUN: env OCANNL_CACHE=0 ocannl-run %s --entry f --arg random:1 --arg random:2 --quiet | FileCheck %s --check-prefix=OFF --allow-empty
// OFF-NOT: profile:

func.func @f(%a: !ocannl_shape.tensor<"64->128", f32>, %b: !ocannl_shape.tensor<"128->96", f32>) -> !ocannl_shape.tensor<"?", f32> {
  %c = "ocannl_shape.compose"(%b, %a) : (!ocannl_shape.tensor<"128->96", f32>, !ocannl_shape.tensor<"64->128", f32>) -> !ocannl_shape.tensor<"?", f32>
  %r = "ocannl_shape.pointwise_unary"(%c) {op = "relu"} : (!ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  return %r : !ocannl_shape.tensor<"?", f32>
}
