// RUN: ocannl-opt %s --ocannl-infer-shapes | FileCheck %s

// Convolution axes: output = (input - dilation*(kernel-1) - 1) / stride + 1
// without padding (`<+`), input / stride with padding (`=+`).

// CHECK-LABEL: func.func @conv1d
// CHECK: "ocannl_shape.einsum"{{.*}} -> !ocannl_shape.tensor<"8", f32>
// CHECK: "ocannl_shape.einsum"{{.*}} -> !ocannl_shape.tensor<"4", f32>
// CHECK: "ocannl_shape.einsum"{{.*}} -> !ocannl_shape.tensor<"6", f32>
// CHECK: "ocannl_shape.einsum"{{.*}} -> !ocannl_shape.tensor<"5", f32>
func.func @conv1d(%x: !ocannl_shape.tensor<"10", f32>, %k: !ocannl_shape.tensor<"3", f32>) {
  %a = "ocannl_shape.einsum"(%x, %k) {spec = "o<+k; k => o"} : (!ocannl_shape.tensor<"10", f32>, !ocannl_shape.tensor<"3", f32>) -> !ocannl_shape.tensor<"?", f32>
  %b = "ocannl_shape.einsum"(%x, %k) {spec = "2*o<+k; k => o"} : (!ocannl_shape.tensor<"10", f32>, !ocannl_shape.tensor<"3", f32>) -> !ocannl_shape.tensor<"?", f32>
  %c = "ocannl_shape.einsum"(%x, %k) {spec = "o<+2*k; k => o"} : (!ocannl_shape.tensor<"10", f32>, !ocannl_shape.tensor<"3", f32>) -> !ocannl_shape.tensor<"?", f32>
  %d = "ocannl_shape.einsum"(%x, %k) {spec = "2*o=+k; k => o"} : (!ocannl_shape.tensor<"10", f32>, !ocannl_shape.tensor<"3", f32>) -> !ocannl_shape.tensor<"?", f32>
  return
}

// The kernel of a conv is inferred from the input and the declared output
// sizes. (The output of an einsum is not widened to what its consumers
// take, so a consumer does not determine it.)
// CHECK-LABEL: func.func @kernel_from_uses
// CHECK: "ocannl_shape.param"() {name = "k"} : () -> !ocannl_shape.tensor<"3,3", f32>
// CHECK: "ocannl_shape.einsum"{{.*}} -> !ocannl_shape.tensor<"4|8,8", f32>
func.func @kernel_from_uses(%img: !ocannl_shape.tensor<"4|10,10", f32>, %t: !ocannl_shape.tensor<"8,8", f32>) {
  %k = "ocannl_shape.param"() {name = "k"} : () -> !ocannl_shape.tensor<"?", f32>
  %y = "ocannl_shape.einsum"(%img, %k) {spec = "...|oh<+kh, ow<+kw; kh, kw => ...|oh, ow"} : (!ocannl_shape.tensor<"4|10,10", f32>, !ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"...|8,8", f32>
  %z = "ocannl_shape.pointwise_binary"(%y, %t) {op = "add"} : (!ocannl_shape.tensor<"...|8,8", f32>, !ocannl_shape.tensor<"8,8", f32>) -> !ocannl_shape.tensor<"?", f32>
  return
}

// A pure stride spans stride x output cells, as in OCANNL: the even and
// the odd cells of 8 are 4 each (deinterleaving), and an output of 3 reads
// an input of 6.
// CHECK-LABEL: func.func @pure_strides
// CHECK: "ocannl_shape.einsum"{{.*}} -> !ocannl_shape.tensor<"4", f32>
// CHECK: "ocannl_shape.einsum"{{.*}} -> !ocannl_shape.tensor<"4", f32>
// CHECK: "ocannl_shape.param"() {name = "w"} : () -> !ocannl_shape.tensor<"6", f32>
func.func @pure_strides(%x: !ocannl_shape.tensor<"8", f32>) {
  %even = "ocannl_shape.einsum"(%x) {spec = "2*i => i"} : (!ocannl_shape.tensor<"8", f32>) -> !ocannl_shape.tensor<"?", f32>
  %odd = "ocannl_shape.einsum"(%x) {spec = "2*i+1 => i"} : (!ocannl_shape.tensor<"8", f32>) -> !ocannl_shape.tensor<"?", f32>
  %w = "ocannl_shape.param"() {name = "w"} : () -> !ocannl_shape.tensor<"?", f32>
  %y = "ocannl_shape.einsum"(%w) {spec = "2*i => i"} : (!ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"3", f32>
  return
}
