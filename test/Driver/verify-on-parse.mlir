// The dialects' verifier runs whenever MLIR verifies IR: a malformed op is
// reported as the input is parsed, before any pass, and the pipeline is
// exactly the one asked for (no pass is added to it).
// RUN: not ocannl-opt %s --split-input-file 2>&1 | FileCheck %s
// RUN: ocannl-opt %S/../Dialect/OcannlShape/ops.mlir --ocannl-infer-shapes --llvm-request-c-wrappers --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=FLAGS
// RUN: ocannl-opt %S/../Dialect/OcannlShape/ops.mlir --pass-pipeline='builtin.module(ocannl-infer-shapes{explain=true},func.func(cse))' --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=TEXT
// The pass ocannl-verify runs the same checks on request:
// RUN: ocannl-opt %S/../Dialect/OcannlShape/ops.mlir --ocannl-verify -o /dev/null

// CHECK: verify-on-parse.mlir:[[@LINE+2]]:8: error: 'ocannl_shape.compose' op has an unknown attribute 'acum' (did you mean 'accum'?)
func.func @misspelled(%x: !ocannl_shape.tensor<"3", f32>) {
  %r = "ocannl_shape.compose"(%x, %x) {acum = "max"} : (!ocannl_shape.tensor<"3", f32>, !ocannl_shape.tensor<"3", f32>) -> !ocannl_shape.tensor<"?", f32>
  return
}

// -----

// CHECK: verify-on-parse.mlir:[[@LINE+2]]:8: error: 'ocannl_shape.pointwise_binary' op attribute 'op' must be one of the binary ops {{.*}} but got "sbu" (did you mean "sub"?)
func.func @misspelled_value(%x: !ocannl_shape.tensor<"3", f32>) {
  %r = "ocannl_shape.pointwise_binary"(%x, %x) {op = "sbu"} : (!ocannl_shape.tensor<"3", f32>, !ocannl_shape.tensor<"3", f32>) -> !ocannl_shape.tensor<"?", f32>
  return
}

// FLAGS: Pass Manager with 2 passes:
// FLAGS-NEXT: builtin.module(
// FLAGS-NEXT: ocannl-infer-shapes{explain=false},
// FLAGS-NEXT: func.func(
// FLAGS-NEXT: llvm-request-c-wrappers

// TEXT: Pass Manager with 2 passes:
// TEXT-NEXT: builtin.module(
// TEXT-NEXT: ocannl-infer-shapes{explain=true},
// TEXT-NEXT: func.func(
// TEXT-NEXT: cse
