// REQUIRES: ocannl-run
// RUN: ocannl-run %s --entry loss --grad-check | FileCheck %s --check-prefix=GRAD
// RUN: ocannl-run %s --entry loss | FileCheck %s
// RUN: ocannl-run %s --entry loss --interpret | FileCheck %s
// RUN: ocannl-run %s --entry loss --no-optimize | FileCheck %s
// RUN: ocannl-run %s --entry loss --device cuda --print-schedule | FileCheck %s --check-prefix=GPU

// An embedding of ids (two of them select nothing: 7 is out of range, 1.5
// is not an integer) and a pick of each row's target logit, both one-hot
// contractions that the loop targets compute as gathers, and their
// gradients as scatter-adds. The compiled code computes what the
// interpreter computes on the contractions; the compiled backprop agrees
// with the interpreted one (repeated ids add their rows' gradients).
// GRAD: grad-check @loss: loss {{.*}}, 2 params, 30 cells
// GRAD-NEXT: backprop vs finite differences: max relative error {{[0-9.]+e-(0?[6-9]|[1-9][0-9])$}}
// GRAD-NEXT: compiled vs interpreted backprop: max relative error {{[0-9.]+e-(0?[5-9]|[1-9][0-9])$}}
// CHECK: result0: shape [1] dtype f32
// CHECK-NEXT: [-0.090885]
// On the GPU too, nothing compares ids with the classes any more: the
// classes (20 bytes) are not even allocated.
// GPU: @loss() -> (f32[1])
// GPU-NOT: alloc {{.*}} 20 bytes
// GPU: return
func.func @loss() -> !ocannl_shape.tensor<"?", f32> {
  %ids = "ocannl_shape.constant"() {value = dense<[[2.0], [0.0], [4.0], [2.0], [7.0], [1.5]]> : tensor<6x1xf32>} : () -> !ocannl_shape.tensor<"6|1", f32>
  %targets = "ocannl_shape.constant"() {value = dense<[[1.0], [4.0], [0.0], [1.0], [3.0], [2.0]]> : tensor<6x1xf32>} : () -> !ocannl_shape.tensor<"6|1", f32>
  %classes = "ocannl_shape.constant"() {value = dense<[0.0, 1.0, 2.0, 3.0, 4.0]> : tensor<5xf32>} : () -> !ocannl_shape.tensor<"5", f32>
  %h = "ocannl_shape.pointwise_binary"(%ids, %classes) {op = "eq"} : (!ocannl_shape.tensor<"6|1", f32>, !ocannl_shape.tensor<"5", f32>) -> !ocannl_shape.tensor<"?", f32>
  %y = "ocannl_shape.pointwise_binary"(%targets, %classes) {op = "eq"} : (!ocannl_shape.tensor<"6|1", f32>, !ocannl_shape.tensor<"5", f32>) -> !ocannl_shape.tensor<"?", f32>
  %t = "ocannl_shape.param"() {name = "t"} : () -> !ocannl_shape.tensor<"3->5", f32>
  %w = "ocannl_shape.param"() {name = "w"} : () -> !ocannl_shape.tensor<"3->5", f32>
  %e = "ocannl_shape.einsum"(%h, %t) {spec = "b|v; d->v => b|d"} : (!ocannl_shape.tensor<"?", f32>, !ocannl_shape.tensor<"3->5", f32>) -> !ocannl_shape.tensor<"?", f32>
  %logits = "ocannl_shape.compose"(%w, %e) : (!ocannl_shape.tensor<"3->5", f32>, !ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  %s = "ocannl_shape.einsum"(%y, %logits) {spec = "b|v; b|v => 0"} : (!ocannl_shape.tensor<"?", f32>, !ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  return %s : !ocannl_shape.tensor<"?", f32>
}
