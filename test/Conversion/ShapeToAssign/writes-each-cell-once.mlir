// RUN: ocannl-opt %s --split-input-file --pass-pipeline='builtin.module(ocannl-infer-shapes,ocannl-lower-to-assign)' | FileCheck %s
// An assignment skips the neutral initialization of its result only when it
// writes every cell exactly once; a diagonal, a fixed index on an axis of
// several cells and a broadcast write leave cells it does not write, so the
// result is zeroed first.

// A diagonal: one iterator on both axes (the sizes match).
// CHECK: #[[DIAG:.*]] = affine_map<(d0) -> (d0, d0)>
// CHECK-LABEL: func.func @diagonal
// CHECK: "ocannl_assign.accum_unop"({{.*}}) {accum = "add", indexing_maps = [#[[DIAG]], #{{.*}}], initialize_neutral = true, op = "identity", space = array<i64: 3>}
func.func @diagonal(%x: !ocannl_shape.tensor<"3", f32>) -> !ocannl_shape.tensor<"?", f32> {
  %d = "ocannl_shape.einsum"(%x) {spec = "i=>ii"} : (!ocannl_shape.tensor<"3", f32>) -> !ocannl_shape.tensor<"?", f32>
  return %d : !ocannl_shape.tensor<"?", f32>
}

// -----

// A repeated index beside a plain one.
// CHECK: #[[REP:.*]] = affine_map<(d0, d1) -> (d0, d0, d1)>
// CHECK-LABEL: func.func @repeated
// CHECK: "ocannl_assign.accum_unop"({{.*}}) {accum = "add", indexing_maps = [#[[REP]], #{{.*}}], initialize_neutral = true, op = "identity", space = array<i64: 2, 3>}
func.func @repeated(%x: !ocannl_shape.tensor<"2,3", f32>) -> !ocannl_shape.tensor<"?", f32> {
  %d = "ocannl_shape.einsum"(%x) {spec = "ij=>iij"} : (!ocannl_shape.tensor<"2,3", f32>) -> !ocannl_shape.tensor<"?", f32>
  return %d : !ocannl_shape.tensor<"?", f32>
}

// -----

// A fixed index: only column 1 of the result is written.
// CHECK: #[[FIX:.*]] = affine_map<(d0) -> (d0, 1)>
// CHECK-LABEL: func.func @fixed
// CHECK: "ocannl_assign.accum_unop"({{.*}}) {accum = "add", indexing_maps = [#[[FIX]], #{{.*}}], initialize_neutral = true, op = "identity", space = array<i64: 4>}
func.func @fixed(%x: !ocannl_shape.tensor<"4", f32>) -> !ocannl_shape.tensor<"4,3", f32> {
  %d = "ocannl_shape.einsum"(%x) {spec = "i=>i1"} : (!ocannl_shape.tensor<"4", f32>) -> !ocannl_shape.tensor<"4,3", f32>
  return %d : !ocannl_shape.tensor<"4,3", f32>
}

// -----

// A permutation writes every cell once: a plain assignment.
// CHECK-LABEL: func.func @permuted
// CHECK: "ocannl_assign.accum_unop"({{.*}}) {accum = "assign", indexing_maps = [#{{.*}}, #{{.*}}], op = "identity", space = array<i64: 3, 2>}
func.func @permuted(%x: !ocannl_shape.tensor<"2,3", f32>) -> !ocannl_shape.tensor<"?", f32> {
  %d = "ocannl_shape.einsum"(%x) {spec = "ij=>ji"} : (!ocannl_shape.tensor<"2,3", f32>) -> !ocannl_shape.tensor<"?", f32>
  return %d : !ocannl_shape.tensor<"?", f32>
}
