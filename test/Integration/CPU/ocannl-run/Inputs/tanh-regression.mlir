func.func @loss(%x: !ocannl_shape.tensor<"4|3", f32>, %y: !ocannl_shape.tensor<"4|1", f32>) -> !ocannl_shape.tensor<"?", f32> {
  %w = "ocannl_shape.param"() {name = "w"} : () -> !ocannl_shape.tensor<"...->1", f32>
  %b = "ocannl_shape.param"() {name = "b"} : () -> !ocannl_shape.tensor<"1", f32>
  %h = "ocannl_shape.compose"(%w, %x) : (!ocannl_shape.tensor<"...->1", f32>, !ocannl_shape.tensor<"4|3", f32>) -> !ocannl_shape.tensor<"?", f32>
  %z = "ocannl_shape.pointwise_binary"(%h, %b) {op = "add"} : (!ocannl_shape.tensor<"?", f32>, !ocannl_shape.tensor<"1", f32>) -> !ocannl_shape.tensor<"?", f32>
  %t = "ocannl_shape.pointwise_unary"(%z) {op = "tanh"} : (!ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  %d = "ocannl_shape.pointwise_binary"(%t, %y) {op = "sub"} : (!ocannl_shape.tensor<"?", f32>, !ocannl_shape.tensor<"4|1", f32>) -> !ocannl_shape.tensor<"?", f32>
  %l = "ocannl_shape.einsum"(%d, %d) {spec = "...|i; ...|i => 0"} : (!ocannl_shape.tensor<"?", f32>, !ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  return %l : !ocannl_shape.tensor<"?", f32>
}
