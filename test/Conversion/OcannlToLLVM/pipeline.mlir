// The named pipeline takes ocannl_shape all the way to the LLVM dialect,
// which translates to LLVM IR.
// RUN: ocannl-opt %s --ocannl-to-llvm | FileCheck %s
// RUN: ocannl-opt %s --pass-pipeline='builtin.module(ocannl-to-llvm)' | mlir-translate --mlir-to-llvmir | FileCheck %s --check-prefix=IR

// CHECK-LABEL: llvm.func @mlp
// CHECK-NOT: {{ocannl_(shape|assign)}}
// CHECK-NOT: scf.
// CHECK-NOT: memref.
// CHECK: llvm.fadd {{.*}} {fastmathFlags = #llvm.fastmath<contract, reassoc>} : f32
// IR: define { ptr, ptr, i64, [2 x i64], [2 x i64] } @mlp(
func.func @mlp(%x: !ocannl_shape.tensor<"4|3", f32>) -> !ocannl_shape.tensor<"?", f32> {
  %w = "ocannl_shape.param"() {name = "w"} : () -> !ocannl_shape.tensor<"...->2", f32>
  %y = "ocannl_shape.compose"(%w, %x) : (!ocannl_shape.tensor<"...->2", f32>, !ocannl_shape.tensor<"4|3", f32>) -> !ocannl_shape.tensor<"?", f32>
  %r = "ocannl_shape.pointwise_unary"(%y) {op = "relu"} : (!ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  return %r : !ocannl_shape.tensor<"?", f32>
}
