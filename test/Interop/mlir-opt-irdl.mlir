// Stock mlir-opt (mlir-22-tools) loads the project's dialect files and parses,
// verifies and round-trips the project's test inputs: other MLIR toolchains
// can use the dialects without the project's binaries.

// RUN: mlir-opt --irdl-file=%shape_irdl %S/../Dialect/OcannlShape/ops.mlir | mlir-opt --irdl-file=%shape_irdl | FileCheck %s --check-prefix=SHAPE
// RUN: mlir-opt --irdl-file=%assign_irdl %S/../Dialect/OcannlAssign/ops.mlir | FileCheck %s --check-prefix=ASSIGN
// RUN: mlir-opt --irdl-file=%shape_irdl %s --split-input-file --verify-diagnostics
// The project's driver prints the same IR as stock mlir-opt:
// RUN: mlir-opt --irdl-file=%shape_irdl %S/../Dialect/OcannlShape/ops.mlir > %t.stock
// RUN: ocannl-opt %S/../Dialect/OcannlShape/ops.mlir > %t.ours
// RUN: diff %t.stock %t.ours

// SHAPE: "ocannl_shape.param"() {name = "w"} : () -> !ocannl_shape.tensor<"...->8", f32>
// SHAPE: "ocannl_shape.einsum"(%{{.*}}, %{{.*}}) {spec = "i->j; b|i => b|j"}
// SHAPE: "ocannl_shape.batch_slice"
// ASSIGN: "ocannl_assign.accum_binop"
// ASSIGN-SAME: initialize_neutral = true

// IRDL-level checks hold under stock mlir-opt as well:

func.func @arity(%x: !ocannl_shape.tensor<"3", f32>) {
  // expected-error@+1 {{op expects exactly 2 operands, but got 1}}
  %r = "ocannl_shape.compose"(%x) : (!ocannl_shape.tensor<"3", f32>) -> !ocannl_shape.tensor<"?", f32>
  return
}

// -----

func.func @element_type() {
  // expected-error@+1 {{'i32' does not satisfy the constraint}}
  %w = "ocannl_shape.param"() {name = "w"} : () -> !ocannl_shape.tensor<"4", i32>
  return
}
