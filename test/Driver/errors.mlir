// Errors are located, printed as FILE:LINE:COL: error: ..., and exit with 1.
// The input is parsed (and verified) before the pipeline is built, so the
// pipeline errors are shown on a valid input.

// RUN: not ocannl-opt %s 2>&1 | FileCheck %s --check-prefix=PARSE
// RUN: not ocannl-opt %S/split-input-file.mlir --pass-pipeline='builtin.module(no-such-pass)' 2>&1 | FileCheck %s --check-prefix=PASS
// RUN: not ocannl-opt %S/split-input-file.mlir --pass-pipeline='builtin.module(func.func(canonicalize)' 2>&1 | FileCheck %s --check-prefix=PIPE
// RUN: not ocannl-opt %S/split-input-file.mlir --pass-pipeline='canonicalize' 2>&1 | FileCheck %s --check-prefix=ANCHOR
// RUN: not ocannl-opt %S/does-not-exist.mlir 2>&1 | FileCheck %s --check-prefix=NOFILE
// RUN: not ocannl-opt %S/split-input-file.mlir --pass-pipeline='builtin.module(ocannl-verify{frobnicate=1})' 2>&1 | FileCheck %s --check-prefix=OPT

// PARSE: errors.mlir:[[@LINE+2]]:{{[0-9]+}}: error: 'ocannl_shape.einsum' op invalid einsum spec: unexpected character '#' at position 1 in "i#=>i"
func.func @bad(%x: !ocannl_shape.tensor<"3", f32>) {
  %e = "ocannl_shape.einsum"(%x) {spec = "i#=>i"} : (!ocannl_shape.tensor<"3", f32>) -> !ocannl_shape.tensor<"?", f32>
  return
}
// PASS: 'no-such-pass' does not refer to a registered pass or pass pipeline
// PIPE: error: encountered unbalanced parentheses while parsing pipeline
// ANCHOR: error: expected pass pipeline to be wrapped with the anchor operation type
// NOFILE: cannot open input file '{{.*}}does-not-exist.mlir': No such file or directory
// OPT: no such option frobnicate
