// RUN: ocannl-opt %s --split-input-file --ocannl-infer-shapes --ocannl-lower-to-assign --ocannl-virtualize -verify-diagnostics | FileCheck %s
// A tensor expression pins its node's memory mode with the discardable
// attribute `ocannl.memory`; ocannl-virtualize keeps it.

// CHECK-LABEL: func.func @pinned
// CHECK: memory = "local", memory_reason = "pinned local", name = "pointwise_1"
// CHECK: memory = "virtual", memory_reason = "inlined into 1 assignment", name = "pointwise_2"
func.func @pinned(%x: !ocannl_shape.tensor<"4", f32>) -> !ocannl_shape.tensor<"?", f32> {
  %a = "ocannl_shape.pointwise_unary"(%x) {op = "exp", ocannl.memory = "local"} : (!ocannl_shape.tensor<"4", f32>) -> !ocannl_shape.tensor<"?", f32>
  %b = "ocannl_shape.pointwise_unary"(%a) {op = "tanh"} : (!ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  %c = "ocannl_shape.pointwise_unary"(%b) {op = "neg"} : (!ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  return %c : !ocannl_shape.tensor<"?", f32>
}

// -----

func.func @bad_mode(%x: !ocannl_shape.tensor<"4", f32>) -> !ocannl_shape.tensor<"?", f32> {
  // expected-error@+1 {{attribute 'ocannl.memory' must be one of virtual, local, on_device, materialized, but got "cached"}}
  %a = "ocannl_shape.pointwise_unary"(%x) {op = "exp", ocannl.memory = "cached"} : (!ocannl_shape.tensor<"4", f32>) -> !ocannl_shape.tensor<"?", f32>
  return %a : !ocannl_shape.tensor<"?", f32>
}
