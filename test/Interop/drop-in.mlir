// ocannl-opt is a drop-in mlir-opt: upstream-style inputs give exactly what
// stock mlir-opt (mlir-22-tools) gives, output and diagnostics alike.

// Canonicalize and CSE, as flags and as a textual pipeline:
// RUN: mlir-opt %S/Inputs/canonicalize.mlir --canonicalize > %t.stock
// RUN: ocannl-opt %S/Inputs/canonicalize.mlir --canonicalize > %t.ours
// RUN: diff %t.stock %t.ours
// RUN: mlir-opt %S/Inputs/cse.mlir --pass-pipeline='builtin.module(func.func(cse,canonicalize))' > %t.stock
// RUN: ocannl-opt %S/Inputs/cse.mlir --pass-pipeline='builtin.module(func.func(cse,canonicalize))' > %t.ours
// RUN: diff %t.stock %t.ours

// Passes anchored on func.func given as plain flags nest implicitly:
// RUN: mlir-opt %S/Inputs/func-anchored.mlir --affine-loop-invariant-code-motion --affine-scalrep --promote-buffers-to-stack --llvm-request-c-wrappers > %t.stock
// RUN: ocannl-opt %S/Inputs/func-anchored.mlir --affine-loop-invariant-code-motion --affine-scalrep --promote-buffers-to-stack --llvm-request-c-wrappers > %t.ours
// RUN: diff %t.stock %t.ours
// RUN: FileCheck %s --check-prefix=NESTED < %t.ours

// A pass option given on a flag reaches the pass as written:
// RUN: mlir-opt %S/Inputs/llvm.mlir --llvm-use-default-visibility=visibility=hidden --dump-pass-pipeline > %t.stock 2>&1
// RUN: ocannl-opt %S/Inputs/llvm.mlir --llvm-use-default-visibility=visibility=hidden --dump-pass-pipeline > %t.ours 2>&1
// RUN: diff %t.stock %t.ours
// RUN: FileCheck %s --check-prefix=VISIBILITY < %t.ours
// RUN: ocannl-opt %S/Inputs/llvm.mlir --llvm-use-default-visibility > %t.ours
// RUN: FileCheck %s --check-prefix=DEFAULT-VISIBILITY < %t.ours

// Diagnostics checked per chunk:
// RUN: mlir-opt %S/Inputs/invalid.mlir --split-input-file --verify-diagnostics > %t.stock
// RUN: ocannl-opt %S/Inputs/invalid.mlir --split-input-file --verify-diagnostics > %t.ours
// RUN: diff %t.stock %t.ours

// The same errors for pipelines stock rejects:
// RUN: not mlir-opt %S/Inputs/cse.mlir --pass-pipeline='func.func(cse)' > %t.stock 2>&1
// RUN: not ocannl-opt %S/Inputs/cse.mlir --pass-pipeline='func.func(cse)' > %t.ours 2>&1
// RUN: diff %t.stock %t.ours
// RUN: FileCheck %s --check-prefix=ANCHOR < %t.ours
// RUN: not mlir-opt %S/Inputs/cse.mlir --pass-pipeline='builtin.module(cse' > %t.stock 2>&1
// RUN: not ocannl-opt %S/Inputs/cse.mlir --pass-pipeline='builtin.module(cse' > %t.ours 2>&1
// RUN: diff %t.stock %t.ours
// RUN: not mlir-opt %S/Inputs/cse.mlir --pass-pipeline='builtin.module(cse)' --canonicalize > %t.stock 2>&1
// RUN: not ocannl-opt %S/Inputs/cse.mlir --pass-pipeline='builtin.module(cse)' --canonicalize > %t.ours 2>&1
// RUN: diff %t.stock %t.ours

// IR printing and the pipeline dump of upstream-only input are stock's
// (the project's verifier runs only on input that uses its dialects):
// RUN: mlir-opt %S/Inputs/cse.mlir --cse --mlir-print-ir-after-all --dump-pass-pipeline -o /dev/null > %t.stock 2>&1
// RUN: ocannl-opt %S/Inputs/cse.mlir --cse --mlir-print-ir-after-all --dump-pass-pipeline -o /dev/null > %t.ours 2>&1
// RUN: diff %t.stock %t.ours

// NESTED: func.func @licm{{.*}} attributes {llvm.emit_c_interface}
// NESTED-NEXT: arith.addf
// NESTED-NEXT: affine.for
// NESTED: func.func @scalrep
// NESTED: return %cst : f32
// NESTED: func.func @small_alloc
// NESTED-NOT: memref.alloc
// VISIBILITY: llvm-use-default-visibility{visibility=hidden}
// VISIBILITY: llvm.func hidden @g()
// DEFAULT-VISIBILITY: llvm.func @g()
// ANCHOR: error: can't run 'func.func' pass manager on 'builtin.module' op
