// The CPU's pipeline outlines each loop nest as a kernel before lowering to
// LLVM: the routine calls it with one pointer per buffer (the kernel reads
// the status global itself), a parallel loop
// becomes OpenMP inside the kernel, and the kernel stays a function of its
// own in LLVM IR (noinline).
// RUN: ocannl-opt %s --ocannl-to-llvm | FileCheck %s
// RUN: ocannl-opt %s --ocannl-to-llvm | mlir-translate --mlir-to-llvmir | FileCheck %s --check-prefix=IR

// CHECK-LABEL: llvm.func @big(
// CHECK-NOT: omp.
// CHECK: llvm.call @[[K:__ocannl_kernel_[0-9a-f]+]]({{.*}}) : (!llvm.ptr, !llvm.ptr) -> ()
// CHECK-NOT: omp.
// CHECK: llvm.return
// CHECK: llvm.func @[[K]](%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr)
// CHECK-SAME: ocannl.kernel_kind = "elementwise", ocannl.kernel_work = 65536 : i64, passthrough = ["noinline"]
// CHECK: omp.parallel
// CHECK: omp.wsloop
// CHECK: llvm.intr.maximum

// IR: define { ptr, ptr, i64, [2 x i64], [2 x i64] } @big(
// IR: call void @[[K:__ocannl_kernel_[0-9a-f]+]](
// IR: define void @[[K]]({{.*}}) #[[A:[0-9]+]] {
// IR: call {{.*}} @__kmpc_fork_call(
// IR: attributes #[[A]] = { noinline }
func.func @big(%x: !ocannl_shape.tensor<"512->128", f32>) -> !ocannl_shape.tensor<"?", f32> {
  %r = "ocannl_shape.pointwise_unary"(%x) {op = "relu"} : (!ocannl_shape.tensor<"512->128", f32>) -> !ocannl_shape.tensor<"?", f32>
  return %r : !ocannl_shape.tensor<"?", f32>
}
