// RUN: ocannl-opt %s | ocannl-opt | FileCheck %s
// RUN: ocannl-opt %s --mlir-print-op-generic | ocannl-opt | FileCheck %s

// Every op of ocannl_shape round-trips through the printer and the parser.

// CHECK-LABEL: func.func @terminals
func.func @terminals() {
  // CHECK: "ocannl_shape.param"() {name = "w"} : () -> !ocannl_shape.tensor<"...->8", f32>
  %w = "ocannl_shape.param"() {name = "w"} : () -> !ocannl_shape.tensor<"...->8", f32>
  // CHECK: "ocannl_shape.param"() {name = "b"} : () -> !ocannl_shape.tensor<"?", bf16>
  %b = "ocannl_shape.param"() {name = "b"} : () -> !ocannl_shape.tensor<"?", bf16>
  // CHECK: "ocannl_shape.constant"() {value = 2.500000e+00 : f32} : () -> !ocannl_shape.tensor<"1", f32>
  %c = "ocannl_shape.constant"() {value = 2.5 : f32} : () -> !ocannl_shape.tensor<"1", f32>
  // CHECK: "ocannl_shape.constant"() {value = dense<[1.000000e+00, 2.000000e+00, 3.000000e+00]> : tensor<3xf64>} : () -> !ocannl_shape.tensor<"rgb=3", f64>
  %d = "ocannl_shape.constant"() {value = dense<[1.0, 2.0, 3.0]> : tensor<3xf64>} : () -> !ocannl_shape.tensor<"rgb=3", f64>
  return
}

// CHECK-LABEL: func.func @pointwise
// CHECK-SAME: (%[[X:.*]]: !ocannl_shape.tensor<"2,3|4->5", f32>, %[[Y:.*]]: !ocannl_shape.tensor<"5", f32>)
func.func @pointwise(%x: !ocannl_shape.tensor<"2,3|4->5", f32>, %y: !ocannl_shape.tensor<"5", f32>) {
  // CHECK: "ocannl_shape.pointwise_unary"(%[[X]]) {op = "relu"}
  %r = "ocannl_shape.pointwise_unary"(%x) {op = "relu"} : (!ocannl_shape.tensor<"2,3|4->5", f32>) -> !ocannl_shape.tensor<"?", f32>
  // CHECK: "ocannl_shape.pointwise_binary"(%[[X]], %[[Y]]) {op = "add"}
  %s = "ocannl_shape.pointwise_binary"(%x, %y) {op = "add"} : (!ocannl_shape.tensor<"2,3|4->5", f32>, !ocannl_shape.tensor<"5", f32>) -> !ocannl_shape.tensor<"?", f32>
  // CHECK: "ocannl_shape.pointwise_ternary"(%[[X]], %[[Y]], %[[Y]]) {op = "where"}
  %t = "ocannl_shape.pointwise_ternary"(%x, %y, %y) {op = "where"} : (!ocannl_shape.tensor<"2,3|4->5", f32>, !ocannl_shape.tensor<"5", f32>, !ocannl_shape.tensor<"5", f32>) -> !ocannl_shape.tensor<"?", f32>
  return
}

// CHECK-LABEL: func.func @contractions
func.func @contractions(%a: !ocannl_shape.tensor<"3->4", f32>, %b: !ocannl_shape.tensor<"10|3", f32>) {
  // CHECK: "ocannl_shape.compose"(%{{.*}}, %{{.*}}) : (!ocannl_shape.tensor<"3->4", f32>, !ocannl_shape.tensor<"10|3", f32>) -> !ocannl_shape.tensor<"10|4", f32>
  %m = "ocannl_shape.compose"(%a, %b) : (!ocannl_shape.tensor<"3->4", f32>, !ocannl_shape.tensor<"10|3", f32>) -> !ocannl_shape.tensor<"10|4", f32>
  // CHECK: "ocannl_shape.compose"(%{{.*}}, %{{.*}}) {accum = "max", op = "add"}
  %t = "ocannl_shape.compose"(%a, %b) {op = "add", accum = "max"} : (!ocannl_shape.tensor<"3->4", f32>, !ocannl_shape.tensor<"10|3", f32>) -> !ocannl_shape.tensor<"?", f32>
  // CHECK: "ocannl_shape.einsum"(%{{.*}}, %{{.*}}) {spec = "i->j; b|i => b|j"}
  %e2 = "ocannl_shape.einsum"(%a, %b) {spec = "i->j; b|i => b|j"} : (!ocannl_shape.tensor<"3->4", f32>, !ocannl_shape.tensor<"10|3", f32>) -> !ocannl_shape.tensor<"?", f32>
  // CHECK: "ocannl_shape.einsum"(%{{.*}}) {accum = "max", spec = "...|... => 0"}
  %e1 = "ocannl_shape.einsum"(%b) {spec = "...|... => 0", accum = "max"} : (!ocannl_shape.tensor<"10|3", f32>) -> !ocannl_shape.tensor<"1", f32>
  return
}

// CHECK-LABEL: func.func @rearrangements
func.func @rearrangements(%a: !ocannl_shape.tensor<"7,2|3->4", f32>, %i: index) {
  // CHECK: "ocannl_shape.transpose"(%{{.*}}) : (!ocannl_shape.tensor<"7,2|3->4", f32>) -> !ocannl_shape.tensor<"7,2|4->3", f32>
  %t = "ocannl_shape.transpose"(%a) : (!ocannl_shape.tensor<"7,2|3->4", f32>) -> !ocannl_shape.tensor<"7,2|4->3", f32>
  // CHECK: "ocannl_shape.batch_slice"(%{{.*}}, %{{.*}}) : (!ocannl_shape.tensor<"7,2|3->4", f32>, index) -> !ocannl_shape.tensor<"2|3->4", f32>
  %s = "ocannl_shape.batch_slice"(%a, %i) : (!ocannl_shape.tensor<"7,2|3->4", f32>, index) -> !ocannl_shape.tensor<"2|3->4", f32>
  return
}
