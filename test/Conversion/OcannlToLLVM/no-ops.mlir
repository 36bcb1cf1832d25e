// A function without ocannl_shape ops: its tensor arguments and results
// become buffers all the same, and no tensor type reaches LLVM.
// RUN: ocannl-opt %s --ocannl-to-llvm | FileCheck %s

// CHECK-LABEL: llvm.func @identity
// CHECK-NOT: ocannl_shape
// CHECK: llvm.return
func.func @identity(%x: !ocannl_shape.tensor<"2->4", f32>) -> !ocannl_shape.tensor<"2->4", f32> {
  return %x : !ocannl_shape.tensor<"2->4", f32>
}
