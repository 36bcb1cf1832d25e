// RUN: ocannl-opt %s --split-input-file --ocannl-to-llvm | FileCheck %s
// RUN: ocannl-opt %s --split-input-file --ocannl-to-linalg | FileCheck %s --check-prefix=LINALG

// Programs whose convolutions read operands that inference left with an
// axis of size 1 (a constant, a reduction to one cell): they lower through
// every stage (the broadcast axis read at index 0, docs/dialects.md).

// CHECK-LABEL: llvm.func @g(
// LINALG-LABEL: func.func @g(
func.func @g(%x0: !ocannl_shape.tensor<"4|16", f32>) -> !ocannl_shape.tensor<"?", f32> {
  %v0 = "ocannl_shape.transpose"(%x0) : (!ocannl_shape.tensor<"4|16", f32>) -> !ocannl_shape.tensor<"?", f32>
  %v1 = "ocannl_shape.einsum"(%v0, %v0) {spec = "i;j=>ij"} : (!ocannl_shape.tensor<"?", f32>, !ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  %v2 = "ocannl_shape.pointwise_unary"(%x0) {op = "identity"} : (!ocannl_shape.tensor<"4|16", f32>) -> !ocannl_shape.tensor<"?", f32>
  %v3 = "ocannl_shape.transpose"(%v0) : (!ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  %v4 = "ocannl_shape.constant"() {value = 1.5 : f32} : () -> !ocannl_shape.tensor<"?", f32>
  %v5 = "ocannl_shape.einsum"(%v1, %v2) {spec = "o<+k; k => o"} : (!ocannl_shape.tensor<"?", f32>, !ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  %v6 = "ocannl_shape.einsum"(%x0) {spec = "b|i->o => o|b->i"} : (!ocannl_shape.tensor<"4|16", f32>) -> !ocannl_shape.tensor<"?", f32>
  %v7 = "ocannl_shape.pointwise_ternary"(%v2, %v3, %v1) {op = "where"} : (!ocannl_shape.tensor<"?", f32>, !ocannl_shape.tensor<"?", f32>, !ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  %v8 = "ocannl_shape.pointwise_unary"(%v4) {op = "sin"} : (!ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  %v9 = "ocannl_shape.pointwise_unary"(%v2) {op = "tanh"} : (!ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  %v10 = "ocannl_shape.einsum"(%v1) {spec = "...|... => ...|0"} : (!ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  %v11 = "ocannl_shape.pointwise_unary"(%v5) {op = "not"} : (!ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  %v12 = "ocannl_shape.constant"() {value = 1.5 : f32} : () -> !ocannl_shape.tensor<"?", f32>
  return %v12 : !ocannl_shape.tensor<"?", f32>
}

// -----

// CHECK-LABEL: llvm.func @g(
// LINALG-LABEL: func.func @g(
func.func @g(%x0: !ocannl_shape.tensor<"33->2", f32>, %x1: !ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32> {
  %v0 = "ocannl_shape.compose"(%x1, %x1) : (!ocannl_shape.tensor<"?", f32>, !ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  %v1 = "ocannl_shape.einsum"(%v0) {spec = "...|... => ...|0"} : (!ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  %v2 = "ocannl_shape.pointwise_ternary"(%x1, %x0, %x1) {op = "fma"} : (!ocannl_shape.tensor<"?", f32>, !ocannl_shape.tensor<"33->2", f32>, !ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  %v3 = "ocannl_shape.pointwise_ternary"(%x1, %x0, %v0) {op = "fma"} : (!ocannl_shape.tensor<"?", f32>, !ocannl_shape.tensor<"33->2", f32>, !ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  %v4 = "ocannl_shape.constant"() {value = 1.5 : f32} : () -> !ocannl_shape.tensor<"?", f32>
  %v5 = "ocannl_shape.pointwise_binary"(%v2, %v1) {op = "add"} : (!ocannl_shape.tensor<"?", f32>, !ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  %v6 = "ocannl_shape.einsum"(%x1, %v5) {spec = "o<+k; k => o"} : (!ocannl_shape.tensor<"?", f32>, !ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  %v7 = "ocannl_shape.param"() {name = "p1"} : () -> !ocannl_shape.tensor<"?", f32>
  return %v7 : !ocannl_shape.tensor<"?", f32>
}

// -----

// CHECK-LABEL: llvm.func @g(
// LINALG-LABEL: func.func @g(
func.func @g(%x0: !ocannl_shape.tensor<"17,16", f32>) -> !ocannl_shape.tensor<"?", f32> {
  %v0 = "ocannl_shape.constant"() {value = -2.0 : f32} : () -> !ocannl_shape.tensor<"?", f32>
  %v1 = "ocannl_shape.einsum"(%x0) {spec = "...|... => ..."} : (!ocannl_shape.tensor<"17,16", f32>) -> !ocannl_shape.tensor<"?", f32>
  %v2 = "ocannl_shape.param"() {name = "p1"} : () -> !ocannl_shape.tensor<"...->2", f32>
  %v3 = "ocannl_shape.compose"(%v2, %x0) : (!ocannl_shape.tensor<"...->2", f32>, !ocannl_shape.tensor<"17,16", f32>) -> !ocannl_shape.tensor<"?", f32>
  %v4 = "ocannl_shape.transpose"(%v2) : (!ocannl_shape.tensor<"...->2", f32>) -> !ocannl_shape.tensor<"?", f32>
  %v5 = "ocannl_shape.einsum"(%v0, %v2) {spec = "...|o=+k; k => ...|o"} : (!ocannl_shape.tensor<"?", f32>, !ocannl_shape.tensor<"...->2", f32>) -> !ocannl_shape.tensor<"?", f32>
  %v6 = "ocannl_shape.constant"() {value = -2.0 : f32} : () -> !ocannl_shape.tensor<"?", f32>
  %v7 = "ocannl_shape.einsum"(%v1, %x0) {spec = "o<+k; k => o"} : (!ocannl_shape.tensor<"?", f32>, !ocannl_shape.tensor<"17,16", f32>) -> !ocannl_shape.tensor<"?", f32>
  %v8 = "ocannl_shape.pointwise_unary"(%v6) {op = "tanh"} : (!ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  return %v8 : !ocannl_shape.tensor<"?", f32>
}
