// A project pass and upstream passes, nested anchors included, in one
// textual pipeline; IR printing after every pass.
// RUN: ocannl-opt %s --pass-pipeline='builtin.module(ocannl-infer-shapes,func.func(canonicalize,cse))' --mlir-print-ir-after-all 2>&1 >/dev/null | FileCheck %s --check-prefix=DUMP
// RUN: ocannl-opt %s --pass-pipeline='builtin.module(ocannl-infer-shapes,func.func(canonicalize,cse))' | FileCheck %s
// The same with the shorthand flags, and printing before each pass:
// RUN: ocannl-opt %s --ocannl-infer-shapes --cse --mlir-print-ir-before-all 2>&1 >/dev/null | FileCheck %s --check-prefix=BEFORE

// The pipeline runs as written (the dialects' verifier checks the input as it
// is parsed, and the IR after every pass).
// DUMP-NOT: OcannlVerify
// DUMP: IR Dump After OcannlInferShapes (ocannl-infer-shapes)
// DUMP: "ocannl_shape.compose"{{.*}} -> !ocannl_shape.tensor<"10|4", f32>
// DUMP: IR Dump After Canonicalizer (canonicalize)
// DUMP: IR Dump After CSE (cse)

// BEFORE: IR Dump Before OcannlInferShapes (ocannl-infer-shapes)
// BEFORE: -> !ocannl_shape.tensor<"?", f32>
// BEFORE: IR Dump Before CSE (cse)

// Shapes inferred, duplicate constants merged by canonicalize and CSE.
// CHECK-LABEL: func.func @f
// CHECK-SAME: -> (!ocannl_shape.tensor<"10|4", f32>, index, index)
// CHECK-NEXT: %[[C:.*]] = arith.constant 3 : index
// CHECK-NEXT: "ocannl_shape.compose"{{.*}} -> !ocannl_shape.tensor<"10|4", f32>
// CHECK-NEXT: return %{{.*}}, %[[C]], %[[C]]
func.func @f(%w: !ocannl_shape.tensor<"3->4", f32>, %x: !ocannl_shape.tensor<"10|3", f32>) -> (!ocannl_shape.tensor<"?", f32>, index, index) {
  %a = arith.constant 3 : index
  %y = "ocannl_shape.compose"(%w, %x) : (!ocannl_shape.tensor<"3->4", f32>, !ocannl_shape.tensor<"10|3", f32>) -> !ocannl_shape.tensor<"?", f32>
  %b = arith.constant 3 : index
  return %y, %a, %b : !ocannl_shape.tensor<"?", f32>, index, index
}
