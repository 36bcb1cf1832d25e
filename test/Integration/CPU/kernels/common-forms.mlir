// Every common form of a convolution and a dense layer reaches the CPU's
// contraction kernel in a train step, forward and backward, with the
// optimizations on: batch in the batch row or as an axis, padded or valid,
// stride 1 or 2, the loss a sum or computed with data, and pairs of
// convolutions (the second's input gradient in gather form: unstrided, or
// strided in phases). `explain=true` reports any contraction left to
// scalar loops; there is none, for the kernels of AVX-512, AVX2 and NEON.
// RUN: ocannl-opt %s --pass-pipeline="builtin.module(ocannl-infer-shapes,ocannl-lower-to-assign{params-as-arguments=true},ocannl-autodiff,ocannl-train-step,ocannl-virtualize,ocannl-simplify,ocannl-lower-to-loops{explain=true kernels=true cpu=x86-64-v4})" -o /dev/null 2>&1 | FileCheck %s --allow-empty --implicit-check-not=remark
// RUN: ocannl-opt %s --pass-pipeline="builtin.module(ocannl-infer-shapes,ocannl-lower-to-assign{params-as-arguments=true},ocannl-autodiff,ocannl-train-step,ocannl-virtualize,ocannl-simplify,ocannl-lower-to-loops{explain=true kernels=true cpu=x86-64-v3})" -o /dev/null 2>&1 | FileCheck %s --allow-empty --implicit-check-not=remark
// RUN: ocannl-opt %s --pass-pipeline="builtin.module(ocannl-infer-shapes,ocannl-lower-to-assign{params-as-arguments=true},ocannl-autodiff,ocannl-train-step,ocannl-virtualize,ocannl-simplify,ocannl-lower-to-loops{explain=true kernels=true cpu=neoverse-n1})" -o /dev/null 2>&1 | FileCheck %s --allow-empty --implicit-check-not=remark

func.func @conv_row_valid_s1_sum(%x: !ocannl_shape.tensor<"16|28,28,3", f32>) -> !ocannl_shape.tensor<"?", f32> {
  %w = "ocannl_shape.param"() {name = "w"} : () -> !ocannl_shape.tensor<"5,5,3->8", f32>
  %y = "ocannl_shape.einsum"(%x, %w) {spec = "b|1*oh<+kh, 1*ow<+kw, ic; kh, kw, ic -> oc => b|oh, ow, oc"} : (!ocannl_shape.tensor<"16|28,28,3", f32>, !ocannl_shape.tensor<"5,5,3->8", f32>) -> !ocannl_shape.tensor<"?", f32>
  %h = "ocannl_shape.pointwise_unary"(%y) {op = "relu"} : (!ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  %l = "ocannl_shape.einsum"(%h) {spec = "... => 0"} : (!ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  return %l : !ocannl_shape.tensor<"?", f32>
}

func.func @conv_row_valid_s1_data(%x: !ocannl_shape.tensor<"16|28,28,3", f32>, %g: !ocannl_shape.tensor<"16|24,24,8", f32>) -> !ocannl_shape.tensor<"?", f32> {
  %w = "ocannl_shape.param"() {name = "w"} : () -> !ocannl_shape.tensor<"5,5,3->8", f32>
  %y = "ocannl_shape.einsum"(%x, %w) {spec = "b|1*oh<+kh, 1*ow<+kw, ic; kh, kw, ic -> oc => b|oh, ow, oc"} : (!ocannl_shape.tensor<"16|28,28,3", f32>, !ocannl_shape.tensor<"5,5,3->8", f32>) -> !ocannl_shape.tensor<"?", f32>
  %h = "ocannl_shape.pointwise_unary"(%y) {op = "relu"} : (!ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  %p = "ocannl_shape.pointwise_binary"(%h, %g) {op = "mul"} : (!ocannl_shape.tensor<"?", f32>, !ocannl_shape.tensor<"16|24,24,8", f32>) -> !ocannl_shape.tensor<"?", f32>
  %l = "ocannl_shape.einsum"(%p) {spec = "... => 0"} : (!ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  return %l : !ocannl_shape.tensor<"?", f32>
}

func.func @conv_row_valid_s2_sum(%x: !ocannl_shape.tensor<"16|28,28,3", f32>) -> !ocannl_shape.tensor<"?", f32> {
  %w = "ocannl_shape.param"() {name = "w"} : () -> !ocannl_shape.tensor<"5,5,3->8", f32>
  %y = "ocannl_shape.einsum"(%x, %w) {spec = "b|2*oh<+kh, 2*ow<+kw, ic; kh, kw, ic -> oc => b|oh, ow, oc"} : (!ocannl_shape.tensor<"16|28,28,3", f32>, !ocannl_shape.tensor<"5,5,3->8", f32>) -> !ocannl_shape.tensor<"?", f32>
  %h = "ocannl_shape.pointwise_unary"(%y) {op = "relu"} : (!ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  %l = "ocannl_shape.einsum"(%h) {spec = "... => 0"} : (!ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  return %l : !ocannl_shape.tensor<"?", f32>
}

func.func @conv_row_valid_s2_data(%x: !ocannl_shape.tensor<"16|28,28,3", f32>, %g: !ocannl_shape.tensor<"16|12,12,8", f32>) -> !ocannl_shape.tensor<"?", f32> {
  %w = "ocannl_shape.param"() {name = "w"} : () -> !ocannl_shape.tensor<"5,5,3->8", f32>
  %y = "ocannl_shape.einsum"(%x, %w) {spec = "b|2*oh<+kh, 2*ow<+kw, ic; kh, kw, ic -> oc => b|oh, ow, oc"} : (!ocannl_shape.tensor<"16|28,28,3", f32>, !ocannl_shape.tensor<"5,5,3->8", f32>) -> !ocannl_shape.tensor<"?", f32>
  %h = "ocannl_shape.pointwise_unary"(%y) {op = "relu"} : (!ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  %p = "ocannl_shape.pointwise_binary"(%h, %g) {op = "mul"} : (!ocannl_shape.tensor<"?", f32>, !ocannl_shape.tensor<"16|12,12,8", f32>) -> !ocannl_shape.tensor<"?", f32>
  %l = "ocannl_shape.einsum"(%p) {spec = "... => 0"} : (!ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  return %l : !ocannl_shape.tensor<"?", f32>
}

func.func @conv_row_padded_s1_sum(%x: !ocannl_shape.tensor<"16|28,28,3", f32>) -> !ocannl_shape.tensor<"?", f32> {
  %w = "ocannl_shape.param"() {name = "w"} : () -> !ocannl_shape.tensor<"5,5,3->8", f32>
  %y = "ocannl_shape.einsum"(%x, %w) {spec = "b|1*oh=+kh, 1*ow=+kw, ic; kh, kw, ic -> oc => b|oh, ow, oc"} : (!ocannl_shape.tensor<"16|28,28,3", f32>, !ocannl_shape.tensor<"5,5,3->8", f32>) -> !ocannl_shape.tensor<"?", f32>
  %h = "ocannl_shape.pointwise_unary"(%y) {op = "relu"} : (!ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  %l = "ocannl_shape.einsum"(%h) {spec = "... => 0"} : (!ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  return %l : !ocannl_shape.tensor<"?", f32>
}

func.func @conv_row_padded_s1_data(%x: !ocannl_shape.tensor<"16|28,28,3", f32>, %g: !ocannl_shape.tensor<"16|28,28,8", f32>) -> !ocannl_shape.tensor<"?", f32> {
  %w = "ocannl_shape.param"() {name = "w"} : () -> !ocannl_shape.tensor<"5,5,3->8", f32>
  %y = "ocannl_shape.einsum"(%x, %w) {spec = "b|1*oh=+kh, 1*ow=+kw, ic; kh, kw, ic -> oc => b|oh, ow, oc"} : (!ocannl_shape.tensor<"16|28,28,3", f32>, !ocannl_shape.tensor<"5,5,3->8", f32>) -> !ocannl_shape.tensor<"?", f32>
  %h = "ocannl_shape.pointwise_unary"(%y) {op = "relu"} : (!ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  %p = "ocannl_shape.pointwise_binary"(%h, %g) {op = "mul"} : (!ocannl_shape.tensor<"?", f32>, !ocannl_shape.tensor<"16|28,28,8", f32>) -> !ocannl_shape.tensor<"?", f32>
  %l = "ocannl_shape.einsum"(%p) {spec = "... => 0"} : (!ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  return %l : !ocannl_shape.tensor<"?", f32>
}

func.func @conv_row_padded_s2_sum(%x: !ocannl_shape.tensor<"16|28,28,3", f32>) -> !ocannl_shape.tensor<"?", f32> {
  %w = "ocannl_shape.param"() {name = "w"} : () -> !ocannl_shape.tensor<"5,5,3->8", f32>
  %y = "ocannl_shape.einsum"(%x, %w) {spec = "b|2*oh=+kh, 2*ow=+kw, ic; kh, kw, ic -> oc => b|oh, ow, oc"} : (!ocannl_shape.tensor<"16|28,28,3", f32>, !ocannl_shape.tensor<"5,5,3->8", f32>) -> !ocannl_shape.tensor<"?", f32>
  %h = "ocannl_shape.pointwise_unary"(%y) {op = "relu"} : (!ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  %l = "ocannl_shape.einsum"(%h) {spec = "... => 0"} : (!ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  return %l : !ocannl_shape.tensor<"?", f32>
}

func.func @conv_row_padded_s2_data(%x: !ocannl_shape.tensor<"16|28,28,3", f32>, %g: !ocannl_shape.tensor<"16|14,14,8", f32>) -> !ocannl_shape.tensor<"?", f32> {
  %w = "ocannl_shape.param"() {name = "w"} : () -> !ocannl_shape.tensor<"5,5,3->8", f32>
  %y = "ocannl_shape.einsum"(%x, %w) {spec = "b|2*oh=+kh, 2*ow=+kw, ic; kh, kw, ic -> oc => b|oh, ow, oc"} : (!ocannl_shape.tensor<"16|28,28,3", f32>, !ocannl_shape.tensor<"5,5,3->8", f32>) -> !ocannl_shape.tensor<"?", f32>
  %h = "ocannl_shape.pointwise_unary"(%y) {op = "relu"} : (!ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  %p = "ocannl_shape.pointwise_binary"(%h, %g) {op = "mul"} : (!ocannl_shape.tensor<"?", f32>, !ocannl_shape.tensor<"16|14,14,8", f32>) -> !ocannl_shape.tensor<"?", f32>
  %l = "ocannl_shape.einsum"(%p) {spec = "... => 0"} : (!ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  return %l : !ocannl_shape.tensor<"?", f32>
}

func.func @conv_axis_valid_s1_sum(%x: !ocannl_shape.tensor<"16,28,28,3", f32>) -> !ocannl_shape.tensor<"?", f32> {
  %w = "ocannl_shape.param"() {name = "w"} : () -> !ocannl_shape.tensor<"5,5,3->8", f32>
  %y = "ocannl_shape.einsum"(%x, %w) {spec = "b, 1*oh<+kh, 1*ow<+kw, ic; kh, kw, ic -> oc => b, oh, ow, oc"} : (!ocannl_shape.tensor<"16,28,28,3", f32>, !ocannl_shape.tensor<"5,5,3->8", f32>) -> !ocannl_shape.tensor<"?", f32>
  %h = "ocannl_shape.pointwise_unary"(%y) {op = "relu"} : (!ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  %l = "ocannl_shape.einsum"(%h) {spec = "... => 0"} : (!ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  return %l : !ocannl_shape.tensor<"?", f32>
}

func.func @conv_axis_valid_s1_data(%x: !ocannl_shape.tensor<"16,28,28,3", f32>, %g: !ocannl_shape.tensor<"16,24,24,8", f32>) -> !ocannl_shape.tensor<"?", f32> {
  %w = "ocannl_shape.param"() {name = "w"} : () -> !ocannl_shape.tensor<"5,5,3->8", f32>
  %y = "ocannl_shape.einsum"(%x, %w) {spec = "b, 1*oh<+kh, 1*ow<+kw, ic; kh, kw, ic -> oc => b, oh, ow, oc"} : (!ocannl_shape.tensor<"16,28,28,3", f32>, !ocannl_shape.tensor<"5,5,3->8", f32>) -> !ocannl_shape.tensor<"?", f32>
  %h = "ocannl_shape.pointwise_unary"(%y) {op = "relu"} : (!ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  %p = "ocannl_shape.pointwise_binary"(%h, %g) {op = "mul"} : (!ocannl_shape.tensor<"?", f32>, !ocannl_shape.tensor<"16,24,24,8", f32>) -> !ocannl_shape.tensor<"?", f32>
  %l = "ocannl_shape.einsum"(%p) {spec = "... => 0"} : (!ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  return %l : !ocannl_shape.tensor<"?", f32>
}

func.func @conv_axis_valid_s2_sum(%x: !ocannl_shape.tensor<"16,28,28,3", f32>) -> !ocannl_shape.tensor<"?", f32> {
  %w = "ocannl_shape.param"() {name = "w"} : () -> !ocannl_shape.tensor<"5,5,3->8", f32>
  %y = "ocannl_shape.einsum"(%x, %w) {spec = "b, 2*oh<+kh, 2*ow<+kw, ic; kh, kw, ic -> oc => b, oh, ow, oc"} : (!ocannl_shape.tensor<"16,28,28,3", f32>, !ocannl_shape.tensor<"5,5,3->8", f32>) -> !ocannl_shape.tensor<"?", f32>
  %h = "ocannl_shape.pointwise_unary"(%y) {op = "relu"} : (!ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  %l = "ocannl_shape.einsum"(%h) {spec = "... => 0"} : (!ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  return %l : !ocannl_shape.tensor<"?", f32>
}

func.func @conv_axis_valid_s2_data(%x: !ocannl_shape.tensor<"16,28,28,3", f32>, %g: !ocannl_shape.tensor<"16,12,12,8", f32>) -> !ocannl_shape.tensor<"?", f32> {
  %w = "ocannl_shape.param"() {name = "w"} : () -> !ocannl_shape.tensor<"5,5,3->8", f32>
  %y = "ocannl_shape.einsum"(%x, %w) {spec = "b, 2*oh<+kh, 2*ow<+kw, ic; kh, kw, ic -> oc => b, oh, ow, oc"} : (!ocannl_shape.tensor<"16,28,28,3", f32>, !ocannl_shape.tensor<"5,5,3->8", f32>) -> !ocannl_shape.tensor<"?", f32>
  %h = "ocannl_shape.pointwise_unary"(%y) {op = "relu"} : (!ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  %p = "ocannl_shape.pointwise_binary"(%h, %g) {op = "mul"} : (!ocannl_shape.tensor<"?", f32>, !ocannl_shape.tensor<"16,12,12,8", f32>) -> !ocannl_shape.tensor<"?", f32>
  %l = "ocannl_shape.einsum"(%p) {spec = "... => 0"} : (!ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  return %l : !ocannl_shape.tensor<"?", f32>
}

func.func @conv_axis_padded_s1_sum(%x: !ocannl_shape.tensor<"16,28,28,3", f32>) -> !ocannl_shape.tensor<"?", f32> {
  %w = "ocannl_shape.param"() {name = "w"} : () -> !ocannl_shape.tensor<"5,5,3->8", f32>
  %y = "ocannl_shape.einsum"(%x, %w) {spec = "b, 1*oh=+kh, 1*ow=+kw, ic; kh, kw, ic -> oc => b, oh, ow, oc"} : (!ocannl_shape.tensor<"16,28,28,3", f32>, !ocannl_shape.tensor<"5,5,3->8", f32>) -> !ocannl_shape.tensor<"?", f32>
  %h = "ocannl_shape.pointwise_unary"(%y) {op = "relu"} : (!ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  %l = "ocannl_shape.einsum"(%h) {spec = "... => 0"} : (!ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  return %l : !ocannl_shape.tensor<"?", f32>
}

func.func @conv_axis_padded_s1_data(%x: !ocannl_shape.tensor<"16,28,28,3", f32>, %g: !ocannl_shape.tensor<"16,28,28,8", f32>) -> !ocannl_shape.tensor<"?", f32> {
  %w = "ocannl_shape.param"() {name = "w"} : () -> !ocannl_shape.tensor<"5,5,3->8", f32>
  %y = "ocannl_shape.einsum"(%x, %w) {spec = "b, 1*oh=+kh, 1*ow=+kw, ic; kh, kw, ic -> oc => b, oh, ow, oc"} : (!ocannl_shape.tensor<"16,28,28,3", f32>, !ocannl_shape.tensor<"5,5,3->8", f32>) -> !ocannl_shape.tensor<"?", f32>
  %h = "ocannl_shape.pointwise_unary"(%y) {op = "relu"} : (!ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  %p = "ocannl_shape.pointwise_binary"(%h, %g) {op = "mul"} : (!ocannl_shape.tensor<"?", f32>, !ocannl_shape.tensor<"16,28,28,8", f32>) -> !ocannl_shape.tensor<"?", f32>
  %l = "ocannl_shape.einsum"(%p) {spec = "... => 0"} : (!ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  return %l : !ocannl_shape.tensor<"?", f32>
}

func.func @conv_axis_padded_s2_sum(%x: !ocannl_shape.tensor<"16,28,28,3", f32>) -> !ocannl_shape.tensor<"?", f32> {
  %w = "ocannl_shape.param"() {name = "w"} : () -> !ocannl_shape.tensor<"5,5,3->8", f32>
  %y = "ocannl_shape.einsum"(%x, %w) {spec = "b, 2*oh=+kh, 2*ow=+kw, ic; kh, kw, ic -> oc => b, oh, ow, oc"} : (!ocannl_shape.tensor<"16,28,28,3", f32>, !ocannl_shape.tensor<"5,5,3->8", f32>) -> !ocannl_shape.tensor<"?", f32>
  %h = "ocannl_shape.pointwise_unary"(%y) {op = "relu"} : (!ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  %l = "ocannl_shape.einsum"(%h) {spec = "... => 0"} : (!ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  return %l : !ocannl_shape.tensor<"?", f32>
}

func.func @conv_axis_padded_s2_data(%x: !ocannl_shape.tensor<"16,28,28,3", f32>, %g: !ocannl_shape.tensor<"16,14,14,8", f32>) -> !ocannl_shape.tensor<"?", f32> {
  %w = "ocannl_shape.param"() {name = "w"} : () -> !ocannl_shape.tensor<"5,5,3->8", f32>
  %y = "ocannl_shape.einsum"(%x, %w) {spec = "b, 2*oh=+kh, 2*ow=+kw, ic; kh, kw, ic -> oc => b, oh, ow, oc"} : (!ocannl_shape.tensor<"16,28,28,3", f32>, !ocannl_shape.tensor<"5,5,3->8", f32>) -> !ocannl_shape.tensor<"?", f32>
  %h = "ocannl_shape.pointwise_unary"(%y) {op = "relu"} : (!ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  %p = "ocannl_shape.pointwise_binary"(%h, %g) {op = "mul"} : (!ocannl_shape.tensor<"?", f32>, !ocannl_shape.tensor<"16,14,14,8", f32>) -> !ocannl_shape.tensor<"?", f32>
  %l = "ocannl_shape.einsum"(%p) {spec = "... => 0"} : (!ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  return %l : !ocannl_shape.tensor<"?", f32>
}

func.func @dense_row(%x: !ocannl_shape.tensor<"64|256", f32>) -> !ocannl_shape.tensor<"?", f32> {
  %w1 = "ocannl_shape.param"() {name = "w1"} : () -> !ocannl_shape.tensor<"256->128", f32>
  %w2 = "ocannl_shape.param"() {name = "w2"} : () -> !ocannl_shape.tensor<"128->10", f32>
  %a = "ocannl_shape.compose"(%w1, %x) : (!ocannl_shape.tensor<"256->128", f32>, !ocannl_shape.tensor<"64|256", f32>) -> !ocannl_shape.tensor<"?", f32>
  %h = "ocannl_shape.pointwise_unary"(%a) {op = "relu"} : (!ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  %o = "ocannl_shape.compose"(%w2, %h) : (!ocannl_shape.tensor<"128->10", f32>, !ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  %l = "ocannl_shape.einsum"(%o) {spec = "... => 0"} : (!ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  return %l : !ocannl_shape.tensor<"?", f32>
}

func.func @dense_axis(%x: !ocannl_shape.tensor<"64,256", f32>) -> !ocannl_shape.tensor<"?", f32> {
  %w1 = "ocannl_shape.param"() {name = "w1"} : () -> !ocannl_shape.tensor<"256->128", f32>
  %w2 = "ocannl_shape.param"() {name = "w2"} : () -> !ocannl_shape.tensor<"128->10", f32>
  %a = "ocannl_shape.einsum"(%x, %w1) {spec = "b, i; i -> o => b, o"} : (!ocannl_shape.tensor<"64,256", f32>, !ocannl_shape.tensor<"256->128", f32>) -> !ocannl_shape.tensor<"?", f32>
  %h = "ocannl_shape.pointwise_unary"(%a) {op = "relu"} : (!ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  %o = "ocannl_shape.einsum"(%h, %w2) {spec = "b, i; i -> o => b, o"} : (!ocannl_shape.tensor<"?", f32>, !ocannl_shape.tensor<"128->10", f32>) -> !ocannl_shape.tensor<"?", f32>
  %l = "ocannl_shape.einsum"(%o) {spec = "... => 0"} : (!ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  return %l : !ocannl_shape.tensor<"?", f32>
}

func.func @pair_valid(%x: !ocannl_shape.tensor<"16|28,28,1", f32>) -> !ocannl_shape.tensor<"?", f32> {
  %w1 = "ocannl_shape.param"() {name = "w1"} : () -> !ocannl_shape.tensor<"5,5,1->6", f32>
  %w2 = "ocannl_shape.param"() {name = "w2"} : () -> !ocannl_shape.tensor<"5,5,6->16", f32>
  %y1 = "ocannl_shape.einsum"(%x, %w1) {spec = "b|1*oh<+kh, 1*ow<+kw, ic; kh, kw, ic -> oc => b|oh, ow, oc"} : (!ocannl_shape.tensor<"16|28,28,1", f32>, !ocannl_shape.tensor<"5,5,1->6", f32>) -> !ocannl_shape.tensor<"?", f32>
  %h = "ocannl_shape.pointwise_unary"(%y1) {op = "relu"} : (!ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  %y2 = "ocannl_shape.einsum"(%h, %w2) {spec = "b|1*oh<+kh, 1*ow<+kw, ic; kh, kw, ic -> oc => b|oh, ow, oc"} : (!ocannl_shape.tensor<"?", f32>, !ocannl_shape.tensor<"5,5,6->16", f32>) -> !ocannl_shape.tensor<"?", f32>
  %l = "ocannl_shape.einsum"(%y2) {spec = "... => 0"} : (!ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  return %l : !ocannl_shape.tensor<"?", f32>
}

func.func @pair_padded(%x: !ocannl_shape.tensor<"16|28,28,1", f32>) -> !ocannl_shape.tensor<"?", f32> {
  %w1 = "ocannl_shape.param"() {name = "w1"} : () -> !ocannl_shape.tensor<"5,5,1->6", f32>
  %w2 = "ocannl_shape.param"() {name = "w2"} : () -> !ocannl_shape.tensor<"5,5,6->16", f32>
  %y1 = "ocannl_shape.einsum"(%x, %w1) {spec = "b|1*oh=+kh, 1*ow=+kw, ic; kh, kw, ic -> oc => b|oh, ow, oc"} : (!ocannl_shape.tensor<"16|28,28,1", f32>, !ocannl_shape.tensor<"5,5,1->6", f32>) -> !ocannl_shape.tensor<"?", f32>
  %h = "ocannl_shape.pointwise_unary"(%y1) {op = "relu"} : (!ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  %y2 = "ocannl_shape.einsum"(%h, %w2) {spec = "b|1*oh=+kh, 1*ow=+kw, ic; kh, kw, ic -> oc => b|oh, ow, oc"} : (!ocannl_shape.tensor<"?", f32>, !ocannl_shape.tensor<"5,5,6->16", f32>) -> !ocannl_shape.tensor<"?", f32>
  %l = "ocannl_shape.einsum"(%y2) {spec = "... => 0"} : (!ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  return %l : !ocannl_shape.tensor<"?", f32>
}

func.func @pair_valid_s2(%x: !ocannl_shape.tensor<"16|28,28,1", f32>) -> !ocannl_shape.tensor<"?", f32> {
  %w1 = "ocannl_shape.param"() {name = "w1"} : () -> !ocannl_shape.tensor<"5,5,1->6", f32>
  %w2 = "ocannl_shape.param"() {name = "w2"} : () -> !ocannl_shape.tensor<"5,5,6->16", f32>
  %y1 = "ocannl_shape.einsum"(%x, %w1) {spec = "b|2*oh<+kh, 2*ow<+kw, ic; kh, kw, ic -> oc => b|oh, ow, oc"} : (!ocannl_shape.tensor<"16|28,28,1", f32>, !ocannl_shape.tensor<"5,5,1->6", f32>) -> !ocannl_shape.tensor<"?", f32>
  %h = "ocannl_shape.pointwise_unary"(%y1) {op = "relu"} : (!ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  %y2 = "ocannl_shape.einsum"(%h, %w2) {spec = "b|2*oh<+kh, 2*ow<+kw, ic; kh, kw, ic -> oc => b|oh, ow, oc"} : (!ocannl_shape.tensor<"?", f32>, !ocannl_shape.tensor<"5,5,6->16", f32>) -> !ocannl_shape.tensor<"?", f32>
  %l = "ocannl_shape.einsum"(%y2) {spec = "... => 0"} : (!ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  return %l : !ocannl_shape.tensor<"?", f32>
}

func.func @pair_padded_s2(%x: !ocannl_shape.tensor<"16|28,28,1", f32>) -> !ocannl_shape.tensor<"?", f32> {
  %w1 = "ocannl_shape.param"() {name = "w1"} : () -> !ocannl_shape.tensor<"5,5,1->6", f32>
  %w2 = "ocannl_shape.param"() {name = "w2"} : () -> !ocannl_shape.tensor<"5,5,6->16", f32>
  %y1 = "ocannl_shape.einsum"(%x, %w1) {spec = "b|2*oh=+kh, 2*ow=+kw, ic; kh, kw, ic -> oc => b|oh, ow, oc"} : (!ocannl_shape.tensor<"16|28,28,1", f32>, !ocannl_shape.tensor<"5,5,1->6", f32>) -> !ocannl_shape.tensor<"?", f32>
  %h = "ocannl_shape.pointwise_unary"(%y1) {op = "relu"} : (!ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  %y2 = "ocannl_shape.einsum"(%h, %w2) {spec = "b|2*oh=+kh, 2*ow=+kw, ic; kh, kw, ic -> oc => b|oh, ow, oc"} : (!ocannl_shape.tensor<"?", f32>, !ocannl_shape.tensor<"5,5,6->16", f32>) -> !ocannl_shape.tensor<"?", f32>
  %l = "ocannl_shape.einsum"(%y2) {spec = "... => 0"} : (!ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  return %l : !ocannl_shape.tensor<"?", f32>
}
