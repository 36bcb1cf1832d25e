// The GPU self-check's embedding train step (scripts/gpu-selfcheck-bundle.sh):
// ids (repeated, one out of range) looked up in a table param (a gather;
// its gradient a scatter-add, two ids adding into one row), projected to
// logits, and a cross-entropy of targets (a pick; its gradient a scatter
// from zero).
func.func @loss(%g: !ocannl_shape.tensor<"8|16", f32>) -> !ocannl_shape.tensor<"?", f32> {
  %ids = "ocannl_shape.constant"() {value = dense<[[3.0], [0.0], [9.0], [3.0], [12.0], [5.0], [3.0], [1.0]]> : tensor<8x1xf32>} : () -> !ocannl_shape.tensor<"8|1", f32>
  %targets = "ocannl_shape.constant"() {value = dense<[[1.0], [4.0], [0.0], [9.0], [2.0], [2.0], [7.0], [3.0]]> : tensor<8x1xf32>} : () -> !ocannl_shape.tensor<"8|1", f32>
  %classes = "ocannl_shape.constant"() {value = dense<[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0]> : tensor<10xf32>} : () -> !ocannl_shape.tensor<"10", f32>
  %t = "ocannl_shape.param"() {name = "t"} : () -> !ocannl_shape.tensor<"16->10", f32>
  %w = "ocannl_shape.param"() {name = "w"} : () -> !ocannl_shape.tensor<"16->10", f32>
  %h = "ocannl_shape.pointwise_binary"(%ids, %classes) {op = "eq"} : (!ocannl_shape.tensor<"8|1", f32>, !ocannl_shape.tensor<"10", f32>) -> !ocannl_shape.tensor<"?", f32>
  %y = "ocannl_shape.pointwise_binary"(%targets, %classes) {op = "eq"} : (!ocannl_shape.tensor<"8|1", f32>, !ocannl_shape.tensor<"10", f32>) -> !ocannl_shape.tensor<"?", f32>
  %e = "ocannl_shape.einsum"(%h, %t) {spec = "...|v; d->v => ...|d"} : (!ocannl_shape.tensor<"?", f32>, !ocannl_shape.tensor<"16->10", f32>) -> !ocannl_shape.tensor<"?", f32>
  %x = "ocannl_shape.pointwise_binary"(%e, %g) {op = "add"} : (!ocannl_shape.tensor<"?", f32>, !ocannl_shape.tensor<"8|16", f32>) -> !ocannl_shape.tensor<"?", f32>
  %logits = "ocannl_shape.compose"(%w, %x) : (!ocannl_shape.tensor<"16->10", f32>, !ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  %m = "ocannl_shape.einsum"(%logits) {spec = "...|v => ...|0", accum = "max"} : (!ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  %s = "ocannl_shape.pointwise_binary"(%logits, %m) {op = "sub"} : (!ocannl_shape.tensor<"?", f32>, !ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  %ex = "ocannl_shape.pointwise_unary"(%s) {op = "exp"} : (!ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  %z = "ocannl_shape.einsum"(%ex) {spec = "...|v => ...|0"} : (!ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  %lz = "ocannl_shape.pointwise_unary"(%z) {op = "log"} : (!ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  %logp = "ocannl_shape.pointwise_binary"(%s, %lz) {op = "sub"} : (!ocannl_shape.tensor<"?", f32>, !ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  %p = "ocannl_shape.einsum"(%y, %logp) {spec = "...|v; ...|v => ...|"} : (!ocannl_shape.tensor<"?", f32>, !ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  %l = "ocannl_shape.einsum"(%p) {spec = "... => 0"} : (!ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  %n = "ocannl_shape.pointwise_unary"(%l) {op = "neg"} : (!ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  return %n : !ocannl_shape.tensor<"?", f32>
}
