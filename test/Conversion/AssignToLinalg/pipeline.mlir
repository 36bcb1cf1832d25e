// The named pipeline ocannl-to-linalg, from ocannl_shape: shape inference,
// assignments, the optimizations (the relu is inlined into its reader, a
// virtual node), then linalg on tensors. The plugin gives stock mlir-opt the
// same pipeline, with the same output; stock mlir-opt without the plugin
// reads the result.
// RUN: ocannl-opt %s --ocannl-to-linalg > %t.mlir
// RUN: FileCheck %s < %t.mlir
// RUN: mlir-opt %t.mlir | FileCheck %s
// RUN: ocannl-opt %s --pass-pipeline='builtin.module(ocannl-to-linalg)' | diff %t.mlir -
// RUN: %if plugin %{ mlir-opt --load-dialect-plugin=%plugin --load-pass-plugin=%plugin %s --pass-pipeline='builtin.module(ocannl-to-linalg)' | diff %t.mlir - %}
// RUN: ocannl-opt --help | FileCheck %s --check-prefix=HELP

// CHECK-LABEL: func.func @f(%arg0: tensor<2x3xf32>, %arg1: tensor<3xf32>) -> tensor<2x1xf32>
// CHECK: %[[F:.*]] = linalg.fill
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%arg0, %arg1 : tensor<2x3xf32>, tensor<3xf32>) outs(%[[F]] : tensor<2x1xf32>)
// CHECK: arith.addf
// CHECK: arith.maximumf
// CHECK: arith.addf
// CHECK-NOT: linalg.generic
// CHECK: return

// HELP: --ocannl-lower-to-linalg
// HELP-NEXT: --named-ops
// HELP: --ocannl-to-linalg
func.func @f(%a: !ocannl_shape.tensor<"2|3", f32>, %b: !ocannl_shape.tensor<"3", f32>) -> !ocannl_shape.tensor<"?", f32> {
  %s = "ocannl_shape.pointwise_binary"(%a, %b) {op = "add"} : (!ocannl_shape.tensor<"2|3", f32>, !ocannl_shape.tensor<"3", f32>) -> !ocannl_shape.tensor<"?", f32>
  %r = "ocannl_shape.pointwise_unary"(%s) {op = "relu"} : (!ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  %t = "ocannl_shape.einsum"(%r) {spec = "...|...->... => ...|0"} : (!ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  return %t : !ocannl_shape.tensor<"?", f32>
}
