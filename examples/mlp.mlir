// A two-layer perceptron in the ocannl_shape dialect, as OCANNL writes it:
//   let%op mlp x = "w2" * relu ("b1" 16 + "w1" * x)
// The hidden size is given once (b1's output row); every other dimension of
// the params is inferred from their uses.
func.func @mlp(%x: !ocannl_shape.tensor<"32|10", f32>) -> !ocannl_shape.tensor<"?", f32> {
  %w1 = "ocannl_shape.param"() {name = "w1"} : () -> !ocannl_shape.tensor<"?", f32>
  %b1 = "ocannl_shape.param"() {name = "b1"} : () -> !ocannl_shape.tensor<"16", f32>
  %w2 = "ocannl_shape.param"() {name = "w2"} : () -> !ocannl_shape.tensor<"...->1", f32>
  %h0 = "ocannl_shape.compose"(%w1, %x) : (!ocannl_shape.tensor<"?", f32>, !ocannl_shape.tensor<"32|10", f32>) -> !ocannl_shape.tensor<"?", f32>
  %h1 = "ocannl_shape.pointwise_binary"(%b1, %h0) {op = "add"} : (!ocannl_shape.tensor<"16", f32>, !ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  %h = "ocannl_shape.pointwise_unary"(%h1) {op = "relu"} : (!ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  %y = "ocannl_shape.compose"(%w2, %h) : (!ocannl_shape.tensor<"...->1", f32>, !ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  return %y : !ocannl_shape.tensor<"?", f32>
}
