// The project's verifier runs first on input that uses the project's
// dialects, and the pipeline dump shows it; pass flags nest implicitly after
// it, a textual pipeline follows it as written.
// RUN: ocannl-opt %s --ocannl-infer-shapes --llvm-request-c-wrappers --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=FLAGS
// RUN: ocannl-opt %s --pass-pipeline='builtin.module(ocannl-infer-shapes{explain=true},func.func(cse))' --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=TEXT
// RUN: not ocannl-opt %s --pass-pipeline='func.func(cse)' 2>&1 | FileCheck %s --check-prefix=ANCHOR

// FLAGS: Pass Manager with 3 passes:
// FLAGS-NEXT: builtin.module(
// FLAGS-NEXT: ocannl-verify,
// FLAGS-NEXT: ocannl-infer-shapes{explain=false},
// FLAGS-NEXT: func.func(
// FLAGS-NEXT: llvm-request-c-wrappers

// TEXT: Pass Manager with 3 passes:
// TEXT-NEXT: builtin.module(
// TEXT-NEXT: ocannl-verify,
// TEXT-NEXT: ocannl-infer-shapes{explain=true},
// TEXT-NEXT: func.func(
// TEXT-NEXT: cse

// ANCHOR: error: can't run 'func.func' pass manager on 'builtin.module' op
func.func @f(%x: !ocannl_shape.tensor<"3", f32>) {
  return
}
