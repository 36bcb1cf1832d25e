// A strided convolution's input gradient (the second convolution of a
// pair, stride 2) scatters: it has no gather form for the contraction
// kernel yet and runs in scalar loops, which `explain=true` reports at the
// function: one per train step (valid and padded).
// RUN: ocannl-opt %s --pass-pipeline="builtin.module(ocannl-infer-shapes,ocannl-lower-to-assign{params-as-arguments=true},ocannl-autodiff,ocannl-train-step,ocannl-virtualize,ocannl-simplify,ocannl-lower-to-loops{explain=true kernels=true cpu=x86-64-v4})" -o /dev/null 2>&1 | FileCheck %s
// CHECK-COUNT-2: remark: a contraction of {{[0-9]+}} points runs in scalar loops: no kernel of the 'cpu' target computes it
// CHECK-NOT: remark

func.func @valid_s2(%x: !ocannl_shape.tensor<"16|28,28,1", f32>) -> !ocannl_shape.tensor<"?", f32> {
  %w1 = "ocannl_shape.param"() {name = "w1"} : () -> !ocannl_shape.tensor<"5,5,1->6", f32>
  %w2 = "ocannl_shape.param"() {name = "w2"} : () -> !ocannl_shape.tensor<"5,5,6->16", f32>
  %y1 = "ocannl_shape.einsum"(%x, %w1) {spec = "b|2*oh<+kh, 2*ow<+kw, ic; kh, kw, ic -> oc => b|oh, ow, oc"} : (!ocannl_shape.tensor<"16|28,28,1", f32>, !ocannl_shape.tensor<"5,5,1->6", f32>) -> !ocannl_shape.tensor<"?", f32>
  %h = "ocannl_shape.pointwise_unary"(%y1) {op = "relu"} : (!ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  %y2 = "ocannl_shape.einsum"(%h, %w2) {spec = "b|2*oh<+kh, 2*ow<+kw, ic; kh, kw, ic -> oc => b|oh, ow, oc"} : (!ocannl_shape.tensor<"?", f32>, !ocannl_shape.tensor<"5,5,6->16", f32>) -> !ocannl_shape.tensor<"?", f32>
  %l = "ocannl_shape.einsum"(%y2) {spec = "... => 0"} : (!ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  return %l : !ocannl_shape.tensor<"?", f32>
}

func.func @padded_s2(%x: !ocannl_shape.tensor<"16|28,28,1", f32>) -> !ocannl_shape.tensor<"?", f32> {
  %w1 = "ocannl_shape.param"() {name = "w1"} : () -> !ocannl_shape.tensor<"5,5,1->6", f32>
  %w2 = "ocannl_shape.param"() {name = "w2"} : () -> !ocannl_shape.tensor<"5,5,6->16", f32>
  %y1 = "ocannl_shape.einsum"(%x, %w1) {spec = "b|2*oh=+kh, 2*ow=+kw, ic; kh, kw, ic -> oc => b|oh, ow, oc"} : (!ocannl_shape.tensor<"16|28,28,1", f32>, !ocannl_shape.tensor<"5,5,1->6", f32>) -> !ocannl_shape.tensor<"?", f32>
  %h = "ocannl_shape.pointwise_unary"(%y1) {op = "relu"} : (!ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  %y2 = "ocannl_shape.einsum"(%h, %w2) {spec = "b|2*oh=+kh, 2*ow=+kw, ic; kh, kw, ic -> oc => b|oh, ow, oc"} : (!ocannl_shape.tensor<"?", f32>, !ocannl_shape.tensor<"5,5,6->16", f32>) -> !ocannl_shape.tensor<"?", f32>
  %l = "ocannl_shape.einsum"(%y2) {spec = "... => 0"} : (!ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  return %l : !ocannl_shape.tensor<"?", f32>
}
