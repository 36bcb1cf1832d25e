// The two-moons MLP of the demo (api/examples/moons.rs), as the ocannl crate
// prints it: @loss is the hinge loss on a batch of 10, @forward the network
// on a grid of points. Trained by scripts/example.sh; the tools run it:
//   ocannl-opt examples/moons.mlir --pass-pipeline="$(cat examples/train-pipeline.txt)"
//   ocannl-run examples/moons.mlir --entry loss --grad-check --arg random:1 --arg random:2
func.func @loss(%x: !ocannl_shape.tensor<"10|2", f32>, %y: !ocannl_shape.tensor<"10|1", f32>) -> (!ocannl_shape.tensor<"?", f32>) {
  %t1 = "ocannl_shape.constant"() {value = 1.00000000000000000e0 : f32} : () -> !ocannl_shape.tensor<"?", f32>
  %t2 = "ocannl_shape.param"() {name = "b3"} : () -> !ocannl_shape.tensor<"...->1", f32>
  %t3 = "ocannl_shape.param"() {name = "w3"} : () -> !ocannl_shape.tensor<"...->1", f32>
  %t4 = "ocannl_shape.param"() {name = "b2"} : () -> !ocannl_shape.tensor<"...->16", f32>
  %t5 = "ocannl_shape.param"() {name = "w2"} : () -> !ocannl_shape.tensor<"?", f32>
  %t6 = "ocannl_shape.param"() {name = "b1"} : () -> !ocannl_shape.tensor<"...->16", f32>
  %t7 = "ocannl_shape.param"() {name = "w1"} : () -> !ocannl_shape.tensor<"?", f32>
  %t8 = "ocannl_shape.compose"(%t7, %x) : (!ocannl_shape.tensor<"?", f32>, !ocannl_shape.tensor<"10|2", f32>) -> !ocannl_shape.tensor<"?", f32>
  %t9 = "ocannl_shape.pointwise_binary"(%t6, %t8) {op = "add"} : (!ocannl_shape.tensor<"...->16", f32>, !ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  %t10 = "ocannl_shape.pointwise_unary"(%t9) {op = "relu"} : (!ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  %t11 = "ocannl_shape.compose"(%t5, %t10) : (!ocannl_shape.tensor<"?", f32>, !ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  %t12 = "ocannl_shape.pointwise_binary"(%t4, %t11) {op = "add"} : (!ocannl_shape.tensor<"...->16", f32>, !ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  %t13 = "ocannl_shape.pointwise_unary"(%t12) {op = "relu"} : (!ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  %t14 = "ocannl_shape.compose"(%t3, %t13) : (!ocannl_shape.tensor<"...->1", f32>, !ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  %t15 = "ocannl_shape.pointwise_binary"(%t2, %t14) {op = "add"} : (!ocannl_shape.tensor<"...->1", f32>, !ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  %t16 = "ocannl_shape.pointwise_binary"(%y, %t15) {op = "mul"} : (!ocannl_shape.tensor<"10|1", f32>, !ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  %t17 = "ocannl_shape.pointwise_binary"(%t1, %t16) {op = "sub"} : (!ocannl_shape.tensor<"?", f32>, !ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  %t18 = "ocannl_shape.pointwise_unary"(%t17) {op = "relu"} : (!ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  %t19 = "ocannl_shape.einsum"(%t18) {spec = "...|...->... => 0"} : (!ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  %t20 = "ocannl_shape.constant"() {value = 1.00000000000000006e-1 : f32} : () -> !ocannl_shape.tensor<"?", f32>
  %t21 = "ocannl_shape.pointwise_binary"(%t19, %t20) {op = "mul"} : (!ocannl_shape.tensor<"?", f32>, !ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  return %t21 : !ocannl_shape.tensor<"?", f32>
}
func.func @forward(%points: !ocannl_shape.tensor<"2592|2", f32>) -> (!ocannl_shape.tensor<"?", f32>) {
  %t1 = "ocannl_shape.param"() {name = "b3"} : () -> !ocannl_shape.tensor<"...->1", f32>
  %t2 = "ocannl_shape.param"() {name = "w3"} : () -> !ocannl_shape.tensor<"...->1", f32>
  %t3 = "ocannl_shape.param"() {name = "b2"} : () -> !ocannl_shape.tensor<"...->16", f32>
  %t4 = "ocannl_shape.param"() {name = "w2"} : () -> !ocannl_shape.tensor<"?", f32>
  %t5 = "ocannl_shape.param"() {name = "b1"} : () -> !ocannl_shape.tensor<"...->16", f32>
  %t6 = "ocannl_shape.param"() {name = "w1"} : () -> !ocannl_shape.tensor<"?", f32>
  %t7 = "ocannl_shape.compose"(%t6, %points) : (!ocannl_shape.tensor<"?", f32>, !ocannl_shape.tensor<"2592|2", f32>) -> !ocannl_shape.tensor<"?", f32>
  %t8 = "ocannl_shape.pointwise_binary"(%t5, %t7) {op = "add"} : (!ocannl_shape.tensor<"...->16", f32>, !ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  %t9 = "ocannl_shape.pointwise_unary"(%t8) {op = "relu"} : (!ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  %t10 = "ocannl_shape.compose"(%t4, %t9) : (!ocannl_shape.tensor<"?", f32>, !ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  %t11 = "ocannl_shape.pointwise_binary"(%t3, %t10) {op = "add"} : (!ocannl_shape.tensor<"...->16", f32>, !ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  %t12 = "ocannl_shape.pointwise_unary"(%t11) {op = "relu"} : (!ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  %t13 = "ocannl_shape.compose"(%t2, %t12) : (!ocannl_shape.tensor<"...->1", f32>, !ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  %t14 = "ocannl_shape.pointwise_binary"(%t1, %t13) {op = "add"} : (!ocannl_shape.tensor<"...->1", f32>, !ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  return %t14 : !ocannl_shape.tensor<"?", f32>
}
