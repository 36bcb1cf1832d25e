// REQUIRES: plugin
// Stock mlir-opt 22 with the project's plugin (libocannl_mlir_plugin.so, one
// library for --load-dialect-plugin and --load-pass-plugin) prints exactly
// what ocannl-opt prints.
// RUN: mlir-opt --load-dialect-plugin=%plugin --load-pass-plugin=%plugin %s --pass-pipeline='builtin.module(ocannl-infer-shapes,ocannl-lower-to-assign,ocannl-lower-to-loops)' > %t.stock
// RUN: ocannl-opt %s --pass-pipeline='builtin.module(ocannl-infer-shapes,ocannl-lower-to-assign,ocannl-lower-to-loops)' > %t.ours
// RUN: diff %t.stock %t.ours
// RUN: FileCheck %s < %t.stock
// The named pipelines and pass options come with it:
// RUN: mlir-opt --load-dialect-plugin=%plugin --load-pass-plugin=%plugin %s --pass-pipeline='builtin.module(ocannl-to-llvm)' > %t.stock
// RUN: ocannl-opt %s --pass-pipeline='builtin.module(ocannl-to-llvm)' > %t.ours
// RUN: diff %t.stock %t.ours
// RUN: FileCheck %s --check-prefix=LLVM < %t.stock
// RUN: mlir-opt --load-dialect-plugin=%plugin --load-pass-plugin=%plugin %S/../Dialect/OcannlShape/InferShapes/explain.mlir --pass-pipeline='builtin.module(ocannl-infer-shapes{explain=true})' --verify-diagnostics -o /dev/null
// The e-graph simplifier, on upstream code:
// RUN: mlir-opt --load-pass-plugin=%plugin %S/../Transforms/Simplify/reassociate.mlir --pass-pipeline='builtin.module(ocannl-simplify{fast-math=true})' > %t.stock
// RUN: ocannl-opt %S/../Transforms/Simplify/reassociate.mlir --pass-pipeline='builtin.module(ocannl-simplify{fast-math=true})' > %t.ours
// RUN: diff %t.stock %t.ours
// RUN: FileCheck %S/../Transforms/Simplify/reassociate.mlir --check-prefix=FAST < %t.stock
// Kernel outlining, on upstream code (the kernels' names, hashes of their
// text, are the same in both tools):
// RUN: mlir-opt --load-pass-plugin=%plugin %S/../Transforms/OutlineKernels/names.mlir --split-input-file --pass-pipeline='builtin.module(ocannl-outline-kernels)' > %t.stock
// RUN: ocannl-opt %S/../Transforms/OutlineKernels/names.mlir --split-input-file --pass-pipeline='builtin.module(ocannl-outline-kernels)' > %t.ours
// RUN: diff %t.stock %t.ours
// RUN: FileCheck %S/../Transforms/OutlineKernels/names.mlir < %t.stock
// The dialects' verifier too (the same diagnostics as ocannl-opt):
// RUN: mlir-opt --load-dialect-plugin=%plugin %S/../Dialect/OcannlShape/invalid.mlir --split-input-file --verify-diagnostics -o /dev/null
// RUN: mlir-opt --load-dialect-plugin=%plugin %S/../Dialect/OcannlAssign/invalid.mlir --split-input-file --verify-diagnostics -o /dev/null
// The plugin's passes are listed by --help:
// RUN: mlir-opt --load-pass-plugin=%plugin --help | FileCheck %s --check-prefix=HELP

// CHECK-LABEL: func.func @layer
// CHECK: memref.alloc
// CHECK: scf.for
// CHECK-NOT: ocannl_shape.
// CHECK-NOT: ocannl_assign.
// LLVM: llvm.func @layer
// LLVM-NOT: ocannl_shape.
// LLVM-NOT: ocannl_assign.
// HELP: --ocannl-infer-shapes
// HELP: --ocannl-to-llvm
func.func @layer(%w: !ocannl_shape.tensor<"3->4", f32>, %x: !ocannl_shape.tensor<"2|3", f32>) -> !ocannl_shape.tensor<"?", f32> {
  %b = "ocannl_shape.param"() {name = "b"} : () -> !ocannl_shape.tensor<"4", f32>
  %h = "ocannl_shape.compose"(%w, %x) : (!ocannl_shape.tensor<"3->4", f32>, !ocannl_shape.tensor<"2|3", f32>) -> !ocannl_shape.tensor<"?", f32>
  %y = "ocannl_shape.pointwise_binary"(%h, %b) {op = "add"} : (!ocannl_shape.tensor<"?", f32>, !ocannl_shape.tensor<"4", f32>) -> !ocannl_shape.tensor<"?", f32>
  %r = "ocannl_shape.pointwise_unary"(%y) {op = "relu"} : (!ocannl_shape.tensor<"?", f32>) -> !ocannl_shape.tensor<"?", f32>
  return %r : !ocannl_shape.tensor<"?", f32>
}
