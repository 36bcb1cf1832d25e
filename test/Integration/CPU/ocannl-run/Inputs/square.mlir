func.func @sq(%a: !ocannl_shape.tensor<"2->2", f32>) -> !ocannl_shape.tensor<"?", f32> {
  %c = "ocannl_shape.compose"(%a, %a) : (!ocannl_shape.tensor<"2->2", f32>, !ocannl_shape.tensor<"2->2", f32>) -> !ocannl_shape.tensor<"?", f32>
  return %c : !ocannl_shape.tensor<"?", f32>
}
