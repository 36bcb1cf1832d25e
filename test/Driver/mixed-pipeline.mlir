// A project pass and upstream passes, nested anchors included, in one
// textual pipeline; IR printing after every pass.
// RUN: ocannl-opt %s --pass-pipeline='builtin.module(ocannl-verify,func.func(canonicalize,cse))' --mlir-print-ir-after-all 2>&1 >/dev/null | FileCheck %s --check-prefix=DUMP
// RUN: ocannl-opt %s --pass-pipeline='builtin.module(ocannl-verify,func.func(canonicalize,cse))' | FileCheck %s
// And the same with the shorthand flags:
// RUN: ocannl-opt %s --ocannl-verify --cse | FileCheck %s --check-prefix=FLAGS

// The verifier always runs first, then the pipeline as written.
// DUMP: IR Dump After OcannlVerify (ocannl-verify)
// DUMP: IR Dump After OcannlVerify (ocannl-verify)
// DUMP: IR Dump After Canonicalizer (canonicalize)
// DUMP: IR Dump After CSE (cse)
// CHECK-LABEL: func.func @f
// CHECK-NEXT: %[[C:.*]] = arith.constant 3 : index
// CHECK-NEXT: return %[[C]], %[[C]]

// FLAGS-LABEL: func.func @f
// FLAGS: %[[C:.*]] = arith.constant 3 : index
// FLAGS-NOT: arith.constant
// FLAGS: return %[[C]], %[[C]]
func.func @f() -> (index, index) {
  %a = arith.constant 3 : index
  %b = arith.constant 3 : index
  return %a, %b : index, index
}
