// The self-check's programs (scripts/gpu-selfcheck-bundle.sh): each
// function is compiled into a GPU artifact and run on the CPU for the
// expected outputs. The moons and LeNet train steps come from
// examples/moons.mlir and the fashion_mnist example's module.

// A contraction large enough for the tiled kernel, and a batched one.
func.func @matmul(%a: !ocannl_shape.tensor<"100->70", f32>, %b: !ocannl_shape.tensor<"90->100", f32>) -> !ocannl_shape.tensor<"?", f32> {
  %c = "ocannl_shape.compose"(%a, %b) : (!ocannl_shape.tensor<"100->70", f32>, !ocannl_shape.tensor<"90->100", f32>) -> !ocannl_shape.tensor<"?", f32>
  return %c : !ocannl_shape.tensor<"?", f32>
}

func.func @batched_matmul(%a: !ocannl_shape.tensor<"6|9->5", f32>, %b: !ocannl_shape.tensor<"6|7->9", f32>) -> !ocannl_shape.tensor<"?", f32> {
  %c = "ocannl_shape.einsum"(%a, %b) {spec = "b|i->o; b|j->i => b|j->o"} : (!ocannl_shape.tensor<"6|9->5", f32>, !ocannl_shape.tensor<"6|7->9", f32>) -> !ocannl_shape.tensor<"?", f32>
  return %c : !ocannl_shape.tensor<"?", f32>
}

// Broadcast pointwise ops: a bias along the output axis, a per-row scale,
// libdevice's exp and tanh.
func.func @pointwise(%x: !ocannl_shape.tensor<"32|24->16", f32>, %bias: !ocannl_shape.tensor<"16", f32>, %scale: !ocannl_shape.tensor<"32|1", f32>) -> !ocannl_shape.tensor<"?", f32> {
  %s = "ocannl_shape.pointwise_binary"(%x, %bias) {op = "add"} : (!ocannl_shape.tensor<"32|24->16", f32>, !ocannl_shape.tensor<"16", f32>) -> !ocannl_shape.tensor<"?", f32>
  %m = "ocannl_shape.pointwise_binary"(%s, %scale) {op = "mul"} : (!ocannl_shape.tensor<"?", f32>, !ocannl_shape.tensor<"32|1", f32>) -> !ocannl_shape.tensor<"?", f32>
  %e = "ocannl_shape.pointwise_unary"(%m) {op = "exp"} : (!ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  %t = "ocannl_shape.pointwise_unary"(%m) {op = "tanh"} : (!ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  %r = "ocannl_shape.pointwise_binary"(%e, %t) {op = "sub"} : (!ocannl_shape.tensor<"?", f32>, !ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  return %r : !ocannl_shape.tensor<"?", f32>
}

// Reductions: row sums, row maxima, and the sum of everything.
func.func @reductions(%x: !ocannl_shape.tensor<"64|300", f32>) -> (!ocannl_shape.tensor<"?", f32>, !ocannl_shape.tensor<"?", f32>, !ocannl_shape.tensor<"?", f32>) {
  %s = "ocannl_shape.einsum"(%x) {spec = "b|i => b"} : (!ocannl_shape.tensor<"64|300", f32>) -> !ocannl_shape.tensor<"?", f32>
  %m = "ocannl_shape.einsum"(%x) {spec = "b|i => b", op = "identity", accum = "max"} : (!ocannl_shape.tensor<"64|300", f32>) -> !ocannl_shape.tensor<"?", f32>
  %t = "ocannl_shape.einsum"(%x) {spec = "...|... => 0"} : (!ocannl_shape.tensor<"64|300", f32>) -> !ocannl_shape.tensor<"?", f32>
  return %s, %m, %t : !ocannl_shape.tensor<"?", f32>, !ocannl_shape.tensor<"?", f32>, !ocannl_shape.tensor<"?", f32>
}

// A padded 2-D convolution over channels-last images (LeNet's first
// layer's spec), 3 input and 8 output channels.
func.func @conv2d(%x: !ocannl_shape.tensor<"4|20,20,3", f32>, %k: !ocannl_shape.tensor<"5,5,3->8", f32>) -> !ocannl_shape.tensor<"?", f32> {
  %y = "ocannl_shape.einsum"(%x, %k) {spec = "...|1*oh=+kh, 1*ow=+kw, ic; kh, kw, ic -> oc => ...|oh, ow, oc"} : (!ocannl_shape.tensor<"4|20,20,3", f32>, !ocannl_shape.tensor<"5,5,3->8", f32>) -> !ocannl_shape.tensor<"?", f32>
  return %y : !ocannl_shape.tensor<"?", f32>
}

// One-hot contractions, which the GPU computes as gathers: an embedding of
// ids (7 is out of range, 1.5 not an integer: they select nothing) and a
// pick of one cell per row.
func.func @one_hot(%t: !ocannl_shape.tensor<"24->50", f32>, %y: !ocannl_shape.tensor<"8|50", f32>) -> (!ocannl_shape.tensor<"?", f32>, !ocannl_shape.tensor<"?", f32>) {
  %ids = "ocannl_shape.constant"() {value = dense<[[2.0], [0.0], [49.0], [2.0], [70.0], [1.5], [13.0], [31.0]]> : tensor<8x1xf32>} : () -> !ocannl_shape.tensor<"8|1", f32>
  %classes = "ocannl_shape.constant"() {value = dense<[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0, 18.0, 19.0, 20.0, 21.0, 22.0, 23.0, 24.0, 25.0, 26.0, 27.0, 28.0, 29.0, 30.0, 31.0, 32.0, 33.0, 34.0, 35.0, 36.0, 37.0, 38.0, 39.0, 40.0, 41.0, 42.0, 43.0, 44.0, 45.0, 46.0, 47.0, 48.0, 49.0]> : tensor<50xf32>} : () -> !ocannl_shape.tensor<"50", f32>
  %h = "ocannl_shape.pointwise_binary"(%ids, %classes) {op = "eq"} : (!ocannl_shape.tensor<"8|1", f32>, !ocannl_shape.tensor<"50", f32>) -> !ocannl_shape.tensor<"?", f32>
  %e = "ocannl_shape.einsum"(%h, %t) {spec = "...|v; d->v => ...|d"} : (!ocannl_shape.tensor<"?", f32>, !ocannl_shape.tensor<"24->50", f32>) -> !ocannl_shape.tensor<"?", f32>
  %p = "ocannl_shape.einsum"(%h, %y) {spec = "...|v; ...|v => ...|"} : (!ocannl_shape.tensor<"?", f32>, !ocannl_shape.tensor<"8|50", f32>) -> !ocannl_shape.tensor<"?", f32>
  return %e, %p : !ocannl_shape.tensor<"?", f32>, !ocannl_shape.tensor<"?", f32>
}
