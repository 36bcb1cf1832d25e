// REQUIRES: ocannl-run
// A batch_slice index is checked by the compiled code, as by the
// interpreter: an index outside the sliced axis is an error naming the
// index and the axis, never a read outside the buffer. Negative indices are
// written `--arg -1` or `--arg=-1`.
// RUN: ocannl-run %s --entry f --arg range --arg 2 | FileCheck %s
// RUN: ocannl-run %s --entry f --arg range --arg 2 --interpret | FileCheck %s
// RUN: not ocannl-run %s --entry f --arg range --arg 3 2>&1 | FileCheck %s --check-prefix=HIGH
// RUN: not ocannl-run %s --entry f --arg range --arg -1 2>&1 | FileCheck %s --check-prefix=LOW
// RUN: not ocannl-run %s --entry f --arg range --arg=-1 --repeat 3 2>&1 | FileCheck %s --check-prefix=LOW
// RUN: not ocannl-run %s --entry f --arg range --arg 3 --interpret 2>&1 | FileCheck %s --check-prefix=INTERP

// The slice of neg(x) at batch index 2 of x = range(3|2).
// CHECK: result0: shape [2] dtype f32
// CHECK-NEXT: [-4, -5]
// HIGH: slice-index.mlir:[[@LINE+7]]:8: error: the slice index (argument #1 of @f) is 3, outside the axis of 3 cell(s) (valid indices: 0 to 2)
// HIGH-NOT: result0
// LOW: slice-index.mlir:[[@LINE+5]]:8: error: the slice index (argument #1 of @f) is -1, outside the axis of 3 cell(s) (valid indices: 0 to 2)
// LOW-NOT: result0
// INTERP: interpreter: index 3 on axis 0 is outside the axis of 3 cell(s) (valid indices: 0 to 2)
func.func @f(%x: !ocannl_shape.tensor<"3|2", f32>, %i: index) -> !ocannl_shape.tensor<"?", f32> {
  %n = "ocannl_shape.pointwise_unary"(%x) {op = "neg"} : (!ocannl_shape.tensor<"3|2", f32>) -> !ocannl_shape.tensor<"?", f32>
  %s = "ocannl_shape.batch_slice"(%n, %i) : (!ocannl_shape.tensor<"?", f32>, index) -> !ocannl_shape.tensor<"?", f32>
  return %s : !ocannl_shape.tensor<"?", f32>
}
